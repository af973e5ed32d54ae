"""doctor's calendar check: from 1 November it warns for the coming year until a notice or the library covers it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from screening.config import DigestSettings, Settings
from screening.data.calendar_notice import import_notice
from screening.ops.doctor import CHECKS
from screening.ops.doctor_calendar import check_calendar
from tests.test_calendar_notice import NOTICE_2027

D = dt.date


def _settings(tmp_path: Path, **kw: Any) -> Settings:
    return Settings(digest=DigestSettings(calendar_dir=str(tmp_path / "calendar"), **kw))


def test_silent_about_next_year_until_1_november_then_warns(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    assert "calendar" in CHECKS
    (only,) = check_calendar(settings, today=D(2026, 10, 31))
    assert only.level == "ok" and only.message.startswith("2026: the installed exchange-calendars")
    this, coming = check_calendar(settings, today=D(2026, 11, 1))
    assert this.level == "ok" and coming.level == "warn"
    assert coming.message.startswith("2027 (next year): no holiday notice imported")
    assert "调休待定" in coming.message and "2027-02-04" in coming.message and "skipped" in coming.message
    assert "calendar import FILE" in coming.fix


def test_an_imported_notice_silences_it_and_this_year_without_one_warns(tmp_path: Path) -> None:
    settings = _settings(tmp_path, on_unknown_days="send")
    (this,) = check_calendar(settings, today=D(2027, 3, 1))
    assert this.level == "warn" and "2027 (this year)" in this.message and "still sent" in this.message
    notice = tmp_path / "n.toml"
    notice.write_text(NOTICE_2027, encoding="utf-8")
    import_notice(notice, tmp_path / "calendar")
    (this,) = check_calendar(settings, today=D(2027, 3, 1))
    assert this.level == "ok" and this.message.startswith("2027: official notice imported")
    _, coming = check_calendar(settings, today=D(2027, 12, 15))
    assert coming.level == "warn" and coming.message.startswith("2028 (next year)")
