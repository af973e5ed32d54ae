"""The dates `universe import` stores, and what a typed code's row says about them (the nineteenth session, trial c).

Run as a user runs them: ``universe import`` of a CSV into a private universe, then ``screen`` of typed codes. Each
case was a silent verdict before: the same file screened directly was flagged, the imported figures were not.

* a FY2024 annual ROE imported in December 2026 was dated by the import's day, so nothing aged it (no 数据过期);
* an ``as_of`` cell written ``2025/01/02`` was stored as written and never aged (a two-year-old PE-TTM read current);
* an ``as_of`` after today (a typo) was stored and read as the newest data, never aged, with no flag.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from screening.cli import main
from screening.data.freshness import FLAG_STALE, market_today
from screening.data.universe import Universe
from screening.models import NOTE_FUTURE_DATE, StockInput, is_doubt

HEADER = "code,name,industry,pe_ttm,roe,eps,net_profit_y1,net_profit_y2,report_date,as_of\n"


def _import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str,
            *args: str) -> tuple[int, str]:
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(tmp_path / "u.sqlite"))
    path = tmp_path / "mine.csv"
    path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    rc = main(["universe", "import", str(path), *args])
    return rc, capsys.readouterr().err


def _screen(capsys: pytest.CaptureFixture[str], *codes: str) -> dict[str, dict[str, object]]:
    capsys.readouterr()
    assert main(["screen", *codes, "--engine", "rules", "--format", "json"]) == 0
    return {str(r["code"]): r for r in json.loads(capsys.readouterr().out)}


def _flags(row: dict[str, object], prefix: str) -> list[str]:
    return [f for f in row["flags"] if f.startswith(prefix)]  # type: ignore[attr-defined]


def test_an_imported_old_annual_roe_is_dated_by_its_period_and_flagged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    today = market_today()
    old, current = today.year - 3, today.year - 1  # FY(year-3) is superseded for certain; FY(year-1) is not
    rc, err = _import(tmp_path, monkeypatch, capsys,
                      HEADER + f"601318.SH,中国平安,保险,9.0,12.1,4.7,8.5e10,8.0e10,{old}-12-31,\n"
                      f"600519.SH,贵州茅台,白酒,25.1,34.2,68.6,8.6e10,7.5e10,{current}年报,\n")
    assert rc == 0, err
    dates = Universe.load(tmp_path / "u.sqlite").field_dates("601318.SH")
    # as a refresh dates them (providers/records.put_fiscal_years): the year before's profit a year earlier
    assert (dates["roe"], dates["net_profit_y1"], dates["net_profit_y2"]) == (
        f"{old}-12-31", f"{old}-12-31", f"{old - 1}-12-31")
    rows = _screen(capsys, "601318", "600519")
    stale = [f for f in _flags(rows["601318.SH"], FLAG_STALE) if "ROE" in f]
    assert len(stale) == 1 and f"{old}-12-31 报告期" in stale[0]
    assert rows["601318.SH"]["sources"]["roe"] == f"universe:import@{old}-12-31"  # type: ignore[index]
    assert not [f for f in _flags(rows["600519.SH"], FLAG_STALE) if "ROE" in f]  # the last annual is current


def test_an_import_with_no_period_keeps_the_import_day(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    rc, err = _import(tmp_path, monkeypatch, capsys, HEADER + "000651.SZ,格力电器,家电,8.0,25.0,5.2,,,,\n",
                      "--as-of", "2026-12-04")
    assert rc == 0, err
    assert Universe.load(tmp_path / "u.sqlite").field_dates("000651.SZ")["roe"] == "2026-12-04"


def test_an_as_of_in_another_spelling_is_read_and_aged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    year = market_today().year - 2
    rc, err = _import(tmp_path, monkeypatch, capsys,
                      HEADER + f"600519.SH,贵州茅台,白酒,25.1,34.2,68.6,,,,{year}/01/02\n")
    assert rc == 0, err
    assert Universe.load(tmp_path / "u.sqlite").field_dates("600519.SH")["pe_ttm"] == f"{year}-01-02"
    row = _screen(capsys, "600519")["600519.SH"]
    assert row["data_date"] == f"{year}-01-02"
    assert any("行情 PE-TTM" in f for f in _flags(row, FLAG_STALE))


@pytest.mark.parametrize("as_of", ["last friday", "2026-13-01"])
def test_an_unreadable_as_of_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str], as_of: str) -> None:
    text = HEADER + "600519.SH,贵州茅台,白酒,25.1,34.2,68.6,,,,\n"
    rc, err = _import(tmp_path, monkeypatch, capsys, text, "--as-of", as_of)
    assert rc == 2 and f"--as-of '{as_of}' 不是日期" in err
    assert len(Universe.load(tmp_path / "u.sqlite")) == 0


def test_a_future_as_of_is_refused_on_its_row_and_as_an_option(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    today = market_today()
    ahead = (today + dt.timedelta(days=3)).isoformat()
    text = (HEADER + f"600036.SH,招商银行,银行,6.5,14.5,5.7,,,,{ahead}\n"
            f"600519.SH,贵州茅台,白酒,25.1,34.2,68.6,,,,{today.isoformat()}\n")
    rc, err = _import(tmp_path, monkeypatch, capsys, text)
    assert rc == 0 and f"第2行 (600036.SH): as_of {ahead} 晚于今天" in err
    assert "600036.SH" not in Universe.load(tmp_path / "u.sqlite")
    rc, err = _import(tmp_path, monkeypatch, capsys, text, "--as-of", ahead)
    assert rc == 2 and f"--as-of {ahead} 晚于今天" in err


def test_stored_dates_after_today_are_flagged_on_a_typed_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A universe an older version imported into (or any store) with a quote day after today: the row says so."""
    today = market_today()
    path = tmp_path / "u.sqlite"
    u = Universe.load(path)
    u.update([StockInput(code="600036.SH", name="招商银行", pe_ttm=6.5, roe=14.5, eps=5.7)],
             as_of=(today + dt.timedelta(days=3)).isoformat(), source="import:old.csv")
    u.save()
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(path))
    row = _screen(capsys, "600036")["600036.SH"]
    (flag,) = _flags(row, NOTE_FUTURE_DATE)
    assert "PE-TTM" in flag and f"晚于今天 ({today})" in flag and is_doubt(flag)


def test_a_stored_period_not_yet_over_is_flagged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """An annual ROE of the current year (its report cannot exist before the year is over) stored by an import."""
    today = market_today()
    path = tmp_path / "u.sqlite"
    u = Universe.load(path)
    u.update([StockInput(code="600036.SH", name="招商银行", pe_ttm=6.5, roe=14.5)], as_of=today.isoformat(),
             source="import:old.csv", periods_of=lambda _: {"roe": f"{today.year}-12-31"})
    u.save()
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(path))
    row = _screen(capsys, "600036")["600036.SH"]
    (flag,) = _flags(row, NOTE_FUTURE_DATE)
    assert f"ROE 为 {today.year}-12-31 报告期, 尚未结束" in flag


def test_an_imported_roe_with_no_period_says_so_on_a_typed_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """No 报告期 in the imported row: the ROE may be any year's or a quarter's cumulative one, and nothing ages it."""
    year = market_today().year - 1
    rc, err = _import(tmp_path, monkeypatch, capsys,
                      HEADER + "000651.SZ,格力电器,家电,8.0,25.0,5.2,,,,\n"
                      f"600519.SH,贵州茅台,白酒,25.1,34.2,68.6,,,{year}-12-31,\n", "--as-of", "2026-12-04")
    assert rc == 0, err
    rows = _screen(capsys, "000651", "600519")
    (flag,) = _flags(rows["000651.SZ"], "ROE报告期不明")
    assert "universe:import@2026-12-04" in flag and "报告期" in flag
    assert rows["000651.SZ"]["risk_level"] == "低"  # the verdict stands on the figure as given; the row says why doubt
    assert not _flags(rows["600519.SH"], "ROE报告期不明")
