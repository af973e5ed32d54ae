"""A carried report's sentence in the stored report text: the carried report's own, not the older one's.

The report text (report_text.compose_report_text) opens with one sentence of the stock's latest report, e.g.
``2026年三季报（截至2026-09-30，2026-10-28公告）：营业总收入…；ROE（2026年三季报累计）8.46%…``. When a refresh's
answer left the stock out of that period and keep_known_reports put the 2026-09-30 figures back, the provider had
already written the sentence of the older report it found (2026年半年报): the row said 2026-09-30 and its text,
which the model reads for risk, described June. So the sentence is replaced by the one the last good universe's
text has for the carried period, and a 业绩预告 of a period up to it goes (that report is out: it forecasts
nothing, records.current_forecast). Where the last text has no such sentence, a line before the older one says
which report it describes and that the row's figures are of the carried one. The text's source id gains
``+财报沿用上次刷新:<the carried figures' source>``, ahead of any ``+carried:`` titles origin (refresh_titles.py).
"""

from __future__ import annotations

import datetime as dt

from screening.data.providers.base import ProvidedStock
from screening.data.providers.periods import label, next_period, periods_before, ymd
from screening.data.refresh_titles import CARRIED
from screening.data.universe import Record

SOURCE_MARK = "财报沿用上次刷新:"  # refresh_reports.FLAG_REPORT_CARRIED, as the text's source id names it


def sentence(text: str | None, day: str) -> str | None:
    """The report sentence of period ``day`` (ISO) in a composed report text, or None."""
    head = f"{label(dt.date.fromisoformat(day))}（截至{day}"
    return next((line for line in (text or "").splitlines() if line.startswith(head)), None)


def _superseded(line: str, old: str | None, day: str) -> bool:
    """A 业绩预告 line of a period after ``old`` up to ``day``: with ``day``'s report out, it forecasts nothing."""
    periods = [p for p in periods_before(next_period(dt.date.fromisoformat(day)), 8) if not old or p.isoformat() > old]
    heads = tuple(f"{word}（{label(p)}" for word in ("业绩预告", "业绩预告修正") for p in periods)
    return line.startswith(heads)


def carry_sentence(p: ProvidedStock, rec: Record, old: str | None, day: str, flag: str) -> None:
    """Put the last good universe's sentence of the carried report ``day`` in place of ``old``'s in ``p``'s text;
    ``flag``: the row's flag for the carried report (it names the refresh the figures are from)."""
    text = p.stock.report_text or ""
    ours = sentence(text, old) if old else None
    theirs = sentence(rec.stock.report_text, day)
    lines = [line for line in text.splitlines() if not _superseded(line, old, day)]
    if theirs is not None and ours in lines:
        lines[lines.index(ours)] = theirs
    elif theirs is not None:
        lines.insert(0, theirs)
    else:  # no sentence to carry: say what the older one is (a line that starts with no date: not a title)
        older = f"；下句为其 {old} 报告" if ours else ""
        lines.insert(lines.index(ours) if ours in lines else 0, f"（{flag}{older}）")
    p.stock.report_text = "\n".join(lines)
    own, sep, titles = p.field_sources.get("report_text", "composed:").partition(f"+{CARRIED}")
    head, colon, calls = own.rpartition(":")
    kept = [c for c in calls.split("+") if c and not (  # the call that gave a replaced sentence is named no more
        theirs is not None and ours is not None and old and f"({ymd(dt.date.fromisoformat(old))})" in c)]
    kept.append(f"{SOURCE_MARK}{rec.sources.get('report_date', day)}")
    p.field_sources["report_text"] = f"{head}{colon}{'+'.join(kept)}{sep}{titles}"
    notice = rec.dates.get("report_date@notice", "")
    p.field_dates["report_text"] = max(p.field_dates.get("report_text", ""), notice) or day
