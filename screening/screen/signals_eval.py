"""Measure a reader of risk text against a labelled set: recall per tier, false escalations, the misses.

The set (tests/data/signals_eval.tsv, written independently of the patterns) holds announcement titles
and report sentences as SSE/SZSE filings word them, each labelled with the least tier a careful analyst
reads in it (高, 中, or 无 for denials, look-alikes and ordinary news). The same scoring serves the rules
floor (``screen/signals.py``) and a model (``signals_cli.py`` asks the engine), so a user sees what the
model adds over the floor on the same items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from screening.data.pool_text import decode_lines
from screening.models import PoolRejected
from screening.screen.signals import read_signals, text_tier

DEFAULT_SET = Path(__file__).resolve().parents[2] / "tests" / "data" / "signals_eval.tsv"
TIERS = ("高", "中", "无")
_RANK = {"无": 0, "低": 0, "中": 1, "高": 2}
COLUMNS = ("kind", "date", "text", "tier", "category", "note")


class EvalSetError(ValueError):
    """The evaluation file is not the documented shape (names the line and what is wrong)."""


@dataclass(frozen=True)
class EvalItem:
    kind: str  # "title" or "sentence"
    date: str
    text: str
    tier: str  # 高, 中 or 无
    category: str
    note: str

    def report_text(self) -> str:
        """The text as the product's report text carries it: a dated title line, or the sentence."""
        if self.kind == "title":
            return f"近30日公告（新→旧）：\n{self.date or '2026-12-01'} {self.text}"
        return self.text


def load_set(path: Path) -> list[EvalItem]:
    """The labelled items of a TSV file with the header ``kind date text tier category note``.

    Read as the pool readers read a file (UTF-8 with or without BOM, GBK/GB18030, UTF-16 with a BOM), so a
    set saved by Excel/WPS on a Chinese Windows reads as it is; a line in another encoding is named.
    """
    try:
        lines = decode_lines(path.read_bytes(), str(path))
    except PoolRejected as exc:
        raise EvalSetError(str(exc)) from exc
    rows = [(line.no, line) for line in lines if line.text.strip() or line.broken]
    if not rows:
        raise EvalSetError(f"{path}: line 1: the file is empty; the header must be {' '.join(COLUMNS)}")
    items = []
    for n, (no, line) in enumerate(rows):
        if line.broken:
            raise EvalSetError(f"{path}: line {no}: {line.broken}")
        row = line.text.split("\t")
        if n == 0:
            if tuple(row[: len(COLUMNS)]) != COLUMNS:
                raise EvalSetError(f"{path}: line {no}: the header must be {' '.join(COLUMNS)}, got {row}")
            continue
        if len(row) < len(COLUMNS):
            raise EvalSetError(f"{path}: line {no}: {len(row)} columns, {len(COLUMNS)} expected")
        item = EvalItem(*row[: len(COLUMNS)])
        if item.tier not in TIERS or item.kind not in ("title", "sentence"):
            raise EvalSetError(f"{path}: line {no}: kind {item.kind!r} / tier {item.tier!r} not allowed")
        items.append(item)
    return items


@dataclass
class Scores:
    """Recall per tier (an item of tier T read at T or above), false escalations (无 read as 中 or 高)."""

    reader: str
    n: int = 0
    per_tier: dict[str, tuple[int, int]] = field(default_factory=dict)  # tier -> (read at least it, total)
    false_escalations: int = 0
    negatives: int = 0
    misses: list[tuple[EvalItem, str]] = field(default_factory=list)  # (item, what was read)

    def recall(self, tier: str) -> float | None:
        hit, total = self.per_tier.get(tier, (0, 0))
        return hit / total if total else None

    def recall_all(self) -> float | None:
        hit = sum(h for h, _ in self.per_tier.values())
        total = sum(t for _, t in self.per_tier.values())
        return hit / total if total else None

    def false_rate(self) -> float | None:
        return self.false_escalations / self.negatives if self.negatives else None

    def lines(self) -> list[str]:
        def pct(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"

        out = [f"reader: {self.reader}, {self.n} items"]
        for tier in ("高", "中"):
            hit, total = self.per_tier.get(tier, (0, 0))
            out.append(f"recall {tier}: {pct(self.recall(tier))} ({hit}/{total})")
        out.append(f"recall all risks: {pct(self.recall_all())}")
        out.append(f"false escalations: {pct(self.false_rate())} ({self.false_escalations}/{self.negatives})")
        for item, read in self.misses:
            out.append(f"  miss: expected {item.tier}, read {read}: {item.text} [{item.category}; {item.note}]")
        return out


def score(items: Sequence[EvalItem], tiers: Sequence[str], reader: str) -> Scores:
    """Score the tiers a reader gave (one per item, 高/中/低 or 无) against the labels."""
    s = Scores(reader=reader, n=len(items))
    for item, read in zip(items, tiers, strict=True):
        if item.tier == "无":
            s.negatives += 1
            if _RANK[read] > 0:
                s.false_escalations += 1
                s.misses.append((item, read))
            continue
        hit, total = s.per_tier.get(item.tier, (0, 0))
        ok = _RANK[read] >= _RANK[item.tier]
        s.per_tier[item.tier] = (hit + ok, total + 1)
        if not ok:
            s.misses.append((item, read))
    return s


def floor_tiers(items: Sequence[EvalItem]) -> list[str]:
    """What the rules floor reads in each item (无 when it finds no signal)."""
    return [text_tier(read_signals(item.report_text())) or "无" for item in items]


def evaluate(items: Sequence[EvalItem], reader: str = "floor",
             read: Callable[[Sequence[EvalItem]], list[str]] = floor_tiers) -> Scores:
    return score(items, read(items), reader)
