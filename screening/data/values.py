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

# Markers for "no value" (compared after NFKC + casefold + strip).
MISSING_MARKERS = frozenset(
    {"", "-", "--", "---", "—", "——", "–", "n/a", "na", "#n/a", "nan", "null", "none", "nil"}
)

# Chinese magnitude suffixes; longest first so 万亿 wins over 亿.
UNIT_SCALES: tuple[tuple[str, float], ...] = (("万亿", 1e12), ("亿", 1e8), ("万", 1e4))

_NUMBER = re.compile(
    r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:e[+-]?\d+)?$",
    re.IGNORECASE,
)
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
    if is_missing(raw):
        return None
    if isinstance(raw, bool):
        raise ValueError(f"not a number: {raw!r}")
    if isinstance(raw, (int, float)):
        value = float(raw)
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {raw!r}")
        return value
    if not isinstance(raw, str):
        raise ValueError(f"not a number: {raw!r}")
    text = _clean(raw)
    body = text.replace(" ", "")
    if body.endswith("元"):
        body = body[:-1]
    scale = 1.0
    for suffix, factor in UNIT_SCALES:
        if body.endswith(suffix):
            body, scale = body[: -len(suffix)], factor
            break
    if body.endswith("%") and scale == 1.0:
        body = body[:-1]
    if not body or not _NUMBER.match(body) or not any(c.isdigit() for c in body):
        raise ValueError(f"not a number: {raw!r}")
    value = float(body.replace(",", "")) * scale
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {raw!r}")
    return value


_TRUE = frozenset({"是", "y", "yes", "1", "true", "t", "st", "有"})
_ST_MARKS = frozenset({"*st", "s*st", "sst"})
_FALSE = frozenset({"否", "n", "no", "0", "false", "f", "非st", "正常", "无"})


def parse_bool_flag(raw: object) -> bool | None:
    """Parse an ST flag cell: 是/否, Y/N, 1/0, true/false, ST/*ST; None when missing.

    Anything else raises ValueError: an unreadable flag must not silently mean "not ST".
    """
    if is_missing(raw):
        return None
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, (int, float)):
        if raw in (0, 1):
            return bool(raw)
        raise ValueError(f"not a yes/no flag: {raw!r}")
    if not isinstance(raw, str):
        raise ValueError(f"not a yes/no flag: {raw!r}")
    text = _clean(raw).casefold()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if text in {"1.0", "0.0"}:
        return text == "1.0"
    if text.replace(" ", "") in _ST_MARKS:  # the flag column holding the ST prefix itself
        return True
    raise ValueError(f"not a yes/no flag: {raw!r} (expected 是/否, Y/N, 1/0, true/false or ST)")
