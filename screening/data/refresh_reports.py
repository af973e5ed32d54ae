"""A report the last good universe had and this refresh's answer left out: kept, since a report never un-publishes.

One period's whole-market answer can leave a stock out (Eastmoney pages 业绩报表 500 rows at a time, sorted by
UPDATE_DATE: a row updated while the pages are read moves onto a page already read). The provider then gave the
stock its newest report among the periods it did get: 000021's 2026-06-30 report in place of the 2026-09-30 one
the universe had, so its row read 财报滞后 (the company had filed on time) and its PE-TTM changed quietly; a
stock left out of the annual report lost its ROE, and its failed row advised that a refresh would not help
(a trial, 2026-12-07, s15/u5 B1).

So each report figure the last good universe holds from a provider's report of period P (the figure's date is
P) stays, with its own period, source and first notice date, where this refresh gave the stock nothing of P and
only an older figure or none. A PE-TTM the last refresh derived from P is derived again from this refresh's
总市值 and that refresh's TTM net profit (its 总市值 / PE-TTM); a PE-TTM the source states (Tushare's pe_ttm)
is the source's and stays. The row says what was kept and from which refresh (``FLAG_REPORT_CARRIED``), and one
warning note names the stocks. A figure the source answered blank in a report this refresh does have (other
figures of P are there) is the source's answer, not a page shift, and is not carried; imported figures are
not reports and are never carried. What the refresh says of a carried stock agrees with its row: the report
text's sentence is the carried report's (refresh_report_text.py), and the provider's notes that counted it as a
late filer or its PE-TTM as empty are counted again (refresh_report_notes.py).
"""

from __future__ import annotations

import datetime as dt

from screening.data.providers import MarketSnapshot
from screening.data.providers.base import ProvidedStock
from screening.data.providers.periods import is_period
from screening.data.providers.provider_base import NAMED, WARNING, more_than
from screening.data.providers.records import NOTICE
from screening.data.refresh_report_notes import counted, recount
from screening.data.refresh_report_text import carry_sentence
from screening.data.universe import Record, Universe

FLAG_REPORT_CARRIED = "财报沿用上次刷新"  # row flag: figures of a report this refresh's answer lacked, kept
# the figures a report gives, each dated by its report's period (records.put_latest, put_fiscal_years)
REPORT_FIELDS = ("report_date", "eps", "roe", "net_profit_y1", "net_profit_y2")
REPORT_SOURCES = ("akshare:", "tushare:")  # a provider's report call; "import:" figures are dated by the import
DERIVED = "derived:"
CARRIED_PE = f"{DERIVED}总市值/TTM净利润(TTM为上次刷新的总市值/PE-TTM: "


def _period(text: str) -> bool:
    """Whether a stored date is a report period's (a quarter end)."""
    try:
        return len(text) == 10 and is_period(dt.date.fromisoformat(text))
    except ValueError:
        return False


def lacked(p: ProvidedStock, rec: Record) -> dict[str, str]:
    """field -> period (ISO) of the report figures ``rec`` holds from a report of which this refresh's record
    ``p`` has nothing, where ``p`` has that figure from an older report or not at all."""
    have = {p.field_dates.get(f) for f in REPORT_FIELDS if getattr(p.stock, f) is not None}
    out = {}
    for f in REPORT_FIELDS:
        day = rec.dates.get(f, "")
        if (getattr(rec.stock, f) is None or not rec.sources.get(f, "").startswith(REPORT_SOURCES)
                or not _period(day) or day in have):
            continue
        if getattr(p.stock, f) is None or p.field_dates.get(f, "") < day:
            out[f] = day
    return out


def _rederive_pe(p: ProvidedStock, rec: Record, periods: list[str], quote_day: str) -> bool:
    """PE-TTM from this refresh's 总市值 and the TTM net profit the last refresh derived from a carried period."""
    old_pe, old_cap, cap, source = rec.stock.pe_ttm, rec.stock.market_cap, p.stock.market_cap, rec.sources.get(
        "pe_ttm", "")
    stated = p.stock.pe_ttm is not None and not p.field_sources.get("pe_ttm", "").startswith(DERIVED)
    if (stated or not old_pe or not old_cap or cap is None or not source.startswith(DERIVED)
            or not any(day.replace("-", "") in source for day in periods)):
        return False
    p.stock.pe_ttm = round(cap * old_pe / old_cap, 4)
    inner = source if source.startswith(CARRIED_PE) else f"{CARRIED_PE}{source.removeprefix(DERIVED)})"
    p.field_sources["pe_ttm"] = inner
    p.field_dates["pe_ttm"] = quote_day
    return True


def _carry(p: ProvidedStock, rec: Record, before: dict[str, str], when: str, quote_day: str) -> list[str]:
    """Put ``rec``'s figures of the reports ``p`` lacks into ``p``, flagged; the periods carried."""
    missing = lacked(p, rec)
    old_report = p.field_dates.get("report_date") if p.stock.report_date is not None else None
    flags: dict[str, str] = {}
    for f, day in missing.items():
        setattr(p.stock, f, getattr(rec.stock, f))
        p.field_sources[f], p.field_dates[f] = rec.sources[f], day
        p.field_dates.pop(f + NOTICE, None)
        if f + NOTICE in rec.dates:
            p.field_dates[f + NOTICE] = rec.dates[f + NOTICE]
        # carried again: the flag names the refresh that fetched the figures, not the one that carried them
        old = before.get(f, "")
        flags[f] = p.flags[f] = old if old.startswith(FLAG_REPORT_CARRIED) else (
            f"{FLAG_REPORT_CARRIED}: 本次刷新数据源缺少该股 {day} 报告, 沿用 {when} 刷新的数据")
    if "report_date" in missing:  # the text's report sentence is the carried report's, as the row's figures
        carry_sentence(p, rec, old_report, missing["report_date"], flags["report_date"])
    periods = sorted(set(missing.values()), reverse=True)
    if periods and _rederive_pe(p, rec, periods, quote_day):
        p.flags["pe_ttm"] = next(flags[f] for f, day in missing.items() if day == periods[0])
    return periods


def keep_known_reports(snapshot: MarketSnapshot, previous: Universe) -> MarketSnapshot:
    """The snapshot with the last good universe's figures put back for reports its answer left a stock out of.

    Unchanged when the last good universe is demo data or empty, or no stock lacks a report it had."""
    if previous.info.demo or not len(previous):
        return snapshot
    when = (previous.info.refreshed_at or previous.info.trade_date or "")[:10]
    counts = counted(snapshot)  # the provider's notes counting late filers and empty PE-TTMs, as they stand
    told = []
    for p in snapshot.stocks:
        rec = previous.record(p.stock.code)
        if rec is None:
            continue
        before = previous.info.row_flags.get(rec.stock.code, {})
        if periods := _carry(p, rec, before, when, snapshot.trade_date):
            told.append(f"{p.stock.code} {'/'.join(periods)}")
    if told:
        recount(snapshot, counts)  # a carried stock is no late filer, and a PE-TTM derived again is not empty
        snapshot.notes.append(
            f"{WARNING}{len(told)} stock(s) lacked a report in this refresh's answer that the last good universe "
            f"({previous.info.provider} {when}) had: a published report does not un-publish, so its figures are "
            f"kept with their own period and source and the row says so ({FLAG_REPORT_CARRIED}): "
            f"{'; '.join(told[:NAMED])}{more_than(told)}")
    return snapshot
