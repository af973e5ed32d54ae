"""A file PE-TTM beside a local PE-TTM of the other sign (data/source_checks.pe_sign_conflict, the twentieth session).

A trial (2026-12-07, c43/c47): a file's PE-TTM of +18.0 beside the local -4265.0 screened 低 on the file's figure
with no word, a loss-maker passing as cheap. The file still wins; the row now says 数据存疑, naming both figures,
the local one's source and day, and which is newer. Run as a user runs them: ``universe import`` into a private
universe, then ``screen`` (or ``import``) of a pool file; the days come from market_today().
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from screening.cli import main
from screening.data.freshness import market_today
from screening.data.universe import Universe
from screening.models import FLAG_DATA_DOUBT

STORED = ("code,name,pe_ttm,roe,report_date\n000002.SZ,万科A,-4265.0,16.0,2025-12-31\n"
          "600519.SH,贵州茅台,22.5,34.2,2025-12-31\n300750.SZ,宁德时代,-8.0,22.5,2025-12-31\n")


def _day(days_ago: int) -> str:
    return (market_today() - dt.timedelta(days=days_ago)).isoformat()


@pytest.fixture
def universe_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[Path]:
    os.environ["SCREENER_UNIVERSE__PATH"] = str(tmp_path / "u.sqlite")
    (tmp_path / "stored.csv").write_text(STORED, encoding="utf-8")
    try:
        assert main(["universe", "import", str(tmp_path / "stored.csv"), "--as-of", _day(4)]) == 0
        capsys.readouterr()
        yield tmp_path / "u.sqlite"
    finally:
        del os.environ["SCREENER_UNIVERSE__PATH"]


def _screen(tmp_path: Path, capsys: pytest.CaptureFixture[str], pool: str, *extra: str) -> list[dict[str, object]]:
    (tmp_path / "pool.csv").write_text(pool, encoding="utf-8")
    assert main(["screen", str(tmp_path / "pool.csv"), "--engine", "rules", "--format", "json", *extra]) == 0
    return list(json.loads(capsys.readouterr().out))


def _doubts(row: dict[str, object]) -> list[str]:
    return [f for f in row["flags"] if f.startswith(FLAG_DATA_DOUBT) and "PE-TTM" in f]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("row", "said"), [
    # c43: +18.0 beside -4265.0; screened on the file's figure, visibly doubtful
    ("000002,万科A,18.0,16", ["文件的 PE-TTM 18 (盈利) 与本地数据 (import@{local}) 的 PE-TTM -4265 (亏损) 盈亏相反",
                            "文件未注明行情日期", "按文件的 18 筛选", "该列是否为 PE-TTM"]),
    ("600519,贵州茅台,-3.5,34.2", ["文件的 PE-TTM -3.5 (亏损) 与本地数据 (import@{local}) 的 PE-TTM 22.5 (盈利)"]),
    ("600519,贵州茅台,0,34.2", ["PE-TTM 0 (为0, 按亏损计)"]),  # zero is a loss, as the rules' PE≤0 reads it
    # the file's quote day, older or newer than the local one: which is newer is said, the flag stays
    ("000002,万科A,18.0,16,{old}", ["本地数据较新 (文件的行情日期 {old} 早于 {local}), 其间公司可能已转亏"]),
    ("000002,万科A,18.0,16,{new}", ["本地数据较旧 ({local} 早于文件的行情日期 {new}), 证据较弱, 其间公司可能已扭亏"]),
    ("000002,万科A,18.0,16,{local}", ["两者同为 {local} 的行情, 盈亏不应相反"]),
    ("300750,宁德时代,-2.0,22.5", []),  # same sign: no word
    ("000002,万科A,0,16", []),  # zero and a loss: the same side of the rule
    ("000002,万科A,,16", []),  # filled from the local data: that figure, nothing to compare
])
def test_a_file_pe_ttm_of_the_other_sign_is_doubtful(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      universe_path: Path, row: str, said: list[str]) -> None:
    days = {"local": _day(4), "old": _day(9), "new": _day(1)}
    header = "代码,名称,市盈率(TTM),净资产收益率" + (",日期" if row.count(",") == 4 else "")
    (out,) = _screen(tmp_path, capsys, f"{header}\n{row.format(**days)}\n")
    doubts = _doubts(out)
    assert len(doubts) == (1 if said else 0), doubts
    assert all(s.format(**days) in doubts[0] for s in said), doubts
    assert out["status"] == "ok" and (not said or out["pe_ttm"] == float(row.split(",")[2]))  # the file wins


def test_the_flag_is_counted_as_doubt_and_the_verdict_stands(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             universe_path: Path) -> None:
    (tmp_path / "pool.csv").write_text("代码,名称,市盈率(TTM),净资产收益率\n000002,万科A,18.0,16\n"
                                       "300750,宁德时代,-2.0,22.5\n", encoding="utf-8")
    assert main(["screen", str(tmp_path / "pool.csv"), "--engine", "rules"]) == 0
    out = capsys.readouterr().out
    assert "中 1 / 低 1" in out and "数据存疑 1" in out  # 000002 still 低 on the file's 18, and says so


def test_demo_data_is_no_yardstick(tmp_path: Path, capsys: pytest.CaptureFixture[str], universe_path: Path) -> None:
    # a row whose 数据来源 says 演示数据, against the real local data: its figures are invented, not compared
    (out,) = _screen(tmp_path, capsys, "代码,名称,市盈率(TTM),净资产收益率,数据来源\n000002,万科A,18.0,16,演示数据\n")
    assert "演示数据" in out["flags"] and not _doubts(out)  # type: ignore[operator]
    # the demo market: the file's PE of the other sign than the demo's own is not compared either
    (filled,) = _screen(tmp_path, capsys, "代码,名称,市盈率(TTM)\n600519,贵州茅台,\n", "--demo")
    demo_pe = float(filled["pe_ttm"])  # type: ignore[arg-type]
    (out,) = _screen(tmp_path, capsys, f"代码,名称,市盈率(TTM)\n600519,贵州茅台,{-demo_pe}\n", "--demo")
    assert out["pe_ttm"] == -demo_pe and not _doubts(out)


def test_import_refuses_a_row_whose_pe_ttm_the_local_sign_contradicts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], universe_path: Path) -> None:
    """As a 亏损 word beside a positive local PE is refused: stored, the file's +18 would replace the loss-maker's
    -4265 for every later screen, with no conflict left to flag."""
    (tmp_path / "pool.csv").write_text("代码,名称,市盈率(TTM),净资产收益率\n000002,万科A,18.0,16\n"
                                       "300750,宁德时代,-2.0,22.5\n", encoding="utf-8")
    assert main(["universe", "import", str(tmp_path / "pool.csv"), "--as-of", _day(0)]) == 0
    err = capsys.readouterr().err
    assert f"未导入 pool.csv, 第2行 (000002.SZ): {FLAG_DATA_DOUBT}: 文件的 PE-TTM 18 (盈利)" in err
    assert "改正文件后再导入" in err and "第3行" not in err
    stored = Universe.load(universe_path)
    assert {c: s.pe_ttm for c in ("000002.SZ", "300750.SZ") if (s := stored.get(c))} == {
        "000002.SZ": -4265.0, "300750.SZ": -2.0}
