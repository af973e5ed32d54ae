"""A copy of a code that cannot be read whole: a cell it cannot read, or cells a column shift moved
(data/pool_conflict.py, data/pool_shift.py; the twenty-first session).

Before, such a copy failed as a duplicate and the other row was screened, 按本行筛选 (the bad copy first too):
ST 否 / ROE 30.2 came back 低 beside a copy saying ST 是 / ROE 3.02 whose PE cell read 'abc'; a later copy whose
only difference was an unreadable cell left the screened row silent; and a shifted copy flagged the screened row
with values no column held (PE-TTM 25.1 / 1; ROE 30.2 / 466.5 from a split 1,466.50). Now the readable figures of
a copy are a reading as any other row's (its unreadable cells agreeing, as blanks do: a reading only ever raises
the risk), every unreadable cell is named, and a shifted copy, of which no figure is known, is named as a doubt
without invented values.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from screening.config import BatcherSettings, EngineSettings, InputSettings
from screening.data.pool import read_pool
from screening.engines.rules_engine import RulesEngine
from screening.models import NOTE_DUPLICATE_CONFLICT, Pool, is_doubt
from screening.screen.pipeline import Screener

HEADER = ["代码", "名称", "市盈率(TTM)", "ROE(%)", "ST"]
KIND = ["600519", "贵州茅台", "25.1", "30.2", "否"]


def _pool(path: Path, rows: list[list[str]]) -> Pool:
    if path.suffix == ".csv":
        path.write_text("\n".join(",".join(r) for r in [HEADER, *rows]) + "\n", encoding="utf-8")
    else:
        wb = openpyxl.Workbook()
        ws = wb.active
        assert ws is not None
        for row in [HEADER, *rows]:
            ws.append(row)
        wb.save(path)  # openpyxl saves no formula results: =C2*2 is a cell with no value to read
    return read_pool(path, InputSettings())


@pytest.mark.parametrize(("name", "bad", "said", "first"), [
    ("dup.csv", "abc", "市盈率(TTM) 列的值不是数字 (值 'abc')", False),
    ("dup.xlsx", "=C2*2", "(值 '=C2*2')", False),  # a formula no program computed: never evaluated here
    ("dup.csv", "abc", "市盈率(TTM) 列的值不是数字 (值 'abc')", True),  # the bad copy first (link_failed_copy)
])
def test_the_readable_figures_of_a_copy_with_a_bad_cell_are_a_reading(
        tmp_path: Path, name: str, bad: str, said: str, first: bool) -> None:
    copy = ["600519", "贵州茅台", bad, "3.02", "是"]
    pool = _pool(tmp_path / name, [copy, KIND] if first else [KIND, copy])
    (item,) = pool.items  # the copy is no failed row: its stock's row names it
    kept, other = (3, 2) if first else (2, 3)
    assert item.stock is not None and item.row == kept
    assert [(r, s.pe_ttm, s.roe, s.st) for r, s in item.readings] == [(other, 25.1, 3.02, True)]
    (note,) = [n for n in item.stock.notes if n.startswith(NOTE_DUPLICATE_CONFLICT)]
    assert said in note and f"第 {other} 行: ROE 30.2 / 3.02; ST 否 / 是); 第 {other} 行读不出: " in note
    assert f"该行的读数在此用第 {kept} 行的值; 两行都筛选, 按风险较高的一行评级" in note and is_doubt(note)
    (row,) = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(pool.items)
    assert (row.status, row.risk_level, row.row) == ("ok", "高", kept)  # before: 低, the ST 是 row never judged
    assert any(f.startswith(f"{NOTE_DUPLICATE_CONFLICT}: 按第 {other} 行评级") for f in row.flags)


def test_a_copy_whose_only_difference_is_a_bad_cell_is_named(tmp_path: Path) -> None:
    """Its readable figures agree: it stays a failed duplicate, and the screened row names the cell (as a failed
    first copy is named, pool_rows.link_failed_copy): before, the screened row said nothing of it."""
    kept, dup = _pool(tmp_path / "dup.csv", [KIND, ["600519", "贵州茅台", "25.1", "abc", "否"]]).items
    assert kept.stock is not None and dup.error is not None
    assert dup.error.message == "与第 2 行重复 (同一代码 600519.SH)"
    assert kept.stock.notes == [
        "重复行: 第 3 行同一代码, 读不出: ROE(%) 列的值不是数字 (值 'abc'); 其余数字与本行相同, 按本行筛选"]


SHIFTED = ["600519", "贵州茅台", "1", "466.50", "30.2", "否"]  # PE 1,466.50 unquoted: every cell after it moves


@pytest.mark.parametrize("first", [False, True])
def test_a_shifted_copy_is_named_without_invented_values(tmp_path: Path, first: bool) -> None:
    """No cell of a shifted row is under its header: it is no reading and nothing of it is compared; the screened
    row still carries the doubt (that the copy agrees cannot be known), naming the row. Shifted first, it claimed
    the code: the readable copy below it failed as its duplicate and the stock got no verdict at all."""
    other = ["000001", "平安银行", "5", "12", "否"]
    items = _pool(tmp_path / "dup.csv", [SHIFTED, other, KIND] if first else [KIND, other, SHIFTED]).items
    (shifted,) = [i for i in items if i.stock is None]
    (kept,) = [i for i in items if i.stock is not None and i.stock.code == "600519.SH"]
    assert kept.stock is not None and shifted.error is not None
    assert (kept.row, shifted.row) == ((4, 2) if first else (2, 4))
    assert kept.stock.notes == [f"{NOTE_DUPLICATE_CONFLICT}: 第 {shifted.row} 行同一代码, 该行错位 (比表头多出单元格), "
                                "其数字无从核对; 按本行筛选, 请核对文件"]
    assert "466.5 /" not in shifted.error.message and "/ 466.5" not in shifted.error.message  # no value compared
    assert shifted.error.message.endswith("第 4 行是同一代码且可读取, 已改用该行" if first else
                                          "(另有错误: 与第 2 行重复 (同一代码 600519.SH))")
