"""The digest's 公告风险 section: stocks whose announcements (or report text) newly raised their risk.

A digest opens with it because it is the news a pre-market reader can act on and the one the figures
cannot show: a CSRC investigation, a delisting warning, a missed bond payment. "New" is measured against
the previous digest of the same scope: each snapshot keeps the keys of the signals every row carried
(digest/history.py), so a title that was already reported yesterday is not reported again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from screening.models import ResultRow


@dataclass(frozen=True)
class TextRisk:
    """One signal of one stock, as the section lists it."""

    code: str
    name: str | None
    signal: str
    tier: str
    date: str | None
    text: str  # the announcement title, or the report sentence
    raises: bool  # its tier is above the figures': it raised the stock's risk


def signal_key(s: dict[str, Any]) -> str:
    """What makes a signal the same one tomorrow: its name, date and title (or sentence)."""
    return f"{s.get('signal')}|{s.get('date') or ''}|{s.get('text')}"


def row_keys(r: ResultRow) -> list[str]:
    return sorted(signal_key(s) for s in r.signals)


def text_risks(rows: Sequence[ResultRow], prev: dict[str, list[Any]], has_previous: bool) -> list[TextRisk]:
    """Signals that raised a stock's risk (or stand at 高) and were not in the previous snapshot, newest first.

    With no previous digest every such signal is new. A previous snapshot written before signals were kept
    (five fields) counts as having none, so the first digest after an upgrade lists what is there.
    """
    out: list[TextRisk] = []
    for r in rows:
        if r.status != "ok" or not r.signals:
            continue
        old = prev.get(r.code) if has_previous else None
        seen = set(old[5]) if old is not None and len(old) > 5 and isinstance(old[5], list) else set()
        for s in r.signals:
            if not (s.get("raises") or s.get("tier") == "高") or signal_key(s) in seen:
                continue
            out.append(TextRisk(r.code, r.name, str(s.get("signal")), str(s.get("tier")), s.get("date"),
                                str(s.get("text")), bool(s.get("raises"))))
    out.sort(key=lambda t: (t.date or "", t.tier == "高", t.code), reverse=True)
    return out
