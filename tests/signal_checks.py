"""What the signal tests check of one sentence, in one place: its tier, the hits' states, and review 9's open list.

Why: every round that mends misreadings pins them in a test file of its own (test_signals_open_*.py), and each file
had grown its own copy of the same three checks (a duplicates run of the seventeenth session).
"""

from __future__ import annotations

from pathlib import Path

from screening.screen.signal_hit import SignalHit
from screening.screen.signals import read_signals, text_tier

OPEN_LIST = Path(__file__).resolve().parent / "data" / "signals_review9_open.txt"


def open_inputs() -> set[str]:
    """The inputs of the open list (``expected|read as|input`` lines): the misreadings not yet mended."""
    lines = OPEN_LIST.read_text(encoding="utf-8").splitlines()
    return {line.split("|", 2)[2] for line in lines if line and not line.startswith("#")}


def states(hits: list[SignalHit]) -> list[tuple[str, str]]:
    return [(h.name, h.state) for h in hits]


def read_at(text: str, tier: str | None) -> list[SignalHit]:
    """The hits of ``text``, checked to give the row ``tier`` (None: no tier at all)."""
    hits = read_signals(text)
    assert text_tier(hits) == tier, [(h.name, h.state, h.matched) for h in hits]
    return hits


def assert_live(text: str, signal: str, tier: str) -> None:
    """``text`` gives ``tier`` through a live ``signal`` of that tier."""
    hits = read_at(text, tier)
    assert any(h.name == signal and h.state == "live" and h.tier == tier for h in hits), states(hits)
