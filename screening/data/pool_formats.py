"""What an Excel number format says about the unit of the number stored under it.

Excel and WPS store a typed ``34.19%`` as 0.3419 with the format ``0.00%``, and a figure typed as
``12.5`` in a cell formatted ``0.0"亿"`` is shown as ``12.5亿``: the stored number alone is not the
figure the user sees. Reading the stored number would screen 贵州茅台 on an ROE of 0.34 %, so the
format is read as the unit of the cell: ``%`` scales by 100, a literal 亿/万 multiplies it out. A
format that only *displays* in 万/亿 (thousands commas ``0,,"百万"`` or the inserted point
``0!.0000"万"``) leaves the stored number in yuan, and so has no unit here.
"""

from __future__ import annotations

import re

# Magnitudes a format can write as literal text after the number; longest first so 万亿 wins over 亿.
FORMAT_MAGNITUDES: tuple[tuple[str, float], ...] = (("万亿", 1e12), ("亿", 1e8), ("万", 1e4))
PERCENT = "%"
_QUOTED = re.compile(r'"[^"]*"')
_ESCAPED = re.compile(r"\\.")
_BRACKETED = re.compile(r"\[[^\]]*\]")  # [Red], [$-804], [>=100] ...
# a display-only scale: a comma after the last digit placeholder (0,, = /1e6) or a literal point (0!.0000)
_DISPLAY_SCALE = re.compile(r"[0#?],+(?![0#?])|!\.|\\\.")


def format_unit(number_format: str | None) -> str | None:
    """The unit a cell's number format gives its stored number: "%", "亿", "万", "万亿" or None."""
    if not number_format or number_format == "General":
        return None
    section = _first_section(number_format)
    bare = _BRACKETED.sub("", _ESCAPED.sub("", _QUOTED.sub("", section)))
    if PERCENT in bare:
        return PERCENT
    literal = _BRACKETED.sub("", section)  # quoted or not, 亿 after the number is text the format shows
    if _DISPLAY_SCALE.search(_QUOTED.sub("", section)):
        return None  # shown in 万/亿, stored in yuan
    for unit, _scale in FORMAT_MAGNITUDES:
        if unit in literal:
            return unit
    return None


def _first_section(number_format: str) -> str:
    """The positive-number section: formats are ``positive;negative;zero;text``, split outside quotes."""
    out: list[str] = []
    quoted = False
    for ch in number_format:
        if ch == '"':
            quoted = not quoted
        elif ch == ";" and not quoted:
            break
        out.append(ch)
    return "".join(out)


def apply_format(number: float, unit: str) -> float:
    """The figure the user sees: 0.3419 under "%" is 34.19; 12.5 under "亿" is 1.25e9 (yuan).

    Rounded to 12 significant digits so 0.3419 * 100 is 34.19, the number the user typed, not
    34.190000000000005: the verdicts must not differ from the same figure typed as text.
    """
    if unit == PERCENT:
        return float(f"{number * 100:.12g}")
    scale = dict(FORMAT_MAGNITUDES)[unit]
    return float(f"{number * scale:.12g}")


FORMAT_NOTES: dict[str, str] = {
    PERCENT: "百分比格式",  # the row says "百分比格式: ROE": the value was read through the cell's format
    "亿": "单元格格式 亿",
    "万": "单元格格式 万",
    "万亿": "单元格格式 万亿",
}
