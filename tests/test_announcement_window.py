"""The announcement window a refresh fetches (pure function): it ends the day after the quote session, or today."""

from __future__ import annotations

import datetime as dt

from screening.data.providers.fetch_plan import announcement_window

D = dt.date


def test_a_weekday_refresh_ends_today() -> None:
    # Tuesday morning, Monday's session: notices filed after Monday's close are dated Tuesday
    assert announcement_window(D(2026, 12, 7), D(2026, 12, 8), 3) == [D(2026, 12, 8), D(2026, 12, 7), D(2026, 12, 6)]


def test_a_sunday_refresh_ends_today() -> None:
    # Sunday, Friday's session: notices filed for Monday may already be out
    assert announcement_window(D(2026, 12, 4), D(2026, 12, 6), 3) == [D(2026, 12, 6), D(2026, 12, 5), D(2026, 12, 4)]


def test_a_monday_pre_open_refresh_reads_the_titles_filed_over_the_weekend() -> None:
    # Monday 08:00, Friday's session on the board: a 立案调查 filed Sunday evening is dated Monday
    assert announcement_window(D(2026, 12, 4), D(2026, 12, 7), 3) == [D(2026, 12, 7), D(2026, 12, 6), D(2026, 12, 5)]


def test_the_first_refresh_after_a_holiday_reaches_the_first_session() -> None:
    # 2026-10-08 08:00: the board shows 09-30; the titles of the holiday are dated up to 10-08
    assert announcement_window(D(2026, 9, 30), D(2026, 10, 8), 9)[0] == D(2026, 10, 8)


def test_a_past_session_ends_at_the_session_after_it() -> None:
    # Tushare --date of a past Wednesday: the window stops where the next session's titles stop
    assert announcement_window(D(2026, 12, 2), D(2026, 12, 7), 2) == [D(2026, 12, 3), D(2026, 12, 2)]
    assert announcement_window(D(2026, 12, 4), D(2026, 12, 9), 1) == [D(2026, 12, 7)]


def test_a_session_of_today_never_reaches_tomorrow() -> None:
    assert announcement_window(D(2026, 12, 4), D(2026, 12, 4), 2) == [D(2026, 12, 4), D(2026, 12, 3)]


def test_an_undecided_day_after_the_session_does_not_end_the_window_early() -> None:
    # 2027: 02-04 (Thu) is undecided (its bridging is not announced here), 02-05..02-08 the law's Spring Festival,
    # 02-09..02-12 undecided, 02-15 the first sure session. The board still shows 02-03 on 02-15 at 08:00, so
    # 02-04 was closed: the titles of the holiday, dated up to 02-15, are in the window
    assert announcement_window(D(2027, 2, 3), D(2027, 2, 15), 9)[0] == D(2027, 2, 15)
