"""Two consecutive years' losses stated in two sentences of one text: 业绩续亏, as in one sentence.

The 业绩续亏 row reads two fiscal years' losses where one sentence states them (signal_loss.TWO_YEARS: 公司2025年度亏损
3.2亿元，2024年度亏损1.5亿元). A report excerpt states each year in a sentence of its own as often (公司2025年度亏损
3.2亿元。公司2024年度亏损1.5亿元。), and that read 业绩预亏 中, a tier low (the nineteenth session). A sentence (not a
title) whose 业绩预亏 reads live is a loss of the whole year that opens its clause (signal_loss.WHOLE_YEAR); two of
consecutive years make one 业绩续亏 mention, quoting the text from the first loss to the second. Only a live 业绩预亏
counts, so what that row leaves unread stays so (标的公司2025年度亏损, a turnaround, a hypothetical), and years two
apart (2025 and 2023) pair no more than in one sentence.
"""

from __future__ import annotations

import re

from screening.screen.signal_denial import clause_start
from screening.screen.signal_loss import WHOLE_YEAR
from screening.screen.signal_text import Unit

YEARLY, CONSECUTIVE = "业绩预亏", "业绩续亏"  # the signal read a year a sentence, and the one two years make
_WHOLE_YEAR = re.compile(WHOLE_YEAR)
Mention = tuple[int, Unit, int, int]  # the year, the sentence, the span in it from the year to the loss words' end


def loss_year(sentence: str, start: int, end: int) -> tuple[int, int] | None:
    """The whole year of the loss found at ``sentence[start:end]`` and where it is written: the last one opened in
    its clause up to the loss words' end."""
    years = list(_WHOLE_YEAR.finditer(sentence, clause_start(sentence, start), end))
    return (int(years[-1].group("year")), years[-1].start("year")) if years else None


def two_years(mentions: list[Mention]) -> tuple[Unit, int, int] | None:
    """The two sentences of consecutive years' losses (the latest such pair) as one unit of the text from the first
    to the second, and the span in it from the first loss words to the second's end; None without such a pair."""
    by_year: dict[int, Mention] = {}
    for mention in mentions:
        by_year.setdefault(mention[0], mention)
    later = next((year for year in sorted(by_year, reverse=True) if year - 1 in by_year), None)
    if later is None:
        return None
    (_, first, a, _), (_, second, _, b) = sorted((by_year[later], by_year[later - 1]), key=lambda m: m[1].start)
    end = second.start + len(second.text)
    unit = Unit(first.norm, first.start, first.norm.text[first.start:end], second.date or first.date, False)
    return unit, a, second.start - first.start + b
