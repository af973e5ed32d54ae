"""The provider's notes that count stocks by their reports, made again once carried reports are put back.

keep_known_reports (refresh_reports.py) gives a stock the report of a period this refresh's answer left it out
of. The provider had already counted that stock from its answer: as a late filer of its older period
(fundamentals.late_note, 财报滞后) and among the PE-TTM left empty for a missing report (pe_gaps.pe_gap_note, the
one note both providers write). Kept as written, `universe status` called a stock late whose row has its on-time
report and no 财报滞后 flag, and counted empty a PE-TTM its row shows (a helper's loose ends, 2026-12-07; Tushare's
note, tallied while its records were built, went on counting a loss-maker whose PE-TTM the carry derived again).
So the counts are taken from the records before the carry and after it, and each note the provider wrote from the
counts before is replaced by the one the counts after make, or dropped when nobody is left in it. A note not found
exactly as the provider writes it is left alone: nothing is rewritten by guess.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from screening.data.providers import MarketSnapshot
from screening.data.providers.fundamentals import late_note
from screening.data.providers.pe_gaps import pe_gap_note


@dataclass(frozen=True)
class Counts:
    """The notes the records make: per report period, the late-filer note its stocks' count gives; the PE-TTM one."""

    late: dict[str, str]
    pe: str | None


def counted(snapshot: MarketSnapshot) -> Counts:
    """The counting notes as the snapshot's records make them now."""
    periods = Counter(p.field_dates.get("report_date", "") for p in snapshot.stocks if p.stock.report_date)
    return Counts({day: late_note(day, n) for day, n in periods.items() if day}, pe_gap_note(snapshot.stocks))


def recount(snapshot: MarketSnapshot, before: Counts) -> None:
    """Replace each counting note made from ``before`` by the one the records make now (dropped if none)."""
    after = counted(snapshot)
    swaps = {note: after.late.get(day) for day, note in before.late.items() if after.late.get(day) != note}
    if before.pe is not None and before.pe != after.pe:
        swaps[before.pe] = after.pe
    snapshot.notes = [new for note in snapshot.notes if (new := swaps.get(note, note)) is not None]
