"""Headers as 东方财富 / 同花顺 / 通达信 exports write them (a trial of 2026-12-08, s22/jd): each case file inline.

A report column named with its period in words (ROE(2025年报), ROE(2026三季报)) fed nothing: every row failed for
want of an ROE. Two annual columns (i问财's [20241231] and [20251231]) screened on the older one. Two annual
net-profit columns a year apart lost the older one, so two years of losses screened 中. 同花顺's 净资产收益率ROE(%)
fed nothing, and a quote board's sort mark (代码↑, 市盈率(TTM)↓) refused the file or dropped the PE column.
"""

from __future__ import annotations

from pathlib import Path

from screening.data.pool_headers import header_stamp, map_header
from tests.test_pool_trial7 import _pool, _stock


def test_a_period_in_words_is_the_columns_stamp() -> None:
    assert (map_header("ROE(2025年报)")[0], header_stamp("ROE(2025年报)")) == ("roe", "20251231")
    assert header_stamp("净资产收益率(2026三季报)") == "20260930"
    assert header_stamp("净资产收益率(%)(2026年中报)") == "20260630"
    assert map_header("ROE(2025)")[0] is None  # a year alone names no period


# 东方财富: both PE columns, the quarter's ROE before the annual one
EASTMONEY = ("序号,代码,名称,最新价,市盈率(动),市盈率(TTM),ROE(2026三季报),ROE(2025年报)\n"
             "1,600519,贵州茅台,1466.5,20.1,22.5,26.1,34.2\n2,000725,京东方A,4.1,18.0,25.0,3.0,16.0\n")


def test_eastmoney_period_columns_screen_on_the_annual_roe_and_the_ttm_pe(tmp_path: Path) -> None:
    pool = _pool(tmp_path, EASTMONEY)
    assert not pool.failed_items
    boe = _stock(pool, 1)
    assert (boe.pe_ttm, boe.roe, boe.file_dates.get("roe")) == (25.0, 16.0, "2025-12-31")
    said = " ".join(w.message for w in pool.warnings)
    assert "ROE取自年报列 'ROE(2025年报)', 忽略三季报列 'ROE(2026三季报)'" in said


def test_a_quarters_roe_column_alone_is_read_and_flagged(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "代码,名称,市盈率(TTM),ROE(2026三季报)\n600519,贵州茅台,22.5,26.1\n")
    assert any(n.startswith("ROE非年报") for n in _stock(pool, 0).notes)


def test_of_two_annual_columns_the_later_year_feeds_the_figure(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "代码,名称,市盈率(TTM),净资产收益率[20241231],净资产收益率[20251231]\n"
                           "000725,京东方A,25.0,3.0,16.0\n")
    boe = _stock(pool, 0)
    assert (boe.roe, boe.file_dates.get("roe")) == (16.0, "2025-12-31")
    assert not any(n.startswith("两列不一致") for n in boe.notes)  # two years differ by nature
    said = " ".join(w.message for w in pool.warnings)
    assert "取自报告期较新的列 '净资产收益率[20251231]', 忽略报告期较早的列 '净资产收益率[20241231]'" in said


def test_two_annual_net_profits_a_year_apart_are_this_years_and_last_years(tmp_path: Path) -> None:
    for header in ("净利润(2025年报),净利润(2024年报)", "净利润(2024年报),净利润(2025年报)"):
        first, second = ("-5亿", "-3亿") if header.startswith("净利润(2025") else ("-3亿", "-5亿")
        pool = _pool(tmp_path, f"代码,名称,市盈率(TTM),{header},ROE\n600519,样本,22.5,{first},{second},6\n")
        stock = _stock(pool, 0)
        assert (stock.net_profit_y1, stock.net_profit_y2) == (-5e8, -3e8), header


def test_ths_roe_header_with_both_names_is_read(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "代码\t名称\t市盈率(pe,TTM)\t净资产收益率ROE(%)\nSH600519\t贵州茅台\t22.5\t34.2%\n",
                 "Table.xls", "gbk")
    assert (_stock(pool, 0).pe_ttm, _stock(pool, 0).roe) == (22.5, 34.2)


def test_a_sort_mark_after_a_header_is_no_part_of_it(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "代码↑\t名称\t市盈率(TTM)↓\t净资产收益率(%)\n600519\t贵州茅台\t22.5\t34.2\n", "t.txt")
    assert (_stock(pool, 0).pe_ttm, _stock(pool, 0).roe) == (22.5, 34.2)


def test_a_quote_cell_that_is_no_number_leaves_the_row_screened(tmp_path: Path) -> None:
    """通达信 text export: a title line, a 数据来源 trailer, and a word in the 涨跌幅 / 市净率 columns no rule reads."""
    pool = _pool(tmp_path, "板块: 自选股\n代码\t名称\t涨幅%\t市净率\t市盈(TTM)\t净资产收益率%\n"
                           "000725\t京东方A\t#VALUE!\t1.2\t25.0\t3.0\n600519\t贵州茅台\t1.2\t#VALUE!\t22.5\t34.2\n"
                           "000001\t平安银行\t暂无\t暂无\t5.0\t10.0\n数据来源:通达信\n", "tdx.txt", "gbk")
    assert len(pool.items) == 3 and not pool.failed_items
    said = "已忽略: 涨幅% 值 '#VALUE!': 涨幅% 列的值不是数字; 该列不参与评级, 本行照常筛选"
    assert _stock(pool, 0).roe == 3.0 and said in _stock(pool, 0).notes
    assert any(n.startswith("已忽略: 市净率 值 '#VALUE!'") for n in _stock(pool, 1).notes)
    assert not _stock(pool, 2).notes  # 暂无 is an empty cell (values.MISSING_MARKERS), as -- is: nothing to ignore


def test_a_cell_that_writes_its_own_unit_is_not_scaled_again_by_the_headers(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "代码,名称,市盈率(TTM),ROE,净利润(亿),上年净利润(万元),总市值(亿)\n"
                           "600519,贵州茅台,22.5,34.2,862.3亿,7473000,1.84万亿\n000725,京东方A,25,6,-5.2,-3.2亿,1500\n")
    moutai, boe = _stock(pool, 0), _stock(pool, 1)
    assert (moutai.net_profit_y1, moutai.net_profit_y2, moutai.market_cap) == (862.3e8, 7473000e4, 1.84e12)
    assert (boe.net_profit_y1, boe.net_profit_y2, boe.market_cap) == (-5.2e8, -3.2e8, 1500e8)


def test_of_two_quarters_columns_the_later_feeds_the_roe_and_is_flagged(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "代码,名称,市盈率(TTM),ROE(2026中报),ROE(2026三季报)\n600519,贵州茅台,22.5,16.1,26.1\n")
    assert _stock(pool, 0).roe == 26.1 and any(n.startswith("ROE非年报") for n in _stock(pool, 0).notes)
    said = " ".join(w.message for w in pool.warnings)
    assert "取自报告期较新的列 'ROE(2026三季报)'" in said and "年报列" not in said


def test_of_three_annual_net_profits_the_two_latest_are_read(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "代码,名称,市盈率(TTM),ROE,净利润(2023年报),净利润(2024年报),净利润(2025年报)\n"
                           "600519,样本,22.5,6,-1亿,-3亿,-5亿\n")
    stock = _stock(pool, 0)
    assert (stock.net_profit_y1, stock.net_profit_y2) == (-5e8, -3e8)
    assert "忽略报告期较早的列 '净利润(2023年报)'" in " ".join(w.message for w in pool.warnings)


def test_a_quarters_net_profit_is_no_fiscal_years(tmp_path: Path) -> None:
    for column in ("净利润(2026三季报)", "净利润[20260930]"):
        pool = _pool(tmp_path, f"代码,名称,市盈率(TTM),ROE,{column},上年净利润\n600519,样本,22.5,6,-1亿,-3亿\n")
        stock = _stock(pool, 0)
        assert (stock.net_profit_y1, stock.net_profit_y2) == (None, -3e8), column
        assert f"列 {column!r} 是三季报的累计值, 不是全年的净利润" in " ".join(w.message for w in pool.warnings)


def test_a_quarters_roe_column_names_its_period_on_the_row(tmp_path: Path) -> None:
    """The row (its JSON flags) says which period its ROE is of, as a 报告期 column's row does: 2026-09-30 (三季报)."""
    for header in ("ROE(2026三季报)", "净资产收益率[20260930]"):
        notes = _stock(_pool(tmp_path, f"代码,名称,市盈率(TTM),{header}\n600519,贵州茅台,22.5,26.1\n"), 0).notes
        said = f"ROE非年报: 文件的 ROE 26.1% 是 2026-09-30 (三季报) 的累计值 (表头 {header!r}), 规则阈值 5%/15% 按全年"
        assert any(n.startswith(said) for n in notes), notes


def test_a_plain_roe_column_beside_a_quarters_is_not_called_annual(tmp_path: Path) -> None:
    pool = _pool(tmp_path, "代码,名称,市盈率(TTM),ROE,ROE(2026三季报)\n600519,贵州茅台,22.5,30,26.1\n")
    said = " ".join(w.message for w in pool.warnings)
    assert _stock(pool, 0).roe == 30.0 and "年报列" not in said
    assert "ROE取自未注明报告期的列 (按全年读) 'ROE', 忽略三季报列 'ROE(2026三季报)'" in said
