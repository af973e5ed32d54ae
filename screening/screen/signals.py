"""Read the risk a stock's text states plainly: announcement titles and report sentences -> signals.

This is part of the rules floor on every engine (``rules.assess`` calls it), so a company whose titles
say 立案调查 is never rated 低 because a model missed it. It reads what a careful analyst reads and no
more: each signal of ``signal_table.SIGNALS`` where the text states it, skipping denials (不存在违规担保),
good news that shares a word (撤销退市风险警示, 一审胜诉) and the like, with the title and its date (or
the sentence) it came from, so the row can say exactly why it was raised. Pure and deterministic but for
today's date (Asia/Shanghai): a title dated after it never lifts a risk.

The text is read through ``signal_text`` (traditional characters, stray spaces and full-width letters
normalised; joined titles cut at each date; dates written any common way), and a flag quotes it as written.
Four things are kept but not counted (tier 低, a flag of their own): a risk a later dated title ended
(立案告知书, then 结案通知书: ``SignalRule.resolves``), a risk named only as the rumour a 澄清 answers, a risk
its own sentence says is over (占用…已全部归还: ``SignalRule.clears``), so a repayment misread is never silent, and
risk words read as another party's trouble (客户…商票逾期, 交易对方…申请冻结, 公司作为原告: ``excluded``), so a
subject misread is not either. Plain denials (不存在违规担保), forms answered no and hypotheticals stay silent:
flagged, they were noise on the benign texts and showed no hidden risk (measured 2026-12-07, ``_match_in``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

from screening.screen.signal_denial import DENY as _DENY
from screening.screen.signal_denial import OTHER as _OTHER
from screening.screen.signal_denial import clause_start as _clause_start
from screening.screen.signal_denial import clauses as _clauses
from screening.screen.signal_denial import denial as _denial
from screening.screen.signal_forms import answered_no, asked_before, asked_not_ticked, join_answer_lines
from screening.screen.signal_hit import (
    CLARIFIED,
    CLEARED,
    EXCLUDED,
    LIVE,
    NOT_COUNTED,
    OTHER,
    RESOLVED,
    SignalHit,
)
from screening.screen.signal_repaid import answered, covers
from screening.screen.signal_rule import SignalRule
from screening.screen.signal_rumour import rumoured as _rumoured
from screening.screen.signal_table import SIGNALS, TIER_RANK
from screening.screen.signal_text import Unit, split_units
from screening.screen.signal_underway import underway
from screening.screen.signal_words import (
    CLARIFICATION,
    COMPANY,
    COMPANY_CLAIMS,
    COMPANY_NAMED,
    COUNTER_OTHER,
    ENDED,
    HYPOTHETICAL,
    NOT_DONE,
    OTHER_COMPANY,
    PARTIAL_END,
    PARTIES,
    PLANNED,
    REMAINDER,
    REMAINDER_OPEN,
)
from screening.screen.signal_years import CONSECUTIVE, YEARLY, Mention, mention, two_years

_CLARIFICATION = re.compile(CLARIFICATION)
_NOT_DONE = re.compile(NOT_DONE)
_ENDED = re.compile(ENDED)
_SHOWN_CHARS = 60  # a sentence quoted in a flag is cut to this
_PARTIES = tuple((label, re.compile(p)) for label, p in PARTIES)
_COMPANY = re.compile(COMPANY_NAMED)
_OTHER_NAMED = dict(_PARTIES)[OTHER_COMPANY]  # another company's full name: its 公司 does not name the company
_ACTS = re.compile(r"申请|起诉|诉讼|仲裁|向法院")
_PARTIAL = re.compile(PARTIAL_END)
# a mention that names a further case of the same risk, and an end that names them all
_AGAIN = re.compile(r"再次|又一次|又收到|第二次|另案|新的")
# the risk done again after the good news: a new matter, which the earlier end does not clear (已于2025年11月18日解除，
# 2025年12月3日公司再次为控股股东提供违规担保; review 12; 又占用…), not 再次承诺不再发生 / 再次提醒. Not denied, feared
# or weighed (此后未再次发生违规担保, 且未再次被司法冻结, 若/如再次…, 避免/杜绝再次…, 再次发生违规担保的可能性
# 较小), nor 向 someone other than for money (再次向广大投资者致歉, 再次向董监高强调违规担保的严重性); 发生/出现
# only before the risk words, not after them (杜绝违规担保再次发生, 避免违规担保情形再次出现; review 13)
_DONE_AGAIN = re.compile(r"(?<![未不无没若如免止绝防])(?<!一旦)(?:再次|又|重新)"
                         r"(?:被|为|对外|(?P<happen>发生|出现)|提供|违规|新增|占用|侵占|挪用"
                         r"|向(?=[^，,。；;]{0,12}?(?:提供|担保|划转|借出|拆借|转移|支付)))"
                         r"(?![^，,。；;]*?(?:可能性|风险较(?:小|低)))")
_BOTH = re.compile(r"全部|均|两起|两项|两次|各项|上述")
_CONTRAST = re.compile(r"(?<!披露)但(?!不限于)是?|然而|不过")  # not 应披露但未披露, 包括但不限于
_GOOD_BREAK = re.compile(r"[，,：:；;暨]|" + _CONTRAST.pattern)
# good news not come yet: a plan before it, a remainder after it (signal_words.PLANNED, REMAINDER, REMAINDER_OPEN)
_PLANNED = re.compile(PLANNED)
_REMAINDER = re.compile(REMAINDER)
_AMOUNT = re.compile(r"[^，,。；;全均]{0,8}?\d")  # good news of an amount (已归还1.2亿元): see REMAINDER_OPEN
_REMAINDER_OPEN = re.compile(REMAINDER_OPEN)
_BACK_REF = re.compile(r"[对向]其")  # 公司对其提起诉讼: the suit of a party named before, not a suit stated before it
_SUIT_SUM = re.compile(r"(?:涉及|累计)[^，,。；;]{0,4}?(?:诉讼|仲裁)(?:标的)?(?:金额|本金)")  # …, unless only its sum
_SUED = re.compile(r"起诉|诉(?:本|上市)?公司|被告|被申请人|应诉|传票|判令|要求(?:本)?公司")
# good news of an earlier or another matter (前次冻结已解除, 其他案件均已和解) clears its own clause only
_EARLIER = re.compile(r"前次|此前|原|其他|其余|另一")
_NEW_MATTER = re.compile(r"暨")  # a plan before 但 still rules what follows (承诺…前，但最迟…归还)
_BRACKETED = re.compile(r"[（(][^（()）]{1,16}[)）]")
_COMPANY_CLAIMS = re.compile(COMPANY_CLAIMS)
_HYPOTHETICAL = re.compile(HYPOTHETICAL)
_COUNTER_OTHER = re.compile(COUNTER_OTHER)


# What a cached row was judged with (pipeline.py keys its row cache by it): every module of the reader as written,
# the rows, the grammar, the form answers, the text's normalisation and this file's reading. The compiled patterns
# alone missed signal_text.py's normalisation: three changes to it (2026-12-06) left rows judged the old way cached.
_READER_FILES = sorted([Path(__file__), *Path(__file__).parent.glob("signal_*.py")])
TABLE_ID = hashlib.sha256(b"".join(path.read_bytes() for path in _READER_FILES)).hexdigest()[:12]
_MARKET_TZ = ZoneInfo("Asia/Shanghai")
Scope = tuple[frozenset[str], frozenset[str]]  # (parties, kinds) a mention or an end is about
@dataclass(frozen=True)
class _Compiled:
    rule: SignalRule
    pattern: re.Pattern[str] | None
    sentence: re.Pattern[str] | None
    counter: re.Pattern[str] | None
    clear: re.Pattern[str] | None
    resolve: re.Pattern[str] | None
    kinds: tuple[tuple[str, re.Pattern[str]], ...]

    def scope(self, text: str, start: int, end: int) -> Scope:
        """Whom (the parties named before ``start``) and which of the signal's matters (its ``kinds`` named in
        ``start:end``) a mention or an end is about; naming no kind is naming them all."""
        head = text[:start]
        # the roles named before the words, or in brackets after them (《结案通知书》（子公司）)
        named = head + "".join(m.group(0) for m in _BRACKETED.finditer(text, start, end))
        parties = {label for label, rx in _PARTIES if rx.search(named)}
        # another company of a deal named alone is the subject unless the words name the company's own
        # (交易对方某某有限公司关于解除对公司银行账户冻结的说明 lifts the company's freeze)
        if (_company_named(head) or not parties
                or (parties == {OTHER_COMPANY} and _COMPANY.search(text, start, end))):
            parties.add(COMPANY)
        kinds = {label for label, rx in self.kinds if rx.search(text, start, end)}
        return frozenset(parties), frozenset(kinds or (label for label, _ in self.kinds))


def _alternation(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


@cache
def _compiled() -> tuple[_Compiled, ...]:
    out = []
    for rule in SIGNALS:
        assert rule.patterns or rule.sentence, f"signal {rule.name} has no pattern"
        out.append(_Compiled(rule, _alternation(rule.patterns), _alternation(rule.sentence),
                             _alternation(rule.counters), _alternation(rule.clears), _alternation(rule.resolves),
                             tuple((label, re.compile(p)) for label, p in rule.kinds)))
    return tuple(out)


def _blank(clause: str, counter: re.Pattern[str] | None) -> str:
    """The clause with counter-pattern spans replaced by spaces (positions kept)."""
    if counter is None:
        return clause
    return counter.sub(lambda m: m.group(0) if asked_before(clause, m.start(), m.end()) else " " * len(m.group(0)),
                       clause)


Found = tuple[int, int, str, tuple[int, int] | None, str | None]  # start, end, state, the deciding words, why


def _match_in(unit: str, c: _Compiled) -> Found | None:
    """Where ``c``'s signal is stated in one title or sentence and how: (start, end, state, the span of the words
    that decided it, why). The state is LIVE; CLARIFIED when it is stated only as the rumour a clarification
    answers; CLEARED when only good news of its own sentence stands against it (已全部归还, 已全部解除), for a 高
    signal; EXCLUDED (``why`` OTHER) when its words were matched but read as another party's trouble: the party
    before them (客户, 交易对方: ``_denial``), good news that names the company as the one who claims (公司作为原告,
    作为债权人), or a counter-pattern naming another party (客户拖欠公司货款: ``_countered``). None when it is not
    stated (no match, denied, a form answered no, a counter of good news or a hypothetical, a 中 signal's good
    news).

    Clause patterns must match inside one clause; sentence patterns may cross the clauses of the unit.

    A signal's words must stand in the unit as written: blanking a counter's words only takes matches away, so a
    unit with no match of its own is done before its counters and good news are looked for. Most (unit, signal)
    pairs are such, and the worker prepares every stock of a whole-market job on one core: reading them all
    tripled the prepare cost in three sessions (GPU run 64: 36 s for 2,400 stocks, the engine waiting for input a
    quarter of the time; bench/RESULTS.md).
    """
    if not _found(c, unit):
        return None
    blanked = _blank(unit, c.counter)
    found = _found(c, blanked)
    clears = [m for m in c.clear.finditer(unit) if _came(unit, m)] if c.clear is not None else []
    clarifies = _CLARIFICATION.search(unit) is not None
    rumoured = cleared = excluded = None
    rule_high = c.rule.tier == "高"
    for start, end in sorted(found):
        cs = _clause_start(unit, start)
        denial = _denial(blanked, start, end)
        if denial is not None or answered_no(unit, cs, start, end):
            # another party's trouble is kept, not counted; a plain denial (不存在违规担保) or a form answered no
            # is not: measured on the pinned inputs (2026-12-07), those flagged a quarter of the benign sentences
            # of the independent sets (plain denials) and one in ten of the reviews' (forms), and showed no
            # hidden risk of the open list
            if denial is not None and _OTHER.fullmatch(denial.group(0)) and _denial(blanked, start, end, _DENY) is None:
                excluded = excluded or (start, end, EXCLUDED, denial.span(), OTHER)
            continue
        good = next((m for m in clears if _clears(unit, m, start, c.rule.name)), None)
        if good is not None:
            # kept only for a 高 signal's end (ENDED): there a misread end flips 高 to nothing; a 中 signal's good
            # news is mostly a plain no-event (减持期间届满…未减持, 一审胜诉) that a flag on every row would bury.
            # The company as the plaintiff or the creditor (公司作为原告, 公司起诉…) is another party's trouble
            if rule_high and _ENDED.match(good.group(0)):
                cleared = cleared or (start, end, CLEARED, good.span(), None)
            elif _COMPANY_CLAIMS.search(good.group(0)):
                excluded = excluded or (start, end, EXCLUDED, good.span(), OTHER)
            continue
        if clarifies and _rumoured(unit, _clause_start(blanked, start), start):
            rumoured = rumoured or (start, end, CLARIFIED, None, None)
            continue
        return start, end, LIVE, None, None
    return rumoured or cleared or excluded or _countered(unit, c, blanked, found)


def _found(c: _Compiled, text: str) -> list[tuple[int, int]]:
    """The spans of ``c``'s patterns in ``text``: clause patterns clause by clause, sentence patterns across."""
    found = []
    if c.pattern is not None:
        for start, clause in _clauses(text):
            found += [(start + m.start(), start + m.end()) for m in c.pattern.finditer(clause)]
    if c.sentence is not None:
        found += [(m.start(), m.end()) for m in c.sentence.finditer(text)]
    return found


def _countered(unit: str, c: _Compiled, blanked: str, found: list[tuple[int, int]]) -> Found | None:
    """A match of ``c``'s patterns that only a counter-pattern took away, where the counter names another party
    as the one in trouble (客户拖欠公司货款, 交易对方申请冻结, 要求其支付拖欠的…): EXCLUDED, naming the counter's
    words. A hypothetical (如…未能按期还款, 若…减持), good news or a look-alike (撤销退市风险警示, 解除质押,
    标准无保留意见) stays silent: those are the boilerplate and the titles of every calm year."""
    if c.counter is None or blanked == unit:
        return None
    spans = [(a, b) for a, b in _found(c, unit) if not any(a < y and x < b for x, y in found)]
    for start, end in sorted(spans):
        for m in c.counter.finditer(unit):
            if m.start() < end and start < m.end() and blanked[m.start():m.end()].isspace():
                words = m.group(0)
                if not _HYPOTHETICAL.match(words) and _COUNTER_OTHER.search(words):
                    return start, end, EXCLUDED, m.span(), OTHER
    return None


def _done(unit: str, rx: re.Pattern[str]) -> re.Match[str] | None:
    """The first match of a good-news pattern in ``unit`` that says the good news came (``_came``), or None."""
    return next((m for m in rx.finditer(unit) if _came(unit, m)), None)


def _came(unit: str, m: re.Match[str]) -> bool:
    """Whether good news (a clear or an end) says it came: not in a clause that says only part of it did
    (其中已偿还, 申请…未获同意), nor after a clause's 尚未/未能/无法 (影响尚未消除, 未能…取得联系), nor as a plan or a
    promise (将督促…归还，消除…影响; 承诺…前归还: before it in its sentence unless its own clause says 已), nor with
    a remainder left after it (已解除1.2亿元，剩余3.5亿元尚未解除)."""
    a, b = _part(unit, m.start())
    if _PARTIAL.search(unit, a, b) or _NOT_DONE.search(unit, a, m.end()):
        return False
    if asked_not_ticked(unit, a, m.end()):
        return False
    matter = max((x.end() for x in _NEW_MATTER.finditer(unit, 0, a)), default=0)  # 拟…暨…: another matter
    if _PLANNED.search(unit, a, m.end()) or (
            _PLANNED.search(unit, matter, a) and "已" not in unit[a:m.end()]):
        return False
    if _AMOUNT.match(unit, m.end()) and "全部" not in m.group(0) and _REMAINDER_OPEN.search(unit, m.end()):
        return False
    return not _REMAINDER.search(unit, m.end())


def _part(unit: str, at: int) -> tuple[int, int]:
    """The clause around ``at`` for good news: cut at clause breaks, 暨 and a contrast."""
    a = max((x.end() for x in _GOOD_BREAK.finditer(unit, 0, at)), default=0)
    nxt = _GOOD_BREAK.search(unit, at)
    return a, nxt.start() if nxt else len(unit)


def _clears(unit: str, m: re.Match[str], start: int, signal: str = "") -> bool:
    """Whether good news ``m`` clears the risk found at ``start``: on the same side of a contrast (已恢复履职，但
    董事长仍处于留置状态), about the same parties (公司董事已恢复履职 is not the controller's; who answers whom:
    ``signal_repaid.answered``), and, when it names an earlier matter (前次冻结已解除), only in its own clause."""
    lo, hi = sorted((m.start(), start))
    if _CONTRAST.search(unit, lo, hi):
        return False
    ra, rb = _part(unit, start)  # the risk's clause: 已于…解除，…再次为控股股东提供违规担保 / 其所持股份再次被司法冻结
    if m.end() <= start and any(not again.group("happen") or again.start() < start
                                for again in _DONE_AGAIN.finditer(unit, max(m.end(), ra), rb)):
        return False
    a, b = _part(unit, m.start())
    if _EARLIER.search(unit, a, m.start()) and not a <= start < b:
        return False
    if _BACK_REF.search(m.group(0)) and start < a and not (
            _SUIT_SUM.match(unit, start) and not _SUED.search(unit, 0, a)):
        return False
    # none named on either side: the sentence's subject goes on (…占用资金2亿元，已全部归还; 减持期间届满，股东…未减持)
    named, risk = _named(unit[a:m.start()]), _named(unit[ra:m.start() if m.start() <= start < m.end() else start])
    risk -= answered(signal, named, unit[a:b])  # 控股股东已归还 answers 公司资金被…占用; 公司已全部收回 控股股东占用…
    return (not named or not risk or risk <= named) and covers(signal, unit, m)  # 2亿元 occupied, 1亿元 repaid


def _named(head: str) -> frozenset[str]:
    """The parties a clause names before a word; the company only where it is named as itself."""
    named = {label for label, rx in _PARTIES if rx.search(head)}
    return frozenset(named | ({COMPANY} if _company_named(head) else set()))


def _company_named(head: str) -> bool:
    """Whether ``head`` names the company itself: not inside another deal party's full name (受让方某某有限公司)."""
    return _COMPANY.search(_OTHER_NAMED.sub("", head)) is not None


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def read_signals(text: str | None) -> list[SignalHit]:
    """Every signal the text states, one hit per signal (its newest mention), highest tier first.

    A title's date is the announcement's; among hits of one tier the newest comes first, so the first
    hit is what a reason should name. A signal whose every mention is dated and older than a dated title that
    ends it (``resolves``: 结案通知书 after 立案告知书), about the same parties and matters (``Scope``) and not
    dated after today (a future date is a typo, never a lift), comes back ``resolved``, naming that title; one
    stated only as the rumour of a clarification comes back ``clarified``, and one whose every mention its own
    sentence's good news clears (已归还占用的全部资金) ``cleared``, naming those words; all three at tier 低, after
    the live ones. Risk words read as another party's trouble come back ``excluded`` (tier 低, ``why`` 他方, naming
    the words that said so), at tier 低 too: a title of another company of a deal about itself among them. Two
    consecutive years' losses in two titles or sentences read 业绩续亏 as in one (``signal_years``), quoting both.
    """
    if not text:
        return []
    text = join_answer_lines(text)  # same length: quotes keep their places
    live: dict[str, list[tuple[SignalHit, Scope]]] = {}
    rumours: dict[str, SignalHit] = {}
    cleared: dict[str, SignalHit] = {}
    excluded: dict[str, SignalHit] = {}
    ends: dict[str, list[tuple[str, str, Scope]]] = {}
    years: list[Mention] = []  # the whole years of the titles' and sentences' losses (signal_years.py)
    for unit in (units := split_units(text)):
        for c in _compiled():
            found = _match_in(unit.text, c)
            # 关于控股股东已归还全部占用资金的公告 also ends earlier mentions
            if found is None or found[2] in (CLEARED, EXCLUDED):
                m = _done(unit.text, c.resolve) if unit.is_title and unit.date and c.resolve is not None else None
                if m is not None and unit.date and not underway(unit.text):
                    # an end is about every matter its title names from its words on, as a mention is
                    ends.setdefault(c.rule.name, []).append(
                        (unit.date, _shown(unit.quote()), c.scope(unit.text, m.start(), len(unit.text))))
                if found is None:
                    continue
            hit = _hit(c.rule, unit, *found)
            if hit.state == CLARIFIED:
                rumours[hit.name] = _newer(rumours.get(hit.name), hit)
            elif hit.state == CLEARED:
                cleared[hit.name] = _newer(cleared.get(hit.name), hit)
            elif hit.state == EXCLUDED:
                excluded[hit.name] = _newer(excluded.get(hit.name), hit)
            else:
                # a mention is about every warning its title names (退市风险警示及其他风险警示: both); a title of
                # another company of a deal about itself (受让方某某有限公司关于银行账户被冻结的说明) is not the
                # company's, unless that company acts (申请, 起诉: 交易对方某某有限公司向法院申请…冻结银行存款)
                scope = c.scope(unit.text, found[0], len(unit.text))
                if not (unit.is_title and scope[0] == {OTHER_COMPANY} and not _ACTS.search(unit.text, 0, found[0])):
                    live.setdefault(hit.name, []).append((hit, scope))
                    if c.rule.name == YEARLY and (year := mention(unit, *found[:2])):
                        years.append(year)
                else:
                    excluded[hit.name] = _newer(excluded.get(hit.name), replace(
                        hit, tier=NOT_COUNTED, state=EXCLUDED, resolved_by=_other_named(unit, found[0]), why=OTHER))
    if CONSECUTIVE not in live and (two := two_years(years, units)):  # 2025年度亏损…。2024年度亏损…。: as one
        c = next(c for c in _compiled() if c.rule.name == CONSECUTIVE)
        unit, start, end = two
        hit = _hit(c.rule, unit, start, end, LIVE, None, None)
        live[CONSECUTIVE] = [(hit, c.scope(unit.text, start, len(unit.text)))]
    today = dt.datetime.now(_MARKET_TZ).date().isoformat()
    out = [_resolved(hits, ends.get(name, []), today) for name, hits in live.items()]
    out += [hit for name, hit in rumours.items() if name not in live]
    out += [hit for name, hit in cleared.items() if name not in live and name not in rumours]
    out += [hit for name, hit in excluded.items() if name not in live and name not in rumours and name not in cleared]
    return sorted(out, key=lambda h: (-TIER_RANK.get(h.tier, 0), _neg_date(h.date), h.name))


def _hit(rule: SignalRule, unit: Unit, start: int, end: int, state: str, good: tuple[int, int] | None,
         why: str | None) -> SignalHit:
    hit = SignalHit(rule.name, rule.tier, rule.group, unit.quote(start, end), _shown(unit.quote()), unit.date,
                    unit.is_title)
    if state == LIVE:
        return hit
    words = unit.quote(*good) if good else None
    if state == EXCLUDED and words:
        words = _shown(words)  # a counter's words may run long (客户某某科技有限公司经营困难导致其拖欠公司货款)
    return replace(hit, tier=NOT_COUNTED, state=state, resolved_by=words, why=why)


def _other_named(unit: Unit, start: int) -> str | None:
    """The other company a title names before its risk words (交易对方某某有限公司), as written."""
    m = _OTHER_NAMED.search(unit.text, 0, start)
    return unit.quote(*m.span()) if m else None


def _newer(old: SignalHit | None, hit: SignalHit) -> SignalHit:
    return hit if old is None or (hit.date or "") > (old.date or "") else old


def _resolved(hits: list[tuple[SignalHit, Scope]], ends: list[tuple[str, str, Scope]], today: str) -> SignalHit:
    """The newest mention no end covers, or, when every mention has one, the newest mention resolved by the
    first end after it. An end covers a mention when it is dated after it (and not after today) and is
    about all of the mention's parties and matters. A mention of a further case (再次收到立案告知书) needs an end
    of its own, or one that names them all (上述两起)."""

    def covering(hit: SignalHit, scope: Scope) -> list[tuple[str, str]]:
        return [(date, title) for date, title, (parties, kinds) in ends
                if hit.date and hit.date < date <= today and scope[0] <= parties and scope[1] <= kinds]

    uncovered = [hit for hit, scope in hits if not covering(hit, scope)]
    cases = 1 + sum(1 for hit, _ in hits if _AGAIN.search(hit.text))
    if cases > 1 and not uncovered:  # 再次收到立案告知书: a second case; one 结案 does not close both
        ends_seen = {end for hit, scope in hits for end in covering(hit, scope)}  # (date, title)
        if len(ends_seen) < cases and not any(_BOTH.search(title) for _, title in ends_seen):
            uncovered = [hit for hit, _ in hits]
    best: SignalHit | None = None
    for hit in uncovered or [hit for hit, _ in hits]:
        best = _newer(best, hit)
    assert best is not None
    if uncovered:
        return best
    date, title = min(covering(best, next(scope for hit, scope in hits if hit is best)))
    return replace(best, tier=NOT_COUNTED, state=RESOLVED, resolved_by=f"{date} {title}")


def _neg_date(date: str | None) -> tuple[int, ...]:
    """Sort key putting newer dates first and undated last."""
    if not date:
        return (1,)
    return (0, *(-int(part) for part in date.split("-")))


def text_tier(hits: list[SignalHit]) -> str | None:
    """The highest tier the live hits justify, or None when the text states no live risk."""
    return max((h.tier for h in hits if h.state == LIVE), key=lambda t: TIER_RANK[t], default=None)
