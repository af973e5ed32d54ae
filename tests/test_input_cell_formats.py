"""Excel number formats (issue 25.1): a typed 34.19% is stored as 0.3419 under 0.00%, and must screen as 34.19.

The workbooks are real .xlsx files written by openpyxl with the formats Excel/WPS give such cells.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from screening.cli import main
from screening.config import InputSettings
from screening.data.pool import read_pool
from screening.data.pool_formats import format_unit
from screening.screen.rules import assess

ROOT = Path(__file__).resolve().parent.parent
STOCKS = [("600519", "贵州茅台", 28.5, 34.19), ("600036", "招商银行", 6.4, 14.49), ("000651", "格力电器", 8.1, 0.5)]


def _xlsx(path: Path, roe_format: str | None, percent_as_fraction: bool) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["代码", "名称", "市盈率(TTM)", "ROE"])
    for code, name, pe, roe in STOCKS:
        ws.append([code, name, pe, roe / 100 if percent_as_fraction else roe])
        if roe_format is not None:
            ws.cell(row=ws.max_row, column=4).number_format = roe_format
    wb.save(path)
    return path


def _verdicts(path: Path) -> list[tuple[str, int, str, float | None]]:
    out = []
    for item in read_pool(path, InputSettings()).items:
        assert item.stock is not None, item.error
        v = assess(item.stock)
        out.append((v.risk, v.score, v.reason, item.stock.roe))
    return out


def test_percent_formatted_cells_give_the_verdicts_of_the_typed_numbers(tmp_path: Path) -> None:
    typed = _verdicts(_xlsx(tmp_path / "typed.xlsx", None, percent_as_fraction=False))
    formatted_path = _xlsx(tmp_path / "formatted.xlsx", "0.00%", percent_as_fraction=True)
    assert _verdicts(formatted_path) == typed
    assert typed[0][0] == "低" and typed[0][3] == 34.19  # 贵州茅台 is not 高 on "ROE 0.3419%"
    pool = read_pool(formatted_path, InputSettings())
    for item in pool.items:  # each row says its ROE was read through the cell's format
        assert item.stock is not None and "百分比格式: ROE" in item.stock.notes
    assert "百分比格式: ROE" in assess(pool.items[0].stock).flags  # type: ignore[arg-type]


def test_fractions_without_a_format_are_flagged_not_scaled(tmp_path: Path) -> None:
    pool = read_pool(_xlsx(tmp_path / "bare.xlsx", None, percent_as_fraction=True), InputSettings())
    stocks = [i.stock for i in pool.items]
    assert all(s is not None and s.roe is not None and s.roe < 1 for s in stocks)  # never rescaled by a guess
    assert all(s is not None and "百分比存疑: ROE 整列小于 1" in s.notes for s in stocks)
    assert any("都小于 1" in w.message and w.column == "ROE" for w in pool.warnings)
    # real percents (34.19, 14.49) in the column: the 0.5 beside them may be a real small ROE or a fraction, so
    # since the eighteenth session its row says so (a weaker note, which import still takes); the others nothing
    typed = read_pool(_xlsx(tmp_path / "typed.xlsx", None, percent_as_fraction=False), InputSettings())
    doubted = {i.stock.code: n for i in typed.items if i.stock for n in i.stock.notes if "百分比存疑" in n}
    assert list(doubted) == ["000651.SZ"] and "可能确是不到 1% 的 ROE" in doubted["000651.SZ"]


def test_magnitude_formats(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["代码", "名称", "总市值", "市盈率(TTM)"])
    ws.append(["600519", "贵州茅台", 18400, 28.5])
    ws["C2"].number_format = '0.00"亿"'  # typed 18400, shown 18400.00亿: the figure is 1.84e12 yuan
    ws.append(["600036", "招商银行", 1.05e12, 6.4])
    ws["C3"].number_format = '0!.0000"万"'  # stored in yuan, only shown in 万
    ws.append(["000651", "格力电器", 2.4e11, 8.1])
    ws["D4"].number_format = "0.00%"  # a % format on a PE column is the wrong figure in the wrong place
    wb.save(tmp_path / "cap.xlsx")
    items = read_pool(tmp_path / "cap.xlsx", InputSettings()).items
    assert items[0].stock is not None and items[0].stock.market_cap == 1.84e12
    assert "单元格格式 亿: 总市值" in items[0].stock.notes
    assert items[1].stock is not None and items[1].stock.market_cap == 1.05e12 and items[1].stock.notes == []
    assert items[2].stock is None and items[2].error is not None and items[2].error.column == "市盈率(TTM)"
    assert "%" in items[2].error.message


@pytest.mark.parametrize(("fmt", "unit"), [
    ("0.00%", "%"), ("0%", "%"), ('0.00"%"', None), ("General", None), (None, None), ("#,##0.00", None),
    ('0.00"亿"', "亿"), ("0.0亿元", "亿"), ('#,##0.00,,"百万"', None), ('0!.0000"万"', None),
    ('[Red]0.00%;-0.00%', "%"), ('0.00"万亿"', "万亿"), ("yyyy-mm-dd", None),
])
def test_format_unit(fmt: str | None, unit: str | None) -> None:
    assert format_unit(fmt) == unit


def test_cli_screens_the_formatted_workbook_like_the_typed_one(tmp_path: Path) -> None:
    env = {**os.environ, "SCREENER_UNIVERSE__PATH": str(tmp_path / "u.sqlite"),
           "SCREENER_CONFIG": str(ROOT / "config.toml")}

    def rows(path: Path) -> list[tuple[str, str, int]]:
        p = subprocess.run([sys.executable, "-m", "screening", "screen", str(path), "--engine", "rules",
                            "--format", "json"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
        assert p.returncode == 0, p.stderr
        return [(r["code"], r["risk_level"], r["score"]) for r in json.loads(p.stdout)]

    typed = rows(_xlsx(tmp_path / "typed.xlsx", None, percent_as_fraction=False))
    assert rows(_xlsx(tmp_path / "formatted.xlsx", "0.00%", percent_as_fraction=True)) == typed
    assert typed[0] == ("600519.SH", "低", typed[0][2])


def test_a_loss_word_or_a_date_cell_in_a_figure_column_says_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """同花顺 writes 亏损 for a loss-maker's PE; a date-formatted cell reads as a date: the row fails (nothing is
    guessed) with advice for each, in the one line that names the file, row, column and value. Since the twentieth
    session the word alone reads as missing (tests/test_pe_loss_word.py): with no local PE-TTM the row fails at
    the screen, saying the file wrote 亏损 and what to write; a cell saying more than the word fails on reading."""
    loss = tmp_path / "loss.csv"
    loss.write_text("代码,名称,市盈率(TTM),净资产收益率\n600519,贵州茅台,亏损,16.5\n600036,招商银行,-6.8亏损,16.5\n",
                    encoding="utf-8")
    word, more = read_pool(loss, InputSettings()).items
    assert word.stock is not None and word.stock.pe_ttm is None
    assert more.stock is None and more.error is not None and more.error.value == "-6.8亏损"
    assert "亏损股的市盈率为负" in more.error.message and "不会被猜" in more.error.message
    os.environ["SCREENER_UNIVERSE__PATH"] = str(tmp_path / "empty.sqlite")  # no local data at all
    try:
        assert main(["screen", str(loss), "--engine", "rules", "--format", "json"]) == 0
    finally:
        del os.environ["SCREENER_UNIVERSE__PATH"]
    row = json.loads(capsys.readouterr().out)[0]
    assert (row["status"], row["pe_ttm"]) == ("failed", None) and "缺少数据: PE-TTM" in row["error"]
    assert "写为亏损" in row["error"] and "填入实际的负市盈率" in row["error"] and "不猜" in row["error"]
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["代码", "名称", "市盈率(TTM)", "净资产收益率"])
    ws.append(["600519", "贵州茅台", 6.8, 16.5])
    ws["C2"].number_format = "yyyy-mm-dd h:mm:ss"
    wb.save(tmp_path / "date.xlsx")
    (item,) = read_pool(tmp_path / "date.xlsx", InputSettings()).items
    assert item.error is not None and "单元格是日期格式" in item.error.message
    roe = tmp_path / "roe.csv"
    roe.write_text("代码,名称,市盈率(TTM),净资产收益率\n600519,贵州茅台,22.5,亏损\n", encoding="utf-8")
    (item,) = read_pool(roe, InputSettings()).items  # the PE advice is for PE columns only
    assert item.error is not None and item.error.message == "净资产收益率 列的值不是数字"
