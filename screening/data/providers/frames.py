"""Reading vendor DataFrames safely: required columns by name, numbers that may be NaN or "-", codes.

Why: a column that is missing must fail with its name, the function, the columns that were there and the SDK
version (so the fix is obvious), never as a bare KeyError deep in our code; and a value that is NaN, None or "-"
is "not given" (None), never 0.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable
from typing import Any

import pandas as pd

from screening.data.codes import CodeError, normalise_code
from screening.data.providers.base import SchemaChanged

_SIX = re.compile(r"^\d{6}$")


def require_columns(frame: pd.DataFrame, *, function: str, required: Iterable[str], sdk: str) -> None:
    """Raise SchemaChanged naming every required column that is missing."""
    seen = [str(c) for c in frame.columns]
    missing = [c for c in required if c not in seen]
    if missing:
        raise SchemaChanged(
            f"{function}: column(s) {', '.join(missing)} missing from the result of {sdk}; "
            f"columns seen: {', '.join(seen) or '(none)'}",
            function=function, missing=missing, seen=seen, version=sdk,
        )


def check_codes(frame: pd.DataFrame, column: str, *, function: str, sdk: str) -> None:
    """akshare labels columns by position: if the code column does not hold codes, every column is suspect."""
    values = [str(v) for v in frame[column].head(200)]
    if values and sum(bool(_SIX.match(v)) for v in values) < 0.9 * len(values):
        raise SchemaChanged(
            f"{function}: column {column!r} does not hold six-digit codes (e.g. {values[:3]}) in the result of "
            f"{sdk}: upstream fields moved and akshare's positional labels no longer fit",
            function=function, missing=[column], seen=[str(c) for c in frame.columns], version=sdk,
        )


def num(value: Any) -> float | None:
    """A finite float, or None for NaN / None / "-" / text."""
    if value is None or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    out = str(value).strip()
    return out or None


def day(value: Any) -> dt.date | None:
    """A date from a date, a datetime, "2026-10-18", "2026-10-18 00:00:00" or "20261018"; else None."""
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    raw = text(value)
    if raw is None:
        return None
    for fmt, size in (("%Y-%m-%d", 10), ("%Y%m%d", 8)):
        try:
            return dt.datetime.strptime(raw[:size], fmt).date()
        except ValueError:
            continue
    return None


def code_of(value: Any) -> str | None:
    """The normalised NNNNNN.EX code, or None for what is not an A-share code (B shares, funds, garbage)."""
    raw = text(value)
    if raw is None:
        return None
    try:
        return normalise_code(raw)
    except CodeError:
        return None
