"""The fake market's clock: a refresh test on a 调休待定 day is skipped with the fix, never failed by the calendar."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from tests.fakes.fixtures import board_session_now

SH = ZoneInfo("Asia/Shanghai")


def test_a_certain_day_gives_the_board_session() -> None:
    # Saturday: the board shows Friday's close
    assert board_session_now(dt.datetime(2026, 12, 5, 10, tzinfo=SH)) == dt.date(2026, 12, 4)


def test_an_undecided_stretch_skips_with_the_import_hint() -> None:
    # 2027's Spring Festival bridging days are not decided without the State Council's notice
    with pytest.raises(pytest.skip.Exception, match="calendar import"):
        board_session_now(dt.datetime(2027, 2, 8, 10, tzinfo=SH))
