"""The dates a file states for its own figures, read where the file writes them, for the load to age
(data/file_dates.py): a quote's trading day and a report figure's period.

A user trial (2026-12-07, the eighteenth session) screened a three-month-old PE-TTM as current: the file said
its day in three ways the reader skipped or dropped. 通达信 writes it in the title line above the header
(``沪深A股 2026-09-01``, skipped with a warning that read nothing from it), i问财 stamps each column with the day
it was asked (``市盈率(pe,ttm)[20260901]``; a report figure's column with its period, ``净资产收益率[20231231]``),
a sheet of one's own has a ``日期`` column, and ``universe export`` an ``as_of`` one (the day its import dates the
quotes by). Each becomes ``StockInput.file_dates``: field -> ISO day, per row; a column's stamp first, then the row's
日期 cell, then the title's day. A report figure's own period column (what
``universe export`` writes: ``roe_period``, or ROE报告期; pool_headers.PERIOD_OF) dates that figure on its row, before
its column's stamp. Nothing here knows today's date.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from screening.data.freshness import QUOTE_FIELDS, REPORT_FIELDS
from screening.data.pool_headers import PERIOD_OF, header_stamp
from screening.data.pool_rows import Column
from screening.data.pool_table import RawRow
from screening.data.row_checks import part_year_profits, period_end, read_day
from screening.data.values import is_missing, strip_controls
from screening.models import FIELD_LABELS, FLAG_DATA_DOUBT, StockInput

_STAMPED_REPORTS = REPORT_FIELDS - {"report_date"}


def title_day(titles: list[RawRow]) -> str | None:
    """The day the first title line above the header writes (通达信's ``沪深A股 2026-09-01``), ISO, or None."""
    for raw in titles:
        day = read_day(" ".join(c.strip() for c in raw.cells if c.strip()))
        if day is not None:
            return day.isoformat()
    return None


def stamped_days(used: dict[str, Column]) -> dict[str, str]:
    """field -> the ISO day i问财's header stamp gives it: a quote column's day, a report column's period end."""
    out: dict[str, str] = {}
    for field, col in used.items():
        stamp = header_stamp(col.name)
        if stamp is None:
            continue
        day = read_day(stamp) if field in QUOTE_FIELDS else period_end(stamp) if field in _STAMPED_REPORTS else None
        if day is not None:
            out[field] = day.isoformat()
    return out


def date_row(stock: StockInput, raw: RawRow, used: dict[str, Column], stamps: dict[str, str],
             title: str | None) -> None:
    """Fill ``stock.file_dates`` for the figures the row gives; a 日期 cell that names no day is said on the row."""
    row_day = _cell_date(stock, raw, used.get("quote_date"), read_day, "不是日期, 行情日期未知")
    for field in (*QUOTE_FIELDS, *_STAMPED_REPORTS):
        day = stamps.get(field) or (row_day or title if field in QUOTE_FIELDS else None)
        if day is not None and getattr(stock, field, None) is not None:
            stock.file_dates[field] = day
    for column, field in PERIOD_OF.items():
        period = _cell_date(stock, raw, used.get(column), period_end, f"不是报告期, {FIELD_LABELS[field]} 的报告期未知")
        if period is not None and getattr(stock, field, None) is not None:
            stock.file_dates[field] = period  # the row's own cell: more precise than its column's stamp
    notice = used.get("notice_date")
    announced = read_day(_text(raw, notice)) if notice is not None else None
    if announced is not None:
        stock.file_dates["notice_date"] = announced.isoformat()
    for field, note in part_year_profits(stock).items():  # a quarter's 净利润 is no year's: dropped, where first dated
        setattr(stock, field, None)
        stock.file_dates.pop(field, None)
        stock.notes.append(note)


def _cell_date(stock: StockInput, raw: RawRow, col: Column | None, read: Callable[[str], dt.date | None],
               unread: str) -> str | None:
    """The day a date cell names, ISO (``read_day`` for a quote day, ``period_end`` for the period a report figure is
    of: ``roe_period`` 2025-12-31, ROE报告期 2025年报); None when empty. A cell ``read`` cannot read is said on the
    row (a doubt, ending in ``unread``): its figure is then dated as if the column were not there (a report figure
    by the row's 报告期), and an import refuses the row."""
    text = _text(raw, col) if col is not None else ""
    if is_missing(text):  # an empty cell, or one of the words a file writes for one (--, 暂无)
        return None
    day = read(text)
    if day is None:
        assert col is not None
        stock.notes.append(f"{FLAG_DATA_DOUBT}: 列 {col.name!r} 的值 {text!r} {unread}")
        return None
    return day.isoformat()


def _text(raw: RawRow, col: Column) -> str:
    return strip_controls(raw.cells[col.idx] if col.idx < len(raw.cells) else "")[0].strip()
