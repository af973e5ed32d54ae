"""The announcement window a refresh fetches (pure function): it ends the day after the quote session, or today."""

from __future__ import annotations

import datetime as dt

from screening.data.providers.fetch_plan import announcement_window

D = dt.date


def test_a_weekday_refresh_ends_today() -> None:
    # Tuesday morning, Monday's session: notices filed after Monday's close are dated Tuesday
    assert announcement_window(D(2026, 12, 7), D(2026, 12, 8), 3) == [D(2026, 12, 8), D(2026, 12, 7), D(2026, 12, 6)]


def test_a_sunday_refresh_ends_the_day_after_fridays_session() -> None:
    # the fresh-clone run of 2026-12-05 crossed midnight in Shanghai: Sunday, Friday's session
    assert announcement_window(D(2026, 12, 4), D(2026, 12, 6), 3) == [D(2026, 12, 5), D(2026, 12, 4), D(2026, 12, 3)]


def test_a_session_of_today_never_reaches_tomorrow() -> None:
    assert announcement_window(D(2026, 12, 4), D(2026, 12, 4), 2) == [D(2026, 12, 4), D(2026, 12, 3)]
