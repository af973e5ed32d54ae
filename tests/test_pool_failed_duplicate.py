"""A code written twice whose first copy fails on a cell (ROE 'abc'): the second, readable copy is screened.

The eighteenth session's test (F13): row 2 failed on 'abc', then row 3 (the same stock, every figure readable)
failed as row 2's duplicate, so the file's stock got no verdict although the file held a good row for it. Now
only a row that reads claims its code; the failed row still fails naming its value, and says the stock was
screened on the other row; the screened row says a copy failed. When the copies' readable figures differ, the
failed copy's are a second reading of the stock, the worse verdict kept (pool_conflict, the twenty-first session),
as two readable copies with other figures are (test_duplicate_readings.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from screening.cli import main
from screening.models import NOTE_DUPLICATE_CONFLICT, is_doubt


def _screen(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> dict[int, dict[str, object]]:
    path = tmp_path / "dups.csv"
    path.write_text(text, encoding="utf-8")
    os.environ["SCREENER_UNIVERSE__PATH"] = str(tmp_path / "u.sqlite")
    try:
        rc = main(["screen", str(path), "--engine", "rules", "--format", "json"])
    finally:
        del os.environ["SCREENER_UNIVERSE__PATH"]
    out, _ = capsys.readouterr()
    assert rc == 0
    return {int(r["row"]): r for r in json.loads(out)}


def test_a_good_copy_below_a_failed_row_is_screened(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _screen(tmp_path, capsys, "代码,名称,市盈率(TTM),ROE(%)\n600519,贵州茅台,22.5,abc\n"
                                     "600519.SH,贵州茅台,22.5,34.2\n600519,贵州茅台,22.5,34.2\n")
    assert rows[2]["status"] == "failed" and "值 'abc'" in str(rows[2]["error"])
    assert "第 3 行是同一代码且可读取, 已改用该行" in str(rows[2]["error"])
    assert rows[3]["status"] == "ok" and rows[3]["risk_level"] == "低" and rows[3]["roe"] == 34.2
    assert rows[3]["flags"] == ["重复行: 第 2 行同一代码读取失败 (ROE(%) 值 'abc'), 按本行筛选"]
    assert not any(is_doubt(f) for f in rows[3]["flags"])  # type: ignore[attr-defined]
    assert "与第 3 行重复" in str(rows[4]["error"])  # a third copy is the screened row's duplicate


def test_a_failed_copy_with_other_figures_is_a_doubt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its readable figures are a second reading of the stock (data/pool_conflict.py, the twenty-first session: it
    was a failed row, the readable copy screened alone, 按本行筛选): one row, the worse verdict, both rows named."""
    rows = _screen(tmp_path, capsys, "代码,名称,市盈率(TTM),ROE(%)\n600519,贵州茅台,30,abc\n"
                                     "600519,贵州茅台,22.5,34.2\n")
    assert list(rows) == [3]
    flag, picked = rows[3]["flags"]  # type: ignore[misc]
    assert flag.startswith(NOTE_DUPLICATE_CONFLICT) and "PE-TTM 22.5 / 30" in flag and is_doubt(flag)
    assert "第 2 行读不出: ROE(%) 列的值不是数字 (值 'abc')" in flag and picked.startswith(NOTE_DUPLICATE_CONFLICT)


def test_an_index_row_is_not_a_failed_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """000001 上证指数 fails as an index, not on a cell: 平安银行 below it is screened with no note."""
    rows = _screen(tmp_path, capsys, "代码,名称,市盈率(TTM),ROE(%)\n000001,上证指数,1,1\n000001,平安银行,5.1,10.2\n")
    assert rows[3]["status"] == "ok" and rows[3]["flags"] == []
    assert "已改用该行" not in str(rows[2]["error"])
