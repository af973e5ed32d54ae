"""Stocks as CSV in the universe's own field format: the examples, ``universe import`` and ``export``.

Columns are the StockInput figure names (``code, name, industry, pe_ttm, roe, ...``), plus an
optional ``as_of``; ``universe export`` also writes the period each report figure is of (``roe_period``,
``net_profit_y1_period``, ``net_profit_y2_period``, ``eps_period``: pool_headers.PERIOD_OF), which the pool reader
(``universe import``, ``screen FILE``) reads into the row's dates. Every cell is read as text (codes keep their
leading zeros, an empty cell means "not given", never 0), and anything malformed raises ``UniverseError`` naming
the row and column: a file that is meant to feed the shared universe is refused whole rather than half imported.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from screening.data.codes import CodeError, normalise_code
from screening.data.pool_headers import PERIOD_OF
from screening.data.providers.periods import is_period
from screening.models import DATA_FIELDS, StockInput

AS_OF = "as_of"
_FLOAT_FIELDS = frozenset({"pe_ttm", "roe", "eps", "net_profit_y1", "net_profit_y2", "price", "change_pct", "pb",
                           "market_cap", "pe_dynamic"})
_BOOL_FIELDS = frozenset({"st"})
_TRUE = {"true", "1", "yes", "y", "是", "t"}
_FALSE = {"false", "0", "no", "n", "否", "f"}


class UniverseError(ValueError):
    """Universe data is malformed (a bad code, number or flag); the message says where."""


def parse_cell(field: str, text: str, where: str) -> object:
    """One cell of a universe-shaped CSV as its typed value; UniverseError naming ``where`` if malformed."""
    text = text.strip()
    if text == "":
        return None
    if field in _FLOAT_FIELDS:
        try:
            value = float(text)
        except ValueError:
            raise UniverseError(f"{where}: column {field!r} is not a number: {text!r}") from None
        if not math.isfinite(value):
            raise UniverseError(f"{where}: column {field!r} is not a finite number: {text!r}")
        return value
    if field in _BOOL_FIELDS:
        low = text.casefold()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise UniverseError(f"{where}: column {field!r} is not a yes/no flag: {text!r}")
    if field == "code":
        try:
            return normalise_code(text)
        except CodeError as exc:
            raise UniverseError(f"{where}: {exc}") from None
    return text


def read_stock_csv(path: Path) -> list[tuple[StockInput, str | None]]:
    """Rows of a universe-shaped CSV as (stock, as_of); columns it lacks are None."""
    import pandas as pd  # heavy; only needed when a file is actually read

    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:  # a 0-byte file: nothing in it
        return []
    columns = [str(c).strip() for c in frame.columns]
    if "code" not in columns:
        raise UniverseError(f"{path}: no 'code' column (columns: {', '.join(columns)})")
    frame.columns = columns
    known = [c for c in columns if c in DATA_FIELDS]
    out: list[tuple[StockInput, str | None]] = []
    for i, record in enumerate(frame.to_dict("records")):
        where = f"{path}, row {i + 2}"
        values: dict[str, Any] = {c: parse_cell(c, str(record[c]), where) for c in known}
        if values.get("code") is None:
            raise UniverseError(f"{where}: empty code")
        as_of = str(record.get(AS_OF, "")).strip() or None
        out.append((StockInput(**values), as_of))
    return out


def _format_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)  # shortest round-trip form
    return str(value)


def stocks_csv(rows: list[tuple[StockInput, str | None]], label: tuple[str, str] | None = None,
               dates: Callable[[str], dict[str, str]] | None = None) -> str:
    """The CSV text ``read_stock_csv`` reads back to the same stocks (``universe export``).

    ``label`` (column, value) leads every row with one more column, which ``read_stock_csv`` ignores: the
    synthetic market's 数据来源 = 演示数据, so its file says on every row what it is (data/pool_demo.py).
    ``dates`` (code -> the stored date of each figure: ``Universe.field_dates``) adds a period column per report
    figure (``PERIOD_OF``), so the export re-imports as old as it is: a refresh stores FY2025's ROE beside a 报告期
    of 2026-09-30, and the 报告期 alone read that ROE as a Q3 cumulative one (ROE非年报: refused on import).
    """
    lead = [label[0]] if label else []
    cells = [label[1]] if label else []
    periods = list(PERIOD_OF.items()) if dates is not None else []
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*lead, *DATA_FIELDS, *(column for column, _ in periods), AS_OF])
    for stock, as_of in rows:
        stored = dates(stock.code) if dates is not None else {}
        writer.writerow([*cells, *(_format_cell(getattr(stock, f)) for f in DATA_FIELDS),
                         *(_period_cell(stock, field, stored) for _, field in periods), as_of or ""])
    return buf.getvalue()


def _period_cell(stock: StockInput, field: str, dates: dict[str, str]) -> str:
    """The period a stored report figure is of, ISO; empty when the figure is absent or its date is no period end
    (an import's day for a row that named no 报告期: the export never claims a period the store does not know)."""
    text = dates.get(field, "") if getattr(stock, field) is not None else ""
    try:
        return text if is_period(dt.date.fromisoformat(text[:10])) else ""
    except ValueError:
        return ""
