"""Two answers a user trial found wrong (the nineteenth session, trial c), run as a user runs them: the real CLI
(``screen``, ``digest``) against a universe shaped like a refresh's, written through ``Universe.replace``.

* A stock the last refresh saw leave the list (``UniverseInfo.left_list``), typed as a code, is told a refresh will
  not bring it back; the same stock as a pool file's row (``screen watch.csv``, ``digest --pool watch.csv``) was told
  to run ``universe refresh``: round in a circle. Both now say the same sentence (``unknown_codes.left_the_list``).
* ``"600519 五粮液"`` (a code and, right after it, another stock's name) screened two rows with no word that the pair
  did not agree; each row now carries 名称与代码不符 naming both, and neither row is dropped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from screening.cli import main
from screening.data.universe import Record, Universe, UniverseInfo
from screening.models import NOTE_NAME_CONFLICT, StockInput, is_doubt

GONE = "600087.SH"
DAY = "2026-12-04"
# what a typed 600087 has said since the refresh recorded it (test_wording_trial_s15), a file row now too
SAID = "2026-12-04 16:00 的刷新发现它已不在行情列表中, 可能已退市或换了代码, 再刷新也不会有"


def _record(code: str, name: str, pe: float, roe: float) -> Record:
    stock = StockInput(code=code, name=name, industry="测试", pe_ttm=pe, roe=roe, price=10.0, net_profit_y1=3e10,
                       net_profit_y2=2.8e10, report_date="2026-09-30")
    fields = ("name", "industry", "pe_ttm", "roe", "price", "net_profit_y1", "net_profit_y2", "report_date")
    return Record(stock, dict.fromkeys(fields, "akshare:test"), dict.fromkeys(fields, DAY), DAY)


@pytest.fixture
def universe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Universe:
    """Two stocks, and the refresh's record that 600087 left the list (as refresh.left_the_list stores it)."""
    path = tmp_path / "universe.sqlite"
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(path))
    u = Universe.load(path)
    u.replace([_record("600519.SH", "贵州茅台", 22.5, 34.2), _record("000858.SZ", "五粮液", 15.0, 24.0)],
              UniverseInfo(provider="akshare", trade_date=DAY, report_period="2026-09-30",
                           refreshed_at="2026-12-04T16:00:00+08:00", left_list=[GONE]))
    return u


def _screen(capsys: pytest.CaptureFixture[str], *inputs: str) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["screen", *inputs, "--engine", "rules", "--format", "json"]) == 0
    rows: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return rows


def _by_code(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(r["code"]): r for r in rows}


def _pool_file(tmp_path: Path) -> Path:
    path = tmp_path / "watch.csv"  # codes and names only: every figure comes from the local data
    path.write_text("代码,名称\n600519,贵州茅台\n600087,退市长油\n600000,浦发银行\n", encoding="utf-8")
    return path


def test_a_file_row_under_a_code_that_left_the_list_says_what_the_typed_code_says(
        universe: Universe, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    typed = _by_code(_screen(capsys, "600087"))[GONE]
    assert typed["status"] == "failed" and SAID in str(typed["error"])

    rows = _by_code(_screen(capsys, str(_pool_file(tmp_path))))
    gone = rows[GONE]
    assert gone["status"] == "failed" and SAID in str(gone["error"]), gone["error"]
    assert "universe refresh" not in str(gone["error"])  # was: 运行 `python -m screening universe refresh`
    assert rows["600519.SH"]["status"] == "ok"
    # a code the refresh never saw leave (an import of part of the market): a refresh may still bring it
    never = rows["600000.SH"]
    assert never["status"] == "failed" and "universe refresh" in str(never["error"]) and SAID not in str(never["error"])


def test_the_digest_of_a_pool_file_says_it_too(
        universe: Universe, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["digest", "--engine", "rules", "--format", "json", "--no-files", "--no-history",
                 "--pool", str(_pool_file(tmp_path))]) == 0
    failed = {str(r["code"]): r for r in json.loads(capsys.readouterr().out)["failed"]}
    assert SAID in str(failed[GONE]["error"]) and "universe refresh" not in str(failed[GONE]["error"])


@pytest.mark.parametrize("typed", ["600519 五粮液", "600519五粮液", "五粮液(600519)"])
def test_a_code_and_another_stocks_name_typed_together_flag_both_rows(
        universe: Universe, capsys: pytest.CaptureFixture[str], typed: str) -> None:
    rows = _by_code(_screen(capsys, typed))
    assert set(rows) == {"600519.SH", "000858.SZ"}  # neither is dropped: a list may mix codes and names
    for row in rows.values():
        notes = [f for f in row["flags"] if f.startswith(NOTE_NAME_CONFLICT)]  # type: ignore[attr-defined]
        assert row["status"] == "ok" and len(notes) == 1, row["flags"]
        assert "600519.SH 是 贵州茅台" in notes[0] and "五粮液 是 000858.SZ" in notes[0] and is_doubt(notes[0])


def test_a_code_and_its_own_name_stay_one_row_without_a_conflict(
        universe: Universe, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _screen(capsys, "600519 贵州茅台 000858 五粮液")
    assert [r["code"] for r in rows] == ["600519.SH", "000858.SZ"]
    assert not any(f.startswith(NOTE_NAME_CONFLICT) for r in rows for f in r["flags"])  # type: ignore[attr-defined]
    # a name after a name is no pair: 贵州茅台 五粮液 is a list of two
    assert not any(f.startswith(NOTE_NAME_CONFLICT) for r in _screen(capsys, "贵州茅台 五粮液")
                   for f in r["flags"])  # type: ignore[attr-defined]
