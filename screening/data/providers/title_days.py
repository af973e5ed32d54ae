"""Announcement days a fetch read and days it could not: how a half-read window is said, and read back.

The titles come one call per day (akshare's ``stock_notice_report``), newest first. An Eastmoney IP ban half-way
through used to cost every title in hand, today's included (a trial, 2026-12-06): a company that announced 立案
调查 today screened without it. A fetch now keeps the days it read and names the others, in one row flag
(``公告数据缺失: 2026-11-30 至 2026-12-03 未取得 (本次取得 2026-12-04)``) that refresh_titles.py reads back to
carry the last good universe's titles for exactly those days. The flag is the only channel: it is stored with
the universe and shown on every row, so what was read and what was not is never a guess later.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from screening.data.providers.provider_base import FLAG_NO_TITLES
from screening.data.providers.report_text import Announcement, announcements_block

UNREAD = " 未取得"  # after the days in a 公告数据缺失 flag
_SPAN = re.compile(r"(\d{4}-\d{2}-\d{2})(?: 至 (\d{4}-\d{2}-\d{2}))?")


@dataclass
class DayTitles:
    """One fetch's titles by stock code, the days it read (newest first) and, after a failure, those it did not."""

    by_code: dict[str, list[Announcement]] = field(default_factory=dict)
    read: list[dt.date] = field(default_factory=list)
    quiet: list[dt.date] = field(default_factory=list)  # read, and no announcement that day
    unread: list[dt.date] = field(default_factory=list)  # empty when the whole window was read


def spans(days: Iterable[dt.date]) -> str:
    """Days as runs of consecutive dates, oldest first: ``2026-11-30 至 2026-12-02、2026-12-04`` ('-' for none)."""
    runs: list[list[dt.date]] = []
    for d in sorted(set(days)):
        if runs and d - runs[-1][-1] == dt.timedelta(days=1):
            runs[-1].append(d)
        else:
            runs.append([d])
    return "、".join(f"{r[0]} 至 {r[-1]}" if len(r) > 1 else str(r[0]) for r in runs) or "-"


def span_days(text: str) -> list[dt.date]:
    """Every day the ``spans`` text names (the reverse of ``spans``); text that names no day gives none."""
    out: set[dt.date] = set()
    for m in _SPAN.finditer(text):
        first = dt.date.fromisoformat(m.group(1))
        last = dt.date.fromisoformat(m.group(2)) if m.group(2) else first
        out.update(first + dt.timedelta(days=i) for i in range((last - first).days + 1))
    return sorted(out)


def unread_flag(unread: Iterable[dt.date], read: Iterable[dt.date]) -> str:
    """The row flag of a window read in part: the days not read, then those that were."""
    read = list(read)
    return f"{FLAG_NO_TITLES}: {spans(unread)}{UNREAD}" + (f" (本次取得 {spans(read)})" if read else "")


def unread_days(flags: Sequence[str], window: Sequence[dt.date]) -> list[dt.date] | None:
    """The days of ``window`` whose titles a snapshot (or a universe) did not read, by its flags: every day for the
    bare ``公告数据缺失`` (nothing read), those an ``unread_flag`` names, None when the whole window was read."""
    if FLAG_NO_TITLES in flags:
        return list(window)
    head = f"{FLAG_NO_TITLES}: "
    for flag in flags:
        if flag.startswith(head) and UNREAD in flag:
            return span_days(flag[len(head):flag.index(UNREAD)])
    return None


def partial_block(items: Sequence[Announcement], titles: DayTitles, name: str | None) -> str:
    """The titles of the days read, under a heading that names the days read and those not: never "近N日无公告"
    for a window read in part. No sentence of the heading starts with a date (screen/signals.py would read such a
    sentence as a dated title), and no date stands right before 公告 (it would date the sentence)."""
    rows = announcements_block(items, days=len(titles.read), name=name).split("\n")[1:]
    got, lacking = spans(titles.read), spans(titles.unread)
    if not rows:
        return f"本次刷新只取得 {got} 的公告（其中无本股公告），未取得 {lacking} 的公告（其间公告未知）。"
    return "\n".join([f"本次刷新只取得 {got} 的公告，未取得 {lacking} 的公告（其间公告未知；新→旧）：", *rows])
