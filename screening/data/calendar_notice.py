"""The State Council's yearly holiday notice, as the operator imports it: parse, check against the law, store.

The notice (国务院办公厅关于YYYY年部分节假日安排的通知) is the only source that decides the bridging
(调休) days, and it reaches this machine only by hand, so it is a small file the operator writes from
the published text, TOML or JSON (README, "Trading days")::

    year = 2027
    source = "国务院办公厅关于2027年部分节假日安排的通知"
    [[holidays]]
    name = "春节"
    start = 2027-02-05      # first day off
    end = 2027-02-13        # last day off (inclusive)
    workdays = [2027-02-20] # make-up working days (调休上班); the exchange stays closed on weekends

Checked against the law before it is stored: a file that leaves a statutory weekday open (or makes
one a working day) is refused with one line that names it, because a typo there would open the
market on a holiday. Stored as normalised JSON, one file per year, in the calendar store
(``[digest].calendar_dir``, default ``<cache>/calendar``); loading is cached until a stored file changes.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from screening.data.calendar_law import FIRST_YEAR, notice_year, statutory_days

log = logging.getLogger(__name__)
SHANGHAI = ZoneInfo("Asia/Shanghai")  # the stamp is shown as every other time is: the market's clock
_DAY = dt.timedelta(days=1)
MAX_BREAK_DAYS = 16  # longer than any break a notice ever gave (春节: 9): a longer range is a typo


class NoticeError(ValueError):
    """A notice file that cannot be used; the message is one line naming the file and the value."""


class HolidayEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    start: dt.date
    end: dt.date
    workdays: list[dt.date] = []

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("empty name")
        return v.strip()


class NoticeFile(BaseModel):
    """The file's shape (pydantic at the edge); ``imported_at`` only in the stored copy."""

    model_config = ConfigDict(extra="forbid")

    year: int
    source: str
    holidays: list[HolidayEntry]
    imported_at: str = ""


@dataclass(frozen=True)
class Arrangement:
    """One year's official arrangement: the closed days (date -> festival) and the make-up working days."""

    year: int
    source: str
    closed: dict[dt.date, str] = field(default_factory=dict)
    workdays: frozenset[dt.date] = frozenset()
    imported_at: str = ""

    def imported_shown(self) -> str:
        """``imported_at`` in Shanghai time, as every other time is shown (a trial, 2026-12-07: the stamp read
        ``00:34:04+00:00`` beside Shanghai times; stores written before then keep UTC, converted here)."""
        try:
            at = dt.datetime.fromisoformat(self.imported_at)
        except ValueError:
            return self.imported_at
        return at.astimezone(SHANGHAI).isoformat(timespec="seconds") if at.tzinfo else self.imported_at


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise NoticeError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:  # e.g. saved as GBK by a Chinese editor: TOML and JSON are UTF-8 by spec
        raise NoticeError(f"{path}: not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}): "
                          "the notice file must be saved as UTF-8") from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
        raise NoticeError(f"{path}: not valid {kind}: {exc}") from None
    if not isinstance(data, dict):
        raise NoticeError(f"{path}: expected a table with year, source and holidays")
    return data


def _model(path: Path, data: dict[str, Any]) -> NoticeFile:
    try:
        return NoticeFile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise NoticeError(f"{path}: {where}: {err['msg']} (got {err.get('input')!r})") from None


def check(path: Path, notice: NoticeFile) -> Arrangement:
    """The arrangement, or NoticeError for the first thing wrong (ranges, the year, the law)."""
    y = notice.year
    if y < FIRST_YEAR:
        raise NoticeError(f"{path}: year {y}: notices before {FIRST_YEAR} follow the old law; not supported")
    lo, hi = dt.date(y - 1, 12, 1), dt.date(y + 1, 1, 31)
    closed: dict[dt.date, str] = {}
    workdays: set[dt.date] = set()
    for i, h in enumerate(notice.holidays):
        where = f"{path}: holidays[{i}] ({h.name})"
        if h.start > h.end:
            raise NoticeError(f"{where}: start {h.start} is after end {h.end}")
        if not (lo <= h.start and h.end <= hi):
            raise NoticeError(f"{where}: {h.start}..{h.end} is not in or next to {y}")
        if (h.end - h.start).days + 1 > MAX_BREAK_DAYS:
            raise NoticeError(f"{where}: {h.start}..{h.end} is longer than {MAX_BREAK_DAYS} days")
        day = h.start
        while day <= h.end:
            closed.setdefault(day, h.name)
            day += _DAY
        for w in h.workdays:
            if w.weekday() < 5:
                raise NoticeError(f"{where}: workday {w} is a weekday; make-up working days are weekends")
            workdays.add(w)
    if both := sorted(workdays & set(closed)):
        raise NoticeError(f"{path}: {both[0]} is both a day off and a working day")
    for day, label in statutory_days(y).items():
        if day in workdays:
            raise NoticeError(f"{path}: refused: it makes the statutory holiday {day} ({label}) a working day")
        if day.weekday() < 5 and day not in closed:
            raise NoticeError(f"{path}: refused: it opens the statutory holiday {day} ({label}): "
                              f"no holidays entry covers it (the law closes it)")
    return Arrangement(y, notice.source, dict(sorted(closed.items())), frozenset(workdays), notice.imported_at)


def parse_notice(path: Path) -> tuple[Arrangement, NoticeFile]:
    """Read and check a notice file (TOML, or JSON by its .json suffix)."""
    notice = _model(path, _read(path))
    return check(path, notice), notice


def store_path(store: Path, year: int) -> Path:
    return store / f"notice-{year}.json"


def import_notice(path: Path, store: Path, *, now: dt.datetime | None = None) -> tuple[Arrangement, bool]:
    """Check ``path`` and store it for its year; (arrangement, True when it replaced a stored one)."""
    arrangement, notice = parse_notice(path)
    stamp = (now or dt.datetime.now(SHANGHAI)).isoformat(timespec="seconds")
    stored = notice.model_copy(update={"imported_at": stamp})
    store.mkdir(parents=True, exist_ok=True)
    target = store_path(store, notice.year)
    replaced = target.exists()
    tmp = target.with_suffix(".tmp")
    tmp.write_text(stored.model_dump_json(indent=1), encoding="utf-8")
    os.replace(tmp, target)
    return Arrangement(arrangement.year, arrangement.source, arrangement.closed, arrangement.workdays, stamp), replaced


def _load_dir(store: Path) -> dict[int, Arrangement]:
    out: dict[int, Arrangement] = {}
    for p in sorted(store.glob("notice-*.json")):
        try:
            arr = check(p, _model(p, _read(p)))
        except NoticeError as exc:  # a damaged store must not stop the schedule: the law still decides
            log.warning("calendar store: skipped %s", exc)
            continue
        out[arr.year] = arr
    return out


_CACHE: dict[str, tuple[tuple[tuple[str, int, int, int], ...], dict[int, Arrangement]]] = {}


def load_notices(store: Path) -> dict[int, Arrangement]:
    """The stored arrangements by year ({} without a store); re-read only when a file changed.

    The key is each file's (name, inode, mtime, size): an import replaces the file (a new inode), a hand
    edit changes its mtime or size; one directory listing a call, so a loop over dates stays cheap.
    """
    try:
        key = tuple(sorted((e.name, (st := e.stat()).st_ino, st.st_mtime_ns, st.st_size)
                           for e in os.scandir(store) if e.name.startswith("notice-") and e.name.endswith(".json")))
    except OSError:
        return {}
    hit = _CACHE.get(str(store))
    if hit is None or hit[0] != key:
        hit = (key, _load_dir(store))
        _CACHE[str(store)] = hit
    return hit[1]


def decide(d: dt.date, notices: dict[int, Arrangement]) -> tuple[bool, str, Arrangement] | None:
    """(open, why, arrangement) when a stored notice decides ``d``, None when none does.

    A weekday no notice closes is open by the notice of its year (``notice_year``: the next year's for a 31 December
    the next 元旦 may bridge; the year's own notice declared 2029-12-31 open before the 2030 one was out)."""
    for arr in notices.values():
        if d in arr.closed:
            return False, arr.closed[d], arr
    arr_of_year = notices.get(notice_year(d))
    if arr_of_year is None:
        return None
    return d.weekday() < 5, "周末" if d.weekday() >= 5 else "工作日", arr_of_year


__all__ = ["Arrangement", "NoticeError", "decide", "import_notice", "load_notices", "parse_notice", "store_path"]
