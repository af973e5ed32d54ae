"""The law's holidays: lunar and solar-term dates from lunar-python, checked against known dates and XSHG."""

from __future__ import annotations

import datetime as dt

import exchange_calendars as xc
import pandas as pd
import pytest

from screening.data.calendar_law import statutory_days, undecided_days

D = dt.date


def _weekdays(year: int) -> list[dt.date]:
    return [d for d in (D(year, 1, 1) + dt.timedelta(days=i) for i in range(366)) if d.year == year and d.weekday() < 5]


def test_known_lunar_and_solar_term_dates() -> None:
    y26, y25 = statutory_days(2026), statutory_days(2025)
    assert y26[D(2026, 2, 16)] == "春节 除夕" and y26[D(2026, 2, 17)] == "春节 正月初一"
    assert y25[D(2025, 4, 4)] == "清明节" and y25[D(2025, 1, 28)] == "春节 除夕"
    assert y25[D(2025, 5, 31)] == "端午节 农历五月初五" and y25[D(2025, 10, 6)] == "中秋节 农历八月十五"
    assert y26[D(2026, 4, 5)] == "清明节" and y26[D(2026, 6, 19)].startswith("端午节")
    assert len(y25) == len(y26) == 13  # 1 + 4 + 1 + 2 + 1 + 1 + 3 days


def test_2027_statutory_weekdays_are_exactly_the_issue_list() -> None:
    closed = [d for d in statutory_days(2027) if d.weekday() < 5]
    assert closed == [D(2027, 1, 1), D(2027, 2, 5), D(2027, 2, 8), D(2027, 4, 5), D(2027, 6, 9), D(2027, 9, 15),
                      D(2027, 10, 1)]
    assert statutory_days(2027)[D(2027, 2, 6)] == "春节 正月初一"  # a Saturday: closed anyway, owed a 补休 day


def test_2027_undecided_days_follow_the_rules() -> None:
    und = undecided_days(2027)
    assert all(d.weekday() < 5 and d not in statutory_days(2027) for d in und)
    # 端午 and 中秋 on a Wednesday: both two-day gaps to the weekend may be bridged
    assert {D(2027, 6, 7), D(2027, 6, 8), D(2027, 6, 10), D(2027, 6, 11)} <= set(und)
    assert {D(2027, 9, 13), D(2027, 9, 14), D(2027, 9, 16), D(2027, 9, 17)} <= set(und)
    # 劳动节 1-2 May and 国庆 2-3 Oct fall on a weekend: the weekdays after them are owed
    assert "补休" in und[D(2027, 5, 3)] and "补休" in und[D(2027, 5, 4)] and "补休" in und[D(2027, 10, 4)]
    # 清明 on Monday 04-05 and 元旦 on Friday 01-01 touch the weekend: nothing to bridge
    assert not [d for d in und if d.month in (1, 4)]
    assert D(2027, 10, 11) not in und and D(2027, 3, 1) not in und


@pytest.mark.parametrize("year", [2025, 2026])
def test_the_rules_cover_every_day_the_exchange_really_closed(year: int) -> None:
    """Checked on the years XSHG knows: each closed weekday was statutory or flagged 调休待定, each statutory
    weekday was closed. So the law's layer never calls a real holiday a plain trading day."""
    cal = xc.get_calendar("XSHG")
    closed = {d for d in _weekdays(year) if not cal.is_session(pd.Timestamp(d))}
    statutory = {d for d in statutory_days(year) if d.weekday() < 5}
    assert statutory <= closed
    assert closed - statutory <= set(undecided_days(year)), sorted(closed - statutory - set(undecided_days(year)))


def test_before_the_amendment_is_refused_and_results_are_cached() -> None:
    with pytest.raises(ValueError, match="2024 amendment"):
        statutory_days(2024)
    assert statutory_days(2031) is statutory_days(2031)
    assert undecided_days(2031) is undecided_days(2031)
