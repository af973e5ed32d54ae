"""``doctor``'s calendar check: does the bot know this year's and (from 1 November) next year's days off?

exchange-calendars ships a year's XSHG holidays only after the State Council's notice, and the notice
comes out around November; until then the bot decides that year by the law and skips the bridging
(调休待定) days. So from 1 November doctor warns for the coming year while neither the installed
exchange-calendars nor an imported notice covers it, and says when the library does.
"""

from __future__ import annotations

import datetime as dt
from importlib.metadata import PackageNotFoundError, version

from screening.config import Settings
from screening.data.calendar_law import UNDECIDED, undecided_days
from screening.data.calendar_notice import load_notices
from screening.data.trading_calendar import IMPORT_HINT, xshg_covers
from screening.ops.findings import Finding

WARN_FROM = (11, 1)  # (month, day) from which the coming year is checked


def _xc_version() -> str:
    try:
        return version("exchange-calendars")
    except PackageNotFoundError:  # pragma: no cover - a broken install
        return "?"


def year_finding(year: int, settings: Settings, coming: bool) -> Finding:
    """One year's finding: covered by the library, by an imported notice, or only by the law."""
    ds = settings.digest
    if xshg_covers(year):
        return Finding("ok", "calendar", f"{year}: the installed exchange-calendars {_xc_version()} covers it (XSHG)")
    arr = load_notices(ds.calendar_store()).get(year)
    if arr is not None:
        return Finding("ok", "calendar", f"{year}: official notice imported {arr.imported_shown()} ({arr.source})")
    open_days = [d for d in undecided_days(year) if d not in ds.holiday_set()]
    shown = ", ".join(str(d) for d in open_days[:6]) + (" ..." if len(open_days) > 6 else "")
    when = "next year" if coming else "this year"
    skip = "skipped" if ds.on_unknown_days == "skip" else "still sent ([digest].on_unknown_days = \"send\")"
    return Finding("warn", "calendar",
                   f"{year} ({when}): no holiday notice imported and exchange-calendars {_xc_version()} does not "
                   f"cover it: statutory holidays are closed by law, {len(open_days)} weekdays are {UNDECIDED} "
                   f"({shown}) and the digest on them is {skip}",
                   f"when the State Council publishes the {year} arrangement, write it as TOML and run "
                   f"`{IMPORT_HINT}` (README: Trading days), or upgrade exchange-calendars once it covers {year}")


def check_calendar(settings: Settings, today: dt.date | None = None) -> list[Finding]:
    """This year always; the coming year from 1 November on."""
    today = today or dt.datetime.now(settings.digest.tz).date()
    findings = [year_finding(today.year, settings, coming=False)]
    if (today.month, today.day) >= WARN_FROM:
        findings.append(year_finding(today.year + 1, settings, coming=True))
    return findings
