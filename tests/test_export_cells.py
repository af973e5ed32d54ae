"""What a spreadsheet cell can hold: a longer text is cut with a note saying so, never silently."""

from __future__ import annotations

from pathlib import Path

import openpyxl

from screening.output.export_safety import CELL_MAX_CHARS, fit_cell
from screening.output.report import cell


def test_a_text_longer_than_a_cell_is_cut_with_a_note(tmp_path: Path) -> None:
    """An output trial (2026-12-07): a 40,000-character report text lost its end in the XLSX without a word."""
    text = "近30日公告：" + "关于召开股东大会的通知；" * 3400 + "2026-11-20 关于收到立案告知书的公告"
    shown = cell(text)
    assert len(text) > CELL_MAX_CHARS and len(shown) == CELL_MAX_CHARS
    assert shown.endswith(f"…[已截断: 全文 {len(text)} 字, 见 JSON 输出]") and shown.startswith("近30日公告")
    assert fit_cell("短文本") == "短文本" and fit_cell(12.5) == 12.5
    wb = openpyxl.Workbook()
    wb.active.append([shown])
    wb.save(tmp_path / "t.xlsx")
    assert openpyxl.load_workbook(tmp_path / "t.xlsx").active["A1"].value == shown  # stored whole


def test_the_input_sheet_keeps_a_failed_rows_code_and_name(tmp_path: Path) -> None:
    """An output trial (2026-12-07): the 输入 sheet showed a failed file row as its raw code and error only."""
    from screening.models import InputProblem, Pool, PoolItem
    from screening.output.xlsx import write_workbook

    bad = PoolItem(0, "600519", error=InputProblem("pool.csv", "ROE 不是数字", row=2, column="ROE", value="abc"),
                   row=2, name="贵州茅台", code="600519.SH")
    path = write_workbook([], tmp_path / "s.xlsx", Pool(source="pool.csv", items=[bad]))
    ws = openpyxl.load_workbook(path)["输入"]
    header = [c.value for c in ws[1]]
    row = dict(zip(header, [c.value for c in ws[2]], strict=True))
    assert row["代码"] == "600519.SH" and row["名称"] == "贵州茅台" and "ROE 不是数字" in row["错误"]
