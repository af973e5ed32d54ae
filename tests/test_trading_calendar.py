"""SSE trading days: XSHG for the years it knows, weekdays minus the config list beyond, with a warning."""

from __future__ import annotations

import datetime as dt

import pytest

from screening.data.trading_calendar import (
    is_trading_day,
    known_range,
    next_trading_day,
    previous_trading_day,
    trading_days,
)

D = dt.date
NEW_YEAR_2027 = {D(2027, 1, 1)}


def test_installed_xshg_knows_2026_and_refuses_2027() -> None:
    """The premise of the fallback: the installed exchange-calendars ends on 2026-12-31."""
    import exchange_calendars as xc
    import pandas as pd

    _first, last = known_range()  # type: ignore[misc]
    assert last == D(2026, 12, 31)
    with pytest.raises(xc.errors.DateOutOfBounds):
        xc.get_calendar("XSHG").is_session(pd.Timestamp("2027-01-04"))


def test_national_day_fortnight_2026() -> None:
    """国庆 2026: 10-01..10-07 closed; Saturday 10-10 is a make-up working day but the exchange is shut."""
    days = trading_days(D(2026, 9, 28), D(2026, 10, 11))
    assert days == [D(2026, 9, 28), D(2026, 9, 29), D(2026, 9, 30), D(2026, 10, 8), D(2026, 10, 9)]
    assert is_trading_day(D(2026, 10, 10)) == (False, None)  # 调休 Saturday: no warning, XSHG decided
    assert is_trading_day(D(2026, 10, 1)) == (False, None)
    assert next_trading_day(D(2026, 9, 30)) == D(2026, 10, 8)
    assert previous_trading_day(D(2026, 10, 8)) == D(2026, 9, 30)
    assert next_trading_day(D(2026, 10, 9), inclusive=True) == D(2026, 10, 9)


def test_fallback_past_the_calendar_uses_the_config_list_and_warns() -> None:
    ok, warning = is_trading_day(D(2027, 1, 1), NEW_YEAR_2027)
    assert not ok and warning and "fallback" in warning and "2026-12-31" in warning
    assert "no holidays configured" not in warning
    ok, warning = is_trading_day(D(2027, 1, 4), NEW_YEAR_2027)
    assert ok and warning
    assert is_trading_day(D(2027, 1, 2), NEW_YEAR_2027)[0] is False  # weekends never trade, make-up or not
    # without a list for that year: weekdays, and the warning says the list is missing
    ok, warning = is_trading_day(D(2027, 1, 1), set())
    assert ok and warning and "no holidays configured for 2027" in warning


def test_stepping_across_the_boundary() -> None:
    assert previous_trading_day(D(2027, 1, 4), NEW_YEAR_2027) == D(2026, 12, 31)
    assert next_trading_day(D(2026, 12, 31), NEW_YEAR_2027) == D(2027, 1, 4)
    assert trading_days(D(2026, 12, 28), D(2027, 1, 10), NEW_YEAR_2027) == [
        D(2026, 12, 28), D(2026, 12, 29), D(2026, 12, 30), D(2026, 12, 31),
        D(2027, 1, 4), D(2027, 1, 5), D(2027, 1, 6), D(2027, 1, 7), D(2027, 1, 8)]
