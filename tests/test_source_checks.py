"""A file's figures beside the local data's for the same stock (data/source_checks.py, the eighteenth session).

F8: a file ROE of 18% beside the stored two years of losses came back 高 (近两年连续亏损) at score 100 with no
flag, though the same contradiction within a file's own columns is flagged 盈亏与ROE矛盾. F9: a file ROE with no
period (12.0) silently replaced a stored FY2025 ROE of 34.2. The file still wins; each row now says so.
Run as a user runs them: ``universe import`` of a CSV into a private universe, then ``screen`` of a pool file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from screening.cli import main
from screening.models import FLAG_DATA_DOUBT, NOTE_SIGN_CONFLICT, is_doubt

STORED = ("code,name,industry,pe_ttm,roe,eps,net_profit_y1,net_profit_y2,report_date\n"
          "600519.SH,贵州茅台,白酒,22.5,34.2,68.6,86230000000,74730000000,2025-12-31\n"
          "300750.SZ,宁德时代,电池,24.8,22.5,11.6,50740000000,44120000000,2025-12-31\n"
          "000002.SZ,万科A,房地产,-4.2,-15.3,-4.0,-49500000000,-19000000000,2025-12-31\n")


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], pool: str) -> dict[str, dict[str, object]]:
    os.environ["SCREENER_UNIVERSE__PATH"] = str(tmp_path / "u.sqlite")
    try:
        stored = tmp_path / "stored.csv"
        stored.write_text(STORED, encoding="utf-8")
        assert main(["universe", "import", str(stored), "--as-of", "2026-11-20"]) == 0
        path = tmp_path / "pool.csv"
        path.write_text(pool, encoding="utf-8")
        capsys.readouterr()
        rc = main(["screen", str(path), "--engine", "rules", "--format", "json"])
    finally:
        del os.environ["SCREENER_UNIVERSE__PATH"]
    out, _ = capsys.readouterr()
    assert rc == 0
    return {str(r["code"]): r for r in json.loads(out)}


def _flags(row: dict[str, object], prefix: str) -> list[str]:
    return [f for f in row["flags"] if f.startswith(prefix)]  # type: ignore[attr-defined]


def test_a_file_roe_beside_stored_losses_is_a_contradiction(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _run(tmp_path, capsys, "代码,名称,市盈率(TTM),ROE(%)\n000002,万科A,10,18\n")
    row = rows["000002.SZ"]
    assert (row["risk_level"], row["roe"]) == ("高", 18.0)  # the verdict stands: the stored losses decide it
    (flag,) = _flags(row, NOTE_SIGN_CONFLICT)
    assert "文件的 ROE 18%" in flag and "本地数据 (import@2025-12-31)" in flag and "-495亿、-190亿" in flag
    assert is_doubt(flag)


def test_a_file_roe_with_no_period_far_from_the_stored_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _run(tmp_path, capsys, "代码,名称,市盈率(TTM),净资产收益率\n600519,贵州茅台,22.5,12.0\n"
                                  "300750,宁德时代,24.8,20.5\n")
    row = rows["600519.SH"]
    assert (row["risk_level"], row["roe"]) == ("中", 12.0)  # the file wins
    (flag,) = _flags(row, FLAG_DATA_DOUBT)
    assert "文件的 ROE 12% 未注明报告期" in flag and "2025-12-31 年报 ROE 为 34.2%" in flag and "22.2 个百分点" in flag
    assert _flags(rows["300750.SZ"], FLAG_DATA_DOUBT) == []  # 2 points from the stored 22.5: no note


def test_a_file_roe_with_its_period_or_agreeing_figures_is_not_compared(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _run(tmp_path, capsys, "代码,名称,市盈率(TTM),ROE(%),报告期\n600519,贵州茅台,22.5,12.0,2025-12-31\n"
                                  "300750,宁德时代,24.8,22.5,2025-12-31\n")
    assert all(not _flags(r, FLAG_DATA_DOUBT) and not _flags(r, NOTE_SIGN_CONFLICT) for r in rows.values())


@pytest.mark.parametrize("header", ["roe_period", "ROE报告期"])
def test_a_file_roe_with_its_own_period_column_is_not_said_to_have_none(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str) -> None:
    """A ROE dated by its own period column (what `universe export` writes) is not "未注明报告期" (it said so)."""
    rows = _run(tmp_path, capsys, f"代码,名称,市盈率(TTM),ROE(%),{header}\n600519,贵州茅台,22.5,12.0,2025-12-31\n")
    assert not [f for f in _flags(rows["600519.SH"], FLAG_DATA_DOUBT) if "未注明报告期" in f]


# A refresh's record as `universe export` writes it: ROE of FY2025, latest report 2026-09-30, the composed text
# naming the Q3 cumulative ROE
REFRESHED = ("code,name,pe_ttm,roe,eps,report_date,roe_period,report_text\n600519.SH,贵州茅台,22.5,34.2,50.1,"
             "2026-09-30,2025-12-31,2026年三季报（截至2026-09-30）：ROE（2026年三季报累计）26.10%。\n")


def _screen_refreshed(tmp_path: Path, capsys: pytest.CaptureFixture[str], pool_text: str) -> list[str]:
    stored = tmp_path / "refreshed.csv"
    stored.write_text(REFRESHED, encoding="utf-8")
    os.environ["SCREENER_UNIVERSE__PATH"] = str(tmp_path / "u.sqlite")
    try:
        assert main(["universe", "import", str(stored), "--as-of", "2026-11-20"]) == 0
        pool = tmp_path / "pool.csv"
        pool.write_text(pool_text, encoding="utf-8")
        capsys.readouterr()
        assert main(["screen", str(pool), "--engine", "rules", "--format", "json"]) == 0
    finally:
        del os.environ["SCREENER_UNIVERSE__PATH"]
    return [f for f in json.loads(capsys.readouterr().out)[0]["flags"] if f.startswith(FLAG_DATA_DOUBT)]


def test_the_stored_roe_is_named_by_its_own_period_not_the_latest_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The note called the FY2025 ROE "2026-09-30 三季报 ROE" (a trial, 2026-12-07), then advised the annual ROE it
    already was."""
    (flag,) = _screen_refreshed(tmp_path, capsys, "代码,名称,市盈率(TTM),净资产收益率\n600519,贵州茅台,22.5,0.342\n")
    assert "(import@2025-12-31) 的 2025-12-31 年报 ROE 为 34.2%" in flag and "三季报" not in flag.split("。")[0]


@pytest.mark.parametrize(("period", "doubt"), [
    ("", []),  # undated, equal to the stored annual ROE: said 文本ROE 26.1% vs 数据 34.2% on every such row
    (",2025年报", []),  # an annual ROE, the period written in words: the same
    (",2026三季报", ["数据存疑: 文本ROE 26.1% vs 数据 34.2%"]),  # a Q3 ROE the Q3 text contradicts: still said
])
def test_a_quarter_roe_in_the_local_text_is_no_yardstick_for_an_annual_or_undated_roe(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], period: str, doubt: list[str]) -> None:
    header = "代码,名称,市盈率(TTM),ROE(%)" + (",报告期" if period else "")
    flags = _screen_refreshed(tmp_path, capsys, f"{header}\n600519,贵州茅台,22.5,34.2{period}\n")
    assert [f for f in flags if "文本ROE" in f] == doubt
