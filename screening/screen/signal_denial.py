"""Whether a risk word the reader matched is denied, or another party's: the clause it stands in and the words
before it (不存在违规担保, 客户…商票逾期, 受联营企业亏损影响公司…).

Apart from ``signals.py`` (the reading of a title or sentence as a whole) because this one question, whose
trouble a match states, is asked of every match of every signal, and its rules are the reader's most revised
part: one place to read them. Part of the reader: its text is in ``signals.TABLE_ID``.
"""

from __future__ import annotations

import re

from screening.screen.signal_words import NEGATION_CONTRAST_END, NEGATION_SCOPE_END, NEGATIONS, OTHER_PARTY

CLAUSE_BREAK = re.compile(r"[，：:]|,(?!\d{3})")  # "1,200万元" is a number, not two clauses
NEGATION = re.compile(f"{NEGATIONS}|{OTHER_PARTY}")
OTHER = re.compile(OTHER_PARTY)
DENY = re.compile(NEGATIONS)  # a denial word, not another party's name
_OTHER_END = re.compile(r"(?:影响|导致|致使|使得|造成)了?(?:(?:本|我|上市)?公司|[本我]司|归属于|归母|本期|本年度?|"
                        r"报告期|当期|净利润|营业收入|业绩|(?:全资|控股)?子公司|母公司|本集团)|"
                        r"(?:导致|致使|使得|造成)了?20\d\d年度")
_OTHER_END_YEAR = re.compile(r"影响了?20\d\d年度")  # the company's year unless the party 受…影响 (its own year)
# the party as the cause (受…影响, 因下游客户…导致): the company's after it; not 导致其…/导致商票… unless after 回款
_OTHER_CAUSE = re.compile(r"(受|因|由于)(?:下游|上游|主要|部分|个别|重要|大)?$")
_CAUSED = (r"^(?:[^因受]*?回款[^因受]*?(?:导致|致使|使得|造成)(?!其|该)|"
           r"[^因受]*?(?:导致|致使|使得|造成)(?!其|该|商票|商业承兑|汇票|承兑))")
_CAUSE_END = {"受": re.compile(r"^[^受]*?影响(?!其|该)"), "因": re.compile(_CAUSED), "由于": re.compile(_CAUSED)}
_ACTS_ON = re.compile(r"(?:为|对|向)[^，,。；;为对向]{0,12}$")
_SCOPE_END = re.compile(NEGATION_SCOPE_END)
_CONTRAST_END = re.compile(NEGATION_CONTRAST_END)
_WHOLE_DENIAL = re.compile(r"不存在|不涉及|未发现|未发生")  # denies a situation, subordinate phrases and all
# (the twentieth session) a risk weighed as a hypothetical's consequence, the risk-factor wording of every report
# (若公司未来经营业绩持续下滑，可能存在商誉减值的风险; 若宏观经济…，公司可能面临无法按期偿还债务的风险; blind set 3):
# the risk words inside 可能/将 面临/存在…的风险, in a clause after one a hypothetical opens. Silent, as the other
# hypotheticals. Not without the hypothetical (公司资金紧张，可能面临无法按期偿还债务的风险 is the company's own
# warning), nor a risk stated in the condition itself (若控股股东未能归还占用资金，…: the occupation is real), nor after
# a condition that names a risk matter going on (如果公司重整失败，公司将存在被宣告破产的风险: the company is in 重整;
# 若2026年度继续亏损，…将面临终止上市的风险)
_IF = re.compile(r"(?:^|[，,；;：:])\s*(?:(?:本|上市)?公司|未来)?"
                 r"(?:若(?!干)|如果|倘若|假如|一旦|如(?![期实数今此下附表图前上]))"
                 r"(?![^。；;]*?(?:重整|破产|清算|逾期|违约|冻结|查封|立案|占用|违规|诉讼|仲裁|起诉|警示|退市|亏损|为负|"
                 r"资不抵债|继续|仍|再次|已))")
_WEIGHED = re.compile(r"(?:可能|将|或将|或)(?:会)?(?:继续)?(?:面临|存在|出现|产生|发生|遭受)[^，,。；;]{0,6}$")
_AS_RISK = re.compile(r"[^，,。；;]{0,12}?(?:的)?(?:风险|可能)")


def weighed(text: str, start: int, end: int) -> re.Match[str] | None:
    """The words that weigh the risk at ``text[start:end]`` as a hypothetical's consequence (若…，可能存在…的风险), or
    None."""
    cs = clause_start(text, start)
    w = _WEIGHED.search(text, cs, start)
    return w if w and _AS_RISK.match(text, end) and _IF.search(text, 0, cs) else None


def clause_start(text: str, start: int) -> int:
    return max((m.end() for m in CLAUSE_BREAK.finditer(text, 0, start)), default=0)


def denial(text: str, start: int, end: int, negation: re.Pattern[str] = NEGATION) -> re.Match[str] | None:
    """A denial earlier in the clause of ``start``, overlapping or inside the match (不存在违规担保, 未计提商誉减值),
    whose reach is not ended before the match by a subordinate phrase (无董事会审议的情况下违规担保 is asserted):
    its words (another party's name, 客户, is one: the trouble is theirs), or None. ``negation``: ``DENY`` asks
    for a denial word alone."""
    if (w := weighed(text, start, end)) is not None:
        return w
    for m in negation.finditer(text, clause_start(text, start)):  # the whole text: a denial may look ahead
        if m.start() >= end:
            break
        if OTHER.fullmatch(m.group(0)) and _ACTS_ON.search(text, clause_start(text, start), m.start()) \
                and "担保" in text[m.end():end]:
            continue  # 公司为持股35%的参股公司违规提供担保: the company's guarantee
        if m.end() > start and OTHER.fullmatch(m.group(0)):
            continue  # another party inside the match is its object (拖欠供应商货款及银行借款), not its subject
        if m.end() > start:
            return m
        if _CONTRAST_END.search(text, m.end(), start):
            continue
        if OTHER.fullmatch(m.group(0)) and (_OTHER_END.search(text, m.end(), start) or (
                (y := _OTHER_END_YEAR.search(text, m.end(), start)) and "受" not in text[m.end():y.start()])):
            continue  # 受联营企业亏损影响公司预计…为负: the company's own loss
        cause = _OTHER_CAUSE.search(text, clause_start(text, start), m.start())
        if OTHER.fullmatch(m.group(0)) and cause and (e := _CAUSE_END[cause.group(1)].search(text[m.end():])) \
                and e.end() <= start - m.end():
            continue  # 受联营企业大额亏损影响预计…净利润为-2.5亿元: the company's own loss
        if _WHOLE_DENIAL.fullmatch(m.group(0)) or not _SCOPE_END.search(text, m.end(), start):
            return m
    return None


def clauses(text: str) -> list[tuple[int, str]]:
    """(offset, clause) for each clause of a title or sentence."""
    out, start = [], 0
    for m in CLAUSE_BREAK.finditer(text):
        out.append((start, text[start:m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return out
