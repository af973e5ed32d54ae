"""Read the risk a stock's text states plainly: announcement titles and report sentences -> signals.

This is part of the rules floor on every engine (``rules.assess`` calls it), so a company whose titles
say 立案调查 is never rated 低 because a model missed it. It reads what a careful analyst reads and no
more: each signal of ``signal_table.SIGNALS`` where the text states it, skipping denials (不存在违规担保),
good news that shares a word (撤销退市风险警示, 一审胜诉) and the like, with the title and its date (or
the sentence) it came from, so the row can say exactly why it was raised. Pure and deterministic.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache

from screening.screen.signal_table import NEGATIONS, OTHER_PARTY, SIGNALS, TIER_RANK, SignalRule

# a dated announcement title, as data/providers/report_text.py writes them: "2026-11-20 关于...的公告"
_TITLE_LINE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})\s+(.+?)\s*$")
# a dated title inside running text, as a file's report column carries titles: "近30日公告：2026-11-20 关于…；"
_INLINE_TITLE = re.compile(r"^(?:[^：:，,]{0,12}[：:])?\s*(\d{4}-\d{2}-\d{2})\s*(.+?)[；;。]?$")
_NOTICE_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})公告")
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])")
_CLAUSE_BREAK = re.compile(r"[，：:]|,(?!\d{3})")  # "1,200万元" is a number, not two clauses
_NEGATION = re.compile(f"{NEGATIONS}|{OTHER_PARTY}")
_SHOWN_CHARS = 60  # a sentence quoted in a flag is cut to this
# what a cached row must have been judged with: a change to the table is a change to the floor
TABLE_ID = hashlib.sha256(repr((SIGNALS, NEGATIONS, OTHER_PARTY)).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class SignalHit:
    """One risk the text states: which signal, its tier, the words that said it, and where they stand."""

    name: str
    tier: str
    group: str
    matched: str  # the words that matched, verbatim
    text: str  # the announcement title, or the report sentence (cut to _SHOWN_CHARS)
    date: str | None  # the title's date (YYYY-MM-DD), or the notice date a sentence states
    is_title: bool

    def flag(self) -> str:
        """E.g. ``公告风险: 立案调查 (2026-11-20 关于收到中国证监会《立案告知书》的公告)``."""
        if self.is_title:
            where = f"{self.date} {self.text}" if self.date else self.text
            return f"公告风险: {self.name} ({where})"
        dated = f"{self.date}, " if self.date else ""
        return f"报告风险: {self.name} ({dated}「{self.text}」)"

    def to_dict(self) -> dict[str, str | bool | None]:
        return {"signal": self.name, "tier": self.tier, "matched": self.matched, "text": self.text,
                "date": self.date, "title": self.is_title}


@dataclass(frozen=True)
class _Compiled:
    rule: SignalRule
    pattern: re.Pattern[str] | None
    sentence: re.Pattern[str] | None
    counter: re.Pattern[str] | None
    clear: re.Pattern[str] | None


def _alternation(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


@cache
def _compiled() -> tuple[_Compiled, ...]:
    out = []
    for rule in SIGNALS:
        assert rule.patterns or rule.sentence, f"signal {rule.name} has no pattern"
        out.append(_Compiled(rule, _alternation(rule.patterns), _alternation(rule.sentence),
                             _alternation(rule.counters), _alternation(rule.clears)))
    return tuple(out)


def _units(text: str) -> list[tuple[str, str | None, bool]]:
    """(text, date, is_title) for each dated title line and each sentence of the other lines."""
    units: list[tuple[str, str | None, bool]] = []
    for line in text.splitlines():
        m = _TITLE_LINE.match(line)
        if m:
            units.append((m.group(2), m.group(1), True))
            continue
        for sentence in _SENTENCE_END.split(line):
            sentence = sentence.strip()
            if not sentence:
                continue
            inline = _INLINE_TITLE.match(sentence)
            if inline:
                units.append((inline.group(2), inline.group(1), True))
                continue
            date = _NOTICE_DATE.search(sentence)
            units.append((sentence, date.group(1) if date else None, False))
    return units


def _blank(clause: str, counter: re.Pattern[str] | None) -> str:
    """The clause with counter-pattern spans replaced by spaces (positions kept)."""
    if counter is None:
        return clause
    return counter.sub(lambda m: " " * len(m.group(0)), clause)


def _denied(text: str, start: int, end: int) -> bool:
    """A denial earlier in the clause of ``start``, overlapping or inside the match (不存在违规担保, 未计提商誉减值)."""
    clause_start = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, start)), default=0)
    return bool(_NEGATION.search(text, clause_start, end))


def _match_in(unit: str, c: _Compiled) -> str | None:
    """The words that state ``c``'s signal in one title or sentence, or None (cleared, countered, denied).

    Clause patterns must match inside one clause; sentence patterns may cross the clauses of the unit.
    """
    if c.clear is not None and c.clear.search(unit):
        return None
    blanked = _blank(unit, c.counter)
    found = []
    if c.pattern is not None:
        for start, clause in _clauses(blanked):
            found += [(start + m.start(), start + m.end()) for m in c.pattern.finditer(clause)]
    if c.sentence is not None:
        found += [(m.start(), m.end()) for m in c.sentence.finditer(blanked)]
    for start, end in sorted(found):
        if not _denied(blanked, start, end):
            return blanked[start:end]
    return None


def _clauses(text: str) -> list[tuple[int, str]]:
    """(offset, clause) for each clause of a title or sentence."""
    out, start = [], 0
    for m in _CLAUSE_BREAK.finditer(text):
        out.append((start, text[start:m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return out


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def read_signals(text: str | None) -> list[SignalHit]:
    """Every signal the text states, one hit per signal (its newest mention), highest tier first.

    A title's date is the announcement's; among hits of one tier the newest comes first, so the first
    hit is what a reason should name.
    """
    if not text:
        return []
    best: dict[str, SignalHit] = {}
    for unit, date, is_title in _units(text):
        for c in _compiled():
            words = _match_in(unit, c)
            if words is None:
                continue
            hit = SignalHit(c.rule.name, c.rule.tier, c.rule.group, words, _shown(unit), date, is_title)
            old = best.get(hit.name)
            if old is None or (hit.date or "") > (old.date or ""):
                best[hit.name] = hit
    return sorted(best.values(), key=lambda h: (-TIER_RANK[h.tier], _neg_date(h.date), h.name))


def _neg_date(date: str | None) -> tuple[int, ...]:
    """Sort key putting newer dates first and undated last."""
    if not date:
        return (1,)
    return (0, *(-int(part) for part in date.split("-")))


def text_tier(hits: list[SignalHit]) -> str | None:
    """The highest tier the hits justify, or None when the text states no risk."""
    return hits[0].tier if hits else None
