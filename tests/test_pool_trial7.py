"""The pool-file trial of 2026-12-07 (s15/u1), its B and C findings: each case file's contents inline.

F1: trailing empty delimiters on every line made a good row (PE 18 before 总市值 520.3) fail as a split 18,520.3.
F2: of two i问财 ROE columns the quarter's was used when it came first. F7: two columns of one figure that
disagree on a row left nothing on the row. F5: 市盈率 merged over 动态 | TTM was read as a failed stock and
the TTM column never read. C: trailer and summary lines counted as failed stocks; 25.3倍 failed in a PE column;
(5.2) and 25. failed without saying what to write.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from screening.config import InputSettings
from screening.data.pool import read_pool
from screening.models import Pool, StockInput


def _pool(tmp_path: Path, text: str, name: str = "pool.csv", encoding: str = "utf-8") -> Pool:
    (tmp_path / name).write_bytes(text.encode(encoding))
    return read_pool(tmp_path / name, InputSettings())


def _stock(pool: Pool, index: int) -> StockInput:
    stock = pool.items[index].stock
    assert stock is not None, pool.items[index].error
    return stock


# c03_excel_trailing_commas.csv
EXCEL_TRAILING = ("代码,名称,市盈率(TTM),总市值(亿),ROE,,\n600519,贵州茅台,25,18400,34.2,,\n"
                  "000858,五粮液,18,520.3,24.1,,\n600036,招商银行,6.5,820,15.1,,\n")
# c01_ths_table.xls (同花顺: GBK tab text, every line ends in a tab)
THS_TRAILING_TAB = ("代码\t名称\t涨幅%\t现价\t市盈率(TTM)\t净资产收益率(%)\t所属行业\t\n"
                    "600519\t贵州茅台\t1.23%\t1466.50\t25.31\t34.19%\t白酒\t\n"
                    "000004\t*ST国华\t1%\t5\t120\t-30\t软件\t\n")


def test_trailing_empty_cells_on_every_line_are_no_split_number(tmp_path: Path) -> None:
    pool = _pool(tmp_path, EXCEL_TRAILING)
    assert not pool.failed_items
    assert (_stock(pool, 1).pe_ttm, _stock(pool, 1).roe) == (18.0, 24.1)
    assert _stock(pool, 1).market_cap == pytest.approx(520.3e8)
    ths = _pool(tmp_path, THS_TRAILING_TAB, "Table.xls", "gbk")
    assert not ths.failed_items and (_stock(ths, 1).price, _stock(ths, 1).pe_ttm) == (5.0, 120.0)


def test_a_split_number_still_fails_among_rows_that_all_end_in_empty_cells(tmp_path: Path) -> None:
    text = EXCEL_TRAILING + "600111,高估值样本,1,234.5,820,3.2,,\n"
    pool = _pool(tmp_path, text)
    bad = pool.items[-1]
    assert bad.stock is None and bad.error is not None and "被没有引号的千位分隔符拆成了两格" in bad.error.message
    assert len(pool.failed_items) == 1


# c09_iwencai_two_roe.csv
IWENCAI_TWO_ROE = ('股票代码,股票简称,"市盈率(pe,ttm)[20261204]","净资产收益率roe(加权,公布值)[20260930]",'
                   '"净资产收益率roe(加权,公布值)[20251231]"\n600519.SH,贵州茅台,25,26.5,34.2\n000858.SZ,五粮液,18,4.1,20\n')


def test_the_annual_roe_column_wins_over_a_quarters_that_comes_first(tmp_path: Path) -> None:
    pool = _pool(tmp_path, IWENCAI_TWO_ROE)
    wuliangye = _stock(pool, 1)
    assert wuliangye.roe == 20.0 and not any(n.startswith("ROE非年报") for n in wuliangye.notes)
    assert not any(n.startswith("两列不一致") for n in wuliangye.notes)  # two periods differ by nature
    said = " ".join(w.message for w in pool.warnings)
    assert "ROE取自年报列 '净资产收益率roe(加权,公布值)[20251231]'" in said and "忽略三季报列" in said


def test_two_columns_of_one_figure_that_disagree_flag_the_row_with_both_values(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "代码,名称,市盈率(TTM),净资产收益率,ROE\n600519,贵州茅台,25,3,20\n000858,五粮液,18,20,20\n")
    moutai, wuliangye = _stock(pool, 0), _stock(pool, 1)
    assert moutai.roe == 3.0
    assert ("两列不一致: 列 '净资产收益率' 为 3, 列 'ROE' 为 20 (都表示ROE); 按 '净资产收益率' 筛选, 请核对文件"
            in moutai.notes)
    assert not any(n.startswith("两列不一致") for n in wuliangye.notes)  # the same value twice is no conflict


def test_a_merged_name_over_its_qualifiers_is_one_header(tmp_path: Path) -> None:
    """c30_merged_pe_header.xlsx: 市盈率 merged over 动态 | TTM, 净资产收益率 over (%)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["代码", "名称", "市盈率", None, "净资产收益率"])
    ws.append([None, None, "动态", "TTM", "(%)"])
    for cells in ("A1:A2", "B1:B2", "C1:D1"):
        ws.merge_cells(cells)
    ws.append(["600519", "贵州茅台", 80, 25, 30])
    ws.append(["000858", "五粮液", 18, 60, 20])
    wb.save(tmp_path / "merged.xlsx")
    pool = read_pool(tmp_path / "merged.xlsx", InputSettings())
    assert len(pool.items) == 2 and not pool.failed_items
    assert (_stock(pool, 0).pe_ttm, _stock(pool, 0).pe_dynamic, _stock(pool, 0).roe) == (25.0, 80.0, 30.0)
    assert any("是表头的第二行" in w.message for w in pool.warnings)


def test_trailer_and_summary_lines_are_skipped_with_one_warning(tmp_path: Path) -> None:
    """c29_trailers.csv and the 平均 / 合计 rows of c14_em_csv_mixed.csv."""
    text = ("代码,名称,市盈率(TTM),ROE\n600519,贵州茅台,25,30\n平均,,15.6,17.7\n合计,,,\n000001,平安银行,5,10\n"
            "12345,合计,1,1\n共 2 条记录\n2026-12-04 15:00:00 导出\n以上数据仅供参考\n")
    pool = _pool(tmp_path, text)
    assert [i.row for i in pool.items] == [2, 5, 6]
    assert pool.items[2].stock is None  # a code-like first cell is a stock, and fails as one
    notes = [w for w in pool.warnings if "附注行或汇总行" in w.message]
    assert len(notes) == 1 and notes[0].row == 3
    assert all(f"第{r}行" in notes[0].message for r in (3, 4, 7, 8, 9))


def test_a_multiple_unit_in_a_pe_cell_is_read_and_bad_cells_say_what_to_write(tmp_path: Path) -> None:
    """c13_values.txt: 25.3倍 under 市盈率(TTM); (5.2) and 25. fail with a hint."""
    pool = _pool(tmp_path, "代码\t名称\t市盈率(TTM)\tROE\n600101\t乙\t25.3倍\t20\n600102\t丙\t(5.2)\t20\n"
                           "600119\t酉\t25.\t15\n600120\t戌\t25\t20倍\n", "values.txt", "gbk")
    assert _stock(pool, 0).pe_ttm == 25.3
    errors = [i.error.message if i.error else "" for i in pool.items[1:]]
    assert "若是负数请写成 -5.2" in errors[0] and "去掉末尾的小数点" in errors[1]
    assert "ROE 列的值不是数字" in errors[2]  # 倍 is a PE's unit, never a ROE's
