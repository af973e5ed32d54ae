"""Shanghai Stock Exchange trading days: exchange-calendars XSHG where it knows, a config list beyond.

exchange-calendars 4.13.2 carries the XSHG holidays up to 2026-12-31 and raises
``DateOutOfBounds`` for later dates (checked on the installed version). Past the calendar's
last session (and before its first) a day counts as a trading day when it is a weekday and
not in the configured holiday list (``[digest].holidays`` in config.toml, filled from the
official arrangement published for the coming year); every answer from the fallback carries
a warning text, which the digest shows in its footer and the scheduler logs.

Make-up working days (调休, e.g. Saturday 2026-10-10) are *not* trading days: the exchange
is closed on every weekend, which XSHG confirms for 2026 and the fallback keeps by never
counting a Saturday or Sunday.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)
CALENDAR_NAME = "XSHG"
_MAX_SCAN_DAYS = 400  # longest possible run of closed days is far shorter; this only stops a bad list


@lru_cache(maxsize=1)
def _xshg() -> Any | None:
    """The XSHG calendar (cached; about 20 ms to build), or None if the library is unusable."""
    try:
        import exchange_calendars as xc

        return xc.get_calendar(CALENDAR_NAME)
    except Exception:  # pragma: no cover - a broken install must not stop the schedule
        log.warning("exchange-calendars %s is unavailable; using the weekday fallback", CALENDAR_NAME,
                    exc_info=True)
        return None


def known_range() -> tuple[dt.date, dt.date] | None:
    """(first, last) session date XSHG knows, or None when the library is unavailable."""
    cal = _xshg()
    if cal is None:
        return None
    return cal.first_session.date(), cal.last_session.date()


def fallback_warning(d: dt.date, holidays_fallback: Iterable[dt.date] = ()) -> str:
    """The warning text for a date decided by the fallback (shown in logs and the digest footer)."""
    rng = known_range()
    known = f"{rng[0]}..{rng[1]}" if rng else "unavailable"
    text = (f"交易日历回退: {d} 超出 exchange-calendars XSHG 已知范围 ({known}), 按工作日减去 "
            f"config.toml [digest].holidays 判断 / trading-calendar fallback: weekdays minus the "
            f"configured holiday list")
    if not any(h.year == d.year for h in holidays_fallback):
        text += (f"; 警告: 配置中没有 {d.year} 年的节假日, 节假日可能被误判为交易日 / no holidays "
                 f"configured for {d.year}")
    return text


def is_trading_day(d: dt.date, holidays_fallback: Iterable[dt.date] = ()) -> tuple[bool, str | None]:
    """(is a trading day, warning): the warning is None when XSHG decided, else the fallback's text."""
    if isinstance(d, dt.datetime):
        d = d.date()
    cal = _xshg()
    if cal is not None:
        first, last = cal.first_session.date(), cal.last_session.date()
        if first <= d <= last:
            import pandas as pd

            return bool(cal.is_session(pd.Timestamp(d))), None
    holidays = set(holidays_fallback)
    return d.weekday() < 5 and d not in holidays, fallback_warning(d, holidays)


def next_trading_day(d: dt.date, holidays_fallback: Iterable[dt.date] = (), *, inclusive: bool = False) -> dt.date:
    """The first trading day after ``d`` (or ``d`` itself when ``inclusive`` and it trades)."""
    holidays = set(holidays_fallback)
    day = d if inclusive else d + dt.timedelta(days=1)
    for _ in range(_MAX_SCAN_DAYS):
        if is_trading_day(day, holidays)[0]:
            return day
        day += dt.timedelta(days=1)
    raise ValueError(f"no trading day within {_MAX_SCAN_DAYS} days after {d}; check the holiday list")


def previous_trading_day(d: dt.date, holidays_fallback: Iterable[dt.date] = (), *,
                         inclusive: bool = False) -> dt.date:
    """The last trading day before ``d`` (or ``d`` itself when ``inclusive`` and it trades)."""
    holidays = set(holidays_fallback)
    day = d if inclusive else d - dt.timedelta(days=1)
    for _ in range(_MAX_SCAN_DAYS):
        if is_trading_day(day, holidays)[0]:
            return day
        day -= dt.timedelta(days=1)
    raise ValueError(f"no trading day within {_MAX_SCAN_DAYS} days before {d}; check the holiday list")


def trading_days(start: dt.date, end: dt.date, holidays_fallback: Iterable[dt.date] = ()) -> list[dt.date]:
    """All trading days in [start, end]."""
    holidays = set(holidays_fallback)
    out, day = [], start
    while day <= end:
        if is_trading_day(day, holidays)[0]:
            out.append(day)
        day += dt.timedelta(days=1)
    return out
