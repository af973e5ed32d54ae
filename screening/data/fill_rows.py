"""A stock as the local data fills it, with the notes that say what its figures are worth: one place for a file's
rows (``fill_file_row``: both readings of a code listed twice with other figures, data/pool_conflict.py) and a
typed code's (``annotate``). Split from load.py, which holds the ways in (file, typed codes) and is at its size.
"""

from __future__ import annotations

import datetime as dt

from screening.config import Settings
from screening.data.file_dates import check_file_dates
from screening.data.freshness import future_notes, intraday_note, market_today, roe_period_note, stale_notes
from screening.data.gap_causes import gap_notes
from screening.data.pool_demo import DEMO_NOTE
from screening.data.row_checks import name_conflict, quarter_roe, sign_conflict, unusual_figures
from screening.data.source_checks import source_notes
from screening.data.universe import Universe
from screening.data.unknown_codes import unlisted_code
from screening.models import StockInput


def demo_date(universe: Universe) -> str | None:
    """The day the demo universe was built: the only date its illustrative figures have (never 1970-01-01)."""
    return (universe.info.refreshed_at or "")[:10] or None


def annotate(stock: StockInput, universe: Universe, settings: Settings, today: dt.date | None) -> StockInput:
    """Demo, staleness and doubt notes on a filled stock: every row says what its figures are worth, whether
    they came from a file or from the local data (a typed code, the digest: a provider's ROE of 250% or a loss
    beside a positive ROE is as doubtful as a file's)."""
    stock.notes += [n for n in (sign_conflict(stock), unusual_figures(stock)) if n] + gap_notes(stock, universe)
    if universe.info.demo:
        if DEMO_NOTE not in stock.notes:  # a demo file's row says so already (pool_demo)
            stock.notes.append(DEMO_NOTE)
        stock.data_date = stock.data_date or demo_date(universe)
        return stock
    filled = {f for f, src in stock.sources.items() if src.startswith("universe:")}
    if filled:
        dates = {f: d for f, d in universe.field_dates(stock.code).items() if f in filled}
        stock.notes += [n for n in [intraday_note(dates, universe.info.trade_date, universe.info.refreshed_at)] if n]
        day = today or market_today()
        stock.notes += stale_notes(dates, day, settings.universe.max_quote_age_days,
                                   settings.digest.holiday_set(), store=settings.digest.calendar_store())
        stock.notes += future_notes(dates, day)
        stock.notes += [n for n in [roe_period_note(dates, stock.sources.get("roe", ""))] if n]
    return stock


def fill_file_row(stock: StockInput, moved: str | None, universe: Universe, settings: Settings,
                  today: dt.date | None) -> StockInput:
    """A file row's stock filled from the universe, with the notes of what its figures are worth (``moved``: the
    note of an old BSE code read as its 920 stock)."""
    conflict = name_conflict(stock, universe)
    copied = DEMO_NOTE in stock.notes
    stock = annotate(universe.fill(stock), universe, settings, today)
    notes = (moved, conflict, quarter_roe(stock), unlisted_code(stock, universe),
             *check_file_dates(stock, settings, today), *source_notes(stock, universe))
    stock.notes += [n for n in notes if n]
    if copied:
        stock.sources = {f: "demo" if s == "file" else s for f, s in stock.sources.items()}
        if DEMO_NOTE not in stock.notes:
            stock.notes.insert(0, DEMO_NOTE)
    return stock
