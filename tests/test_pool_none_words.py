"""Cells that say "no value" in words, and a quarter's net profit beside a 报告期 (a trial, 2026-12-08, s22/jf).

暂无 in a PE-TTM or ROE cell failed the row as "不是数字", where -- read as an empty cell the local data fills; a
plain 净利润 beside 报告期 2026-09-30 (the nine months' profit) screened 高 近两年连续亏损 beside last year's loss;
an ST column's √ / × failed the row.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from screening.cli import main
from screening.config import InputSettings
from screening.data.pool import read_pool
from screening.data.values import parse_bool_flag
from screening.models import Pool, PoolRejected, StockInput


def _pool(tmp_path: Path, text: str) -> Pool:
    (tmp_path / "pool.csv").write_text(text, encoding="utf-8")
    return read_pool(tmp_path / "pool.csv", InputSettings())


def _stock(pool: Pool, index: int = 0) -> StockInput:
    stock = pool.items[index].stock
    assert stock is not None, pool.items[index].error
    return stock


@pytest.mark.parametrize("cell", ["暂无", "暂无数据", "无", "无数据", "不适用", "N/A", "NaN", "--", " 暂无 ", "未披露"])
@pytest.mark.parametrize("header", ["市盈率(TTM)", "ROE"])
def test_a_none_word_in_a_pe_or_roe_cell_is_an_empty_cell(tmp_path: Path, cell: str, header: str) -> None:
    other = "ROE" if header != "ROE" else "市盈率(TTM)"
    stock = _stock(_pool(tmp_path, f"代码,名称,{header},{other}\n600519,贵州茅台,{cell},20\n"))
    assert (stock.pe_ttm, stock.roe) == ((None, 20.0) if header != "ROE" else (20.0, None))
    assert not stock.notes  # an empty cell, said by the row's 缺少数据 if nothing fills it


def test_a_none_word_in_a_period_or_name_cell_is_no_period_and_no_name(tmp_path: Path) -> None:
    stock = _stock(_pool(tmp_path, "代码,名称,市盈率(TTM),ROE,报告期,ROE报告期\n600519,--,20,20,暂无,无\n"))
    assert (stock.name, stock.report_date, stock.file_dates.get("roe")) == (None, None, None)
    assert not stock.notes  # no 数据存疑 "不是报告期" for a cell that says it has none


@pytest.fixture
def universe_path(tmp_path: Path) -> Iterator[Path]:
    os.environ["SCREENER_UNIVERSE__PATH"] = str(tmp_path / "u.sqlite")
    yield tmp_path / "u.sqlite"
    del os.environ["SCREENER_UNIVERSE__PATH"]


def _screen(tmp_path: Path, capsys: pytest.CaptureFixture[str], stored: str, pool: str) -> dict[str, dict]:
    (tmp_path / "stored.csv").write_text(stored, encoding="utf-8")
    (tmp_path / "pool.csv").write_text(pool, encoding="utf-8")
    assert main(["universe", "import", str(tmp_path / "stored.csv"), "--as-of", "2026-11-20"]) == 0
    capsys.readouterr()
    assert main(["screen", str(tmp_path / "pool.csv"), "--engine", "rules", "--format", "json"]) == 0
    return {str(r["code"]): r for r in json.loads(capsys.readouterr().out)}


def test_a_none_word_is_filled_by_the_local_data_or_fails_as_missing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], universe_path: Path) -> None:
    rows = _screen(tmp_path, capsys, "code,name,pe_ttm,roe,report_date\n600519.SH,贵州茅台,22.5,34.2,2025-12-31\n",
                   "代码,名称,市盈率(TTM),ROE\n600519,贵州茅台,暂无,34.2\n000725,京东方A,25.0,暂无数据\n")
    moutai, boe = rows["600519.SH"], rows["000725.SZ"]
    assert (moutai["status"], moutai["pe_ttm"], moutai["sources"]["pe_ttm"]) == ("ok", 22.5,
                                                                                  "universe:import@2026-11-20")
    assert (boe["status"], boe["fail_code"]) == ("failed", "missing_data")
    assert boe["error"].startswith("缺少数据: ROE") and "universe refresh" in boe["error"]


# a nine-month loss of 1亿 beside last year's loss of 3亿, ROE 6%: by the rules 中 on its ROE, not 高 on a quarter
Q3 = "代码,名称,市盈率(TTM),ROE,净利润,上年净利润,报告期\n600519,样本,22.5,6,-1亿,-3亿,{period}\n"


@pytest.mark.parametrize("period", ["2026-09-30", "2026三季报", "2026Q3", "2026-06-30"])
def test_a_plain_net_profit_of_a_quarter_report_is_no_years_profit(tmp_path: Path, period: str) -> None:
    stock = _stock(_pool(tmp_path, Q3.format(period=period)))
    assert (stock.net_profit_y1, stock.net_profit_y2) == (None, None)
    said = [n for n in stock.notes if n.startswith("已忽略: 文件的 净利润 -1亿 是 ")]
    assert said and "不是全年的净利润 (近两年连续亏损按年报判断)" in said[0], stock.notes
    assert any(n.startswith("已忽略: 文件的 上年净利润 -3亿 未注明报告期") for n in stock.notes)


def test_a_quarters_net_profit_never_screens_a_two_year_loss(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             universe_path: Path) -> None:
    rows = _screen(tmp_path, capsys, "code,name,pe_ttm,roe,net_profit_y1,net_profit_y2,report_date\n"
                   "000001.SZ,平安银行,5,10,,,2025-12-31\n000725.SZ,京东方A,25,6,-2e8,-4e8,2025-12-31\n",
                   Q3.format(period="2026-09-30") + "000725,京东方A,25,6,5亿,6亿,2026-09-30\n")
    row, boe = rows["600519.SH"], rows["000725.SZ"]
    assert (row["risk_level"], row["reason"]) == ("中", "ROE 6%介于5%-15%")
    assert any("净利润 -1亿 是 2026-09-30 (三季报) 的累计值" in f for f in row["flags"])
    # the local data's two fiscal years fill the pair the file's quarter left: their losses are the verdict's
    assert (boe["risk_level"], boe["reason"]) == ("高", "近两年连续亏损")
    assert [boe["sources"][f] for f in ("net_profit_y1", "net_profit_y2")] == [
        "universe:import@2025-12-31", "universe:import@2024-12-31"]


def test_an_annual_net_profit_or_one_dated_by_its_own_column_is_read(tmp_path: Path) -> None:
    annual = _stock(_pool(tmp_path, Q3.format(period="2025-12-31")))
    assert (annual.net_profit_y1, annual.net_profit_y2) == (-1e8, -3e8)
    own = _stock(_pool(tmp_path, "代码,名称,市盈率(TTM),ROE,净利润,净利润报告期,上年净利润,报告期\n"
                                 "600519,样本,22.5,6,-1亿,2025-12-31,-3亿,2026-09-30\n"))
    assert (own.net_profit_y1, own.net_profit_y2) == (-1e8, -3e8)  # a universe export's row: FY2025 and FY2024
    quarter = _stock(_pool(tmp_path, "代码,名称,市盈率(TTM),ROE,净利润,净利润报告期,上年净利润,上年净利润报告期\n"
                                     "600519,样本,22.5,6,-1亿,2026-09-30,-3亿,2025-12-31\n"))
    assert (quarter.net_profit_y1, quarter.net_profit_y2) == (None, -3e8)  # the stated FY2025 stays


@pytest.mark.parametrize(("raw", "expected"), [("√", True), ("✓", True), ("×", False), ("✗", False), ("无", False),
                                               ("暂无", None), ("空", None), ("不适用", None)])
def test_an_st_cell_reads_ticks_crosses_and_none_words(raw: str, expected: bool | None) -> None:
    assert parse_bool_flag(raw) is expected


def test_a_loss_word_negative_in_a_pe_cell_reads_as_a_loss(tmp_path: Path) -> None:
    stock = _stock(_pool(tmp_path, "代码,名称,市盈率(TTM),ROE\n600519,贵州茅台,负,20\n"))
    assert stock.pe_ttm is None and stock.notes[0].startswith("市盈率为亏损: 文件的 市盈率(TTM) 为 '负' (亏损股)")


@pytest.mark.parametrize(("cell", "hint"), [("亏损", "净利润写为亏损: 请填入实际的负金额"),
                                            ("（1.2亿）", "括号是会计格式的负数写法")])
def test_a_net_profit_cell_in_words_fails_saying_what_to_write(tmp_path: Path, cell: str, hint: str) -> None:
    error = _pool(tmp_path, f"代码,名称,市盈率(TTM),ROE,净利润\n600519,贵州茅台,22.5,20,{cell}\n").items[0].error
    assert error is not None and error.column == "净利润" and hint in error.message, error


def test_an_empty_lists_line_is_no_stock(tmp_path: Path) -> None:
    """东方财富 exports an empty 自选股 as its header and one line 暂无数据: it failed as 不是A股代码: '暂无数据'."""
    with pytest.raises(PoolRejected, match="没有可筛选的行"):
        _pool(tmp_path, "代码,名称,市盈率(TTM),ROE\n暂无数据,,,\n")
    pool = _pool(tmp_path, "代码,名称,市盈率(TTM),ROE\n600519,贵州茅台,22.5,34\n暂无相关数据\n")
    assert len(pool.items) == 1 and "'暂无相关数据'" in " ".join(w.message for w in pool.warnings)
