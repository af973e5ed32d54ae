"""values.parse_number / parse_number_unit / parse_bool_flag / strip_controls and export_safety.escape_formula."""

from __future__ import annotations

import math

import pytest

from screening.data.values import is_missing, parse_bool_flag, parse_number, parse_number_unit, strip_controls
from screening.output.export_safety import escape_formula, escape_row


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("32.78%", 32.78),
        ("1,466.5", 1466.5),
        ("１２.５", 12.5),
        ("－３.５％", -3.5),
        ("-12.3", -12.3),
        ("+4", 4.0),
        ("  7.25 ", 7.25),
        ("0", 0.0),
        (".5", 0.5),
        ("1.2亿", 1.2e8),
        ("3万", 3e4),
        ("12.5亿元", 12.5e8),
        ("1.8万亿", 1.8e12),
        ("-2,000万", -2e7),
        ("1.5E+3", 1500.0),
        ("1,234,567", 1234567.0),
        (42, 42.0),
        (3.5, 3.5),
    ],
)
def test_parse_number_accepts_export_spellings(raw: object, expected: float) -> None:
    value = parse_number(raw)
    assert value is not None
    assert math.isclose(value, expected, rel_tol=1e-12)


@pytest.mark.parametrize(
    "raw", ["--", "-", "—", "——", "", "   ", "N/A", "n/a", "nan", "NaN", "null", None, float("nan")]
)
def test_parse_number_missing_markers_are_none_not_zero(raw: object) -> None:
    assert parse_number(raw) is None
    assert is_missing(raw)


@pytest.mark.parametrize(
    "raw", ["abc", "12.3.4", "1,23", "%", "亿", "12abc", "inf", "1e999", "--5", "5-", True, [1]]
)
def test_parse_number_rejects_non_numbers_with_the_value(raw: object) -> None:
    with pytest.raises(ValueError) as exc:
        parse_number(raw)
    assert repr(raw) in str(exc.value)


@pytest.mark.parametrize(
    ("raw", "value", "unit"),
    [
        ("12.5亿", 12.5e8, "亿"),
        ("12.5亿元", 12.5e8, "亿"),
        ("3万", 3e4, "万"),
        ("1.8万亿", 1.8e12, "万亿"),
        ("32.78%", 32.78, "%"),
        ("３２.７８％", 32.78, "%"),
        ("68.6元", 68.6, "元"),
        ("25.3", 25.3, None),
        (25.3, 25.3, None),
        ("--", None, None),
    ],
)
def test_parse_number_unit_says_which_unit_the_cell_wrote(raw: object, value: float | None, unit: str | None) -> None:
    got, got_unit = parse_number_unit(raw)
    assert got_unit == unit
    assert got == value if value is None else math.isclose(got or 0.0, value, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("raw", "keep_layout", "expected"),
    [
        ("贵州\x07茅台", False, "贵州茅台"),
        ("\x1b[31m红\x1b[0m", False, "红"),  # a terminal colour code goes whole, not just its ESC
        ("立案\x1b[1;31m告知书\x1b[m", True, "立案告知书"),
        ("平安\u202e银行", False, "平安银行"),  # a bidi override that reverses what a reader sees
        ("零\u200b宽", False, "零宽"),
        ("\ufeff代码", False, "代码"),
        ("贵州\n茅台", False, "贵州 茅台"),  # a name is one line
        ("第一段\n\t第二段\x0c", True, "第一段\n\t第二段"),  # report text keeps its layout
        ("\x00\x08\x7f\x9f", False, ""),
    ],
)
def test_strip_controls(raw: str, keep_layout: bool, expected: str) -> None:
    assert strip_controls(raw, keep_layout) == (expected, True)


def test_strip_controls_leaves_clean_text_alone() -> None:
    text = "贵州茅台 *ST<b>测试</b> ＴＣＬ科技 \u3000 €"
    assert strip_controls(text) == (text, False)
    assert strip_controls("a\nb\tc", keep_layout=True) == ("a\nb\tc", False)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("是", True),
        ("否", False),
        ("Y", True),
        ("n", False),
        ("1", True),
        ("0", False),
        ("true", True),
        ("FALSE", False),
        ("ST", True),
        ("*ST", True),
        ("S*ST", True),
        (" st ", True),
        (1, True),
        (0, False),
        (True, True),
        ("--", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_bool_flag(raw: object, expected: bool | None) -> None:
    assert parse_bool_flag(raw) is expected


@pytest.mark.parametrize("raw", ["maybe", "2", "STOP", 7])
def test_parse_bool_flag_rejects_unknown(raw: object) -> None:
    with pytest.raises(ValueError, match="flag"):
        parse_bool_flag(raw)


@pytest.mark.parametrize(
    "raw",
    [
        "=1+1",
        "+cmd|' /C calc'!A0",
        "-2+3",
        "@SUM(A1:A2)",
        "\t=1",
        "\rx",
        '=HYPERLINK("http://x","y")',
        "-",
        "-abc",
    ],
)
def test_escape_formula_prefixes_apostrophe(raw: str) -> None:
    assert escape_formula(raw) == "'" + raw


@pytest.mark.parametrize(
    "raw", ["-12.5", "-1,234.5", "+3.2%", "-0.5e3", "贵州茅台", "*ST<b>测试</b>", "", "a=b", "12"]
)
def test_escape_formula_leaves_plain_values(raw: str) -> None:
    assert escape_formula(raw) == raw


def test_escape_formula_non_strings_unchanged() -> None:
    assert escape_formula(-12.5) == -12.5
    assert escape_formula(None) is None
    assert escape_row(["600519.SH", "=1+1", -3, "-3"]) == ["600519.SH", "'=1+1", -3, "-3"]


@pytest.mark.parametrize("raw", ["-0", "-0.00", "-0%", -0.0, "－0"])
def test_a_negative_zero_is_zero(raw: object) -> None:
    """A trial (2026-12-07): ROE ``-0`` gave the reason ``ROE -0%<5%``."""
    value = parse_number(raw)
    assert value == 0 and f"{value:g}" == "0"
