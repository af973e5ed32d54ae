"""`universe export` re-imports as old as it is (the nineteenth session, trial c, finding 6).

A refresh stores the last fiscal year's ROE and net profits beside the latest quarter's 报告期 (FY2025 ROE, 报告期
2026-09-30: providers/records.put_fiscal_years). The export wrote the 报告期 and no period for the ROE, so its import
read every annual ROE as a Q3 cumulative one and refused 6 rows of 7 (ROE非年报), screening the file flagged every row
the same, and a row whose ROE is older than its 报告期 implies was re-dated a year newer (its 数据过期 lost). Run as a
user runs them: a refresh-shaped store built through ``Universe.replace``, then ``universe export``, ``universe
import`` into an empty store and ``screen`` of typed codes, all through the CLI's entry point.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from screening.cli import main
from screening.data.freshness import FLAG_STALE, QUOTE_FIELDS, REPORT_FIELDS, market_today
from screening.data.late_report import FLAG_LATE_REPORT
from screening.data.pool_demo import DEMO_NOTE
from screening.data.providers.periods import disclosure_deadline, last_annual, periods_before, year_before
from screening.data.universe import SEED_AS_OF, Record, Universe, UniverseInfo
from screening.models import NOTE_QUARTER_ROE, StockInput, is_doubt

TODAY = market_today()
# the latest quarter whose reports are all out (never an annual: Q1's deadline is the annual's), as a refresh names it
LATEST = next(p for p in periods_before(TODAY, 8) if disclosure_deadline(p) < TODAY)
FY = last_annual(LATEST)
QUOTE = TODAY.isoformat()


def _record(code: str, name: str, pe: float | None, roe: float, profit: float, *, report: dt.date = LATEST,
            fy: dt.date = FY, text: str | None = None, st: bool | None = None, quote: str = QUOTE) -> Record:
    """One stock dated as a refresh dates it: quotes by the session, ROE and net profits by their fiscal years, EPS
    and the 报告期 by the latest report's period, the report text by its newest title."""
    stock = StockInput(code=code, name=name, industry="测试", pe_ttm=pe, roe=roe, eps=1.5, net_profit_y1=profit,
                       net_profit_y2=abs(profit) * 0.9, report_date=report.isoformat(),
                       price=10.0 if pe is not None else None, report_text=text, st=st)
    dates = {"name": quote, "industry": quote, "pe_ttm": quote, "price": quote, "st": quote, "roe": fy.isoformat(),
             "net_profit_y1": fy.isoformat(), "net_profit_y2": year_before(fy).isoformat(),
             "eps": report.isoformat(), "report_date": report.isoformat(), "report_text": quote}
    given = {f: d for f, d in dates.items() if getattr(stock, f) is not None}
    return Record(stock, dict.fromkeys(given, "akshare:test"), given, quote)


RECORDS = [
    _record("600519.SH", "贵州茅台", 22.5, 34.2, 8.6e10),
    _record("000858.SZ", "五粮液", 15.0, 24.0, 3.2e10),
    _record("600023.SH", "浙能电力", None, 10.0, 7e9),  # suspended: no quote that session
    _record("002594.SZ", "比亚迪", 30.0, 20.0, -4e9),  # a loss beside a positive ROE: 盈亏与ROE矛盾 both ways
    _record("600121.SH", "*ST郑煤", 8.0, 20.0, 1e9, st=True),
    _record("000333.SZ", "美的集团", 12.0, 22.0, 3e10, text=f"{QUOTE} 关于收到中国证监会《立案告知书》的公告"),
    # a ROE and net profit two fiscal years old beside an annual 报告期 (a report carried from an older refresh): the
    # 报告期 alone dated them a year newer on import, and their 数据过期 was gone
    _record("000001.SZ", "平安银行", 5.0, 11.0, 4e10, report=FY, fy=year_before(FY)),
]
CODES = [r.stock.code for r in RECORDS]
# What only a refresh can know: 财报滞后 reads the refresh's quote day (universe.info.trade_date); an imported store has
# none (its rows are dated one by one), so a late filer's row loses it on the way. Nothing else may differ.
REFRESH_ONLY = (FLAG_LATE_REPORT,)


@pytest.fixture()
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
           ) -> tuple[Path, Path, Path]:
    """(the refreshed store, its export, the empty store the export was imported into)."""
    refreshed, imported, export = tmp_path / "r.sqlite", tmp_path / "i.sqlite", tmp_path / "export.csv"
    info = UniverseInfo(provider="akshare", provider_version="test", trade_date=QUOTE, report_period=LATEST.isoformat(),
                        refreshed_at=f"{QUOTE}T16:00:00+08:00")
    Universe.load(refreshed).replace(RECORDS, info)
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(refreshed))
    assert main(["universe", "export", "--out", str(export)]) == 0
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(imported))
    capsys.readouterr()
    rc = main(["universe", "import", str(export)])
    err = capsys.readouterr().err
    assert rc == 0 and "未导入" not in err, err
    return refreshed, export, imported


def _screen(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], store: Path,
            *args: str) -> dict[str, dict[str, object]]:
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(store))
    capsys.readouterr()
    assert main(["screen", *args, "--engine", "rules", "--format", "json"]) == 0
    return {str(r["code"]): r for r in json.loads(capsys.readouterr().out)}


def test_an_export_imports_into_an_empty_store_figure_by_figure(stores: tuple[Path, Path, Path]) -> None:
    refreshed, _, imported = stores
    old, new = Universe.load(refreshed), Universe.load(imported)
    assert len(new) == len(RECORDS)
    for code in CODES:
        before, after = old.record(code), new.record(code)
        assert before is not None and after is not None
        assert after.stock.data() == before.stock.data(), code
        assert after.as_of == before.as_of == QUOTE
        for field in after.dates:  # the report figures by their own periods; the quotes by their session
            if field in REPORT_FIELDS | QUOTE_FIELDS:
                assert after.dates[field] == before.dates[field], (code, field)
        assert set(after.sources.values()) == {"import:export.csv"}


def test_a_typed_code_screens_the_same_on_the_imported_store(
        stores: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    refreshed, _, imported = stores
    before = _screen(monkeypatch, capsys, refreshed, *CODES)
    after = _screen(monkeypatch, capsys, imported, *CODES)
    for code in CODES:
        a, b = before[code], after[code]
        for key in ("risk_level", "score", "reason", "status", "fail_code", "pe_ttm", "roe", "data_date", "signals"):
            assert b[key] == a[key], (code, key)
        kept = [f for f in a["flags"] if not f.startswith(REFRESH_ONLY)]  # type: ignore[attr-defined]
        assert b["flags"] == kept, code
        # each figure as old as it was; its label says the import (and the report text its import's day)
        days = {f: s.rsplit("@", 1)[1] for f, s in a["sources"].items() if f != "report_text"}  # type: ignore[attr-defined]
        assert {f: s.rsplit("@", 1)[1] for f, s in b["sources"].items() if f in days} == days, code  # type: ignore[attr-defined]
    assert any(f.startswith(REFRESH_ONLY) for f in before["000001.SZ"]["flags"])  # type: ignore[attr-defined]
    assert any("ROE" in f and "数据过期" in f for f in after["000001.SZ"]["flags"])  # type: ignore[attr-defined]
    assert before["600519.SH"]["risk_level"] == "低" and before["000333.SZ"]["risk_level"] == "高"


def test_the_export_screened_as_a_pool_reads_each_roe_by_its_own_period(
        stores: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    _, export, _ = stores
    rows = _screen(monkeypatch, capsys, tmp_path / "empty.sqlite", str(export))
    assert set(rows) == set(CODES)
    for code, row in rows.items():
        assert not [f for f in row["flags"] if f.startswith(NOTE_QUARTER_ROE)], (code, row["flags"])  # type: ignore[attr-defined]
    assert rows["600519.SH"]["risk_level"] == "低" and rows["600519.SH"]["flags"] == []
    assert any("ROE" in f and "数据过期" in f for f in rows["000001.SZ"]["flags"])  # type: ignore[attr-defined]


@pytest.mark.parametrize("age", [0, 40])
def test_the_export_screened_as_a_pool_is_dated_as_its_typed_codes_are(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], age: int) -> None:
    """The export's ``as_of`` is its quotes' day (`universe import` dates them by it): screened as a pool, a quote of
    40 days ago was 低/100 with no 数据过期 and data_date null, where its typed code said both (2026-12-07)."""
    day = (TODAY - dt.timedelta(days=age)).isoformat()
    store, export = tmp_path / "r.sqlite", tmp_path / "export.csv"
    Universe.load(store).replace([_record("600519.SH", "贵州茅台", 22.5, 34.2, 8.6e10, quote=day)],
                                 UniverseInfo(provider="akshare", trade_date=day, report_period=LATEST.isoformat()))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(store))
    assert main(["universe", "export", "--out", str(export)]) == 0
    typed = _screen(monkeypatch, capsys, store, "600519")["600519.SH"]
    pooled = _screen(monkeypatch, capsys, tmp_path / "empty.sqlite", str(export))["600519.SH"]
    assert pooled["data_date"] == typed["data_date"] == day
    stale = [[f for f in row["flags"] if f.startswith(FLAG_STALE) and "行情" in f] for row in (typed, pooled)]  # type: ignore[attr-defined]
    assert stale[0] == stale[1] and len(stale[1]) == (1 if age else 0), stale
    if age:
        assert stale[1][0].startswith(f"{FLAG_STALE}: 行情 PE-TTM, 最新价 为 {day}")


def test_quotes_older_than_the_records_last_write_keep_their_day_through_the_export(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A ROE imported today on a record whose PE-TTM is 40 days old moves the record's ``as_of`` to today; the export
    wrote that as every row's ``as_of``, and import and pool alike dated the old PE-TTM today (no 数据过期)."""
    day = (TODAY - dt.timedelta(days=40)).isoformat()
    old = _record("600519.SH", "贵州茅台", 22.5, 34.2, 8.6e10, quote=day)
    store, export, imported = tmp_path / "r.sqlite", tmp_path / "export.csv", tmp_path / "i.sqlite"
    Universe.load(store).replace([Record(old.stock, old.sources, {**old.dates, "roe": FY.isoformat()}, QUOTE)],
                                 UniverseInfo(provider="akshare", trade_date=day, report_period=LATEST.isoformat()))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(store))
    assert main(["universe", "export", "--out", str(export)]) == 0
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(imported))
    assert main(["universe", "import", str(export)]) == 0
    rows = [_screen(monkeypatch, capsys, where, *args)["600519.SH"] for where, args in (
        (store, ("600519",)), (tmp_path / "empty.sqlite", (str(export),)), (imported, ("600519",)))]
    for row in rows:  # the store itself, the export screened as a pool, the store the export was imported into
        assert row["data_date"] == day, row
        assert any(f.startswith(f"{FLAG_STALE}: 行情") and day in f for f in row["flags"]), row  # type: ignore[attr-defined]


def test_the_demo_universe_exports_labelled_and_undated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Its seed day (1970-01-01) is no day of data: read as the quotes' day, every row said 数据过期 1970-01-01."""
    demo, export = tmp_path / "demo.sqlite", tmp_path / "export.csv"
    seed = _record("600519.SH", "贵州茅台", 22.5, 34.2, 8.6e10)
    Universe.load(demo).replace([Record(seed.stock, {}, {}, SEED_AS_OF)], UniverseInfo(provider="demo", demo=True))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(demo))
    assert main(["universe", "export", "--out", str(export)]) == 0
    (row,) = _screen(monkeypatch, capsys, tmp_path / "empty.sqlite", str(export)).values()
    assert row["data_date"] is None and row["flags"][0] == DEMO_NOTE  # type: ignore[index]
    assert SEED_AS_OF not in export.read_text(encoding="utf-8")
    assert main(["universe", "import", str(export)]) == 2 and "演示数据" in capsys.readouterr().err


HAND = "代码,名称,市盈率(TTM),ROE(%),报告期{}\n600519,贵州茅台,22.5,34.2,{}{}\n"


@pytest.mark.parametrize(("header", "report", "own", "quarter"), [
    ("", f"{LATEST}", "", True),  # no period column: read by the 报告期, as before
    (",ROE报告期", f"{LATEST}", f",{FY.year}年报", False),  # the ROE's own period says annual
    (",roe_period", f"{FY}", f",{LATEST}", True),  # and a quarter's ROE beside an annual 报告期 is flagged
    (",ROE报告期", f"{LATEST}", ",", True),  # an empty cell states nothing: the 报告期 decides
])
def test_a_roe_period_column_decides_whether_the_roe_is_a_quarters(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], header: str,
        report: str, own: str, quarter: bool) -> None:
    path = tmp_path / "mine.csv"
    path.write_text(HAND.format(header, report, own), encoding="utf-8")
    (row,) = _screen(monkeypatch, capsys, tmp_path / "u.sqlite", str(path)).values()
    flagged = [f for f in row["flags"] if f.startswith(NOTE_QUARTER_ROE)]  # type: ignore[attr-defined]
    assert bool(flagged) is quarter, row["flags"]
    assert len(flagged) <= 1


def test_a_period_cell_that_names_no_period_is_a_doubt_and_refused_on_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.csv"
    path.write_text(HAND.format(",ROE报告期", f"{FY}", ",去年"), encoding="utf-8")
    (row,) = _screen(monkeypatch, capsys, tmp_path / "u.sqlite", str(path)).values()
    (doubt,) = [f for f in row["flags"] if "ROE 的报告期未知" in f]  # type: ignore[attr-defined]
    assert is_doubt(doubt) and "'去年'" in doubt
    rc = main(["universe", "import", str(path)])
    assert rc == 2 and "ROE 的报告期未知" in capsys.readouterr().err
