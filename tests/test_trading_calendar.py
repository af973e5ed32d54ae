"""SSE trading days: XSHG for the years it knows; beyond, the config list, an imported notice or the law, warned."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from screening.cli import main
from screening.data.trading_calendar import (
    SHANGHAI,
    SessionUncertain,
    board_session,
    day_status,
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


def test_fallback_past_the_calendar_uses_the_config_list_and_warns(tmp_path: Path) -> None:
    ok, warning = is_trading_day(D(2027, 1, 1), NEW_YEAR_2027, store=tmp_path)
    assert not ok and warning and "fallback" in warning and "2026-12-31" in warning
    assert day_status(D(2027, 1, 1), NEW_YEAR_2027, store=tmp_path).basis == "config"
    assert "configured list" in warning and "no official arrangement" not in warning
    ok, warning = is_trading_day(D(2027, 1, 4), NEW_YEAR_2027, store=tmp_path)
    assert ok and warning
    assert is_trading_day(D(2027, 1, 2), NEW_YEAR_2027, store=tmp_path)[0] is False  # weekends never trade
    # without a list and without a notice: the law closes 元旦, and the warning says no notice is imported
    ok, warning = is_trading_day(D(2027, 1, 1), set(), store=tmp_path)
    assert not ok and warning and "no official arrangement imported for 2027" in warning
    st = day_status(D(2027, 1, 1), store=tmp_path)
    assert (st.open, st.basis, st.note) == (False, "statutory", "元旦 1月1日")
    assert "法定节假日" in st.footer()


def test_stepping_across_the_boundary(tmp_path: Path) -> None:
    for holidays in (NEW_YEAR_2027, set()):  # the config list or the law: 元旦 2027 is closed either way
        assert previous_trading_day(D(2027, 1, 4), holidays, store=tmp_path) == D(2026, 12, 31)
        assert next_trading_day(D(2026, 12, 31), holidays, store=tmp_path) == D(2027, 1, 4)
        assert trading_days(D(2026, 12, 28), D(2027, 1, 10), holidays, store=tmp_path) == [
            D(2026, 12, 28), D(2026, 12, 29), D(2026, 12, 30), D(2026, 12, 31),
            D(2027, 1, 4), D(2027, 1, 5), D(2027, 1, 6), D(2027, 1, 7), D(2027, 1, 8)]


def test_an_undecided_day_counts_as_trading_with_a_warning_but_does_not_run_by_default(tmp_path: Path) -> None:
    st = day_status(D(2027, 6, 10), store=tmp_path)  # the Thursday after 端午 (Wednesday 06-09)
    assert (st.open, st.basis) == (None, "调休待定")
    assert not st.runs("skip") and st.runs("send")
    assert "calendar import" in st.why_not() and "on_unknown_days" in st.why_not()
    ok, warning = is_trading_day(D(2027, 6, 10), store=tmp_path)
    assert ok and warning and "调休待定" in warning
    assert day_status(D(2027, 6, 9), store=tmp_path).runs("send") is False  # a statutory holiday never runs
    assert day_status(D(2027, 6, 14), store=tmp_path).runs("skip") is True


@pytest.mark.parametrize(("when", "session"), [
    ((2026, 12, 5, 7, 30), D(2026, 12, 4)),  # Saturday: Friday's close
    ((2026, 12, 4, 9, 14), D(2026, 12, 3)),  # before the call auction: the previous close
    ((2026, 12, 4, 9, 15), D(2026, 12, 4)),
    ((2027, 1, 4, 8, 0), D(2026, 12, 31)),  # across 元旦 (statutory) into XSHG's year
    ((2027, 2, 15, 10, 0), D(2027, 2, 15)),  # the Monday after the 春节 break trades for certain by the law
    ((2027, 2, 17, 8, 0), D(2027, 2, 16)),
])
def test_the_board_session_is_the_last_certain_session(tmp_path: Path, when: tuple[int, ...], session: dt.date) -> None:
    assert board_session(dt.datetime(*when, tzinfo=SHANGHAI), store=tmp_path) == session


@pytest.mark.parametrize("when", [(2027, 2, 15, 8, 0), (2027, 2, 8, 8, 0), (2027, 6, 10, 9, 30)])
def test_an_undecided_day_on_the_way_back_makes_the_board_session_uncertain(tmp_path: Path,
                                                                           when: tuple[int, ...]) -> None:
    """Without the 2027 notice, 02-12 (02-15 08:00), 02-04 (02-08 08:00, 春节 正月初三 itself closed) and 06-10
    (after the 09:15 auction that day) are 调休待定: the board's session is not known, and no guess is made."""
    with pytest.raises(SessionUncertain, match=r"调休待定.*last certain trading day.*calendar import"):
        board_session(dt.datetime(*when, tzinfo=SHANGHAI), store=tmp_path)


def _cli(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    cfg = tmp_path / "config.toml"
    if not cfg.exists():
        cfg.write_text(f'[digest]\ncalendar_dir = "{tmp_path / "calendar"}"\n', encoding="utf-8")
    rc = main(["calendar", *argv, "--config", str(cfg)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_calendar_2026_matches_exchange_calendars_exactly(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import exchange_calendars as xc
    import pandas as pd

    rc, out, _ = _cli(capsys, tmp_path, "2026", "--format", "json")
    listed = json.loads(out)
    assert rc == 0 and listed["undecided"] == 0
    cal = xc.get_calendar("XSHG")
    weekdays = [D(2026, 1, 1) + dt.timedelta(days=i) for i in range(365)]
    expected = [str(d) for d in weekdays if d.weekday() < 5 and not cal.is_session(pd.Timestamp(d))]
    assert [d["date"] for d in listed["days"]] == expected
    assert {(d["status"], d["basis"]) for d in listed["days"]} == {("closed", "exchange-calendars")}


def test_calendar_2027_lists_the_statutory_days_closed_and_the_rest_undecided(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, out, err = _cli(capsys, tmp_path, "2027", "--format", "json")
    listed = json.loads(out)
    closed = [d["date"] for d in listed["days"] if d["status"] == "closed"]
    assert rc == 0 and closed == ["2027-01-01", "2027-02-05", "2027-02-08", "2027-04-05", "2027-06-09",
                                  "2027-09-15", "2027-10-01"]
    assert {d["basis"] for d in listed["days"] if d["status"] == "closed"} == {"statutory"}
    undecided = [d for d in listed["days"] if d["status"] == "undecided"]
    assert undecided and {d["basis"] for d in undecided} == {"调休待定"}
    assert {"2027-06-10", "2027-05-03", "2027-10-04", "2027-02-09"} <= {d["date"] for d in undecided}
    assert "calendar import" in err
    rc, text, _ = _cli(capsys, tmp_path, "2027")
    assert rc == 0 and "2027-02-05 周五  closed     statutory           春节 除夕" in text
    assert text.strip().endswith(f"7 closed, {len(undecided)} undecided (调休待定)")


def test_calendar_bad_arguments_say_so_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, out, err = _cli(capsys, tmp_path, "next-year")
    assert rc == 2 and not out and "expected `calendar YEAR`" in err and "Traceback" not in err
    rc, _, err = _cli(capsys, tmp_path, "import")
    assert rc == 2 and "needs FILE" in err
