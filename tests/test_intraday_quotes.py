"""Quotes fetched during their own session are the moment's, not the close (a trial, 2026-12-06: a 10:30
refresh was labelled as the session's quotes). Pure functions of freshness.py and the universe's label."""

from __future__ import annotations

import pytest

from screening.data.freshness import NOTE_INTRADAY, intraday_note, intraday_time
from screening.data.universe import UniverseInfo


@pytest.mark.parametrize(("trade_date", "refreshed_at", "shown"), [
    ("2026-12-07", "2026-12-07T10:30:05+08:00", "10:30"),
    ("2026-12-07", "2026-12-07T02:30:05+00:00", "10:30"),  # UTC, read in Shanghai
    ("2026-12-07", "2026-12-07T09:15:00+08:00", "09:15"),
    ("2026-12-07", "2026-12-07T14:59:59", "14:59"),  # naive: the refresh's own local time
    ("2026-12-07", "2026-12-07T15:00:00+08:00", None),  # the close
    ("2026-12-07", "2026-12-07T18:40:00+08:00", None),
    ("2026-12-04", "2026-12-06T10:30:00+08:00", None),  # a Sunday refresh shows Friday's close
    ("2026-12-04", "2026-12-07T08:50:00+08:00", None),  # before the open: the last session's close
    (None, "2026-12-07T10:30:00+08:00", None), ("2026-12-07", None, None), ("2026-12-07", "not a time", None),
])
def test_intraday_time(trade_date: str | None, refreshed_at: str | None, shown: str | None) -> None:
    assert intraday_time(trade_date, refreshed_at) == shown


def test_a_row_on_mid_session_quotes_says_which_figures_and_when() -> None:
    dates = {"price": "2026-12-07", "pe_ttm": "2026-12-07", "roe": "2025-12-31", "market_cap": "2026-12-04"}
    note = intraday_note(dates, "2026-12-07", "2026-12-07T10:30:00+08:00")
    assert note == f"{NOTE_INTRADAY}: PE-TTM, 最新价 为 2026-12-07 10:30 的盘中数据, 不是收盘价"
    assert intraday_note(dates, "2026-12-07", "2026-12-07T16:00:00+08:00") is None
    assert intraday_note({"roe": "2025-12-31"}, "2026-12-07", "2026-12-07T10:30:00+08:00") is None


def test_the_universe_label_says_mid_session() -> None:
    info = UniverseInfo(provider="akshare", trade_date="2026-12-07", refreshed_at="2026-12-07T10:30:00+08:00", count=1)
    assert "行情 2026-12-07 盘中 10:30" in info.label()
    info.refreshed_at = "2026-12-07T15:40:00+08:00"
    assert "行情 2026-12-07 ·" in info.label() and "盘中" not in info.label()
