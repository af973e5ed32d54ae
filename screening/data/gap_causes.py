"""Why a stock the local data holds has no ROE or PE-TTM, where the universe knows it: the row then says so.

A failed row's advice was always "再次刷新多半仍没有: 请在文件中提供该列" (a trial, 2026-12-07, s15/u5 B2), right
when the source answered the figure empty, wrong when a call that gives it failed in this refresh (Tushare's
income_vip: loss-makers' PE-TTM) or the stock had no quote that day (suspended). The refresh stores its failures
with the universe (UniverseInfo.notes); these notes read them, and the screen's message (pipeline.missing_message)
says the cause instead of the advice. So does a figure the source gave twice with two values (UniverseInfo.row_flags,
providers/duplicates.py), and a file row under a code the last refresh saw leave the list (unknown_codes.left_the_list:
the words a typed code gets; the refresh advice sent the user round in a circle). Nothing is guessed: no stored note
or flag, or no missing quote, no cause.
"""

from __future__ import annotations

from screening.data.providers.duplicates import FLAG_SOURCE_CONFLICT
from screening.data.refresh import FIELD_CALLS
from screening.data.universe import Universe, UniverseInfo
from screening.data.unknown_codes import left_the_list
from screening.models import NOTE_GAP_CAUSE, SOURCE_NAMES, StockInput

# the essential figures a row fails without, as the rows name them
GAP_FIELDS = {"roe": "ROE", "pe_ttm": "PE-TTM"}
# the figures each is read or derived from: a source that gave one of them twice with two values left it empty
GAP_INPUTS = {"roe": ("roe",), "pe_ttm": ("pe_ttm", "market_cap")}


def source_name(provider: str | None) -> str:
    return SOURCE_NAMES.get(provider or "", provider or "未知数据源")


def gap_notes(stock: StockInput, universe: Universe) -> list[str]:
    """One ``NOTE_GAP_CAUSE`` note per essential figure the filled stock lacks whose cause the universe knows."""
    if universe.info.demo:
        return []
    if universe.record(stock.code) is None:
        return _left_the_list(stock, universe)
    notes = []  # two values first (they emptied the quote too), then no quote: a suspended stock lacks PE-TTM
    for name, label in GAP_FIELDS.items():
        if getattr(stock, name) is None and (cause := _two_values(stock, name, universe.info) or _no_quote(
                stock, name) or _failed_call(universe.info, name)):
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


def _two_values(stock: StockInput, name: str, info: UniverseInfo) -> str | None:
    """The refresh's flag on a figure ``name`` is read or derived from that the source gave twice with two values
    (providers/duplicates.py): a refresh brings the figure back once the source lists the stock once."""
    flags = info.row_flags.get(stock.code, {})
    said = [flags[f] for f in GAP_INPUTS[name] if f in flags and flags[f].startswith(FLAG_SOURCE_CONFLICT)]
    if not said:
        return None
    return f"{'; '.join(said)}; 请核对后在文件中提供该列, 或待数据源更正后再刷新"


def _left_the_list(stock: StockInput, universe: Universe) -> list[str]:
    """One note for the essential figures a file row lacks when the last refresh saw its code leave the list: no
    refresh brings them, only the file can (or the code was mistyped)."""
    lacking = [label for name, label in GAP_FIELDS.items() if getattr(stock, name) is None]
    left = left_the_list(stock.code, universe) if lacking else None
    if left is None:
        return []
    return [f"{NOTE_GAP_CAUSE}: {'、'.join(lacking)} 本地数据中没有这只股票: {left}, 或在文件中提供该列"]
