"""Numbers a pool file writes that read cleanly but wrong (a trial of exported files, 2026-12-06).

A European-locale Excel writes decimals with a comma and cells with a semicolon (12,500 is 12.5); a space
between digits joined them (1 2 read as 12); Excel's wrapped header cell ("市盈率\\r\\n(TTM)" inside quotes) made
every row fail as an unclosed quote; ROE 999 or PE-TTM 0.5 scored 低/100 without a word. Each now fails its
row with what to do, is read as meant, or is flagged 数值异常 (counted as 数据存疑) beside its verdict.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from screening.config import InputSettings, Settings, UniverseSettings
from screening.data.load import load_file
from screening.data.pool import read_pool
from screening.data.row_checks import unusual_figures
from screening.data.universe import Universe
from screening.data.values import parse_number
from screening.models import NOTE_PE_UNNAMED, NOTE_UNUSUAL, StockInput, is_doubt


@pytest.mark.parametrize("raw", ["0,152", "-0,5", "1 2", "12 34", "1 23"])
def test_a_decimal_comma_or_digits_split_by_a_space_are_not_a_number(raw: str) -> None:
    with pytest.raises(ValueError, match="not a number"):
        parse_number(raw)


@pytest.mark.parametrize(("raw", "value"), [
    ("1 234.5", 1234.5), ("1 234 567", 1234567.0), ("-1 234", -1234.0), ("12.5 亿", 1.25e9), ("12 %", 12.0),
    ("1,234.5", 1234.5), ("10,000", 10000.0),
])
def test_space_and_comma_thousands_groups_still_read(raw: str, value: float) -> None:
    assert parse_number(raw) == value


def test_a_semicolon_file_with_decimal_commas_fails_those_rows_by_name(tmp_path: Path) -> None:
    path = tmp_path / "eu.csv"
    path.write_text("代码;名称;市盈率(TTM);ROE(%)\n600519;贵州茅台;22,5;34,2\n600111;样本;12,500;0,152\n"
                    "000001;平安银行;5.1;10.1\n", encoding="utf-8")
    pool = read_pool(path, InputSettings())
    ok = {i.stock.code: i.stock for i in pool.ok_items if i.stock}
    assert set(ok) == {"000001.SZ"} and ok["000001.SZ"].pe_ttm == 5.1
    failed = [str(i.error) for i in pool.items if i.error is not None]
    assert len(failed) == 2 and all("逗号可能是小数点" in f for f in failed), failed
    assert "'22,5'" in failed[0] and "'12,500'" in failed[1] and "第3行" in failed[1]


def test_a_comma_file_keeps_its_quoted_thousands(tmp_path: Path) -> None:
    path = tmp_path / "cn.csv"
    path.write_text('代码,名称,市盈率(TTM),ROE(%)\n600519,贵州茅台,"1,234.5",34.2\n', encoding="utf-8")
    (item,) = read_pool(path, InputSettings()).items
    assert item.stock is not None and item.stock.pe_ttm == 1234.5


def test_an_excel_csv_with_a_wrapped_header_cell_reads_every_row(tmp_path: Path) -> None:
    path = tmp_path / "wrapped.csv"
    path.write_bytes('\ufeff代码,名称,"市盈率\r\n(TTM)","ROE\r\n(%)"\r\n600519,贵州茅台,22.5,34.2\r\n'
                     '600111,测试,80,3.1\r\n'.encode("utf-8"))
    pool = read_pool(path, InputSettings())
    stocks = {i.stock.code: i.stock for i in pool.ok_items if i.stock}
    assert not [i for i in pool.items if i.error is not None]
    assert stocks["600519.SH"].pe_ttm == 22.5 and stocks["600519.SH"].roe == 34.2
    assert stocks["600111.SH"].pe_ttm == 80 and stocks["600111.SH"].roe == 3.1


@pytest.mark.parametrize(("roe", "pe", "flagged"), [
    (999.0, 22.5, "ROE 999%"), (-150.0, 22.5, "ROE -150%"), (18.0, 0.5, "PE-TTM 0.5倍"),
    (18.0, 1e-9, "PE-TTM 0.000000001倍"), (18.0, 0.0, "PE-TTM 0倍"), (18.0, -0.0, "PE-TTM 0倍"),
    (34.2, 22.5, None), (18.0, -12.3, None), (0.0, 22.5, None), (100.0, 1.0, None), (None, None, None),
])
def test_a_figure_no_a_share_shows_is_flagged_not_corrected(roe: float | None, pe: float | None,
                                                            flagged: str | None) -> None:
    note = unusual_figures(StockInput(code="600519.SH", roe=roe, pe_ttm=pe, sources={"roe": "file", "pe_ttm": "file"}))
    if flagged is None:
        assert note is None
    else:
        assert note is not None and note.startswith(NOTE_UNUSUAL) and is_doubt(note) and flagged in note, note
        assert "来自文件" in note


def test_a_file_row_with_roe_999_keeps_its_verdict_and_says_why_it_is_doubtful(tmp_path: Path) -> None:
    u_path = tmp_path / "u.sqlite"
    Universe.load(u_path).save()
    pool_file = tmp_path / "p.csv"
    pool_file.write_text("代码,名称,市盈率(TTM),ROE(%)\n600121,测试,22.5,999\n600519,贵州茅台,22.5,34.2\n",
                         encoding="utf-8")
    settings = Settings().model_copy(update={"universe": UniverseSettings(path=str(u_path))})
    odd, fine = load_file(pool_file, settings, Universe.load(u_path)).items
    assert odd.stock is not None and odd.stock.roe == 999.0
    assert [n for n in odd.stock.notes if n.startswith(NOTE_UNUSUAL)]
    assert fine.stock is not None and not [n for n in fine.stock.notes if n.startswith(NOTE_UNUSUAL)]


@pytest.mark.parametrize(("header", "flagged"), [("PE", True), ("PE(倍)", True), ("pe", True),
                                                  ("市盈率(TTM)", False), ("PE-TTM", False)])
def test_a_plain_pe_column_is_read_as_ttm_and_each_row_says_so(tmp_path: Path, header: str, flagged: bool) -> None:
    path = tmp_path / "pe.csv"
    path.write_text(f"代码,名称,{header},ROE\n600519,贵州茅台,21.36,34.2\n", encoding="utf-8")
    (item,) = read_pool(path, InputSettings()).items
    assert item.stock is not None and item.stock.pe_ttm == 21.36
    notes = [n for n in item.stock.notes if n.startswith(NOTE_PE_UNNAMED)]
    assert bool(notes) == flagged and all(is_doubt(n) and repr(header) in n for n in notes)


def test_a_ttm_column_wins_over_a_plain_pe_column_before_it(tmp_path: Path) -> None:
    """The eighteenth session: ``PE`` before ``市盈率(TTM)`` screened on the plain PE (60, 中) and ignored the column
    that says TTM (30, 低), flagging 口径未注明 on a row the TTM column confirmed. The TTM column feeds PE-TTM; a row
    where the two differ still says both."""
    path = tmp_path / "pe_two.csv"
    path.write_text("代码,名称,PE,市盈率(TTM),ROE\n600519,贵州茅台,60,30,18\n300750,宁德时代,20,20,18\n",
                    encoding="utf-8")
    pool = read_pool(path, InputSettings())
    differ, same = (item.stock for item in pool.items)
    assert differ is not None and same is not None
    assert (differ.pe_ttm, same.pe_ttm) == (30.0, 20.0)
    assert not any(n.startswith(NOTE_PE_UNNAMED) for n in differ.notes + same.notes)
    assert any(n.startswith("两列不一致: 列 '市盈率(TTM)' 为 30, 列 'PE' 为 60") for n in differ.notes)
    assert same.notes == []
    assert any("使用 '市盈率(TTM)' (写明 TTM 的列优先), 忽略 'PE'" in w.message for w in pool.warnings)
