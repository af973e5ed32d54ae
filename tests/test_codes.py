"""normalise_code against the exchanges' board prefixes (issue 15.7) and full-width input (issue 16.7)."""

from __future__ import annotations

import pytest

from screening.data.codes import BOARD_PREFIXES, CodeError, exchange_of, normalise_code


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("600000", "600000.SH"), ("601318", "601318.SH"), ("603288", "603288.SH"), ("605499", "605499.SH"),
        ("688981", "688981.SH"), ("689009", "689009.SH"),  # STAR Market and its CDRs
        ("000001", "000001.SZ"), ("001979", "001979.SZ"), ("002594", "002594.SZ"), ("003816", "003816.SZ"),
        ("300750", "300750.SZ"), ("301269", "301269.SZ"), ("302132", "302132.SZ"),
        ("430047", "430047.BJ"), ("830799", "830799.BJ"), ("871981", "871981.BJ"),
        ("920001", "920001.BJ"),
        ("1", "000001.SZ"), ("2", "000002.SZ"),  # Excel dropped the zeros of a real code
        ("600519.XSHG", "600519.SH"), ("000001.XSHE", "000001.SZ"), ("920001.BSE", "920001.BJ"),
    ],
)
def test_every_board_prefix_is_accepted(raw: str, code: str) -> None:
    assert normalise_code(raw) == code


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("12345", "没有以 012 开头的A股板块"),  # a lost digit, not 012345.SZ
        ("612345", "没有以 612 开头的A股板块"),
        ("004001", "没有以 004 开头的A股板块"),
        ("303001", "没有以 303 开头的A股板块"),
        ("921001", "没有以 921 开头的A股板块"),
        ("900901", "上海B股, 不是A股"),
        ("200002", "深圳B股, 不是A股"),
        ("820001", "北交所优先股"),
        ("510300", "上海基金/ETF"),
        ("399001", "深证成指(指数), 不是股票"),
        ("113050", "可转债"),
        # 通达信 880xxx / 同花顺 881xxx-886xxx are sector indices in the exports users screen (880301 煤炭 was
        # screened 低/100 as a BSE stock); a BSE stock that once had an 88 code has had a 920 code since 2025-10-09
        ("880301", "板块指数, 不是股票"), ("881121", "板块指数"), ("885800", "板块指数"),
        ("932000", "中证指数公司的指数"),  # 中证2000
    ],
)
def test_codes_on_no_a_share_board_are_refused_by_name(raw: str, says: str) -> None:
    with pytest.raises(CodeError) as exc:
        normalise_code(raw)
    assert says in str(exc.value) and raw in str(exc.value)


def test_the_lost_digit_is_shown_as_read() -> None:
    with pytest.raises(CodeError, match=r"'12345' \(按 012345 读\)"):
        normalise_code("12345")


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("６００５１９", "600519.SH"),  # typed with a Chinese input method
        ("6００５１９.SH", "600519.SH"),  # mixed widths: the same code, not a new spelling of it
        ("６００５１９．ＳＨ", "600519.SH"),
        ("ｓｚ０００００１", "000001.SZ"),
        ("\u3000300750\u3000", "300750.SZ"),  # ideographic spaces around it
    ],
)
def test_full_width_codes_are_folded(raw: str, code: str) -> None:
    assert normalise_code(raw) == code


def test_a_claimed_exchange_must_match_the_board() -> None:
    with pytest.raises(CodeError, match="标为上交所\\(SH\\), 但 300750 在深交所\\(SZ\\)上市"):
        normalise_code("300750.SH")
    with pytest.raises(CodeError, match=r"沪市没有以 000 开头的股票.*若要的是深市同号的股票, 写作 000333\.SZ"):
        normalise_code("000333.SH")  # 美的 under the wrong suffix: still told how to write it
    with pytest.raises(CodeError, match="标为深交所\\(SZ\\), 但 920001 在北交所\\(BJ\\)上市"):
        normalise_code("sz920001")


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("000001.SH", "000001.SH 是上证指数, 不是股票"),  # the first codes a Chinese user types
        ("sh000001", "sh000001 是上证指数, 不是股票"),
        ("000300.SH", "000300.SH 是沪深300, 不是股票"),
        ("SH000905", "是中证500, 不是股票"),
        ("399001", "是深证成指"),
        ("399006.SZ", "是创业板指"),
        ("899050", "是北证50"),
        ("900901", "是上海B股"),
        ("200002", "是深圳B股"),
        ("510300", "是上海基金/ETF"),
        ("159915", "是深圳基金/ETF"),
        ("113050", "是债券或可转债"),
        ("128001", "是债券或可转债"),
    ],
)
def test_indices_b_shares_funds_and_bonds_are_named_as_what_they_are(raw: str, says: str) -> None:
    with pytest.raises(CodeError) as exc:
        normalise_code(raw)
    assert says in str(exc.value)


def test_the_stock_sharing_an_index_number_is_still_the_stock() -> None:
    assert normalise_code("000001") == "000001.SZ" and normalise_code("sz000001") == "000001.SZ"  # 平安银行


def test_exchange_of_uses_the_table() -> None:
    assert {exchange_of(p.ljust(6, "0")) for p in BOARD_PREFIXES} == {"SH", "SZ", "BJ"}
    assert all(exchange_of(p.ljust(6, "1")) == ex for p, ex in BOARD_PREFIXES.items())
    assert exchange_of("900901") is None and exchange_of("200002") is None and exchange_of("012345") is None


# ------------------------------------------ vendor spellings: Eastmoney secid, baostock, Excel floats


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("1.600519", "600519.SH"), ("1.688981", "688981.SH"),  # Eastmoney secid: 1 = Shanghai
        ("0.000001", "000001.SZ"), ("0.300750", "300750.SZ"),  # 0 = Shenzhen ...
        ("0.920001", "920001.BJ"), ("0.830799", "830799.BJ"),  # ... and the BSE
        ("sh.600519", "600519.SH"), ("sz.000001", "000001.SZ"), ("SZ.300750", "300750.SZ"),  # baostock
        ("bj.920001", "920001.BJ"),
        ("300750.0", "300750.SZ"), ("600519.00", "600519.SH"), ("1.0", "000001.SZ"),  # a code Excel read as a float
        ("600519-SH", "600519.SH"), ("SH-600519", "600519.SH"), ("SH:600519", "600519.SH"),  # refused before
        ("600519SH", "600519.SH"), ("920185BJ", "920185.BJ"), ("ｓｚ：０００００１", "000001.SZ"),  # (2026-12-07)
    ],
)
def test_vendor_spellings_are_accepted(raw: str, code: str) -> None:
    assert normalise_code(raw) == code


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("0.600519", "市场位 0 表示深交所(SZ)/北交所(BJ), 但 600519 在上交所(SH)上市 (东方财富 secid 应为 1.600519"),
        ("1.300750", "市场位 1 表示上交所(SH), 但 300750 在深交所(SZ)上市 (东方财富 secid 应为 0.300750"),
        ("1.920001", "但 920001 在北交所(BJ)上市 (东方财富 secid 应为 0.920001"),
        ("1.000001", "1.000001 是上证指数, 不是股票"),  # secid 1.000001 is the index, not 平安银行
        ("2.600519", "市场位 2 不是A股市场"),
        ("1.510300", "是上海基金/ETF"),
        ("sh.300750", "标为上交所(SH), 但 300750 在深交所(SZ)上市"),
        ("300750.5", "不是A股代码"),  # a float that is not a whole number is no code
        ("2026-12-09", "不是A股代码"), ("SH-2026-12", "不是A股代码"), ("000001SH", "000001SH 是上证指数"),
        ("600519-SZ", "标为深交所(SZ), 但 600519 在上交所(SH)上市"), ("SH--600519", "不是A股代码"),
    ],
)
def test_vendor_spellings_that_contradict_the_number_say_why(raw: str, says: str) -> None:
    with pytest.raises(CodeError) as exc:
        normalise_code(raw)
    assert says in str(exc.value)


@pytest.mark.parametrize("raw", ["00750", "00519", "1", "688"])
def test_a_typed_code_short_of_six_digits_is_refused_not_padded_to_another_company(raw: str) -> None:
    """00750 (300750 with its first digit lost) pads to 000750 国海证券: only a spreadsheet cell is padded."""
    with pytest.raises(CodeError, match=rf"'{raw}' 只有 {len(raw)} 位数字: A股代码是 6 位, 请写全"):
        normalise_code(raw, typed=True)
    if raw.startswith("0"):  # a file's cell that kept a leading zero: Excel never leaves one
        with pytest.raises(CodeError, match="保留了前导零"):
            normalise_code(raw)
    else:
        assert normalise_code(raw).endswith(".SZ")  # a file's cell: Excel dropped the zeros


@pytest.mark.parametrize("raw", ["00700", "03690", "01810", "0700"])
def test_a_file_cell_short_of_six_digits_that_kept_a_leading_zero_is_refused(raw: str) -> None:
    """A 东方财富 自选股 export with H shares: 00700 腾讯控股 is no Excel-stripped A-share code; padded it was
    screened as 000700.SZ (another company) and scored 低/100 without a flag (a trial, 2026-12-07)."""
    with pytest.raises(CodeError, match="保留了前导零"):
        normalise_code(raw)
    assert normalise_code(raw.lstrip("0")).endswith(".SZ")  # the same number as Excel writes it still pads


@pytest.mark.parametrize("raw", ["sh000922", "000922.SH", "000510.XSHG", "1.000922", "SH000932"])
def test_a_shanghai_claim_on_any_000_number_is_an_index_not_advice_to_write_sz(raw: str) -> None:
    with pytest.raises(CodeError, match="不是股票: 沪市没有以 000 开头的股票") as exc:
        normalise_code(raw)
    assert "应写作" not in str(exc.value)
