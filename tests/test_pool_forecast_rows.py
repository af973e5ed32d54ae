"""东方财富's 业绩预告 export lists a stock once per 预测指标 (营业收入, 归属于上市公司股东的净利润, 扣非净利润 ...):
those rows are one stock, their text read together (the nineteenth session).

Before, the second row failed as 与第 2 行重复: row 1 营业收入 略增 and row 2 净利润 首亏 "预计亏损2亿元" came back
低/100 without the loss, beside a failed row that was no failed stock. A row with another figure still fails
flagging the conflict, and a line pasted twice still fails as a duplicate.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest

from screening.cli import main
from screening.config import InputSettings
from screening.data.pool import read_pool
from screening.data.universe import Universe
from screening.models import NOTE_DUPLICATE_CONFLICT, NOTE_MERGED_ROWS, StockInput, is_doubt

Rows = list[dict[str, object]]
Screen = Callable[[Path], tuple[Rows, str]]

HEADER = "序号,股票代码,股票简称,预测指标,业绩变动,预测数值,业绩变动幅度,业绩变动原因,预告类型,上年同期值,公告日期"
# /work/tmp/s19/yjyg.csv: akshare stock_yjyg_em's columns, 600519 on two rows
YJYG = (f"{HEADER}\n"
        "1,600519,贵州茅台,营业收入,营业收入增长,1.5E11,10.5,销售增长,略增,1.36E11,2026-10-15\n"
        "2,600519,贵州茅台,归属于上市公司股东的净利润,预计亏损2亿元,-2.0E8,-101.2,计提大额减值,首亏,1.6E10,2026-10-15\n")
THIRD = ("3,600519,贵州茅台,扣除非经常性损益后的净利润,预计亏损2.5亿元,-2.5E8,-102.0,计提大额减值,首亏,1.5E10,"
         "2026-10-15\n")


@pytest.fixture
def screen_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Screen:
    """``screen FILE --engine rules --format json`` against a universe that holds 600519 (the export has no
    PE-TTM or ROE): (rows, stderr)."""
    u_path = tmp_path / "u.sqlite"
    universe = Universe.load(u_path)
    universe.update([StockInput(code="600519.SH", name="贵州茅台", pe_ttm=22.5, roe=34.2)], as_of="2026-12-04")
    universe.save()
    monkeypatch.setenv("SCREENER_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(u_path))

    def run(path: Path) -> tuple[Rows, str]:
        rc = main(["screen", str(path), "--engine", "rules", "--format", "json"])
        out, err = capsys.readouterr()
        assert rc == 0, err
        return json.loads(out), err
    return run


def _csv(tmp_path: Path, text: str, name: str = "yjyg.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8-sig")
    return path


def _xlsx(tmp_path: Path, text: str) -> Path:
    """The same table as an .xlsx, every cell text as the export writes it (the reader is shared)."""
    path = tmp_path / "yjyg.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    for line in text.splitlines():
        ws.append(line.split(","))
    wb.save(path)
    return path


@pytest.mark.parametrize("write", [_csv, _xlsx])
def test_a_loss_on_the_second_row_of_a_stock_is_read(tmp_path: Path, screen_json: Screen,
                                                      write: Callable[[Path, str], Path]) -> None:
    rows, err = screen_json(write(tmp_path, YJYG))
    assert len(rows) == 1, rows  # one stock, not a stock and a failed row
    (row,) = rows
    assert row["status"] == "ok" and row["risk_level"] in ("中", "高"), row
    flags = row["flags"]
    assert isinstance(flags, list)
    assert any("业绩预亏" in f and "首亏" in f for f in flags), flags  # the loss, named
    assert f"{NOTE_MERGED_ROWS}: 第 3 行是同一代码" in flags[0] and not is_doubt(flags[0])
    assert "并入" in err and "第3行并入第2行 (600519.SH)" in err and "重复" not in err


def test_the_second_row_joins_as_its_own_dated_forecast_line(tmp_path: Path) -> None:
    (item,) = read_pool(_csv(tmp_path, YJYG), InputSettings()).items
    assert item.stock is not None and item.index == 0
    # each line names the figure it forecasts (the 预测指标 column, read: its cells are no unread text any more), and
    # its own figures (预测数值, 上年同期值, 业绩变动幅度) join its first sentence (the twentieth session)
    assert item.stock.report_text == (
        "业绩预告（2026-10-15公告，预测指标 营业收入）：略增，预测数值 1,500亿元，上年同期 1,360亿元，变动幅度 +10.5%。"
        "营业收入增长。业绩变动原因：销售增长。\n"
        "业绩预告（2026-10-15公告，预测指标 归属于上市公司股东的净利润）：首亏，预测数值 -2亿元，上年同期 160亿元，"
        "变动幅度 -101.2%。预计亏损2亿元。业绩变动原因：计提大额减值。")
    assert not [cell for cell in item.stock.unread_text if cell[0] == "预测指标"]


def test_three_rows_of_one_code_are_one_stock(tmp_path: Path) -> None:
    pool = read_pool(_csv(tmp_path, YJYG + THIRD), InputSettings())
    (item,) = pool.items
    assert item.stock is not None
    assert item.stock.report_text is not None and len(item.stock.report_text.splitlines()) == 3
    assert "预计亏损2.5亿元" in item.stock.report_text
    assert [n for n in item.stock.notes if n.startswith(NOTE_MERGED_ROWS)] == [
        f"{NOTE_MERGED_ROWS}: 第 3、4 行是同一代码, 数据一致, 其文字 (如业绩预告的其他预测指标) 已并入本行"]
    (warning,) = [w for w in pool.warnings if "并入" in w.message]
    assert warning.message.startswith("2 行") and "第3、4行并入第2行" in warning.message and warning.row == 3


def test_rows_with_another_figure_still_conflict(tmp_path: Path) -> None:
    path = _csv(tmp_path, "代码,名称,ROE(%),市盈率(TTM),预告类型,业绩变动,公告日期\n"
                          "600519,贵州茅台,30.2,22.5,略增,营业收入增长,2026-10-15\n"
                          "600519,贵州茅台,3.02,22.5,首亏,预计亏损2亿元,2026-10-15\n")
    (kept,) = read_pool(path, InputSettings()).items  # row 3 is no failed duplicate: a second reading, screened
    # the first reading keeps its figures and reads the later row's text too: text is the company's, not a row's
    # (pool_conflict._share_text: a later row's 立案 title went unshown when the first row's figures won)
    assert kept.stock is not None and kept.stock.roe == 30.2 and "首亏" in (kept.stock.report_text or "")
    ((row, other),) = kept.readings
    text = other.report_text or ""
    assert row == 3 and other.roe == 3.02 and "略增" in text and "首亏" in text  # its text after the first row's
    (note,) = [n for n in kept.stock.notes if n.startswith(NOTE_DUPLICATE_CONFLICT)]
    assert "(第 2 行 / 第 3 行: ROE 30.2 / 3.02)" in note
    assert not any(n.startswith(NOTE_MERGED_ROWS) for n in kept.stock.notes)


def test_a_row_pasted_twice_still_fails_as_a_duplicate(tmp_path: Path) -> None:
    line = YJYG.splitlines()[2]
    pool = read_pool(_csv(tmp_path, f"{HEADER}\n{line}\n{line}\n"), InputSettings())
    kept, dup = pool.items
    assert kept.stock is not None and dup.error is not None and dup.index == 1
    assert dup.error.message == "与第 2 行重复 (同一代码 600519.SH)"
    assert not any(n.startswith(NOTE_MERGED_ROWS) for n in kept.stock.notes)
    assert not [w for w in pool.warnings if "并入" in w.message]


def test_two_codes_each_on_two_rows_are_two_stocks(tmp_path: Path) -> None:
    text = (f"{HEADER}\n"
            "1,600519,贵州茅台,营业收入,营业收入增长,1.5E11,10.5,销售增长,略增,1.36E11,2026-10-15\n"
            "2,000001,平安银行,营业收入,营业收入下降,1.4E11,-5.0,息差收窄,略减,1.47E11,2026-10-16\n"
            "3,600519,贵州茅台,归属于上市公司股东的净利润,预计亏损2亿元,-2.0E8,-101.2,计提大额减值,首亏,1.6E10,2026-10-15\n"
            "4,000001,平安银行,归属于上市公司股东的净利润,预计净利润亏损3亿元至4亿元,-3.0E8,-120.0,拨备增加,续亏,"
            "-1.0E8,2026-10-16\n")
    pool = read_pool(_csv(tmp_path, text), InputSettings())
    assert [i.index for i in pool.items] == [0, 1] and all(i.error is None for i in pool.items)
    moutai, pingan = (i.stock for i in pool.items)
    assert moutai is not None and pingan is not None
    moutai_text, pingan_text = moutai.report_text or "", pingan.report_text or ""
    assert moutai.code == "600519.SH" and "首亏" in moutai_text and "续亏" not in moutai_text
    assert pingan.code == "000001.SZ" and "续亏" in pingan_text and "首亏" not in pingan_text
    assert f"{NOTE_MERGED_ROWS}: 第 4 行" in moutai.notes[-1] and f"{NOTE_MERGED_ROWS}: 第 5 行" in pingan.notes[-1]


def test_a_figure_only_the_later_row_gives_is_taken_and_said(tmp_path: Path) -> None:
    path = _csv(tmp_path, "代码,名称,ROE(%),预告类型,业绩变动,公告日期\n"
                          "600519,贵州茅台,,略增,营业收入增长,2026-10-15\n"
                          "600519,贵州茅台,30.2,首亏,预计亏损2亿元,2026-10-20\n")
    (item,) = read_pool(path, InputSettings()).items
    assert item.stock is not None and item.stock.roe == 30.2
    assert item.stock.file_dates["notice_date"] == "2026-10-20"  # the later announcement is the one aged
    assert item.stock.notes[-1].endswith("; ROE 取自合并的行")


# the same stock's two rows beside one more column: (header, the screened row's cell, the later row's cell)
OTHER = "代码,名称,预测指标,预告类型,业绩变动,公告日期,{}\n600519,贵州茅台,营业收入,略增,营业收入增长,2026-10-15,{}\n" \
        "600519,贵州茅台,归属于上市公司股东的净利润,首亏,预计亏损2亿元,2026-10-15,{}\n"


@pytest.mark.parametrize(("column", "kept", "later", "shown"), [
    ("报告期", "2026-12-31", "2026-09-30", "报告期 2026-12-31 / 2026-09-30"),  # two periods' forecasts: two records
    ("所属行业", "白酒", "银行", "行业 白酒 / 银行"),
])
def test_a_later_row_of_another_period_or_industry_is_screened_and_named(
        tmp_path: Path, screen_json: Screen, column: str, kept: str, later: str, shown: str) -> None:
    """Until the twenty-first session the later row failed as a duplicate and the stock was 低 on the first row's
    略增; both rows are screened now, and the later row's 首亏 is read in both readings (text is the company's), so
    both are 中 and the first row, of equal verdict, is the one shown (data/pool_conflict.py)."""
    (ok,), err = screen_json(_csv(tmp_path, OTHER.format(column, kept, later)))
    assert (ok["status"], ok["risk_level"]) == ("ok", "中")
    assert "第3行与第2行 (600519.SH)" in err and "并入" not in err  # the later row named, not merged
    flags = ok["flags"]
    assert isinstance(flags, list)
    conflict, picked = [f for f in flags if f.startswith(NOTE_DUPLICATE_CONFLICT)]
    assert f"(第 2 行 / 第 3 行: {shown})" in conflict and is_doubt(conflict)
    assert picked.startswith(f"{NOTE_DUPLICATE_CONFLICT}: 按第 2 行评级") and "第 2 行 中/" in picked
    assert any(s["signal"] == "业绩预亏" or "首亏" in s["text"] for s in ok["signals"])  # the later row's 首亏, shown
    assert not any(f.startswith(NOTE_MERGED_ROWS) for f in flags)


def test_one_period_spelled_twice_still_merges(tmp_path: Path) -> None:
    (item,) = read_pool(_csv(tmp_path, OTHER.format("报告期", "2026-12-31", "2026年报")), InputSettings()).items
    assert item.stock is not None and item.stock.report_text is not None
    assert "预测指标 归属于上市公司股东的净利润）：首亏" in item.stock.report_text
    assert item.stock.notes[-1].startswith(NOTE_MERGED_ROWS)


def test_the_metric_named_on_a_profit_rise_raises_nothing(tmp_path: Path, screen_json: Screen) -> None:
    """Named before the day (净利润，2026-10-15) the floor read 净利润 … -10 as a loss: the 预测指标 sits after it."""
    (row,), _ = screen_json(_csv(tmp_path, f"{HEADER}\n1,600519,贵州茅台,归属于上市公司股东的净利润,预计增长20%,"
                                           "1.9E10,20.0,销售增长,略增,1.6E10,2026-10-15\n"))
    assert row["risk_level"] == "低" and not [f for f in row["flags"] if "业绩" in f], row  # type: ignore[attr-defined]
