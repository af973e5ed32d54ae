"""Codes as users type and paste them (a trial on 2026-12-06): each token reads as what the user meant, or
fails saying what is wrong; never another company quietly.

Pure functions (split_codes) and the typed path (pool_from_codes) against a small real Universe on disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from screening.data.codes import split_codes
from screening.data.load import pool_from_codes
from screening.data.universe import Universe
from screening.models import NOTE_NAME_CONFLICT, StockInput


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("600519\u200b000858", ["600519", "000858"]),  # a zero-width space from a WeChat paste
        ("\ufeff600519", ["600519"]),
        ("\u202d600519\u202c 000858", ["600519", "000858"]),  # bidi marks
        ('"600519" “000858” 【300750】 (002594)', ["600519", "000858", "300750", "002594"]),
        ("600519。", ["600519"]),
        ("600519|000858｜300750", ["600519", "000858", "300750"]),
        ("SH 600519", ["SH600519"]),
        ("600519贵州茅台", ["600519", "贵州茅台"]),
        ("贵州茅台(600519) 贵州茅台（600519.SH）", ["600519", "贵州茅台", "600519.SH", "贵州茅台"]),
        ("\x1b[31m600519\x1b[0m", ["600519"]),
        ("上证50 沪深300ETF 万科A", ["上证50", "沪深300ETF", "万科A"]),  # a name with digits stays whole
        # full-width wrappers and stops from a Chinese input method, a chat's code span (failed rows, 2026-12-07)
        ("＂600519＂ ［000858］ ＜300750＞ 002594． `601318` 〔600036〕", [
            "600519", "000858", "300750", "002594", "601318", "600036"]),
        ("600519 SH, 000858 sz ６００５１９ ＳＨ", ["600519.SH", "000858.sz", "６００５１９.ＳＨ"]),  # a market after
        ("SH 600519 SZ 000858 300750 SZ", ["SH600519", "SZ000858", "300750.SZ"]),  # before, as the first one is
    ],
)
def test_a_paste_splits_into_the_tokens_the_user_meant(text: str, tokens: list[str]) -> None:
    assert split_codes(text) == tokens


def _universe(tmp_path: Path) -> Universe:
    u = Universe(tmp_path / "u.sqlite")
    u.update([
        StockInput(code="600519.SH", name="贵州茅台", roe=34.2, pe_ttm=28.1),
        StockInput(code="000725.SZ", name="京东方A", roe=3.1, pe_ttm=40.2),
        StockInput(code="000750.SZ", name="国海证券", roe=3.5, pe_ttm=30.0),
        StockInput(code="000001.SZ", name="平安银行", roe=10.2, pe_ttm=5.1),
        StockInput(code="000922.SZ", name="佳电股份", roe=8.0, pe_ttm=20.0),
    ], as_of="2026-12-04")
    return u


def _by_token(tmp_path: Path, text: str) -> dict[str, object]:
    pool = pool_from_codes(split_codes(text), _universe(tmp_path), "/screen")
    return {i.raw_code: i for i in pool.items}


def test_a_market_typed_after_a_code_is_its_suffix_not_another_company(tmp_path: Path) -> None:
    """``000001 SH`` is 上证指数: read apart it screened 000001.SZ 平安银行 beside a failed row 'SH'."""
    pool = pool_from_codes(split_codes("000001 SH"), _universe(tmp_path), "/screen")
    assert len(pool.items) == 1 and pool.items[0].stock is None
    assert "上证指数, 不是股票" in pool.items[0].error.message


@pytest.mark.parametrize(("text", "rows"), [
    ("上证指数 000001 000001", [None, "000001.SZ"]),  # the name first: one failed row, then the stock typed alone
    ("000001 上证指数 上证指数", [None, None]),  # a second index name is a row of its own, not lost in the first
    ("上证指数 000001 平安银行", [None, "000001.SZ"]),
])
def test_an_index_name_before_its_number_is_the_index_too(tmp_path: Path, text: str, rows: list[str | None]) -> None:
    """``上证指数 000001`` screened 000001.SZ 平安银行 as a good row beside a failed 上证指数 (a trial, 2026-12-07)."""
    pool = pool_from_codes(split_codes(text), _universe(tmp_path), "/screen")
    assert [i.stock.code if i.stock else None for i in pool.items] == rows
    assert "000001 上证指数 是指数, 不是股票 (000001 在深交所(SZ)是一只股票的代码" in pool.items[0].error.message


@pytest.mark.parametrize(("text", "noted"), [
    ("000001", True), ("000001 600519", True),  # bare: the stock, and the row says the number is an index too
    ("000001.SZ", False), ("sz000001", False), ("000001 平安银行", False), ("平安银行 000001", False),  # said which
    ("000750", False),  # no index shares it
])
def test_a_bare_number_that_is_also_an_index_says_so_on_its_row(tmp_path: Path, text: str, noted: bool) -> None:
    """``/screen 000016`` screened 深康佳A with no word that 000016 is 上证50 too (a trial, 2026-12-07)."""
    from screening.models import is_doubt

    pool = pool_from_codes(split_codes(text), _universe(tmp_path), "/screen")
    notes = [n for i in pool.items if i.stock for n in i.stock.notes if "指数代码" in n]
    said = "000001 也是上证指数的指数代码; 本行按深市股票 000001.SZ 筛选 (若要的是上证指数: 指数不能筛选)"
    assert notes == ([said] if noted else [])
    assert not any(map(is_doubt, notes))  # informational: the row's data is the stock's, not in doubt


def test_name_code_pairs_are_not_read_as_a_code_beside_another_name(tmp_path: Path) -> None:
    """``贵州茅台 600519 平安银行 000001`` (a name-first paste) flagged both rows 名称与代码不符: 600519 平安银行."""
    pool = pool_from_codes(split_codes("贵州茅台 600519 平安银行 000001"), _universe(tmp_path), "/screen")
    assert [i.stock.code for i in pool.items if i.stock] == ["600519.SH", "000001.SZ"]
    assert not any(NOTE_NAME_CONFLICT in n for i in pool.items for n in i.stock.notes)
    flagged = pool_from_codes(split_codes("600519 平安银行"), _universe(tmp_path), "/screen").items
    assert all(any(NOTE_NAME_CONFLICT in n for n in i.stock.notes) for i in flagged)  # code first: still said


@pytest.mark.parametrize(("text", "flagged", "said"), [
    ("平安银行 600519", {"600519.SH", "000001.SZ"}, "输入 平安银行 600519, 但 600519.SH 是 贵州茅台"),  # name first
    ("贵州茅台 000750 国海证券 600519", {"600519.SH", "000750.SZ"}, "输入 国海证券 600519"),  # merged quietly
    ("贵州茅台 600519 国海证券 000750", set(), ""),  # name-first pairs, each right
    ("600519 贵州茅台 000750 国海证券", set(), ""),  # code-first pairs: 贵州茅台 000750 is no pair
    ("600519 贵州茅台 国海证券 000750", set(), ""),  # the order changed halfway, each pair right
    ("贵州茅台 600519 000750 平安银行", {"000750.SZ", "000001.SZ"}, "输入 000750 平安银行"),  # left over: paired
])
def test_a_name_and_another_stocks_code_are_flagged_in_the_order_the_list_pairs(
        tmp_path: Path, text: str, flagged: set[str], said: str) -> None:
    """``五粮液 600519`` and ``贵州茅台 000858 五粮液 600519`` screened both rows with no 名称与代码不符
    (a trial, 2026-12-07)."""
    pool = pool_from_codes(split_codes(text), _universe(tmp_path), "/screen")
    notes = {i.stock.code: [n for n in i.stock.notes if NOTE_NAME_CONFLICT in n] for i in pool.items if i.stock}
    assert {code for code, said_there in notes.items() if said_there} == flagged
    assert all(any(said in n for n in notes[code]) for code in flagged)


def test_a_dropped_first_digit_fails_instead_of_screening_another_company(tmp_path: Path) -> None:
    item = _by_token(tmp_path, "00750")["00750"]
    assert item.stock is None and "只有 5 位数字" in item.error.message  # not 000750 国海证券


def test_part_of_a_name_resolves_with_a_note_and_one_character_does_not(tmp_path: Path) -> None:
    by = _by_token(tmp_path, "京东 茅")
    assert by["京东"].stock.code == "000725.SZ"
    assert "按名称 '京东' 读作 京东方A(000725.SZ): 不是它请写代码" in by["京东"].stock.notes
    assert by["茅"].stock is None and "太短" in by["茅"].error.message and "贵州茅台" in by["茅"].error.message
    assert _by_token(tmp_path, "贵州茅台")["贵州茅台"].stock.notes == []  # a whole name needs no note


def test_a_code_followed_by_its_index_name_is_the_index_one_failed_row(tmp_path: Path) -> None:
    pool = pool_from_codes(split_codes("000001 上证指数 600519"), _universe(tmp_path), "/screen")
    assert [i.raw_code for i in pool.items] == ["000001", "600519"]
    first = pool.items[0]
    assert first.stock is None and "000001 上证指数 是指数, 不是股票" in first.error.message
    assert "000001 在深交所(SZ)是一只股票的代码" in first.error.message and "平安银行" not in first.error.message
    assert pool.items[1].stock.code == "600519.SH"
    again = pool_from_codes(split_codes("000001 上证指数 000001"), _universe(tmp_path), "/screen").items
    assert again[1].stock is not None and again[1].stock.code == "000001.SZ"  # then typed alone: the stock
    # the same pair pasted as 上证指数(000001)
    assert pool_from_codes(split_codes("上证指数(000001)"), _universe(tmp_path)).items[0].stock is None


def test_an_index_name_alone_fails_as_an_index(tmp_path: Path) -> None:
    by = _by_token(tmp_path, "中证红利 上证50")
    for token in ("中证红利", "上证50"):
        assert by[token].stock is None and f"{token} 是指数, 不是股票" in by[token].error.message


def test_a_shanghai_index_code_is_never_advised_onto_the_shenzhen_stock(tmp_path: Path) -> None:
    item = _by_token(tmp_path, "sh000922")["sh000922"]
    assert item.stock is None and "沪市没有以 000 开头的股票" in item.error.message


def test_an_argument_from_a_gbk_terminal_is_read_as_gbk_text() -> None:
    """A GBK console passes 贵州茅台 as bytes Python keeps as surrogates: they were an unknown 'code' written raw
    into UTF-8 JSON. GB18030 reads them; bytes no encoding reads become U+FFFD, never raw output."""
    import os

    from screening.data.load import argument_text

    assert argument_text(os.fsdecode("贵州茅台".encode("gbk"))) == "贵州茅台"
    assert argument_text(os.fsdecode("600519 贵州茅台".encode("gb18030"))) == "600519 贵州茅台"
    assert argument_text("贵州茅台") == "贵州茅台" and argument_text("600519") == "600519"
    broken = argument_text(os.fsdecode(b"\xff\xfe600519"))
    assert broken.endswith("600519") and "\ufffd" in broken and broken.encode("utf-8")


def test_the_screen_limit_counts_stocks_and_says_how_many(tmp_path: Path) -> None:
    """``/screen`` refused 120 pasted ``600519 贵州茅台`` pairs (240 tokens) as over 200 codes, and never said how
    many it was given (a trial, 2026-12-07)."""
    from bot.core.commands import typed_pool
    from screening.config import Settings

    u = Universe(tmp_path / "many.sqlite")
    u.update([StockInput(code=f"600{i:03d}.SH", name=f"股票{chr(0x4E00 + i)}", roe=10.0, pe_ttm=10.0)
              for i in range(1, 202)], as_of="2026-12-04")
    pairs = [t for i in range(1, 121) for t in (f"600{i:03d}", f"股票{chr(0x4E00 + i)}")]
    pool = typed_pool(pairs, Settings(), u)
    assert not isinstance(pool, str) and len(pool.ok_items) == 120
    assert "一次最多 200 个代码, 这次有 201 个 (代码和它的名称算一个)" in str(
        typed_pool([f"600{i:03d}" for i in range(1, 202)], Settings(), u))
    assert "这次有 401 个代码或名称" in str(typed_pool(["600001"] * 401, Settings(), u))
