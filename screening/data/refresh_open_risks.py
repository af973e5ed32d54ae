"""Risk titles older than the announcement window that nothing has ended yet: kept by each refresh.

A refresh writes a stock's report text from the titles of the last ``announcement_days`` days (30) and replaces the
old text. A ``2026-11-01 关于收到中国证监会《立案告知书》的公告`` therefore left the text about 2026-12-01: the
investigation was still open, and the stock came out 低/100 with no flag (a user's trial, 2026-12-07). 违规担保,
资金占用, 资产冻结 and 债务违约 went the same way. The text reader has no age limit; the loss was the window's.

So a refresh keeps, from the last good universe's text of each stock, the dated titles that still state an open
高 risk (``OpenRisks``: which titles those are is known only to the text reader in screen/, which data/ must not
import; the caller that builds the ``Refresher`` hands it in) and that fall before the new window. They join the new
text under their own heading, each with its date, so the reader reads them as before and a later title in the window
that ends the matter (结案通知书, 已全部归还) ends them there too; the next refresh then no longer keeps them. A title
older than ``open_risk_days`` (365) is let go: what the window no longer shows and a year brought no title about
is left to the periodic report. The row is flagged ``风险公告沿用`` (how many, the oldest day), the report text's
source id says ``+open-risks`` and a note counts the titles.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from screening.data.providers import MarketSnapshot
from screening.data.providers.fetch_plan import announcement_window
from screening.data.refresh_titles import dated_titles
from screening.data.universe import Universe

# a stored report text -> the dated titles in it that state a 高 risk nothing in the text has ended (screen/ knows)
OpenRisks = Callable[[str], list[tuple[dt.date, str]]]
FLAG_OPEN_KEPT = "风险公告沿用"  # row flag: older titles of an open risk are in the text, kept from the last refresh
HEADING = "公告窗口之前、尚未见了结的高风险公告（上次刷新所存，逐次沿用）："
OPEN = "+open-risks"


def keep_open_risks(snapshot: MarketSnapshot, previous: Universe, days: int, open_risks: OpenRisks,
                    max_age_days: int) -> MarketSnapshot:
    """The snapshot with each stock's open risk titles from before its window put back (see the module's doc)."""
    fetched = dt.datetime.fromisoformat(snapshot.fetched_at).date()
    window = announcement_window(dt.date.fromisoformat(snapshot.trade_date[:10]), fetched, days)
    first = min(window) if window else fetched
    oldest = fetched - dt.timedelta(days=max_age_days)
    if previous.info.demo:
        return snapshot
    kept_stocks = kept_titles = 0
    for p in snapshot.stocks:
        rec = previous.record(p.stock.code)
        if rec is None or not any(oldest <= d < first for d, _ in dated_titles(rec.stock.report_text)):
            continue  # nothing before the window to keep: the reader (~15-30 ms a text) is not asked
        have = set(dated_titles(p.stock.report_text))
        titles = sorted({(d, t) for d, t in open_risks(rec.stock.report_text or "")
                         if oldest <= d < first and (d, t) not in have}, reverse=True)
        if not titles:
            continue
        block = "\n".join([HEADING] + [f"{d.isoformat()} {t}" for d, t in titles])
        text, source = p.stock.report_text, p.field_sources.get("report_text")
        p.stock.report_text = f"{text}\n{block}" if text else block
        if source and OPEN not in source:
            p.field_sources["report_text"] = source + OPEN
        flag = (f"{FLAG_OPEN_KEPT}: {len(titles)} 条早于公告窗口 (近{days}日) 的高风险公告未见了结, 最早 "
                f"{titles[-1][0].isoformat()}, 沿用上次刷新所存; 了结与否以公司最新公告为准")
        old = p.flags.get("report_text")
        p.flags["report_text"] = f"{old}; {flag}" if old else flag
        kept_stocks, kept_titles = kept_stocks + 1, kept_titles + len(titles)
    if kept_titles:
        snapshot.notes.append(f"kept {kept_titles} dated titles of {kept_stocks} stocks that state a 高 risk nothing "
                              f"has ended yet, older than the {days}-day announcement window (up to "
                              f"{max_age_days} days): the last good universe's, read again by each screen")
    return snapshot
