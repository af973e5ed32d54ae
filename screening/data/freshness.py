"""When a stored figure is too old to screen on without saying so: a visible flag, never a silent use.

Two clocks, because figures age differently:

* quotes (price, change, PB, market cap, and PE-TTM, which moves with the price) are as of a
  trading day; older than ``max_quote_age_days`` SSE trading days is stale;
* report figures (ROE, EPS, net profit) are as of a report period end; they are stale once the
  statutory deadline of the NEXT period's report has passed (Q1 by 04-30, half year by 08-31,
  Q3 by 10-31, annual by 04-30 of the next year: the CSRC disclosure rules), because by then
  every listed company has published newer figures.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from screening.data.trading_calendar import trading_days
from screening.models import FIELD_LABELS

QUOTE_FIELDS = frozenset({"price", "change_pct", "pb", "market_cap", "pe_dynamic", "pe_ttm"})
REPORT_FIELDS = frozenset({"roe", "eps", "net_profit_y1", "net_profit_y2"})
FLAG_STALE = "数据过期"


def next_report_deadline(period_end: dt.date) -> dt.date | None:
    """The last day for the report of the period after ``period_end``; None if it is no period end."""
    md = (period_end.month, period_end.day)
    y = period_end.year
    return {(3, 31): dt.date(y, 8, 31), (6, 30): dt.date(y, 10, 31), (9, 30): dt.date(y + 1, 4, 30),
            (12, 31): dt.date(y + 1, 4, 30)}.get(md)


def quote_age(day: dt.date, today: dt.date, holidays: Iterable[dt.date] = (), *, store: Path | None = None) -> int:
    """Trading days after ``day`` up to and including ``today`` (0: the quote is today's).

    ``store`` is the folder of imported holiday notices (``[digest].calendar_dir``): a day the user's
    notice closes must not count as a day the quote missed."""
    if day >= today:
        return 0
    return len(trading_days(day + dt.timedelta(days=1), today, holidays, store=store))


def stale_notes(dates: dict[str, str], today: dt.date, max_quote_age_days: int,
                holidays: Iterable[dt.date] = (), *, store: Path | None = None) -> list[str]:
    """One flag per stale group (quotes, reports), naming the figures and their date."""
    holidays = list(holidays)
    old_quotes: dict[str, list[str]] = {}
    old_reports: dict[str, list[str]] = {}
    for name, text in dates.items():
        try:
            day = dt.date.fromisoformat(text[:10])
        except ValueError:
            continue
        if name in QUOTE_FIELDS and quote_age(day, today, holidays, store=store) > max_quote_age_days:
            old_quotes.setdefault(text[:10], []).append(FIELD_LABELS[name])
        elif name in REPORT_FIELDS:
            deadline = next_report_deadline(day)
            if deadline is not None and today > deadline:
                old_reports.setdefault(text[:10], []).append(FIELD_LABELS[name])
    notes = [f"{FLAG_STALE}: 行情 {', '.join(sorted(v))} 为 {d} (超过 {max_quote_age_days} 个交易日)"
             for d, v in sorted(old_quotes.items())]
    notes += [f"{FLAG_STALE}: 财报 {', '.join(sorted(v))} 为 {d} 报告期 (下一期报告已应披露)"
              for d, v in sorted(old_reports.items())]
    return notes
