"""Why a stock the local data holds has no ROE or PE-TTM, where the universe knows it: the row then says so.

A failed row's advice was always "再次刷新多半仍没有: 请在文件中提供该列" (a trial, 2026-12-07, s15/u5 B2), right
when the source answered the figure empty, wrong when a call that gives it failed in this refresh (Tushare's
income_vip: loss-makers' PE-TTM) or the stock had no quote that day (suspended). The refresh stores its failures
with the universe (UniverseInfo.notes); these notes read them, and the screen's message (pipeline.missing_message)
says the cause instead of the advice. Nothing is guessed: no stored note or no missing quote, no cause.
"""

from __future__ import annotations

from screening.data.refresh import FIELD_CALLS
from screening.data.universe import Universe, UniverseInfo
from screening.models import NOTE_GAP_CAUSE, SOURCE_NAMES, StockInput

# the essential figures a row fails without, as the rows name them
GAP_FIELDS = {"roe": "ROE", "pe_ttm": "PE-TTM"}


def source_name(provider: str | None) -> str:
    return SOURCE_NAMES.get(provider or "", provider or "未知数据源")


def gap_notes(stock: StockInput, universe: Universe) -> list[str]:
    """One ``NOTE_GAP_CAUSE`` note per essential figure the filled stock lacks whose cause the universe knows."""
    if universe.record(stock.code) is None or universe.info.demo:
        return []
    notes = []  # no quote first: a suspended stock lacks PE-TTM whatever else failed
    for name, label in GAP_FIELDS.items():
        if getattr(stock, name) is None and (cause := _no_quote(stock, name) or _failed_call(universe.info, name)):
            notes.append(f"{NOTE_GAP_CAUSE}: {label} {cause}")
    return notes


def _failed_call(info: UniverseInfo, name: str) -> str | None:
    """The refresh's note of a call that gives ``name`` and failed (``<call>(<period>) left out: ...``)."""
    calls = FIELD_CALLS.get(info.provider or "", {}).get(name, ())
    for note in info.notes:
        text = note.removeprefix("warning: ")
        label = text.split(" left out", 1)[0]
        if " left out" in text and calls and label.startswith(calls):
            at = (info.refreshed_at or "")[:16].replace("T", " ")
            return f"要用 {source_name(info.provider)} 的 {label}, 它在 {at} 的刷新中失败了; 数据源恢复后再刷新可能补上"
    return None


def _no_quote(stock: StockInput, name: str) -> str | None:
    """A stock without a price that day: no 总市值, so no PE-TTM (suspended, most often)."""
    if name == "pe_ttm" and stock.price is None and stock.market_cap is None:
        return "算不出: 本地数据没有它当日的行情 (多为停牌), 复牌后刷新才有"
    return None
