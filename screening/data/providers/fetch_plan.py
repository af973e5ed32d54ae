"""What one fetch asks for beyond the period walk, and how its calls are counted for the progress bar.

Shared by both providers: they differ in which vendor calls bring a period or a day, not in which periods and
days a refresh needs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from screening.data.providers.base import ProgressCallback
from screening.data.providers.fundamentals import PeriodFigures
from screening.data.providers.periods import is_annual, last_annual, year_before


def announcement_window(trade_date: dt.date, today: dt.date, days: int) -> list[dt.date]:
    """The last ``days`` calendar days, newest first, ending today (or the next session after a past
    ``trade_date``).

    Announcements filed after the close are dated the next day, and those filed over a weekend or a holiday are
    dated up to the next session (a Sunday evening's 立案调查 is dated Monday): the window reaches up to the next
    session after the quotes', so a Monday (or after-holiday) morning refresh reads them, as a Tuesday one does.
    That session is one the calendar is sure of: an undecided (调休待定) day that was in fact a holiday would end
    the window before the session its titles are dated (reaching further only reads more; ``today`` caps it).
    """
    from screening.data.trading_calendar import next_trading_day  # the calendar reads lunar data: only when asked

    end = min(today, next_trading_day(trade_date, certain=True))
    return [end - dt.timedelta(days=i) for i in range(days)]


def supporting_periods(latest: Iterable[PeriodFigures]) -> set[dt.date]:
    """The reports besides each stock's latest that its TTM net profit and its two fiscal years need.

    For a latest period L: the last annual report before L and L a year before (TTM, and the first fiscal year),
    and the annual report before that (the second fiscal year). An annual L is its own TTM and first year.
    """
    needed: set[dt.date] = set()
    for figures in latest:
        annual = last_annual(figures.period)
        needed.add(year_before(annual))
        if not is_annual(figures.period):
            needed.update({annual, year_before(figures.period)})
    return needed


@dataclass
class CallPlan:
    """Counts the calls of one fetch for the "fetch" progress step (it grows when periods fall back)."""

    progress: ProgressCallback | None
    planned: int
    done: int = 0

    def add(self, n: int) -> None:
        self.planned += n

    def step(self) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress("fetch", self.done, max(self.planned, self.done))
