"""A block pasted from Excel or a quote board after /screen (a trial, S22 jg): read as a table.

The header line and the price cells were failed rows, and ``1,500.00`` split into ``1`` (advised as 000001, 平安银行)
and ``500.00``. Pure functions: ``typed_tokens`` (screening/data/typed_table.py), ``split_codes`` and
``args_text`` (the message's own text behind /screen's words).
"""

from __future__ import annotations

import pytest

from bot.core.commands import args_text
from bot.core.dispatch import parse_command
from screening.data.codes import split_codes
from screening.data.typed_table import typed_tokens

EXCEL = "/screen\n代码\t名称\t现价\n600519\t贵州茅台\t1,500.00\n000858\t五粮液\t130.00"
BOARD = ("/screen\n序号  代码    名称      涨幅%   现价\n"  # a quote board's text: cells a run of spaces apart
         "1  600519  贵州茅台  -1.20%  1500.00\n2  000858  五粮液  +0.5%  --")


def _after_command(text: str) -> str:
    _name, args = parse_command(text)
    return args_text(text, args)


@pytest.mark.parametrize("text", [EXCEL, BOARD])
def test_a_pasted_table_screens_its_stocks_and_names_the_header_and_the_figures(text: str) -> None:
    typed = typed_tokens(_after_command(text))
    assert typed.tokens == ["600519", "贵州茅台", "000858", "五粮液"]  # each name still beside its code
    assert "代码" in typed.header and "名称" in typed.header
    note = typed.unread_note()
    assert note.count("表头") == 1 and "个数字格" in note and ("1500.00" in note or "1,500.00" in note), note


def test_the_excel_paste_names_every_cell_it_did_not_read() -> None:
    typed = typed_tokens(_after_command(EXCEL))
    assert typed.figures == ["1,500.00", "130.00"]
    assert typed.unread_note() == "按表格读取, 未当作代码: 表头 代码 名称 现价; 2 个数字格 (1,500.00、130.00)。"


@pytest.mark.parametrize("text", ["/screen 600519 贵州茅台 000858", "/screen 600519\n000858",
                                  "/screen 600519 贵州茅台\n000858 五粮液", "@bot /screen 600519\t1.5"])
def test_typed_text_that_is_no_table_is_split_as_before(text: str) -> None:
    _name, args = parse_command(text)
    typed = typed_tokens(args_text(text, args))
    assert typed.tokens == split_codes(" ".join(args)) and typed.unread_note() == ""


def test_a_row_with_no_code_keeps_its_cells_a_name_is_still_read() -> None:
    typed = typed_tokens("名称\t现价\n贵州茅台\t1,500.00\n五粮液\t130.5")
    assert typed.tokens == ["贵州茅台", "1,500.00", "五粮液", "130.5"] and typed.header == ["名称", "现价"]


@pytest.mark.parametrize(("text", "tokens"), [
    ("600519 1,500.00", ["600519", "1,500.00"]),  # a price is one token, never a code-like 1
    ("-12,345.6%", ["-12,345.6%"]),
    ("600519,000858", ["600519", "000858"]),  # codes a comma apart stay two
    ("12,000858", ["12", "000858"]),
])
def test_a_number_with_thousands_commas_is_never_split_into_a_code_like_token(text: str, tokens: list[str]) -> None:
    assert split_codes(text) == tokens
