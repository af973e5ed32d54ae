"""The law's part of a year's exchange holidays: the statutory days, and the weekdays only a notice can decide.

《全国年节及纪念日放假办法》 as amended in 2024 (in force since 2025-01-01) fixes the statutory
holidays; the exchanges close on every one of them that falls on a weekday. What the law does not
fix is the bridging (调休) the State Council's yearly notice adds around them, so those weekdays are
reported as undecided (``调休待定``), never guessed open or closed.

The lunar and solar-term dates come from ``lunar-python`` (6tail's calendar library, the
寿星天文历 algorithms), not a hand table. Everything here is a pure function of the year, cached.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType

from lunar_python import Lunar, Solar

FIRST_YEAR = 2025  # the 2024 amendment (除夕 and a second 劳动节 day) applies from this year on
UNDECIDED = "调休待定"
_DAY = dt.timedelta(days=1)
MAX_BRIDGE = 2  # a gap of at most this many weekdays between a holiday and a weekend may be bridged


def _lunar(year: int, month: int, day: int) -> dt.date:
    """The Gregorian date of a (non-leap) lunar month and day in the lunar year starting in ``year``."""
    s = Lunar.fromYmd(year, month, day).getSolar()
    return dt.date(s.getYear(), s.getMonth(), s.getDay())


def _solar_term(year: int, name: str) -> dt.date:
    """The day (Beijing time) of a solar term in ``year``; 清明 is early April, inside lunar ``year``."""
    s = Solar.fromYmd(year, 4, 20).getLunar().getJieQiTable()[name]
    return dt.date(s.getYear(), s.getMonth(), s.getDay())


def _spring_festival(y: int) -> list[tuple[dt.date, str]]:
    first = _lunar(y, 1, 1)
    return [(first - _DAY, "除夕"), (first, "正月初一"), (first + _DAY, "正月初二"), (first + 2 * _DAY, "正月初三")]


# The law as data: festival -> its statutory days (date, label) in a year.
FESTIVALS: dict[str, Callable[[int], list[tuple[dt.date, str]]]] = {
    "元旦": lambda y: [(dt.date(y, 1, 1), "1月1日")],
    "春节": _spring_festival,
    "清明节": lambda y: [(_solar_term(y, "清明"), "清明")],
    "劳动节": lambda y: [(dt.date(y, 5, 1), "5月1日"), (dt.date(y, 5, 2), "5月2日")],
    "端午节": lambda y: [(_lunar(y, 5, 5), "农历五月初五")],
    "中秋节": lambda y: [(_lunar(y, 8, 15), "农历八月十五")],
    "国庆节": lambda y: [(dt.date(y, 10, d), f"10月{d}日") for d in (1, 2, 3)],
}

# The long breaks the notices build around three festivals: (days before, days after) the festival's first
# statutory day within which a weekday may be closed. From the 2025 and 2026 notices as XSHG records them:
# 春节 from the day before 除夕 to 初七 (2026-02-15..23), 劳动节 1-5 May, 国庆节 1-8 October (2025).
LONG_BREAKS: dict[str, tuple[int, int]] = {"春节": (1, 7), "劳动节": (0, 4), "国庆节": (0, 7)}


def _check_year(year: int) -> None:
    if year < FIRST_YEAR:
        raise ValueError(f"{year}: the statutory days here follow the 2024 amendment, in force from {FIRST_YEAR}")


@lru_cache(maxsize=64)
def _statutory(year: int) -> Mapping[dt.date, str]:
    _check_year(year)
    days: dict[dt.date, str] = {}
    for name, rule in FESTIVALS.items():
        for day, label in rule(year):
            days[day] = f"{name} {label}" if label not in (name, "清明") else name
    return MappingProxyType(dict(sorted(days.items())))


def statutory_days(year: int) -> Mapping[dt.date, str]:
    """Every statutory holiday of ``year`` (weekends included): date -> "春节 除夕" and the like."""
    return _statutory(year)


def festival_of(label: str) -> str:
    """"春节 除夕" -> "春节"."""
    return label.split(" ", 1)[0]


def _weekend(d: dt.date) -> bool:
    return d.weekday() >= 5


def _runs(off: set[dt.date], statutory: Mapping[dt.date, str]) -> list[tuple[dt.date, dt.date]]:
    """Maximal runs of days off (weekends and statutory days) that hold at least one statutory day."""
    runs: list[tuple[dt.date, dt.date]] = []
    for day in statutory:
        if runs and runs[-1][0] <= day <= runs[-1][1]:
            continue
        start, end = day, day
        while start - _DAY in off:
            start -= _DAY
        while end + _DAY in off:
            end += _DAY
        runs.append((start, end))
    return runs


def _gap(edge: dt.date, step: dt.timedelta, off: set[dt.date]) -> list[dt.date]:
    """The weekdays from ``edge`` (exclusive) in direction ``step`` up to the next day off."""
    out: list[dt.date] = []
    day = edge + step
    while day not in off and len(out) <= MAX_BRIDGE:
        out.append(day)
        day += step
    return out if len(out) <= MAX_BRIDGE else []


def _candidates(statutory: Mapping[dt.date, str]) -> dict[dt.date, str]:
    """Weekdays a notice may close around the given statutory days, with the reason (first reason wins)."""
    off = set(statutory)
    first, last = min(statutory), max(statutory)
    day = first - 10 * _DAY
    while day <= last + 10 * _DAY:
        if _weekend(day):
            off.add(day)
        day += _DAY
    found: dict[dt.date, str] = {}
    for start, end in _runs(off, statutory):
        name = festival_of(statutory[next(d for d in statutory if start <= d <= end)])
        for d in _gap(start, -_DAY, off) + _gap(end, _DAY, off):
            found.setdefault(d, f"{name}与周末之间, 可能调休")
        owed = sum(_weekend(d) for d in statutory if start <= d <= end)
        day = end
        while owed > 0:
            day += _DAY
            if day not in off:
                found.setdefault(day, f"{name}逢周末, 可能补休")
                owed -= 1
    for name, (before, after) in LONG_BREAKS.items():
        own = [d for d, label in statutory.items() if festival_of(label) == name]
        if not own:
            continue
        day = min(own) - before * _DAY
        while day <= min(own) + after * _DAY:
            if day not in off:
                found.setdefault(day, f"{name}长假, 往年通知常放至 {min(own) + after * _DAY}")
            day += _DAY
    return found


@lru_cache(maxsize=64)
def _undecided(year: int) -> Mapping[dt.date, str]:
    _check_year(year)
    days = dict(statutory_days(year))
    nxt = statutory_days(year + 1)
    days.update({d: v for d, v in nxt.items() if festival_of(v) == "元旦"})  # next 元旦 may bridge 31 Dec
    found = {d: why for d, why in _candidates(dict(sorted(days.items()))).items()
             if d.year == year and d not in days}
    return MappingProxyType(dict(sorted(found.items())))


def undecided_days(year: int) -> Mapping[dt.date, str]:
    """The weekdays of ``year`` that the yearly notice may close (调休) but the law does not: date -> why.

    A weekday in a gap of at most two weekdays between a statutory holiday and a weekend; as many
    weekdays after a holiday as it has statutory days on a weekend (补休); and the weekdays of the
    long breaks (``LONG_BREAKS``). Possible, not predicted: the notice decides.
    """
    return _undecided(year)


def notice_year(d: dt.date) -> int:
    """The year whose notice decides ``d``: the next year's for a December weekday the next 元旦 may bridge, else
    ``d``'s own.

    The notice of year Y arranges Y's holidays, 元旦 Y included; a bridge from 元旦 Y+1 back into December Y is the
    Y+1 notice's (the 2019 notice closed Monday 2018-12-31), so Y's notice, imported first, must not open that day.
    """
    if d.month == 12 and d.year >= FIRST_YEAR and festival_of_reason(undecided_days(d.year).get(d, "")) == "元旦":
        return d.year + 1
    return d.year


def festival_of_reason(why: str) -> str:
    """The festival an ``undecided_days`` reason names ("元旦与周末之间, 可能调休" -> "元旦"), or ""."""
    return next((name for name in FESTIVALS if why.startswith(name)), "")


__all__ = ["FESTIVALS", "FIRST_YEAR", "LONG_BREAKS", "UNDECIDED", "festival_of", "festival_of_reason", "notice_year",
           "statutory_days", "undecided_days"]
