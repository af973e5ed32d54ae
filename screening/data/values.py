"""Cell values from exported stock pools: numbers and flags as people and trading software write them.

Exports from 同花顺 / 东方财富 / Excel write "32.78%", "1,466.5", "12.5亿", full-width digits and
"--" for "no data". A missing marker becomes None (never 0: the rules must know the figure is
absent); anything else that is not a number raises ValueError so the row fails visibly instead
of being screened on a guessed value.
"""

from __future__ import annotations

import math
import re
import unicodedata

# What a cell writes for "no value", one table read by ``is_missing`` (compared after NFKC + casefold + strip): a
# none-word is an empty cell, which the local data may fill and whose row otherwise fails with 缺少数据 and what to
# do, never a figure. Dashes and the English words are what exports write; the Chinese words what 东方财富/同花顺's
# F10 pages and hand-kept sheets write (暂无, 暂无数据, 不适用: a trial, 2026-12-08, found 暂无 in a PE-TTM or ROE cell
# failed the row as "不是数字", where -- read as empty). A PE cell's '-' and 亏损 mean a loss first (pe_words).
MISSING_MARKERS = frozenset(
    {"", "-", "--", "---", "—", "——", "–", "/", "n/a", "na", "#n/a", "nan", "null", "none", "nil",
     "暂无", "暂无数据", "无数据", "无", "不适用", "空", "缺失", "数据缺失", "未披露"}
)

# Chinese magnitude suffixes; longest first so 万亿 wins over 亿.
UNIT_SCALES: tuple[tuple[str, float], ...] = (("万亿", 1e12), ("亿", 1e8), ("万", 1e4))

# thousands groups never follow a lone 0 (0,152 is a decimal comma, not 152)
_NUMBER = re.compile(
    r"^[+-]?(?:[1-9]\d{0,2}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:e[+-]?\d+)?$",
    re.IGNORECASE,
)
# a space inside a number only as a thousands group (1 234.5); "1 2" is two numbers, or a typo, never 12
_SPACED_DIGITS = re.compile(r"\d +\d")
_SPACE_GROUPS = re.compile(r"^[+-]?[1-9]\d{0,2}(?: \d{3})+(?:[.]\d+)?(?=\D|$)")
_MINUS_SIGNS = str.maketrans({"\u2212": "-", "\u2013": "-", "\ufe63": "-"})


def _clean(raw: str) -> str:
    """NFKC folds full-width digits, ％ and ，; odd minus signs become '-'."""
    return unicodedata.normalize("NFKC", raw).translate(_MINUS_SIGNS).strip()


def is_missing(raw: object) -> bool:
    """True for None, float NaN and the textual 'no data' markers ("--", "N/A", "" ...)."""
    if raw is None:
        return True
    if isinstance(raw, float) and math.isnan(raw):
        return True
    if isinstance(raw, str):
        return _clean(raw).casefold() in MISSING_MARKERS
    return False


def parse_number(raw: object) -> float | None:
    """Parse one numeric cell; None for a missing marker, ValueError (with the value) for non-numbers.

    A percent sign is dropped and the value stays in percent units ("32.78%" -> 32.78), because
    ROE and 涨跌幅 columns mean percent whether or not the sign is written. 亿/万 (also with a
    trailing 元) are multiplied out so money is always in yuan.
    """
    return parse_number_unit(raw)[0]


def parse_number_unit(raw: object) -> tuple[float | None, str | None]:
    """``parse_number`` plus the unit the cell itself wrote ("%", "亿", "万", "万亿", "元" or None).

    The unit is returned so the caller can tell a money amount from a percentage: "12.5亿" in a
    ROE column parses as a number, but it is the wrong figure in the wrong place.
    """
    if is_missing(raw):
        return None, None
    if isinstance(raw, bool):
        raise ValueError(f"not a number: {raw!r}")
    if isinstance(raw, (int, float)):
        value = float(raw)
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {raw!r}")
        return value + 0.0, None  # -0.0 is 0 (a reason read "ROE -0%<5%")
    if not isinstance(raw, str):
        raise ValueError(f"not a number: {raw!r}")
    body = _clean(raw)
    if _SPACED_DIGITS.search(body) and not _SPACE_GROUPS.match(body):
        raise ValueError(f"not a number: {raw!r}")
    body = body.replace(" ", "")
    unit: str | None = None
    if body.endswith("元"):
        body, unit = body[:-1], "元"
    scale = 1.0
    for suffix, factor in UNIT_SCALES:
        if body.endswith(suffix):
            body, scale, unit = body[: -len(suffix)], factor, suffix
            break
    if body.endswith("%") and scale == 1.0 and unit is None:
        body, unit = body[:-1], "%"
    if not body or not _NUMBER.match(body) or not any(c.isdigit() for c in body):
        raise ValueError(f"not a number: {raw!r}")
    value = float(body.replace(",", "")) * scale
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {raw!r}")
    return value + 0.0, unit  # -0.0 is 0


# Characters that are never part of a name or a figure: C0/C1 controls, DEL, and the invisible
# format characters (zero-width spaces, bidi overrides that reverse how a name is shown, stray BOMs)
# plus the XML non-characters. They break XLSX writers and terminals and hide text from a reader.
_INVISIBLE = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ufffe\uffff\ufdd0-\ufdef"
)
_CONTROLS = re.compile(f"[{_INVISIBLE}]")
_CONTROLS_AND_LAYOUT = re.compile(f"[{_INVISIBLE}\t\n\r]")


def strip_controls(text: str, keep_layout: bool = False) -> tuple[str, bool]:
    """``text`` without control/invisible characters, and whether any were there.

    ``keep_layout`` keeps tabs and newlines (report text has paragraphs); elsewhere (a name, an
    industry) they become a space, since a name shown on one line must not carry a line break.
    """
    pattern = _CONTROLS if keep_layout else _CONTROLS_AND_LAYOUT
    if not pattern.search(text):
        return text, False
    text = _ANSI.sub("", text)  # a terminal colour code pasted with a name: its "[31m" tail is no name either
    if keep_layout:
        return _CONTROLS.sub("", text), True
    return re.sub(r" {2,}", " ", _CONTROLS.sub("", text).translate(_LAYOUT_TO_SPACE)), True


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")  # ECMA-48 CSI: ESC [ parameters intermediates final
_LAYOUT_TO_SPACE = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


# A flag's words are read before ``MISSING_MARKERS``: 无 in a 是否ST column answers no (not ST), where in a figure
# column it is no value. A ticked box (√, ✓) is yes and a cross (×, ✗) no, as a hand-kept sheet marks them.
_TRUE = frozenset({"是", "y", "yes", "1", "true", "t", "st", "有", "√", "✓", "✔"})
_ST_MARKS = frozenset({"*st", "s*st", "sst"})
_FALSE = frozenset({"否", "n", "no", "0", "false", "f", "非st", "正常", "无", "×", "✗", "✘"})


def parse_bool_flag(raw: object) -> bool | None:
    """Parse an ST flag cell: 是/否, Y/N, 1/0, true/false, ST/*ST; None when missing.

    Anything else raises ValueError: an unreadable flag must not silently mean "not ST".
    """
    text = _clean(raw).casefold() if isinstance(raw, str) else None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if is_missing(raw):
        return None
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, (int, float)):
        if raw in (0, 1):
            return bool(raw)
        raise ValueError(f"not a yes/no flag: {raw!r}")
    if text is None:
        raise ValueError(f"not a yes/no flag: {raw!r}")
    if text in {"1.0", "0.0"}:
        return text == "1.0"
    if text.replace(" ", "") in _ST_MARKS:  # the flag column holding the ST prefix itself
        return True
    raise ValueError(f"not a yes/no flag: {raw!r} (expected 是/否, Y/N, 1/0, true/false or ST)")
