"""Two exports pasted into one sheet: a second header further down, in another column order.

Read by the first header's columns, the rows under it swapped ROE and PE (招商银行 ROE 15.1 / PE 6.5 came back
中/54 on PE 15.1 / ROE 6.5, unflagged), and the header itself failed as a stock named 代码. The rows under a
header are read by its own columns; a header repeated as it was is skipped, with a warning, never a "stock".
"""

from __future__ import annotations

from pathlib import Path

import openpyxl

from screening.config import InputSettings
from screening.data.pool import read_pool

BLOCKS = ("代码,名称,市盈率(TTM),ROE\n600519,贵州茅台,25.31,34.19\n000001,平安银行,4.85,10.2\n\n"
          "代码,名称,ROE,市盈率(TTM)\n600036,招商银行,15.1,6.5\n000858,五粮液,24.1,18.2\n")


def test_rows_under_a_second_header_are_read_by_its_columns(tmp_path: Path) -> None:
    path = tmp_path / "pool.csv"
    path.write_text(BLOCKS, encoding="utf-8")
    pool = read_pool(path, InputSettings())
    got = {i.stock.code: (i.stock.pe_ttm, i.stock.roe, i.row) for i in pool.items if i.stock is not None}
    assert got == {"600519.SH": (25.31, 34.19, 2), "000001.SZ": (4.85, 10.2, 3),
                   "600036.SH": (6.5, 15.1, 6), "000858.SZ": (18.2, 24.1, 7)}
    assert len(pool.items) == 4 and not pool.failed_items  # the header is no stock
    assert [i.index for i in pool.items] == [0, 1, 2, 3]
    (warning,) = [w for w in pool.warnings if "另一张表的表头" in w.message]
    assert warning.row == 5 and "'ROE', '市盈率(TTM)'" in warning.message


def test_a_header_repeated_as_it_was_is_skipped_not_a_failed_stock(tmp_path: Path) -> None:
    path = tmp_path / "pool.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    for row in (["代码", "名称", "市盈率(TTM)", "ROE"], ["600519", "贵州茅台", 25.31, 34.19],
                ["代码", "名称", "市盈率(TTM)", "ROE"], ["600036", "招商银行", 6.5, 15.1]):
        ws.append(row)
    wb.save(path)
    pool = read_pool(path, InputSettings())
    assert [(i.stock.code, i.stock.pe_ttm, i.stock.roe) for i in pool.items if i.stock is not None] == [
        ("600519.SH", 25.31, 34.19), ("600036.SH", 6.5, 15.1)]
    assert not pool.failed_items
    assert any("重复的表头行" in w.message and w.row == 3 for w in pool.warnings)


def test_a_duplicate_across_the_two_blocks_still_fails_its_second_row(tmp_path: Path) -> None:
    path = tmp_path / "pool.csv"
    path.write_text(BLOCKS + "600519,贵州茅台,34.19,25.31\n", encoding="utf-8")
    pool = read_pool(path, InputSettings())
    (dup,) = pool.failed_items
    assert dup.row == 8 and dup.error is not None and "与第 2 行重复" in dup.error.message


def test_an_st_column_under_the_names_people_give_it_is_read(tmp_path: Path) -> None:
    """`ST状态` / `风险警示` / `是否为ST` ... were dropped without a word: an ST stock came back 低/100."""
    headers = ["ST状态", "风险警示", "是否为ST", "是否ST股", "ST标志", "ST股", "*ST", "特别处理", "是否风险警示",
               "ST/*ST", "ST(是/否)"]
    for header in headers:
        path = tmp_path / "pool.csv"
        path.write_text(f"代码,名称,市盈率(TTM),ROE,{header}\n600100,同方股份,25,30,是\n", encoding="utf-8")
        (item,) = read_pool(path, InputSettings()).items
        assert item.stock is not None and item.stock.st is True, header
