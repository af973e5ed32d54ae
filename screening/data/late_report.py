"""财报滞后: a stock whose next report is past its legal deadline (a late filer), read from its report period.

Kept apart from universe.py (which flags each row with it, and re-exports both names) so the store stays within
the project's module size; the rule itself is the periods' (providers/periods.py: the legal disclosure deadlines).
"""

from __future__ import annotations

import datetime as dt

from screening.data.providers.periods import disclosure_deadline, is_period, next_period

FLAG_LATE_REPORT = "财报滞后"


def late_report(report_date: str | None, trade_date: str | None) -> str | None:
    """The period a stock should have reported by ``trade_date`` and has not (its report is older), or None."""
    if not report_date or not trade_date:
        return None
    try:
        period, day = dt.date.fromisoformat(report_date[:10]), dt.date.fromisoformat(trade_date[:10])
    except ValueError:
        return None
    if not is_period(period):
        return None
    due = next_period(period)
    return due.isoformat() if disclosure_deadline(due) < day else None
