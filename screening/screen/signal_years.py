"""Two consecutive years' losses stated in two titles or sentences of one text: 业绩续亏, as in one sentence.

The 业绩续亏 row reads two fiscal years' losses where one sentence states them (signal_loss.TWO_YEARS: 公司2025年度亏损
3.2亿元，2024年度亏损1.5亿元). A report excerpt states each year in a sentence of its own as often (公司2025年度亏损
3.2亿元。公司2024年度亏损1.5亿元。), and that read 业绩预亏 中, a tier low (the nineteenth session); so did two dated
titles of the two years' forecasts (2024年年度业绩预亏公告, then 2025年年度业绩预亏公告; the twentieth session). A title
or sentence whose 业绩预亏 reads live is a loss of the whole year it names (signal_loss.TITLE_YEAR in a title: at its
start or after 关于/公司; WHOLE_YEAR in a sentence: opening the loss's clause); two of consecutive years make one
业绩续亏 mention, quoting both. Only a live 业绩预亏 worded as a loss counts (预亏, 亏损, 为负, -3.2亿元; not 预减 or
净利润下降60%, a fall of a profit), so what that row leaves unread stays so (标的公司2025年度亏损, a turnaround, a
hypothetical), and so does a part of a year (2025年半年度业绩预亏) and years two apart (2025 and 2023). A year's
profit stated (2025年年度业绩预盈公告, 公司2025年度实现盈利: signal_loss.YEAR_PROFIT) ends the losses before it: the
pair's later year corrected to a profit by a later-dated title (更正 to 预盈), or any later year's profit.
"""

from __future__ import annotations

import re

from screening.screen.signal_denial import clause_start
from screening.screen.signal_loss import TITLE_YEAR, WHOLE_YEAR, YEAR_PROFIT
from screening.screen.signal_text import Unit, normalize

YEARLY, CONSECUTIVE = "业绩预亏", "业绩续亏"  # the signal read a year a unit, and the one two years make
Mention = tuple[int, Unit, int, int]  # the year, the title or sentence, the span in it from the year to the loss's end
# where a unit names its year, a title or a sentence (is_title -> pattern): one reading, two places a year stands
_YEAR_AT = {True: re.compile(TITLE_YEAR), False: re.compile(WHOLE_YEAR)}
_PROFIT_AT = {title: re.compile(rx.pattern + YEAR_PROFIT) for title, rx in _YEAR_AT.items()}
_LOSS_WORDS = re.compile(r"亏|为负|负值|-\s*\d")  # a loss stated, not a fall of a profit (预减, 下降60%)


def mention(unit: Unit, start: int, end: int) -> Mention | None:
    """The year of a live 业绩预亏 found at ``unit.text[start:end]`` when its words state a loss: the last whole year
    named before the loss words' end, in the title or in the sentence's clause; None without one."""
    if not _LOSS_WORDS.search(unit.text, start, end):
        return None
    years = list(_YEAR_AT[unit.is_title].finditer(unit.text, 0 if unit.is_title else clause_start(unit.text, start),
                                                  end))
    return (int(years[-1].group("year")), unit, min(years[-1].start("year"), start), end) if years else None


def _after(a: str | None, b: str | None) -> bool:
    return bool(a and b and a > b)


def two_years(mentions: list[Mention], units: list[Unit]) -> tuple[Unit, int, int] | None:
    """The two mentions of consecutive years' losses (the latest such pair) as one unit, and the span in it to quote;
    None without such a pair, or where a profit stated for a later year, or for the later year in a title dated after
    its loss, ends it. Two titles make a title of both (the later year's first, the other with its date); a sentence
    in either, the text from the first to the second."""
    profits = [(int(m.group("year")), unit.date)
               for unit in units for m in _PROFIT_AT[unit.is_title].finditer(unit.text)]
    by_year: dict[int, Mention] = {}
    for m in mentions:
        if not any(year == m[0] and _after(date, m[1].date) for year, date in profits):  # corrected to a profit
            by_year.setdefault(m[0], m)
    later = max((year for year in by_year if year - 1 in by_year), default=None)
    if later is None or any(year > later for year, _ in profits):
        return None
    new, old = by_year[later][1], by_year[later - 1][1]
    if new.is_title and old.is_title:
        norm = normalize(f"{new.quote()}；{old.date} {old.quote()}")
        return Unit(norm, 0, norm.text, new.date, True), 0, len(norm.text)
    (_, first, a, _), (_, second, _, b) = sorted((by_year[later], by_year[later - 1]), key=lambda m: m[1].start)
    end = second.start + len(second.text)
    unit = Unit(first.norm, first.start, first.norm.text[first.start:end], second.date or first.date, False)
    return unit, a, second.start - first.start + b
