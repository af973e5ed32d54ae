"""The signal table's row and heading types (``signal_table.py`` holds the rows; the twenty-first session moved the
types here so that a group's rows can live in a module of their own, as ``signal_earnings.py``'s do, without
importing the table they are part of)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SignalRule:
    name: str  # short name, as the flag and the reason say it
    tier: str  # "高" or "中": the least risk the text justifies
    group: str  # the system prompt's heading this row is listed under
    patterns: tuple[str, ...]  # matched inside one clause
    counters: tuple[str, ...] = ()  # spans blanked out before matching
    clears: tuple[str, ...] = ()  # words that make the whole sentence good news for this signal (胜诉, 结案)
    sentence: tuple[str, ...] = ()  # patterns matched across one sentence's clauses (质押 ... 比例为86%)
    # a dated title that ends the risk (结案通知书, 撤销退市风险警示, 解除司法冻结): later than every dated mention
    # of the signal, it lifts the signal, visibly (signals.py flags both titles). Each names its own subject (a
    # bank account's 解除冻结 does not lift frozen shares) and exists only where the later title is surely about
    # the same matter (a 胜诉 may be another case, so 重大诉讼 has none)
    resolves: tuple[str, ...] = ()
    # which of a signal's matters a mention or an end is about, (label, pattern) over the matched words: a lift
    # of 其他风险警示 leaves a 退市风险警示 standing. Words naming none are about all of them (摘帽 lifts both)
    kinds: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class SignalGroup:
    """A heading of the prompt's signal list, with the sentence that tells a model what it covers."""

    name: str
    describe: str  # what the texts say, in the prompt's words; tiers are appended from the rows
