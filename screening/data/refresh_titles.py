"""Announcement titles a refresh could not fetch: the last good universe's, kept while inside the window.

A dated announcement title is a fact that stays true: ``2026-12-04 关于收到中国证监会《立案告知书》的公告`` is
as true after a refresh whose title source failed (Eastmoney's notice endpoint answering 503, a Tushare token
without ``anns_d``) as before it. Dropping it would turn a stock the rules raised for 立案调查 into 低/100 with
only ``公告数据缺失``. So when a snapshot says its titles are missing (``FLAG_NO_TITLES``), each stock keeps the
titles the last good universe had for it that fall inside this refresh's announcement window, under a heading
that names the refresh they came from; the report text's source id gains ``+carried:<origin>`` (the first
refresh that fetched them, kept across repeated failures), the universe gains the row flag ``FLAG_CARRIED``, and
a ``warning:`` note counts them. Titles newer than that refresh stay unknown, which ``公告数据缺失`` still says.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from screening.data.providers import MarketSnapshot
from screening.data.providers.fetch_plan import announcement_window
from screening.data.providers.provider_base import FLAG_NO_TITLES
from screening.data.universe import Record, Universe

FLAG_CARRIED = "公告沿用上次刷新"  # row flag: the titles shown are the last good universe's
WARNING = "warning: "  # the marker `universe status` lists warnings by (as the providers write it)
# a dated title line, as report_text.announcements_block writes them (and screen/signals.py reads them)
_TITLE = re.compile(r"^(\d{4}-\d{2}-\d{2}) (.+)$")
# the call that fetched titles, by its name in a composed source id -> how the origin names it
TITLE_CALLS = ("stock_notice_report", "anns_d")
CARRIED = "carried:"


@dataclass(frozen=True)
class Carried:
    """One stock's titles kept from the last good universe: (day, title) newest first, and where they came from."""

    titles: list[tuple[dt.date, str]]
    origin: str  # e.g. "akshare:stock_notice_report@2026-12-04T08:00:00+08:00"


def dated_titles(text: str | None) -> list[tuple[dt.date, str]]:
    """The dated title lines of a stored report text, in order."""
    out = []
    for line in (text or "").splitlines():
        m = _TITLE.match(line.strip())
        if m:
            try:
                out.append((dt.date.fromisoformat(m.group(1)), m.group(2).strip()))
            except ValueError:
                continue
    return out


def origin_of(rec: Record, universe: Universe) -> str | None:
    """Which refresh first fetched the titles in ``rec``'s report text, or None when none were fetched."""
    source = rec.sources.get("report_text", "")
    if CARRIED in source:
        return source.split(CARRIED, 1)[1]
    call = next((c for c in TITLE_CALLS if c in source), None)
    if call is None:
        return None
    provider = source.split(":")[1] if source.startswith("composed:") else universe.info.provider or "universe"
    return f"{provider}:{call}@{universe.info.refreshed_at or rec.as_of}"


def carried_block(carried: Carried, first: dt.date, last: dt.date) -> str:
    """The kept titles under a heading that says where they are from and what is not known (never "近N日无公告")."""
    source, when = carried.origin.rsplit("@", 1)
    # no sentence of the heading starts with a date: screen/signals.py reads such a sentence as a dated title
    head = (f"沿用此前刷新的公告（本次刷新未取得公告标题；以下为 {source} 于 {when} 的刷新取得、在 {first} 至 {last} "
            "之内的公告，其后的公告未知；新→旧）：")
    return "\n".join([head] + [f"{d.isoformat()} {t}" for d, t in carried.titles])


def keep_known_titles(snapshot: MarketSnapshot, previous: Universe, days: int) -> MarketSnapshot:
    """The snapshot with the last good universe's titles inside the window put back, where its own are missing.

    Unchanged when the snapshot has its titles, or when the last good universe is demo data or empty.
    """
    if FLAG_NO_TITLES not in snapshot.degraded or previous.info.demo or not len(previous):
        return snapshot
    fetched = dt.datetime.fromisoformat(snapshot.fetched_at).date()
    window = announcement_window(dt.date.fromisoformat(snapshot.trade_date[:10]), fetched, days)
    first, last = window[-1], window[0]
    kept_stocks = kept_titles = 0
    origins: set[str] = set()
    for p in snapshot.stocks:
        rec = previous.record(p.stock.code)
        origin = None if rec is None else origin_of(rec, previous)
        if rec is None or origin is None:
            continue
        titles = sorted({(d, t) for d, t in dated_titles(rec.stock.report_text) if first <= d <= last},
                        key=lambda dt_: dt_[0], reverse=True)
        if not titles:
            continue
        block = carried_block(Carried(titles, origin), first, last)
        text, source = p.stock.report_text, p.field_sources.get("report_text")
        p.stock.report_text = f"{text}\n{block}" if text else block
        p.field_sources["report_text"] = f"{source or 'composed:' + snapshot.provider}+{CARRIED}{origin}"
        newest = titles[0][0].isoformat()
        p.field_dates["report_text"] = max(p.field_dates.get("report_text") or newest, newest)
        kept_stocks, kept_titles = kept_stocks + 1, kept_titles + len(titles)
        origins.add(origin)
    if kept_stocks:
        where = ", ".join(sorted(origins))
        snapshot.notes.append(
            f"{WARNING}{FLAG_NO_TITLES}: kept {kept_titles} dated announcement titles of {kept_stocks} stocks from "
            f"the last good universe ({where}), those inside the {days}-day window {first}..{last}; titles "
            "published since are unknown")
        whens = ", ".join(sorted({o.rsplit("@", 1)[-1] for o in origins}))
        snapshot.degraded = sorted({*snapshot.degraded, f"{FLAG_CARRIED} ({whens})"})
    return snapshot
