"""Announcement titles a refresh could not fetch: the last good universe's, kept while inside the window.

A dated announcement title is a fact that stays true: ``2026-12-04 关于收到中国证监会《立案告知书》的公告`` is
as true after a refresh whose title source failed (Eastmoney's notice endpoint answering 503, a Tushare token
without ``anns_d``) as before it. Dropping it would turn a stock the rules raised for 立案调查 into 低/100 with
only ``公告数据缺失``. So when a snapshot says its titles are missing (``FLAG_NO_TITLES``), each stock keeps the
titles the last good universe had for it that fall inside this refresh's announcement window, under a heading
that names the refresh they came from; the report text's source id gains ``+carried:<origin>`` (the first
refresh that fetched them, kept across repeated failures), the universe gains the row flag ``FLAG_CARRIED``, and
a ``warning:`` note counts them. Titles newer than that refresh stay unknown, which ``公告数据缺失`` still says.

A refresh that read some days and not others (an IP ban half-way: title_days.py) keeps its own and carries only
the days it did not read, and only those the last good universe stands for (``known_days``): a day neither read
stays named in ``公告数据缺失: … 未取得``, never silently quiet. The carried flag names the days carried and those
read (``公告沿用上次刷新 (<when>): 2026-11-30 至 2026-12-02 沿用, 2026-12-04 本次取得``), so a later carry from this
universe knows what it stands for.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from screening.data.providers import MarketSnapshot
from screening.data.providers.fetch_plan import announcement_window
from screening.data.providers.provider_base import FLAG_NO_TITLES, WARNING
from screening.data.providers.title_days import span_days, spans, unread_days, unread_flag
from screening.data.universe import Record, Universe

FLAG_CARRIED = "公告沿用上次刷新"  # row flag: the titles shown are the last good universe's
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
    """Which refresh fetched the titles in ``rec``'s report text, or None when none were fetched.

    A text with titles of its own refresh and carried ones (a window read in part) names its own refresh, the
    newest that held them all: naming the older one would date titles it never fetched before it.
    """
    source = rec.sources.get("report_text", "")
    own, _, carried = source.partition(f"+{CARRIED}")
    call = next((c for c in TITLE_CALLS if c in own), None)
    if call is None:
        return carried or None
    provider = own.split(":")[1] if own.startswith("composed:") else universe.info.provider or "universe"
    return f"{provider}:{call}@{universe.info.refreshed_at or rec.as_of}"


def carried_block(carried: Carried, days: list[dt.date], whole: bool) -> str:
    """The kept titles under a heading that says where they are from and what is not known (never "近N日无公告").

    ``whole``: this refresh read no day at all, so everything after the earlier refresh is unknown; else it names
    the days it could not read, which the kept titles stand for.
    """
    source, when = carried.origin.rsplit("@", 1)
    # no sentence of the heading starts with a date: screen/signals.py reads such a sentence as a dated title
    which = spans(days)
    lacking = "" if whole else f" {which} 的"
    after = "，其后的公告未知" if whole else ""
    head = (f"沿用此前刷新的公告（本次刷新未取得{lacking}公告标题；以下为 {source} 于 {when} 的刷新取得、在 {which} "
            f"之内的公告{after}；新→旧）：")
    return "\n".join([head] + [f"{d.isoformat()} {t}" for d, t in carried.titles])


def known_days(previous: Universe) -> set[dt.date]:
    """The days the last good universe's titles stand for: read by its refresh, or carried by it from one that
    read them. From its oldest title to the end of its window, less the days its flags name as not read; a refresh
    that read nothing stands for the days its carried flag names (before day-named flags: up to that refresh).

    A day outside these is not known to have been quiet: carried from there it must be said as missing.
    """
    oldest = min((d for rec in map(previous.record, (s.code for s in previous))
                  if rec is not None and origin_of(rec, previous) is not None
                  for d, _ in dated_titles(rec.stock.report_text)), default=None)
    info = previous.info
    if oldest is None or not info.trade_date or not info.refreshed_at:
        return set()
    end = announcement_window(dt.date.fromisoformat(info.trade_date[:10]),
                              dt.datetime.fromisoformat(info.refreshed_at).date(), 1)[0]
    span = [oldest + dt.timedelta(days=i) for i in range((end - oldest).days + 1)]
    carried: set[dt.date] = set()
    for flag in info.degraded:
        if flag.startswith(FLAG_CARRIED) and ": " in flag:
            carried.update(span_days(flag.split("): ", 1)[-1].split(" 沿用", 1)[0]))
        elif flag.startswith(FLAG_CARRIED) and not carried:  # before the days were named: the origin's date
            carried.update(d for d in span if d.isoformat() <= flag.rsplit("(", 1)[-1][:10])
    return (set(span) - set(unread_days(info.degraded, span) or [])) | carried


def keep_known_titles(snapshot: MarketSnapshot, previous: Universe, days: int) -> MarketSnapshot:
    """The snapshot with the last good universe's titles put back for the days it could not read.

    Unchanged when the snapshot read every day, or when the last good universe is demo data, empty, or stands
    for none of those days. Days neither read nor known to the last good universe stay flagged 公告数据缺失.
    """
    fetched = dt.datetime.fromisoformat(snapshot.fetched_at).date()
    window = announcement_window(dt.date.fromisoformat(snapshot.trade_date[:10]), fetched, days)
    unread = unread_days(snapshot.degraded, window)
    if unread is None or previous.info.demo or not len(previous):
        return snapshot
    known = known_days(previous)
    carry = sorted(set(unread) & known)
    if not carry:
        return snapshot
    whole = FLAG_NO_TITLES in snapshot.degraded
    read, missing = sorted(set(window) - set(unread)), sorted(set(unread) - known)
    kept_stocks = kept_titles = 0
    origins: set[str] = set()
    for p in snapshot.stocks:
        rec = previous.record(p.stock.code)
        origin = None if rec is None else origin_of(rec, previous)
        if rec is None or origin is None:
            continue
        titles = sorted({(d, t) for d, t in dated_titles(rec.stock.report_text) if d in known and d in unread},
                        key=lambda dt_: dt_[0], reverse=True)
        if not titles:
            continue
        block = carried_block(Carried(titles, origin), carry, whole)
        text, source = p.stock.report_text, p.field_sources.get("report_text")
        p.stock.report_text = f"{text}\n{block}" if text else block
        p.field_sources["report_text"] = f"{source or 'composed:' + snapshot.provider}+{CARRIED}{origin}"
        newest = titles[0][0].isoformat()
        p.field_dates["report_text"] = max(p.field_dates.get("report_text") or newest, newest)
        kept_stocks, kept_titles = kept_stocks + 1, kept_titles + len(titles)
        origins.add(origin)
    where = ", ".join(sorted(origins)) or f"{previous.info.provider}@{previous.info.refreshed_at}"
    snapshot.notes.append(
        f"{WARNING}{FLAG_NO_TITLES}: kept {kept_titles} dated announcement titles of {kept_stocks} stocks from the "
        f"last good universe ({where}) for the days this refresh could not fetch: {spans(carry)} carried; "
        f"fetched by this refresh: {spans(read)}; not known (fetched by neither): {spans(missing)}")
    whens = ", ".join(sorted({o.rsplit("@", 1)[-1] for o in origins})) or previous.info.refreshed_at
    flags = [f for f in snapshot.degraded if whole or not f.startswith(FLAG_NO_TITLES)]
    if not whole and missing:
        flags.append(unread_flag(missing, read))
    fresh = f", {spans(read)} 本次取得" if read else ""
    snapshot.degraded = sorted({*flags, f"{FLAG_CARRIED} ({whens}): {spans(carry)} 沿用{fresh}"})
    return snapshot
