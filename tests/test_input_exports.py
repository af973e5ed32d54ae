"""Real exports as the trading software writes them (issue 15.1, 15.8, 16.14): title lines, trailers,
delimiters, and row numbers that are the spreadsheet's own. Every file is built here, under tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from screening.config import InputSettings
from screening.data.pool import read_pool
from screening.models import Pool, PoolRejected

ROOT = Path(__file__).resolve().parent.parent
TDX_HEADER = "代码\t名称\t涨幅%\t现价\t市盈(动)\t细分行业"
TDX_ROWS = ["600519\t贵州茅台\t1.20\t1466.50\t25.30\t白酒", "000001\t平安银行\t-0.50\t10.52\t5.10\t银行"]


@pytest.fixture
def settings() -> InputSettings:
    return InputSettings()


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


def tdx_export(tmp_path: Path, title: bool = True, trailer: bool = True) -> Path:
    """通达信 "数据导出" as a text file: GBK, tab-separated, CRLF, a title line and a source trailer."""
    lines = [TDX_HEADER, *TDX_ROWS]
    lines = (["沪深A股 2026-12-02"] if title else []) + lines + (["数据来源:通达信"] if trailer else [])
    return write(tmp_path / "沪深A股.txt", "\r\n".join(lines) + "\r\n", "gbk")


def codes(pool: Pool) -> list[str]:
    return [i.stock.code for i in pool.ok_items if i.stock]


def test_tongdaxin_export_with_title_and_trailer(tmp_path: Path, settings: InputSettings) -> None:
    pool = read_pool(tdx_export(tmp_path), settings)
    assert pool.columns == TDX_HEADER.split("\t")
    assert pool.mapped == {"代码": "code", "名称": "name", "涨幅%": "change_pct", "现价": "price",
                           "市盈(动)": "pe_dynamic", "细分行业": "industry"}
    assert codes(pool) == ["600519.SH", "000001.SZ"] and not pool.failed_items  # the trailer is no stock
    moutai = pool.items[0].stock
    assert moutai is not None and (moutai.name, moutai.change_pct, moutai.price, moutai.pe_dynamic) == (
        "贵州茅台", 1.2, 1466.5, 25.3)
    assert moutai.pe_ttm is None  # 市盈(动) is not PE-TTM
    assert [i.row for i in pool.items] == [3, 4]  # the file's own lines: title 1, header 2
    title, trailer = pool.warnings
    assert title.row == 1 and title.value == "沪深A股 2026-12-02" and "上方的 1 行" in title.message
    assert trailer.row == 5 and trailer.value == "数据来源:通达信" and "附注行" in trailer.message


def test_tongdaxin_trailer_without_title_is_no_failed_stock(tmp_path: Path, settings: InputSettings) -> None:
    pool = read_pool(tdx_export(tmp_path, title=False), settings)
    assert len(pool.items) == 2 and not pool.failed_items
    assert [(w.row, w.value) for w in pool.warnings] == [(4, "数据来源:通达信")]


def test_a_bad_code_at_the_end_is_still_a_failed_stock(tmp_path: Path, settings: InputSettings) -> None:
    """Only a note-like single cell is a trailer: a mistyped code in the last row stays a failed row."""
    path = write(tmp_path / "p.csv", "代码,名称\n600519,贵州茅台\nABC\n")
    pool = read_pool(path, settings)
    assert len(pool.items) == 2 and pool.items[1].error and pool.items[1].raw_code == "ABC"


def test_tongdaxin_export_through_the_cli(tmp_path: Path) -> None:
    env = {**os.environ, "SCREENER_UNIVERSE__PATH": str(tmp_path / "u.sqlite"),
           "SCREENER_CONFIG": str(tmp_path / "absent.toml"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    p = subprocess.run([sys.executable, "-m", "screening", "screen", str(tdx_export(tmp_path)), "--engine", "rules",
                        "--format", "json", "--demo"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [(r["code"], r["name"], r["row"]) for r in rows] == [
        ("600519.SH", "贵州茅台", 3), ("000001.SZ", "平安银行", 4)]
    assert "数据来源:通达信" in p.stderr and "沪深A股 2026-12-02" in p.stderr


@pytest.mark.parametrize("sep", [",", "\t", ";", "|"])
def test_title_line_above_any_delimiter(tmp_path: Path, settings: InputSettings, sep: str) -> None:
    text = "自选股 2026-12-02, 共2只\n" + "\n".join(sep.join(r) for r in [
        ["代码", "名称", "ROE"], ["600519", "贵州茅台", "30"], ["000001", "平安银行", "10"]]) + "\n"
    pool = read_pool(write(tmp_path / "p.csv", text), settings)
    assert codes(pool) == ["600519.SH", "000001.SZ"] and pool.items[1].stock and pool.items[1].stock.roe == 10
    assert pool.warnings[0].row == 1 and "上方的 1 行" in pool.warnings[0].message


def test_no_code_column_names_the_header_row_not_the_title(tmp_path: Path, settings: InputSettings) -> None:
    text = "沪深A股 2026-12-02\r\n名称\t涨幅%\t现价\r\n贵州茅台\t1.2\t1466.5\r\n"
    with pytest.raises(PoolRejected) as exc:
        read_pool(write(tmp_path / "t.txt", text, "gbk"), settings)
    msg = str(exc.value)
    assert "没有股票代码列" in msg and "第2行" in msg and "'名称', '涨幅%', '现价'" in msg
    assert "代码, 股票代码" in msg


def test_space_separated_columns_are_named_as_the_cause(tmp_path: Path, settings: InputSettings) -> None:
    text = "代码    名称      现价\n600519  贵州茅台  1466.5\n"
    with pytest.raises(PoolRejected, match="各列用空格分隔; 请用制表符或逗号"):
        read_pool(write(tmp_path / "s.txt", text), settings)


def test_an_undecodable_header_is_named_as_the_cause(tmp_path: Path, settings: InputSettings) -> None:
    data = "代码,名称\n".encode("gbk") + "600519,贵州茅台\n000001,平安银行\n".encode()
    with pytest.raises(PoolRejected) as exc:
        read_pool(_bytes(tmp_path / "h.csv", data), settings)
    assert "第1行无法读取" in str(exc.value) and "GBK" in str(exc.value)


def _bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_xlsx_title_row_is_row_1(tmp_path: Path, settings: InputSettings) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["自选股 2026-12-02"])
    ws.append(["代码", "名称", "ROE"])
    ws.append(["600519", "贵州茅台", 30])
    ws.append([None])
    ws.append(["000001", "平安银行", "abc"])
    wb.save(tmp_path / "t.xlsx")
    pool = read_pool(tmp_path / "t.xlsx", settings)
    assert [(w.row, w.value) for w in pool.warnings] == [(1, "自选股 2026-12-02")]
    assert [i.row for i in pool.items] == [3, 5]
    assert pool.items[1].error is not None and pool.items[1].error.row == 5


def test_xlsx_rows_keep_their_numbers_above_a_gap(tmp_path: Path, settings: InputSettings) -> None:
    """A sheet whose table starts lower down (rows 1-3 empty) is numbered as the sheet numbers it."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws["B4"], ws["C4"] = "代码", "名称"
    ws["B6"], ws["C6"] = "ABC", "坏代码"
    wb.save(tmp_path / "g.xlsx")
    pool = read_pool(tmp_path / "g.xlsx", settings)
    assert pool.items[0].error is not None and pool.items[0].error.row == 6


def test_tonghuashun_table_xls_and_eastmoney_csv(tmp_path: Path, settings: InputSettings) -> None:
    ths = "代码\t名称\t最新价\t涨跌幅\t市盈率(TTM)\t\r\n600519\t贵州茅台\t1466.5\t2.10%\t25.3\t\r\n"
    pool = read_pool(write(tmp_path / "Table.xls", ths, "gbk"), settings)
    assert pool.items[0].stock and pool.items[0].stock.pe_ttm == 25.3 and not pool.warnings
    em = '序号,代码,名称,最新价,涨跌幅,市盈率-动态,总市值\n1,1,平安银行,10.52,-0.85,5.1,"2,041亿"\n'
    pool = read_pool(write(tmp_path / "东方财富.csv", em, "utf-8-sig"), settings)
    stock = pool.items[0].stock
    assert stock and stock.code == "000001.SZ" and stock.market_cap == pytest.approx(2.041e11)
