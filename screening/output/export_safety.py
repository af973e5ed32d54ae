"""CSV/XLSX formula-injection defence for everything the bot writes back out (OWASP "CSV injection").

Names and report text come from uploaded files and model output; a cell such as
``=HYPERLINK(...)`` or ``@SUM(...)`` would run when the user opens the export in Excel/WPS.
Prefixing an apostrophe makes spreadsheet software show it as text. Plain numbers written as
text ("-12.5") are left alone so negative figures stay readable and sortable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^[+-]?(?:\d+(?:,\d{3})*)?(?:\.\d+)?(?:[eE][+-]?\d+)?%?$")


def escape_formula(value: Any) -> Any:
    """Return ``value`` with a leading "'" when it is a string a spreadsheet would treat as a formula.

    Non-strings (numbers, None) are returned unchanged: the writer stores them as typed cells.
    """
    if not isinstance(value, str) or not value or not value.startswith(FORMULA_TRIGGERS):
        return value
    if any(c.isdigit() for c in value) and _PLAIN_NUMBER.match(value):
        return value
    return "'" + value


# a code cell Excel would read from a CSV as a number and show changed: 000001 as 1, 东方财富's 0.000001 as 1E-06,
# 1e5 as 100000, 12+ digits as 1.23457E+11; all-digit codes alike, so the column stays one type (text)
_EXCEL_READS_AS_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def excel_text(value: Any) -> Any:
    """``value`` as ``="000001"`` when Excel/WPS opening a CSV would turn it into a number, else unchanged.

    Why: a pool's typed code ``000001`` came back in the report's ``input`` column as 1 once the CSV was opened in
    Excel (a trial, 2026-12-08); the quotes of a CSV field do not stop that, a formula of one literal string does
    (Excel shows 000001 and treats it as text; the pool reader takes ``="000001"`` back as the code)."""
    if isinstance(value, str) and _EXCEL_READS_AS_NUMBER.fullmatch(value):
        return f'="{value}"'
    return value


def escape_row(values: Iterable[Any]) -> list[Any]:
    """``escape_formula`` over one output row."""
    return [escape_formula(v) for v in values]


# what an XLSX cell cannot hold (XML 1.0 forbids these control characters; openpyxl raises on them)
_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_illegal(value: Any) -> Any:
    """``value`` without the control characters a spreadsheet cannot store; any string survives export."""
    return _ILLEGAL.sub("", value) if isinstance(value, str) else value


CELL_MAX_CHARS = 32_767  # what one Excel cell holds; openpyxl and Excel cut a longer text without a word


def fit_cell(value: Any) -> Any:
    """A string a spreadsheet cell can hold whole, or cut with a note saying so and where the rest is (a report text
    of 40,000 characters lost its last titles, the 立案调查 that made the row 高 among them; a trial, 2026-12-07)."""
    if not isinstance(value, str) or len(value) <= CELL_MAX_CHARS:
        return value
    note = f"…[已截断: 全文 {len(value)} 字, 见 JSON 输出]"
    return value[: CELL_MAX_CHARS - len(note)] + note
