"""Formula cells in an .xlsx (issue 15.2): never computed; a cached result is used and said to be one,
a formula without one is a named problem of its cell (file, row, column, the formula)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import openpyxl
import pytest

from screening.config import InputSettings
from screening.data.pool import read_pool


@pytest.fixture
def settings() -> InputSettings:
    return InputSettings()


def workbook(path: Path, rows: list[list[object]]) -> Path:
    """openpyxl writes formulas with no cached result, as a script would."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    for row in rows:
        ws.append(row)
    wb.save(path)
    return path


def with_cached_results(path: Path, results: dict[str, str]) -> Path:
    """The same workbook as Excel would save it: each formula cell carries the result it last computed."""
    out = path.with_name("cached-" + path.name)
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                for formula, value in results.items():
                    old = f"><f>{formula}</f><v></v>".encode()
                    assert old in data, formula
                    kind = "" if value.replace(".", "", 1).isdigit() else ' t="str"'  # a text result says so
                    data = data.replace(old, f"{kind}><f>{formula}</f><v>{value}</v>".encode())
            zout.writestr(info, data)
    return out


ROWS: list[list[object]] = [
    ["代码", "名称", "市盈率(TTM)", "ROE"],
    ["600519", "贵州茅台", "=10+5.2", "=B2"],
    ["000001", "平安银行", 5.1, 12],
]


def test_formula_without_cached_value_fails_its_cell(tmp_path: Path, settings: InputSettings) -> None:
    pool = read_pool(workbook(tmp_path / "f.xlsx", ROWS), settings, source_name="自选股.xlsx")
    bad = pool.items[0]
    assert bad.stock is None and bad.error is not None and bad.raw_code == "600519"
    assert (bad.error.source, bad.error.row, bad.error.column, bad.error.value) == (
        "自选股.xlsx", 2, "市盈率(TTM)", "=10+5.2")
    shown = str(bad.error)
    assert "自选股.xlsx" in shown and "第2行" in shown and "=10+5.2" in shown and "没有保存的结果" in shown
    assert "ROE='=B2'" in bad.error.message  # the second formula of the row is named too
    ok = pool.items[1].stock
    assert ok is not None and (ok.pe_ttm, ok.roe, ok.notes) == (5.1, 12, [])  # the others go on


def test_formula_with_cached_value_uses_it_and_says_so(tmp_path: Path, settings: InputSettings) -> None:
    path = with_cached_results(workbook(tmp_path / "f.xlsx", ROWS), {"10+5.2": "15.2", "B2": "31.5"})
    pool = read_pool(path, settings)
    stock = pool.items[0].stock
    assert stock is not None and stock.pe_ttm == 15.2 and stock.roe == 31.5
    assert stock.notes == ["公式单元格 市盈率(TTM): 使用缓存值", "公式单元格 ROE: 使用缓存值"]
    assert pool.items[1].stock is not None and pool.items[1].stock.notes == []


def test_cached_formula_result_is_still_bounded(tmp_path: Path, settings: InputSettings) -> None:
    path = with_cached_results(workbook(tmp_path / "f.xlsx", ROWS), {"10+5.2": "15.2", "B2": "1250000000"})
    err = read_pool(path, settings).items[0].error
    assert err is not None and err.column == "ROE" and "超出合理范围" in err.message


def test_text_literal_code_formula_is_read_not_computed(tmp_path: Path, settings: InputSettings) -> None:
    """="000001" is how exports keep leading zeros: a literal, read as such even without a cached value."""
    pool = read_pool(workbook(tmp_path / "c.xlsx", [["代码", "名称"], ['="000001"', "平安银行"],
                                                   ["=A2", "x"]]), settings)
    assert pool.items[0].stock is not None and pool.items[0].stock.code == "000001.SZ"
    err = pool.items[1].error
    assert err is not None and err.column == "代码" and err.value == "=A2"


# the 合计 row Excel / WPS users add under a pool: a label, then =SUM / =AVERAGE of the columns above
TOTALS = {"SUM(C2:C3)": "30.1", "SUM(D2:D3)": "42", "AVERAGE(C2:C3)": "15.05", "AVERAGE(D2:D3)": "21"}


@pytest.mark.parametrize("cached", [False, True])  # a script's save (no results), Excel's / WPS's (results)
@pytest.mark.parametrize("last", [["合计", None, "=SUM(C2:C3)", "=SUM(D2:D3)"],  # the label in the code column
                                  [None, "合计", "=SUM(C2:C3)", "=SUM(D2:D3)"],  # under the names
                                  ["平均", "", "=AVERAGE(C2:C3)", "=AVERAGE(D2:D3)"]])
def test_a_summary_row_of_formulas_is_skipped_as_the_csvs_is(tmp_path: Path, settings: InputSettings,
                                                              last: list[object], cached: bool) -> None:
    """It failed as a stock (不是A股代码: '合计', or 代码为空): any formula kept a row from being a summary row."""
    path = workbook(tmp_path / "t.xlsx", [*ROWS[:1], ["600519", "贵州茅台", 25.0, 30], ROWS[2], last])
    used = {f: v for f, v in TOTALS.items() if f"={f}" in last}
    pool = read_pool(with_cached_results(path, used) if cached else path, settings, source_name="自选股.xlsx")
    assert [(i.row, i.error) for i in pool.items] == [(2, None), (3, None)]
    label = last[0] or last[1]
    assert [w.message for w in pool.warnings] == [f"1 行视为附注行或汇总行 (不是股票, 不计入): 第4行 '{label}'"]


@pytest.mark.parametrize("cached", [False, True])
@pytest.mark.parametrize("last", [['="合计"', None, 30.1, 42],  # the label a formula, the totals typed
                                  ['=" 合计 "', None, "=SUM(C2:C3)", 42],
                                  ['="平均"', "", 15.05, "=AVERAGE(D2:D3)"]])
def test_a_summary_label_written_as_a_formula_reads_as_the_label(tmp_path: Path, settings: InputSettings,
                                                                 last: list[object], cached: bool) -> None:
    """="合计" saved by a script (no result) failed as a stock, 不是A股代码: '合计'; Excel's save read as 合计."""
    path = workbook(tmp_path / "t.xlsx", [*ROWS[:1], ["600519", "贵州茅台", 25.0, 30], ROWS[2], last])
    label = str(last[0]).strip('="').strip()
    results = {f[1:]: TOTALS[f[1:]] for f in last if isinstance(f, str) and f[1:] in TOTALS}
    if cached:  # the label's cached text as Excel writes a string result (openpyxl escapes the CJK in the formula)
        escaped = str(last[0])[1:].encode("ascii", "xmlcharrefreplace").decode()
        results[escaped] = label
    pool = read_pool(with_cached_results(path, results) if cached else path, settings)
    assert [(i.row, i.error) for i in pool.items] == [(2, None), (3, None)]
    assert [w.message for w in pool.warnings] == [f"1 行视为附注行或汇总行 (不是股票, 不计入): 第4行 '{label}'"]
