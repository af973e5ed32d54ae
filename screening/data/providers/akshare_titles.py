"""The announcement titles of an akshare fetch: one ``stock_notice_report`` call per day of the window, newest
first, and what is said when some days could not be had (title_days.py says it, refresh_titles.py reads it back).

Apart from the provider (akshare_provider.py) because the days fail one by one and each way needs its own
answer: a ban or an open circuit ends the window, a day that fails alone is skipped and named.
"""

from __future__ import annotations

import datetime as dt
from functools import partial

from screening.data.providers.akshare_fetch import AkshareFetch
from screening.data.providers.akshare_frames import announcements_of
from screening.data.providers.base import CircuitOpen, IncompleteData, NullAnswer, ProviderError, ProviderUnavailable
from screening.data.providers.eastmoney_notices import notice_day
from screening.data.providers.periods import ymd
from screening.data.providers.provider_base import FLAG_NO_TITLES, WARNING
from screening.data.providers.title_days import DayTitles, spans, unread_flag


def optional_announcements(f: AkshareFetch, days: list[dt.date]) -> DayTitles | None:
    """The titles are optional: when they cannot be had the refresh completes without them, every row says
    公告数据缺失 and the report texts leave the block out (never "no announcements").

    A failure part-way (an IP ban after the newest days) keeps the days read: dropping them lost today's
    立案 title (a trial, 2026-12-06). Only titles in hand prove the days read: a quiet day is also what
    akshare's KeyError('代码') for a renamed field looks like, so quiet days alone are not kept.
    """
    got = DayTitles()
    try:
        _load_announcements(f, days, got)
    except ProviderError as exc:
        if not got.by_code:
            f.notes.append(f"{WARNING}{FLAG_NO_TITLES}: announcement titles left out of the report texts: {exc}")
            f.degraded.append(FLAG_NO_TITLES)
            return None
        got.unread = [d for d in days if d not in got.read]
        f.notes.append(
            f"{WARNING}{FLAG_NO_TITLES}: announcement titles of {spans(got.unread)} not fetched, "
            f"those of {spans(got.read)} kept: {exc}"
        )
        f.degraded.append(unread_flag(got.unread, got.read))
    if got.quiet:
        f.notes.append("stock_notice_report: no announcements on " + ", ".join(map(str, sorted(got.quiet))))
    return got


def _load_announcements(f: AkshareFetch, days: list[dt.date], got: DayTitles) -> None:
    """The announcement days, newest first, into ``got`` as they come; a quiet day is a note, a quiet month of
    weekdays is a failure.

    A day that fails on its own (a 5xx still there after the retries, a null answer) is skipped and named at
    the end, and the older days are still asked for: one bad day used to cost every day older than it. Not
    after an IP ban or with the circuit open (every later call would fail too; the breaker also ends a run
    of failures), nor after a changed answer (every day would fail alike)."""
    failed: list[tuple[dt.date, ProviderError]] = []
    for d in days:
        label = f"stock_notice_report({ymd(d)})"
        fetch = partial(notice_day, ymd(d), session=f.session, on_page=f.calls.page_hook(label))
        try:
            frame = f.run("stock_notice_report", label, fn=fetch)
        except ProviderError as exc:
            if not _one_day_failure(exc):
                raise
            failed.append((d, exc))
            continue
        got.read.append(d)
        if frame is None or frame.empty:
            got.quiet.append(d)
            continue
        for code, a in announcements_of(frame, label, f.sdk):
            got.by_code.setdefault(code, []).append(a)
    weekdays = [d for d in days if d.weekday() < 5]
    if len(weekdays) >= 2 and all(d in got.quiet for d in weekdays):
        raise IncompleteData(
            f"stock_notice_report returned no announcements for any weekday from {days[-1]} to {days[0]}: "
            f"akshare {f.version} raises the same KeyError('代码') for an empty day and for a renamed "
            "upstream field, and a whole market without announcements for weeks is not plausible"
        )
    if failed:
        raise ProviderUnavailable(
            f"stock_notice_report failed for {spans(d for d, _ in failed)} (every other day "
            f"was asked for): {failed[0][1]}",
            function="stock_notice_report",
        )


def _one_day_failure(exc: ProviderError) -> bool:
    """A failure of one announcement day's call, after which the older days are still worth asking for."""
    if isinstance(exc, NullAnswer):
        return True
    return isinstance(exc, ProviderUnavailable) and not exc.ban and not isinstance(exc, CircuitOpen)
