"""``python -m screening calendar YEAR [--format json]`` and ``calendar import FILE``: the exchange's days off.

``calendar YEAR`` lists every weekday of the year that is closed or undecided, each with its basis
(``exchange-calendars``, ``notice``, ``config``, ``statutory``, ``调休待定``), so an operator sees
before the year starts which days the bot will skip and why. ``calendar import FILE`` checks the
official arrangement (the State Council's notice, written as TOML or JSON, see calendar_notice.py)
against the law and stores it; a file that opens a statutory holiday is refused (exit 2).

stdout carries only the listing (text or JSON); hints go to stderr.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from screening.config import load_settings
from screening.data.calendar_law import FIRST_YEAR, UNDECIDED, notice_year
from screening.data.calendar_notice import NoticeError, import_notice, load_notices, parse_notice
from screening.data.trading_calendar import IMPORT_HINT, DayStatus, day_status, known_range, xshg_covers, year_days

WEEKDAYS = "一二三四五六日"
STATE = {True: "open", False: "closed", None: "undecided"}


def add_calendar_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="YEAR|import", help="a year to list, or `import` followed by FILE")
    parser.add_argument("file", nargs="?", help="with `import`: the notice as TOML or JSON (README: Trading days)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")


def sources_line(year: int, store: Path) -> str:
    """Which source decides ``year``, in words."""
    rng = known_range()
    if xshg_covers(year):
        return f"exchange-calendars XSHG covers {year}"
    known = f"exchange-calendars XSHG knows {rng[0]}..{rng[1]}" if rng else "exchange-calendars unavailable"
    arr = load_notices(store).get(year)
    if arr is not None:
        return f"{known}; {year}: official notice imported {arr.imported_shown()} ({arr.source})"
    return f"{known}; {year}: no notice imported: statutory days by law, bridging days {UNDECIDED}"


def as_json(year: int, days: list[DayStatus], store: Path) -> dict[str, Any]:
    return {"year": year, "sources": sources_line(year, store),
            "days": [{"date": s.day.isoformat(), "weekday": s.day.isoweekday(), "status": STATE[s.open],
                      "basis": s.basis, "note": s.note} for s in days],
            "closed": sum(s.open is False for s in days), "undecided": sum(s.open is None for s in days)}


def as_text(year: int, days: list[DayStatus], store: Path) -> str:
    lines = [f"{year} 上交所休市及调休待定的工作日 / SSE weekdays closed or undecided", sources_line(year, store)]
    for s in days:
        pad = " " * (18 - _width(s.basis))
        lines.append(f"{s.day} 周{WEEKDAYS[s.day.weekday()]}  {STATE[s.open]:<9}  {s.basis}{pad}  {s.note}".rstrip())
    closed = sum(s.open is False for s in days)
    lines.append(f"{closed} closed, {sum(s.open is None for s in days)} undecided ({UNDECIDED})")
    return "\n".join(lines)


def _width(text: str) -> int:
    """Terminal columns: CJK characters take two."""
    return sum(2 if ord(c) >= 0x2E80 else 1 for c in text)


def _year(text: str) -> int | None:
    try:
        year = int(text)
    except ValueError:
        return None
    return year if 1990 <= year <= 2100 else None


def decided_by(year: int, holidays: frozenset[dt.date], store: Path) -> list[DayStatus]:
    """The weekdays ``year``'s notice decides that are closed or undecided: the year's own, after the previous
    December's days the next 元旦 may bridge (``notice_year``: 2029-12-31 is the 2030 notice's), which the import
    settled without a word."""
    eve = [dt.date(year - 1, 12, d) for d in range(20, 32)]
    prev = [day_status(d, holidays, store=store) for d in eve if d.weekday() < 5 and notice_year(d) == year]
    return [s for s in prev if s.open is not True] + year_days(year, holidays, store=store)


def cmd_import(path: Path, holidays: frozenset[dt.date], store: Path) -> int:
    """Check and store the notice; say which 调休待定 days it settled, and how."""
    try:
        year = parse_notice(path)[0].year
        before = decided_by(year, holidays, store)
        arr, replaced = import_notice(path, store)
    except NoticeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    after = {s.day: s for s in decided_by(arr.year, holidays, store)}
    weekdays = sum(d.weekday() < 5 and d.year == arr.year for d in arr.closed)
    print(f"{'replaced' if replaced else 'stored'} the {arr.year} arrangement ({arr.source}): {len(arr.closed)} days "
          f"off ({weekdays} weekdays), {len(arr.workdays)} make-up working days -> {store}")
    if xshg_covers(arr.year):
        print(f"note: exchange-calendars covers {arr.year} and decides it; the notice is kept for reference")
    for s in before:
        now = after.get(s.day)
        if s.open is None and now is not None and now.open is None:  # the next 元旦's bridge (2030-12-31) read "open"
            print(f"{s.day} {UNDECIDED}: not settled by this notice ({now.note})")
        elif s.open is None:
            print(f"{s.day} {UNDECIDED} -> {'closed' if now is not None and now.open is False else 'open'} (notice)")
    return 0


def cmd_calendar(args: argparse.Namespace) -> int:
    """Exit codes: 0 done, 2 unusable input (no such year, a refused notice file)."""
    ds = load_settings(args.config).digest
    store, holidays = ds.calendar_store(), ds.holiday_set()
    if args.target == "import":
        if not args.file:
            print("error: calendar import needs FILE (the notice as TOML or JSON)", file=sys.stderr)
            return 2
        return cmd_import(Path(args.file), holidays, store)
    year = _year(args.target)
    if year is None or args.file:  # `calendar 2027 extra` named only the good part: got '2027'
        given = " ".join(a for a in (args.target, args.file) if a)
        print(f"error: expected `calendar YEAR` (1990..2100) or `calendar import FILE`, got {given!r}", file=sys.stderr)
        return 2
    if year < FIRST_YEAR and not xshg_covers(year):  # `calendar 2000` listed "0 closed": every weekday open
        rng = known_range()
        known = f"exchange-calendars XSHG knows {rng[0]}..{rng[1]}" if rng else "exchange-calendars is unavailable"
        print(f"error: calendar {year}: no source here knows that year's days off ({known}; the statutory days "
              f"are reckoned from {FIRST_YEAR}, the amended law's first year)", file=sys.stderr)
        return 2
    days = year_days(year, holidays, store=store)
    if args.format == "json":
        print(json.dumps(as_json(year, days, store), ensure_ascii=False, indent=1))
    else:
        print(as_text(year, days, store))
    if any(s.open is None for s in days):
        print(f"{UNDECIDED}: the digest skips these days ([digest].on_unknown_days = \"skip\") until the notice "
              f"is imported: {IMPORT_HINT}", file=sys.stderr)
    return 0
