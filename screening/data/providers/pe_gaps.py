"""The note counting the stocks whose PE-TTM stays empty, and why, made from the records themselves.

Each record keeps why its PE-TTM is empty (``ProvidedStock.pe_gap``) and the note is counted from the records, not
from a tally taken while they were built: the refresh can fill a PE-TTM afterwards (refresh_reports.py: a report
the answer left a stock out of, carried from the last good universe, gives its TTM back), and a note counted
once then kept counting, and `universe status` kept showing, a stock whose row has a PE-TTM. Both providers write
it with this one function (each record's ``pe_gap`` is its provider's reason, in its words), so the refresh can
count it again whichever provider answered (refresh_report_notes.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from screening.data.providers.base import ProvidedStock

PE_EMPTY = "PE-TTM left empty for "


def pe_gap_note(stocks: Iterable[ProvidedStock]) -> str | None:
    """``PE-TTM left empty for N stocks: n1 why1; n2 why2`` (most first), or None when every PE-TTM is there."""
    gaps = Counter(p.pe_gap for p in stocks if p.pe_gap is not None and p.stock.pe_ttm is None)
    if not gaps:
        return None
    detail = "; ".join(f"{n} {why}" for why, n in sorted(gaps.items(), key=lambda kv: -kv[1]))
    return f"{PE_EMPTY}{sum(gaps.values())} stocks: {detail}"
