"""Shanghai Stock Exchange trading days from three sources, in order, each day saying which one decided it.

1. exchange-calendars XSHG, where it knows (4.13.2: up to 2026-12-31; later dates raise
   ``DateOutOfBounds``, checked on the installed version);
2. the official arrangement for the year, once the operator imported the State Council's notice
   (``python -m screening calendar import FILE``, screening/data/calendar_notice.py);
3. otherwise the law (screening/data/calendar_law.py): the statutory holidays are closed with
   certainty, the weekdays a notice may bridge are ``调休待定`` (``open is None``), never guessed.

``[digest].holidays`` in config.toml still closes the days it lists (basis ``config``), an operator's
list on top of sources 2 and 3. Make-up working days (调休, e.g. Saturday 2026-10-10) are *not*
trading days: the exchange is closed on every weekend, which XSHG confirms for 2026.

``is_trading_day`` keeps its (bool, warning) shape for counting: an undecided day counts as a trading
day there (a quote looks one day older, never younger) and carries a warning; the schedulers ask
``day_status`` and skip undecided days unless ``[digest].on_unknown_days = "send"``; a count the user reads
(数据已 N 个交易日未更新) goes through ``days_between``, which keeps the undecided days apart. Dating quotes is
different: ``board_session`` never lets an undecided day stand for a session (a quote dated by a day the
exchange may have been closed is a wrong date, not an older one), so it raises ``SessionUncertain``.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo

from screening.data.calendar_law import FIRST_YEAR, UNDECIDED, notice_year, statutory_days, undecided_days
from screening.data.calendar_notice import decide, load_notices

log = logging.getLogger(__name__)
SHANGHAI = ZoneInfo("Asia/Shanghai")
SESSION_STARTS = dt.time(9, 15)  # the call auction: from then on the quote board moves with today's session
CALENDAR_NAME = "XSHG"
_MAX_SCAN_DAYS = 400  # longest possible run of closed days is far shorter; this only stops a bad list
Basis = Literal["exchange-calendars", "notice", "config", "statutory", "调休待定"]
IMPORT_HINT = "python -m screening calendar import FILE"
BASIS_TEXT: dict[str, str] = {
    "exchange-calendars": "exchange-calendars XSHG",
    "notice": "已导入的国务院放假通知 / official notice",
    "config": "config.toml [digest].holidays",
    "statutory": "法定节假日推算 (放假办法) / statutory days by law",
    "调休待定": "调休待定: 需国务院放假通知 / undecided until the notice",
}


@lru_cache(maxsize=1)
def _xshg() -> Any | None:
    """The XSHG calendar (cached; about 20 ms to build), or None if the library is unusable."""
    try:
        import exchange_calendars as xc

        return xc.get_calendar(CALENDAR_NAME)
    except Exception:  # pragma: no cover - a broken install must not stop the schedule
        log.warning("exchange-calendars %s is unavailable; using the notice and the law", CALENDAR_NAME,
                    exc_info=True)
        return None


def known_range() -> tuple[dt.date, dt.date] | None:
    """(first, last) session date XSHG knows, or None when the library is unavailable."""
    cal = _xshg()
    if cal is None:
        return None
    return cal.first_session.date(), cal.last_session.date()


def xshg_covers(year: int) -> bool:
    """True when XSHG decides every weekday of ``year``."""
    rng = known_range()
    if rng is None:
        return False
    last_weekday = dt.date(year, 12, 31)
    while last_weekday.weekday() >= 5:
        last_weekday -= dt.timedelta(days=1)
    return rng[0] <= dt.date(year, 1, 1) and last_weekday <= rng[1]


def default_store() -> Path:
    """Where imported notices live unless ``[digest].calendar_dir`` says otherwise."""
    from screening.config import cache_dir

    return cache_dir() / "calendar"


@dataclass(frozen=True)
class DayStatus:
    """One date: open (True), closed (False) or undecided (None), which source said so, and why."""

    day: dt.date
    open: bool | None
    basis: Basis
    note: str = ""

    def runs(self, on_unknown_days: str = "skip") -> bool:
        """Whether a scheduled job (refresh, digest) runs today: open, or undecided with "send"."""
        return self.open is True or (self.open is None and on_unknown_days == "send")

    def why_not(self) -> str:
        """Why a scheduled job does not run today (log line, admin reply), with how to settle an undecided day."""
        if self.open is None:
            return (f"{UNDECIDED} ({self.note}): not run; settle it with `{IMPORT_HINT}` or set "
                    f"[digest].on_unknown_days = \"send\"")
        return f"not a trading day ({self.basis}{': ' + self.note if self.note else ''})"

    def footer(self) -> str:
        """The digest footer's line: the basis of the day it was built for."""
        note = f" ({self.note})" if self.note else ""
        return f"交易日依据 / trading day per: {BASIS_TEXT[self.basis]}{note}"

    def warning(self) -> str | None:
        """None when XSHG or an imported notice decided; else what the law could and could not say."""
        if self.basis in ("exchange-calendars", "notice"):
            return None
        rng = known_range()
        known = f"{rng[0]}..{rng[1]}" if rng else "unavailable"
        y = notice_year(self.day)  # the notice that decides the day (2029-12-31: the 2030 one)
        text = f"交易日历回退: {self.day} 超出 exchange-calendars XSHG 已知范围 ({known}), "
        if self.basis == "config":  # the operator's list closed it, whatever else is known about the year
            return text + ("按 config.toml [digest].holidays 休市 / trading-calendar fallback: closed per the "
                           "configured list")
        text += (f"未导入 {y} 年国务院放假通知, 按法定节假日判断 / trading-calendar fallback: statutory holidays "
                 f"by law, no official arrangement imported for {y}")
        if self.open is None:
            text += (f"; {self.day} {UNDECIDED} ({self.note}), 导入通知后确定 / undecided bridging day: "
                     f"{IMPORT_HINT}")
        return text


def _law(d: dt.date) -> DayStatus:
    if d.year < FIRST_YEAR:  # before the amended law and outside XSHG: nothing to go by but the weekday
        return DayStatus(d, d.weekday() < 5, "statutory", "周末" if d.weekday() >= 5 else "")
    holiday = statutory_days(d.year).get(d)
    if holiday is not None:
        return DayStatus(d, False, "statutory", holiday)
    if d.weekday() >= 5:
        return DayStatus(d, False, "statutory", "周末")
    why = undecided_days(d.year).get(d)
    if why is not None:  # a December day the next 元旦 may bridge says whose notice decides it (2029-12-31: 2030's)
        later = f"; 由 {notice_year(d)} 年通知决定" if notice_year(d) != d.year else ""
        return DayStatus(d, None, "调休待定", why + later)
    return DayStatus(d, True, "statutory", "")


def day_status(d: dt.date, holidays_fallback: Iterable[dt.date] = (), *, store: Path | None = None) -> DayStatus:
    """The day's status from the first source that decides it (XSHG, config list, notice, law)."""
    if isinstance(d, dt.datetime):
        d = d.date()
    cal = _xshg()
    if cal is not None:
        first, last = cal.first_session.date(), cal.last_session.date()
        if first <= d <= last:
            import pandas as pd

            is_open = bool(cal.is_session(pd.Timestamp(d)))
            note = "" if is_open or d.year < FIRST_YEAR else statutory_days(d.year).get(d, "")
            return DayStatus(d, is_open, "exchange-calendars", note)
    holidays = holidays_fallback if isinstance(holidays_fallback, frozenset | set) else frozenset(holidays_fallback)
    if d in holidays:
        return DayStatus(d, False, "config", "config.toml [digest].holidays")
    decided = decide(d, load_notices(store or default_store()))
    if decided is not None:
        is_open, why, arrangement = decided
        return DayStatus(d, is_open, "notice", f"{why}; {arrangement.source}")
    return _law(d)


def year_days(year: int, holidays_fallback: Iterable[dt.date] = (), *,
              store: Path | None = None) -> list[DayStatus]:
    """Every weekday of ``year`` that is closed or undecided, in order (what ``calendar YEAR`` lists)."""
    holidays = frozenset(holidays_fallback)
    out, day = [], dt.date(year, 1, 1)
    while day.year == year:
        if day.weekday() < 5:
            st = day_status(day, holidays, store=store)
            if st.open is not True:
                out.append(st)
        day += dt.timedelta(days=1)
    return out


def is_trading_day(d: dt.date, holidays_fallback: Iterable[dt.date] = (), *,
                   store: Path | None = None) -> tuple[bool, str | None]:
    """(is a trading day, warning): the warning is None when XSHG or a notice decided.

    An undecided (调休待定) day counts as a trading day here, with its warning; schedulers use ``day_status``.
    """
    st = day_status(d, holidays_fallback, store=store)
    return st.open is not False, st.warning()


def next_trading_day(d: dt.date, holidays_fallback: Iterable[dt.date] = (), *, inclusive: bool = False,
                     store: Path | None = None, certain: bool = False) -> dt.date:
    """The first trading day after ``d`` (or ``d`` itself when ``inclusive`` and it trades).

    ``certain``: skip undecided (调休待定) days too, for a bound that must not come early (an undecided day that
    turns out a holiday would end an announcement window before the session the holiday's titles are dated).
    """
    holidays = frozenset(holidays_fallback)
    day = d if inclusive else d + dt.timedelta(days=1)
    for _ in range(_MAX_SCAN_DAYS):
        if (day_status(day, holidays, store=store).open is True if certain
                else is_trading_day(day, holidays, store=store)[0]):
            return day
        day += dt.timedelta(days=1)
    raise ValueError(f"no trading day within {_MAX_SCAN_DAYS} days after {d}; check the holiday list")


def previous_trading_day(d: dt.date, holidays_fallback: Iterable[dt.date] = (), *,
                         inclusive: bool = False, store: Path | None = None) -> dt.date:
    """The last trading day before ``d`` (or ``d`` itself when ``inclusive`` and it trades)."""
    holidays = frozenset(holidays_fallback)
    day = d if inclusive else d - dt.timedelta(days=1)
    for _ in range(_MAX_SCAN_DAYS):
        if is_trading_day(day, holidays, store=store)[0]:
            return day
        day -= dt.timedelta(days=1)
    raise ValueError(f"no trading day within {_MAX_SCAN_DAYS} days before {d}; check the holiday list")


def trading_days(start: dt.date, end: dt.date, holidays_fallback: Iterable[dt.date] = (), *,
                 store: Path | None = None) -> list[dt.date]:
    """All trading days in [start, end]."""
    holidays = frozenset(holidays_fallback)
    out, day = [], start
    while day <= end:
        if is_trading_day(day, holidays, store=store)[0]:
            out.append(day)
        day += dt.timedelta(days=1)
    return out


def days_between(start: dt.date, end: dt.date, holidays_fallback: Iterable[dt.date] = (), *,
                 store: Path | None = None) -> tuple[list[dt.date], list[DayStatus]]:
    """(the certain trading days, the undecided days) in [start, end]: what a count of sessions may state.

    ``trading_days`` counts an undecided (调休待定) day as open; a number said to the user (数据已 N 个交易日未
    更新) must not, so the undecided days come back apart, with their notes, for the message to name them.
    """
    holidays = frozenset(holidays_fallback)
    certain, undecided, day = [], [], start
    while day <= end:
        st = day_status(day, holidays, store=store)
        if st.open is True:
            certain.append(day)
        elif st.open is None:
            undecided.append(st)
        day += dt.timedelta(days=1)
    return certain, undecided


def refresh_blocker(day: dt.date, holidays_fallback: Iterable[dt.date] = (), *,
                    store: Path | None = None) -> DayStatus | None:
    """The undecided day that keeps the morning refresh of ``day`` from running, or None.

    ``day`` itself when undecided (the scheduler skips it); else the first undecided day met walking back over
    closed days before a certain session, which makes ``board_session`` refuse to date the quotes. Either way
    the refresh did not fail: only the year's notice settles it, and the digest must say so, not "未成功".
    """
    holidays = frozenset(holidays_fallback)
    st = day_status(day, holidays, store=store)
    for _ in range(_MAX_SCAN_DAYS):
        if st.open is None:
            return st
        day -= dt.timedelta(days=1)
        st = day_status(day, holidays, store=store)
        if st.open is True:
            return None
    return None


class SessionUncertain(ValueError):
    """The session a quote board shows cannot be proven: an undecided (调休待定) day lies on the way back to it.

    The message is one line: the undecided day, the last certain trading day, and how to settle it.
    """


def board_session(now: dt.datetime, holidays_fallback: Iterable[dt.date] = (), *,
                  store: Path | None = None) -> dt.date:
    """The session a quote board shows at ``now``: today's from the call auction (09:15) on a trading day, else
    the last session before (its close stays on the board before the open, on weekends and holidays).

    Walks back from today (from yesterday before 09:15) over days closed with certainty; the first day that is
    certainly open is the session. An undecided (调休待定) day met first makes the answer unknowable without the
    year's notice (the board shows that day's close if the exchange opened, an earlier one's if not), so
    ``SessionUncertain`` is raised rather than a guess.
    """
    local = now.astimezone(SHANGHAI)
    day = local.date() if local.time() >= SESSION_STARTS else local.date() - dt.timedelta(days=1)
    holidays = frozenset(holidays_fallback)
    for _ in range(_MAX_SCAN_DAYS):
        st = day_status(day, holidays, store=store)
        if st.open is True:
            return day
        if st.open is None:
            last = _last_certain(day, holidays, store)
            raise SessionUncertain(
                f"行情所属交易日无法确定 / the quote board's session is uncertain at {local:%Y-%m-%d %H:%M}: "
                f"{day} {UNDECIDED} ({st.note}); the board shows {day}'s close if the exchange opened that day, "
                f"else an earlier one (last certain trading day: {last or 'unknown'}); import the {notice_year(day)} "
                f"notice to settle it: {IMPORT_HINT}")
        day -= dt.timedelta(days=1)
    raise ValueError(f"no trading day within {_MAX_SCAN_DAYS} days before {local.date()}; check the holiday list")


def _last_certain(day: dt.date, holidays: frozenset[dt.date], store: Path | None) -> dt.date | None:
    """The last day before ``day`` that is certainly open (for the message of SessionUncertain)."""
    for _ in range(_MAX_SCAN_DAYS):
        day -= dt.timedelta(days=1)
        if day_status(day, holidays, store=store).open is True:
            return day
    return None
