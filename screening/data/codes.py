"""A-share code normalisation: every accepted spelling becomes ``NNNNNN.SH|SZ|BJ``.

The exchange is derived from the number, not trusted from the suffix: a file that
says ``000001.SH`` is wrong about the market and gets told so instead of being
screened as some other company.
"""

from __future__ import annotations

import re

_PATTERN = re.compile(
    r"^\s*(?:(?P<pre>SH|SZ|BJ)\s*)?(?P<num>\d{6})(?:\s*\.\s*(?P<suf>SH|SZ|BJ|SS|XSHG|XSHE))?\s*$",
    re.IGNORECASE,
)
_SUFFIX_ALIASES = {"SS": "SH", "XSHG": "SH", "XSHE": "SZ"}


class CodeError(ValueError):
    """A code that is not a valid A-share code; the message says why."""


def exchange_of(number: str) -> str | None:
    """Exchange from the six digits (SSE 6xxxxx, SZSE 0/3xxxxx, BSE 4/8xxxxx and 920xxx)."""
    if number.startswith("920") or number[0] in "48":
        return "BJ"
    if number[0] == "6":
        return "SH"
    if number[0] in "03":
        return "SZ"
    return None


def normalise_code(raw: object) -> str:
    """Return ``NNNNNN.EX`` or raise CodeError naming what is wrong with ``raw``."""
    if raw is None:
        raise CodeError("empty code")
    text = str(raw).strip()
    if isinstance(raw, float) and raw.is_integer():
        text = str(int(raw))
    if not text:
        raise CodeError("empty code")
    # spreadsheets drop leading zeros: 1 -> 000001 (only for pure digits up to 6 long)
    if text.isdigit() and len(text) < 6:
        text = text.zfill(6)
    m = _PATTERN.match(text)
    if not m:
        raise CodeError(f"not an A-share code: {text!r} (expected e.g. 600519.SH, 600519, sh600519)")
    num = m.group("num")
    market = exchange_of(num)
    if market is None:
        raise CodeError(f"no A-share exchange lists codes starting with {num[0]}: {text!r}")
    claimed = m.group("pre") or m.group("suf")
    if claimed:
        claimed = _SUFFIX_ALIASES.get(claimed.upper(), claimed.upper())
        if claimed != market:
            raise CodeError(f"{text!r} says {claimed} but {num} is listed on {market}")
    return f"{num}.{market}"


def split_codes(text: str) -> list[str]:
    """Split a typed list of codes on whitespace, commas (also full-width) and semicolons."""
    return [t for t in re.split(r"[\s,;，；、]+", text) if t]
