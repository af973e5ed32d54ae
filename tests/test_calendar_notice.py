"""The official arrangement goes in with one command, checked against the law; undecided days become decided.

The notice below is made up for the test (the real 2027 notice is not out): shaped like the 2025 and
2026 notices, it closes 春节 to 初七 and the 国庆 week and bridges nothing around 端午 and 中秋.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from screening.cli import main
from screening.data.calendar_notice import import_notice, load_notices
from screening.data.trading_calendar import SessionUncertain, day_status, is_trading_day
from tests.notice_2027 import NOTICE_2027

D = dt.date


def _cli(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    cfg = tmp_path / "config.toml"
    if not cfg.exists():
        cfg.write_text(f'[digest]\ncalendar_dir = "{tmp_path / "calendar"}"\n', encoding="utf-8")
    rc = main(["calendar", *argv, "--config", str(cfg)])
    out, err = capsys.readouterr()
    return rc, out, err


def _write(tmp_path: Path, text: str, name: str = "notice-2027.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_import_turns_undecided_days_into_decided_ones(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = tmp_path / "calendar"
    assert day_status(D(2027, 6, 10), store=store).open is None
    assert day_status(D(2027, 2, 12), store=store).open is None
    rc, out, err = _cli(capsys, tmp_path, "import", str(_write(tmp_path, NOTICE_2027)))
    assert rc == 0, err
    assert out.startswith("stored the 2027 arrangement (test: made-up 2027 arrangement")
    assert "2027-06-10 调休待定 -> open (notice)" in out and "2027-02-12 调休待定 -> closed (notice)" in out
    assert (store / "notice-2027.json").exists()
    st = day_status(D(2027, 6, 10), store=store)
    assert (st.open, st.basis) == (True, "notice") and st.warning() is None
    assert day_status(D(2027, 10, 6), store=store).open is False
    assert is_trading_day(D(2027, 2, 12), store=store) == (False, None)  # decided: no warning
    assert is_trading_day(D(2027, 2, 20), store=store)[0] is False  # a make-up Saturday: the exchange is shut
    rc, out, _ = _cli(capsys, tmp_path, "2027", "--format", "json")
    listed = json.loads(out)
    assert rc == 0 and listed["undecided"] == 0 and {d["basis"] for d in listed["days"]} == {"notice"}
    assert "official notice imported" in listed["sources"]
    assert [d["date"] for d in listed["days"]] == [
        "2027-01-01", "2027-02-05", "2027-02-08", "2027-02-09", "2027-02-10", "2027-02-11", "2027-02-12",
        "2027-04-05", "2027-05-03", "2027-05-04", "2027-05-05", "2027-06-09", "2027-09-15",
        "2027-10-01", "2027-10-04", "2027-10-05", "2027-10-06", "2027-10-07"]


def test_a_gbk_notice_is_refused_in_one_line_naming_the_file(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    """A notice saved as GBK (a Chinese editor's default) was `错误: UnicodeDecodeError ...`, exit 1."""
    path = tmp_path / "notice-2027.toml"
    path.write_bytes(NOTICE_2027.replace("test: 2027", "国务院办公厅 2027").encode("gbk"))
    rc, out, err = _cli(capsys, tmp_path, "import", str(path))
    assert (rc, out) == (2, "")
    errors = [ln for ln in err.splitlines() if not ln.startswith("config: ")]  # the config line, then one line
    assert len(errors) == 1 and str(path) in errors[0] and "must be saved as UTF-8" in errors[0], err
    assert "UnicodeDecodeError" not in err and not (tmp_path / "calendar" / "notice-2027.json").exists()


def test_a_notice_that_opens_a_statutory_holiday_is_refused(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    short = NOTICE_2027.replace("end = 2027-02-13", "end = 2027-02-07", 1).replace(
        "start = 2027-02-05", "start = 2027-02-04", 1)  # 春节 04..07: leaves 初三 (Monday 02-08) open
    rc, out, err = _cli(capsys, tmp_path, "import", str(_write(tmp_path, short)))
    assert rc == 2 and not out
    assert err.strip().splitlines()[-1].endswith(
        "refused: it opens the statutory holiday 2027-02-08 (春节 正月初三): no holidays entry covers it (the law "
        "closes it)")
    assert not (tmp_path / "calendar" / "notice-2027.json").exists()
    assert day_status(D(2027, 2, 8), store=tmp_path / "calendar").basis == "statutory"
    as_workday = NOTICE_2027.replace("workdays = [2027-09-26, 2027-10-09]", "workdays = [2027-10-02]")
    rc, _, err = _cli(capsys, tmp_path, "import", str(_write(tmp_path, as_workday)))
    assert rc == 2 and "2027-10-02 is both a day off and a working day" in err
    no_mid_autumn = NOTICE_2027.replace('name = "中秋节"\nstart = 2027-09-15\nend = 2027-09-15',
                                        'name = "中秋节"\nstart = 2027-09-18\nend = 2027-09-19')
    rc, _, err = _cli(capsys, tmp_path, "import", str(_write(tmp_path, no_mid_autumn)))
    assert rc == 2 and "opens the statutory holiday 2027-09-15 (中秋节 农历八月十五)" in err


@pytest.mark.parametrize(("text", "message"), [
    ("year = 2027\nsource = \"x\"\n[[holidays]]\nname = \"元旦\"\nstart = 2027-01-01\n",
     "holidays.0.end: Field required"),
    ("year = 2027\n[[holidays", "not valid TOML"),
    ("year = 2027\nsource = \"x\"\nholidays = []\nextra = 1\n", "extra: Extra inputs are not permitted"),
    ("year = 2024\nsource = \"x\"\nholidays = []\n", "notices before 2025 follow the old law"),
    (NOTICE_2027.replace("end = 2027-01-03", "end = 2027-03-03"), "is longer than 16 days"),
    (NOTICE_2027.replace("workdays = [2027-02-20]", "workdays = [2027-02-19]"), "workday 2027-02-19 is a weekday"),
    (NOTICE_2027.replace("start = 2027-04-03", "start = 2027-04-06"), "start 2027-04-06 is after end 2027-04-05"),
])
def test_bad_notice_files_are_named_in_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str,
                                                message: str) -> None:
    path = _write(tmp_path, text)
    rc, out, err = _cli(capsys, tmp_path, "import", str(path))
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert rc == 2 and not out and len(lines) == 1 and str(path) in lines[0] and message in lines[0], err
    assert "Traceback" not in err


def test_json_notice_and_replacing_it_are_seen_at_once(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    import tomllib

    store = tmp_path / "calendar"
    data = tomllib.loads(NOTICE_2027)
    as_json = json.dumps(data, default=str, ensure_ascii=False)
    rc, out, _ = _cli(capsys, tmp_path, "import", str(_write(tmp_path, as_json, "notice.json")))
    assert rc == 0 and out.startswith("stored") and load_notices(store)[2027].closed[D(2027, 10, 7)] == "国庆节"
    data["holidays"][-1]["end"] = "2027-10-08"  # a corrected notice: one more day off
    data["holidays"][-1]["workdays"] = ["2027-09-26", "2027-10-09"]
    rc, out, _ = _cli(capsys, tmp_path, "import", str(_write(tmp_path, json.dumps(data, default=str), "n2.json")))
    assert rc == 0 and out.startswith("replaced the 2027 arrangement")
    assert day_status(D(2027, 10, 8), store=store).open is False  # the cache saw the replaced file


def test_a_damaged_store_falls_back_to_the_law(tmp_path: Path) -> None:
    store = tmp_path / "calendar"
    arr, replaced = import_notice(_write(tmp_path, NOTICE_2027), store)
    assert not replaced and arr.year == 2027 and day_status(D(2027, 6, 10), store=store).basis == "notice"
    (store / "notice-2027.json").write_text("{not json", encoding="utf-8")  # edited by hand: the cache re-reads
    st = day_status(D(2027, 6, 10), store=store)
    assert (st.open, st.basis) == (None, "调休待定")


def test_quote_age_and_the_quote_session_read_the_configured_notice_folder(tmp_path: Path) -> None:
    """A custom ``[digest].calendar_dir`` is what staleness and quote dating read, not the default folder:
    with the notice, the 春节 week is closed, so the Thursday before it is the last session and a quote
    from then is one trading day old on the Monday after, not five (flagged stale) as the undecided days
    would count."""
    from screening.data.freshness import FLAG_STALE, quote_age, stale_notes
    from screening.data.refresh import quote_session

    store = tmp_path / "elsewhere"
    empty = tmp_path / "no-notices"
    monday, before = D(2027, 2, 15), D(2027, 2, 4)
    assert (quote_age(before, monday, store=empty).known, quote_age(before, monday, store=empty).most) == (1, 5)
    import_notice(_write(tmp_path, NOTICE_2027), store)
    assert quote_age(before, monday, store=store).most == 1
    morning = dt.datetime(2027, 2, 15, 8, 0, tzinfo=dt.timezone(dt.timedelta(hours=8)))
    assert quote_session(morning, store=store) == before
    with pytest.raises(SessionUncertain, match=r"2027-02-12 调休待定.*last certain trading day: 2027-02-03"):
        quote_session(morning, store=empty)  # never 02-12: the board may show 02-03's close
    dates = {"price": before.isoformat()}
    assert stale_notes(dates, monday, 2, store=store) == []
    assert any(n.startswith(FLAG_STALE) for n in stale_notes(dates, monday, 2, store=empty))
