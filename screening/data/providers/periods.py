"""Report periods: which quarter ends to ask for, and how they relate (a year before, the last annual).

A-share reports are cumulative from January: the Q3 report's net profit is January-September. Periods are the
quarter ends 03-31, 06-30, 09-30, 12-31; a period's reports come out over a legal window after it (Q1 and the
annual report by 04-30, H1 by 08-31, Q3 by 10-31), so on a given day a period can be partly published.
"""

from __future__ import annotations

import datetime as dt

_ENDS = ((3, 31), (6, 30), (9, 30), (12, 31))
_LABELS = {3: "一季报", 6: "半年报", 9: "三季报", 12: "年报"}


def is_period(day: dt.date) -> bool:
    return (day.month, day.day) in _ENDS


def periods_before(day: dt.date, count: int) -> list[dt.date]:
    """The ``count`` quarter ends strictly before ``day``, newest first."""
    out: list[dt.date] = []
    year = day.year
    while len(out) < count:
        for month, d in reversed(_ENDS):
            end = dt.date(year, month, d)
            if end < day and len(out) < count:
                out.append(end)
        year -= 1
    return out


def next_period(period: dt.date) -> dt.date:
    index = _ENDS.index((period.month, period.day))
    if index == 3:
        return dt.date(period.year + 1, 3, 31)
    month, d = _ENDS[index + 1]
    return dt.date(period.year, month, d)


def year_before(period: dt.date) -> dt.date:
    return dt.date(period.year - 1, period.month, period.day)


def is_annual(period: dt.date) -> bool:
    return (period.month, period.day) == (12, 31)


def last_annual(period: dt.date) -> dt.date:
    """The newest fiscal year-end at or before ``period``."""
    return period if is_annual(period) else dt.date(period.year - 1, 12, 31)


def disclosure_deadline(period: dt.date) -> dt.date:
    """The last day the law allows for a period's reports (annual and Q1: 04-30, H1: 08-31, Q3: 10-31)."""
    if period.month == 12:
        return dt.date(period.year + 1, 4, 30)
    return {3: dt.date(period.year, 4, 30), 6: dt.date(period.year, 8, 31), 9: dt.date(period.year, 10, 31)}[
        period.month
    ]


def ymd(day: dt.date) -> str:
    return f"{day:%Y%m%d}"


def label(period: dt.date) -> str:
    """E.g. 2026年三季报, the way Chinese reports name a period."""
    return f"{period.year}年{_LABELS[period.month]}"
