"""How a figure reads to a person: in reasons, the terminal table, the digest; never in scientific notation.

Why: ``f"{x:g}"`` writes 1,000,000 as ``1e+06`` and 0.0000001 as ``1e-07``, so a reason read ``PE-TTM 1e+06>50``
(a trial, s15/u4 C3): right, but not how a person reads a PE. Figures are written out in full, with six
significant digits (more where the integer part has more, so 1234567.8 is 1234568, never 1234570), and with
more digits where six would round the figure onto a threshold the rules compare it with: 14.9999996 read
"ROE 15%介于5%-15%", contradicting itself (a trial, 2026-12-07). Only a figure no A share has (beyond 10^16,
or a non-zero one under 10^-9, e.g. a denormal from a broken cell) is written as a power of ten, with a ×, since
its hundreds of zeros would hide it; it is still never rounded to zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import Decimal

SIGNIFICANT = 6  # digits a figure shows by default, as ``:g`` did
MORE = 12  # digits shown when six would land the figure on a threshold it is not (then all it has)
WRITTEN_OUT = (-9, 16)  # decimal exponents written out in full: 10^-9 <= |x| < 10^16
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def figure(x: float, thresholds: Iterable[float] = (), *, digits: int = SIGNIFICANT) -> str:
    """``x`` in plain positional notation, ``digits`` significant (at least its integer part); never rounded onto
    one of ``thresholds`` unless it is that figure."""
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    exponent = Decimal(repr(abs(x))).adjusted()
    low, high = WRITTEN_OUT
    if not low <= exponent < high:  # no threshold is this far out, and a tiny figure never reads as 0
        mantissa = _trimmed(f"{Decimal(repr(x)).scaleb(-exponent):.{digits}g}")
        return f"{mantissa}×10{str(exponent).translate(_SUPERSCRIPT)}"
    marks = set(thresholds)
    for shown in (digits, max(digits, MORE)):
        text = _written_out(x, exponent, shown)
        if float(text) not in marks or x in marks:
            return text
    return format(Decimal(repr(x)), "f")  # every digit the float has: it is not the threshold


def money(yuan: float) -> str:
    """An amount in yuan as a note shows it: in 亿 (4 significant digits) from a million up, else as it is."""
    return f"{figure(yuan / 1e8, digits=4)}亿" if abs(yuan) >= 1e6 else figure(yuan)


def _written_out(x: float, exponent: int, digits: int) -> str:
    """``x`` to ``digits`` significant digits (at least its whole integer part), without an exponent."""
    return _trimmed(format(Decimal(f"{x:.{max(digits, exponent + 1)}g}"), "f"))


def _trimmed(text: str) -> str:
    """A decimal's text without trailing zeros after its point (1.50000 -> 1.5, 2.000 -> 2)."""
    return text.rstrip("0").rstrip(".") if "." in text else text
