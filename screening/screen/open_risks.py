"""Which stored announcement titles state a 高 risk still open: what a refresh keeps past its window.

data/refresh_open_risks.py keeps such titles when the announcement window moves past them (a 立案 of 31 days ago
left the text and the stock read 低/100). Which titles those are is the text reader's knowledge, so it is read here,
by ``read_signals``, and handed to the refresh by whoever builds it (the CLI, the bot): the same table that raises a
row decides what is kept, and a title the reader reads as ended (结案通知书 later, 已全部归还 in its own words) or as
another party's is not kept. Only 高 signals: those stand until a title ends them; a 中 one (减持, 问询函, 预亏) is
news of its time, and the window is its measure.
"""

from __future__ import annotations

import datetime as dt

from screening.data.refresh_titles import dated_titles
from screening.screen.signal_hit import LIVE
from screening.screen.signals import read_signals

KEPT_TIER = "高"


def open_risk_titles(text: str) -> list[tuple[dt.date, str]]:
    """The dated title lines of ``text`` behind a live 高 signal of its reading (a hit names one title per signal: the
    one the row's flag quotes)."""
    hits = [h for h in read_signals(text) if h.is_title and h.state == LIVE and h.tier == KEPT_TIER and h.date]
    if not hits:
        return []
    out = []
    for day, title in dated_titles(text):
        shown = " ".join(title.split())
        if any(h.date == day.isoformat() and shown.startswith(h.text.rstrip("…")) for h in hits):
            out.append((day, title))
    return out
