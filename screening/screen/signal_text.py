"""Risk text as the signal reader reads it: normalised, cut into dated titles and sentences, quotable.

Real report text is not tidy: a file's column may hold traditional characters (關於…《立案告知書》), a stray
space inside a word (退市 风险警示), full-width letters and digits (＊ＳＴ华纺, ２０２６－１１－２０), titles joined
in one cell (``2026-11-20 关于…的公告，2026-11-12 关于…``) and dates written 2026年11月20日, 2026/11/20,
2026.11.12, 20261112, after a list mark (``1. ``, ``【2026-11-12】``). The patterns of signal_table.py are
written once, in simplified characters and ASCII; so the reader matches a normalised copy (NFKC, spaces
between CJK characters dropped, traditional -> simplified by OpenCC's t2s, which leaves simplified text as
it is) and every unit keeps a map back to the original, so a flag quotes what the file said, not our copy.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

import opencc

from screening.screen.signal_forecast import (
    CHANGE_AFTER,
    CORRECTED,
    KIND_FIGURES,
    NOW_STATED,
    PRIOR_LAST,
    PRIOR_STATED,
)

# characters between which a space is a typing slip, not a word break: ideographs, CJK punctuation, quotes
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff“”‘’]")
_SPACES = re.compile(r"[ \t]+")
# a date as filings and spreadsheets write it (after NFKC: full-width digits and ／－．are ASCII)
DATE = (r"(?<!\d)(?P<y>(?:19|20)\d{2})(?:(?P<s>[-/.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})"
        r"|年(?P<m2>\d{1,2})月(?P<d2>\d{1,2})日|(?P<m3>[01]\d)(?P<d3>[0-3]\d))(?!\d)")
_DATE = re.compile(DATE)
_SEP = r"[,，、;；。:：|/\s]"  # after NFKC ｜ is |; a date's own slashes never precede a 4-digit year
_LIST_MARK = r"(?:(?:\d{1,3}|[一二三四五六七八九十]{1,3})[.、)]\s*|\(\d{1,3}\)\s*)?"
# a date that starts a title: a list mark or a bracket may stand before it; the title begins right after
_DATED = (_LIST_MARK + r"[\[【]?\s*" + DATE
          # right after a date written with 日 only 关于 starts a title (2026年4月30日公司… is a sentence)
          + r"(?:\s*[\]】:：]\s*|\s+|(?<=日)(?=关于)|(?<!日)(?=[\u3400-\u9fff*“\"《(A-Za-z]))(?=[^,，、;；。:：\s])")
# the first title of a line: at its start, or after a label ("近30日公告(新→旧):")
_FIRST_TITLE = re.compile(r"^\s*(?:[^:：,，。]{0,16}[:：]\s*)?" + _DATED)
# a further title of the same line: after a separator (，、；or a space), or a bracketed date wherever it stands
# (【2026年11月25日】 right after the last title: the space before 【 is dropped as one between CJK characters)
# (a date the title itself states, 股份于 2026年10月8日 被冻结, starts nothing: 于/在/自/至/截至 stands before it)
_NEXT_TITLE = re.compile(r"(?:(?<=" + _SEP + r")(?<![于在自至止]\s)\s*|(?=[\[【]\s*(?:19|20)\d{2}))" + _DATED)
_NOTICE_DATE = re.compile(DATE + r"\s*(?:公告|披露)")
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])")
# (the eighteenth session) a form's question answered no and the same risk's progress field after it, answered none
# (是否存在违规担保：无；违规担保解除时间：不适用): one sentence, so the field is read with the no it follows
_ASKED_NO = re.compile(r"是否存在(?P<asked>[^:：;；。,，]{2,30}?)[:：]\s*[无否][；;]$")
_FIELD_NONE = re.compile(r"[^:：;；。,，]{0,12}?(?:解除|归还|偿还|清偿|收回|整改)(?:时间|日期|进展|进度|情况)"
                         r"[:：]\s*(?:无|不适用)\s*[。；;]?$")
# (the twenty-first session) a forecast's figure for the year before after a semicolon (…-8,000万元至-6,000万元；
# 上年同期：-5,000万元): the same forecast sentence, kept one unit so this year's loss is read with last year's,
# as after a comma
_PRIOR_YEAR = re.compile(PRIOR_STATED)  # also 去年同期 / 上年度 stating a figure (signal_forecast.py)
# (the twenty-first session, later) and the other order: the year before's figure, ；, this year's (去年同期净利润
# -5,000万元；本期净利润为-3,000万元 read 中, two years' losses): one unit, so 续亏 reads the two together
_PRIOR_LAST, _NOW_STATED = re.compile(PRIOR_LAST), re.compile(NOW_STATED)
# (the twenty-second session) a forecast's correction after the ；(原预计亏损…；修正后预计盈利…): one unit, so the
# forecast it replaces is read as replaced (signal_forecast.SUPERSEDED)
_CORRECTED, _REPLACED = re.compile(CORRECTED), re.compile(r"原(?:预计|预告|披露)|(?:修正|更正)前")
# (the twenty-first session) a forecast line's kind and figures, then its change (…：不确定，预测数值 -250万元，上年同期
# -5,000万元。-1,000万元至500万元。): one unit, so the figures are read with the range they come from
_KIND_FIGURES, _CHANGE_AFTER = re.compile(KIND_FIGURES), re.compile(CHANGE_AFTER)
# undated titles joined in one cell (关于…的公告 关于…的公告): each is read alone, or the good news of one (子公司
# 诉讼结案) would clear the risk of the other (立案告知书)
_UNDATED_TITLE_BREAK = re.compile(r"(?:(?<=公告|通知|说明|提示|报告)|(?<=函))[\s,，、|/]*(?=关于)")
_TITLE_END = re.compile(r"[。！？!?]")
_MINUS = str.maketrans({"−": "-"})  # U+2212, which NFKC leaves alone: 净利润为−8,000万元 is a loss
# an amount's wrapping, which no pattern reads and which broke gaps (尚有…人民币8,000万元担保责任仍未解除 read nothing,
# 已解冻人民币800万元 cleared a 1,200万元 freeze): the currency word, a space or zero decimals before the unit, 约
# after 额/计/达
_AMOUNT_NOISE = re.compile(r"人民币(?=\s*-?\d)|(?<=\d)\s+(?=万|亿|元|股|%)|(?<=\d)\.0+(?=\s*(?:万|亿|元))"
                           r"|(?<=[额计达])约(?=\d)")
# a party's full name right after its role (控股股东某某控股集团有限公司, 全资子公司江苏某某新材料有限公司, 客户某某电力
# 有限公司): the role says who acts, and the name only pushed the words after it past the patterns' gaps (a mutation
# test, 2026-12-06: 法院冻结了我司全资子公司某某控股集团有限公司银行账户 read nothing). Dropped from the reader's
# copy; a name holding a word that acts (被, 向, 对, 的 ...) is no name and stays, nor one holding a deed
# (子公司未能偿还某某银行股份有限公司贷款, 控股股东减持某某股份有限公司股份) or another party (子公司客户某某有限公司).
# A deed's character that names use is a word here, not a character (review 12: 全资子公司某某支付科技有限公司,
# 某某按揭服务有限公司, 某某产权转让服务有限公司 are names; 拖欠, 挪用, 兑付, 延期支付 are deeds;
# review 13: 延迟/迟延/推迟/暂缓支付 too)
_ROLES = ("控股股东", "实际控制人", "子公司", "参股公司", "债权人", "申请人", "供应商", "客户")
# (review 14: 未名 is a name, 山东未名生物医药股份有限公司关于…)
_NO_NAME = (r"未(?!来|名)|无法|无力|不能|冻结|查封|质押|减持|(?<!产权|技术)转让|收购|出售|占用|导致|致使|到期|约定|"
            r"收到|要求|催告|催促|催收|追讨|敦促|"  # (thirteenth session: 供应商要求上市公司控股子公司某某有限公司支付)
            r"股东|客户|供应商|债务人|债权人|参股|交易对|侵占|(?<!支)付|拖欠|拖延|挪用|兑付|兑现|按(?!揭)|延期|延迟|迟延|推迟|暂缓|拒绝|暂停|停止")
_NAMED = re.compile("(?:" + "|".join(f"(?<={role})" for role in _ROLES) + ")"
                    r"(?!控股|全资|实际控制人|实控人|子公司|董事|监事|高级管理人员|股东|法定代表人|被)"
                    r"(?:(?!" + _NO_NAME + r")[^被遭向对为与和及的在于已将从因由就持所申提称欠偿逾诉涉违拟"
                    r"，,。；;：:、\s（(）)\d]){2,20}?(?:股份有限公司|有限责任公司|集团有限公司|有限公司)")
# the listed company named in full where a filing first names it (某某科技股份有限公司（以下简称“公司”）,
# 某某酒股份有限公司（以下简称“贵州茅台”或“公司”）): the text says which name is the company's, so the reader keeps
# 公司 alone, as the patterns read it (a mutation test, 2026-12-06: …（以下简称“公司”）所持某某科技55%股权被冻结
# read 中, not 高). A full name without its 简称 stays: it may be a bank or a plaintiff (某某银行股份有限公司向法院
# 申请冻结公司银行账户)
# (review 14: a deed before the name in its clause is no part of it: 法院冻结了某某科技股份有限公司（以下简称“公司”）
# 名下银行账户, 中国证监会决定对…立案, 控股股东占用…资金 lost 冻结/立案/占用 with the name; the name starts after one)
_SELF_NAMED = re.compile(r"(?:^|(?<=[，,。；;\s对向为了])|(?<=占用)|(?<=冻结)|(?<=查封))"
                         r"(?:(?!" + _NO_NAME + r")[^，,。；;：:、\s（()）被向对为了]){2,30}?"
                         r"(?:股份有限公司|有限责任公司|有限公司)"
                         r"[（(](?:以下|下文)?(?:简称|称)(?:为)?(?:[“\"「『][^”\"」』（()）]{1,12}[”\"」』](?:或|、))?"
                         r"[“\"「『]?(?:上市)?(?P<keep>本公司|公司|我司)[”\"」』]?"
                         r"(?:(?:或|、)[“\"「『][^”\"」』（()）]{1,12}[”\"」』])?[）)]")  # 简称“公司”或“某某科技”
# a list of the controlling side's roles (控股股东、实际控制人, 控股股东及其关联方, 控股股东及其一致行动人,
# 实际控制人及其关联方): one group, read as its first role. The list only pushed the words after it past the gaps
# (a mutation test, 2026-12-06: 公司违规为控股股东、实际控制人提供担保 and 控股股东及其关联方已向公司归还资金
# 5,000万元，剩余1.2亿元尚未归还 read nothing; 20 of 516 pinned inputs changed tier with 、实际控制人, 7 with
# 及其关联方)
_GROUP_TAIL = (r"(?:、|及其|及|和|与|或)"
               r"(?:控股股东|实际控制人|实控人|一致行动人|关联方|关联人)(?:(?:、|及其|及)(?:一致行动人|关联方|关联人))?"
               # (not where the list is the one a title's own news is about, 关于控股股东、实际控制人收到立案告知书:
               # read as 控股股东 alone, the controller's 结案 ended the 实际控制人's 立案; review 14)
               # nor where it holds what the news is about (控股股东、实际控制人所持股份被司法冻结: a lift of the
               # controller's shares leaves the other's frozen)
               # (review 15: and where the second role has its own name, 关于控股股东某某集团有限公司、实际控制人
               # 张某某收到立案告知书: the controller's 结案 ended the other's 立案)
               # (review 16: a person's name, not a deed of 2-4 characters: 公司违规为控股股东、实际控制人提供担保被
               # 债权人起诉 kept the list, which pushed 提供担保 past the gap, and lost 违规担保)
               r"(?!(?:(?:、|及其|及)(?:一致行动人|关联方|关联人))?"
               r"(?:(?:(?!提供|担保|占用|资金|违规|尚未|已)[一-龥]){2,4}?"
               r"|[^，,。；;：:、\s（()）]{2,30}?有限公司)?"
               r"(?:收到|被|因涉嫌|涉嫌|所持|持有|名下))")
_ROLE_GROUP = re.compile(r"(?:(?<=控股股东)|(?<=实际控制人)|(?<=实控人))" + _GROUP_TAIL)
# (and after the role's full name, which _NAMED drops: 公司违规为控股股东某某控股集团有限公司、实际控制人提供担保
# read nothing; review 14)
_NAMED_GROUP = re.compile(r"(?<=有限公司)" + _GROUP_TAIL)
# the company called 上市公司 opening a clause (上市公司向法院申请诉前财产保全): 公司, as the patterns read it
_LISTED = re.compile(r"(?:^|(?<=[，,。；;\s]))上市(?=公司)")
# the issuer's full name heading its own title (Shanghai filings: 某某科技股份有限公司关于公司银行账户被冻结的公告,
# 某某科技股份有限公司董事会关于…; Eastmoney adds 简称: before it): it is the company, and read as a party of its own it
# let a subsidiary's 解除冻结 or 结案 end the company's own freeze or 立案 (a mutation test, 2026-12-06: 11 of 664
# titles changed tier, 5 of them hid a risk). Dropped: the title reads 关于…, as Shenzhen filings write it
# (review 14: not a date or a bracket before the name, 2026-11-20某某科技股份有限公司关于…, 【2026-11-20】…: the date
# went with the name and the titles lost their order; nor a clause whose text before 关于 holds a deed or a role,
# 公司收到控股股东某某集团有限公司关于其所持股份被司法冻结的告知函, 法院冻结全资子公司某某有限公司关于…)
# (review 15: not _NO_NAME's words that a name may hold, 付/按/收购/出售/转让/约定/到期: 某某联付科技股份有限公司关于…,
# 某某收购服务…, 某某按摩器具… kept their names, and a subsidiary's 解除冻结 ended the company's own freeze; the roles
# and deeds stay, 公司参股公司某某有限公司关于…, and 接到 joins 收到)
_TITLE_NO_NAME = (r"未(?!来|名)|无法|无力|不能|冻结|查封|质押|减持|占用|导致|致使|收到|接到|股东|客户|供应商|"
                  r"债务人|债权人|参股|交易对|侵占|拖欠|拖延|挪用|兑付|兑现|延期|延迟|迟延|推迟|暂缓|拒绝|暂停|停止|"
                  r"子公司|法院|受让方|转让方|出让方|收购标的|标的公司|按揭贷款|贷款银行|开户银行|债权银行")
_ISSUER_TITLE = re.compile(r"(?:^|(?<=[，,。；;\s】\]])|(?<=\d日)|(?<=[-/.]\d)|(?<=[-/.]\d\d))"
                           r"(?:[^，,。；;：:、\s]{2,10}[:：]\s*)?"
                           r"(?:(?!" + _TITLE_NO_NAME + r")[^，,。；;：:、\s（()）\d【】\[\]]){2,30}?"
                           r"(?:[（(][^，,。；;：:、\s（()）]{1,6}[）)][^，,。；;：:、\s（()）]{0,10}?)?"
                           r"(?:股份有限公司|有限责任公司|有限公司)(?:董事会|监事会)?(?=关于)")
_TRAILING = ",，、;；。:：|/ \t\r"


def canonical_date(m: re.Match[str]) -> str | None:
    """YYYY-MM-DD of a ``DATE`` match, or None when it is not a calendar date (month 13, day 40)."""
    month = m.group("m") or m.group("m2") or m.group("m3")
    day = m.group("d") or m.group("d2") or m.group("d3")
    if not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return None
    return f"{m.group('y')}-{int(month):02d}-{int(day):02d}"


@cache
def _t2s() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


@dataclass(frozen=True)
class Normalized:
    """The normalised text and, for each of its characters, the index of the original one it came from."""

    source: str
    text: str
    origin: tuple[int, ...]

    def quote(self, start: int, end: int) -> str:
        """The original text behind the normalised span [start, end)."""
        if start >= end:
            return ""
        return self.source[self.origin[start]: self.origin[end - 1] + 1]


def normalize(source: str) -> Normalized:
    """NFKC, traditional -> simplified, then spaces between CJK characters, an amount's 人民币 / .00, a role's full
    name and the company's own full name before its 简称 dropped; the origin map kept."""
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(source):
        for c in ch if ch.isascii() else unicodedata.normalize("NFKC", ch).translate(_MINUS):
            chars.append(c)
            origin.append(i)
    text = "".join(chars)
    # simplified first: the drops below read simplified words (控股子公司資金鍊斷裂無力償還某某銀行股份有限公司…
    # was read as a name and dropped, where the simplified sentence reads 高; a mutation test, 2026-12-06)
    simple = _t2s().convert(text)
    if len(simple) != len(text):  # a phrase of another length: convert character by character instead
        pieces = [_t2s().convert(c) for c in text]
        origin = [o for o, p in zip(origin, pieces, strict=True) for _ in p]
        simple = "".join(pieces)
    text = simple
    names = list(_NAMED.finditer(text))
    spans = [*names, *(m for rx in (_AMOUNT_NOISE, _ISSUER_TITLE, _ROLE_GROUP) for m in rx.finditer(text))]
    drop: set[int] = {i for m in spans for i in range(m.start(), m.end())}
    named = {m.end() for m in names if text.endswith(("控股股东", "实际控制人", "实控人"), 0, m.start())}
    drop.update(i for m in _NAMED_GROUP.finditer(text) if m.start() in named for i in range(m.start(), m.end()))
    for m in _LISTED.finditer(text):
        drop.update(range(m.start(), m.end()))
        origin[m.end()] = origin[m.start()]  # the quote shows 上市公司 as written
    for m in _SELF_NAMED.finditer(text):
        drop.update(i for i in range(m.start(), m.end()) if not m.start("keep") <= i < m.end("keep"))
        origin[m.start("keep")] = origin[m.start()]  # a quote from 公司 on shows the name as written
    after_date = {m.end() for m in _DATE.finditer(text)}  # "2026年11月20日 关于…": the space marks a title
    for m in _SPACES.finditer(text):
        inside = 0 < m.start() and m.end() < len(text)
        if inside and m.start() not in after_date and _CJK.match(text[m.start() - 1]) and _CJK.match(text[m.end()]):
            drop.update(range(m.start(), m.end()))
    if drop:
        kept = [i for i in range(len(text)) if i not in drop]
        text, origin = "".join(text[i] for i in kept), [origin[i] for i in kept]
    return Normalized(source, text, tuple(origin))


@dataclass(frozen=True)
class Unit:
    """One announcement title or report sentence: normalised text, where it stands, its date."""

    norm: Normalized
    start: int  # offset of the unit in norm.text
    text: str  # the normalised unit, what the patterns read
    date: str | None
    is_title: bool

    def quote(self, start: int = 0, end: int | None = None) -> str:
        """The original words behind [start, end) of this unit (the whole unit by default)."""
        end = len(self.text) if end is None else end
        return self.norm.quote(self.start + start, self.start + end)


def _trimmed(text: str, start: int, end: int, strip: str = _TRAILING) -> tuple[int, int]:
    while start < end and text[start] in strip:
        start += 1
    while end > start and text[end - 1] in strip:
        end -= 1
    return start, end


def split_units(source: str) -> list[Unit]:
    """Dated titles and sentences, in the order written.

    A line that starts with a dated title (after an optional label) is a list of titles: it is cut at each
    further date that starts a title after a separator, so each title keeps its own date. Any other line is
    cut into sentences; a sentence is dated only by a notice date it states ("2026-03-02公告").
    """
    norm = normalize(source)
    units: list[Unit] = []
    offset = 0
    for line in norm.text.split("\n"):
        units += _line_units(norm, line, offset)
        offset += len(line) + 1
    return units


def _line_units(norm: Normalized, line: str, offset: int) -> list[Unit]:
    if _FIRST_TITLE.match(line):
        return _titles(norm, line, offset)
    units = []
    for a, b in _pieces(line):
        a, b = _trimmed(line, a, b, " \t\r")  # a sentence is quoted with its full stop
        if b <= a:
            continue
        if _FIRST_TITLE.match(line[a:b]):  # "…。近30日公告：2026-11-20 关于…；"
            units += _titles(norm, line[a:b], offset + a)
            continue
        date = _NOTICE_DATE.search(line, a, b)
        units.append(Unit(norm, offset + a, line[a:b], canonical_date(date) if date else None, False))
    return units


def _pieces(line: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of a line, undated titles joined in it cut apart (their separator dropped)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for sentence in _SENTENCE_END.split(line):
        start, end = pos, pos + len(sentence)
        asked = _ASKED_NO.search(line, spans[-1][0], start) if spans and spans[-1][1] == start else None
        if asked and _FIELD_NONE.fullmatch(sentence) and sentence.startswith(asked.group("asked")):
            start = spans.pop()[0]
        elif spans and spans[-1][1] == start and line[start - 1] in "；;" and (
                _PRIOR_YEAR.match(sentence)
                or (_NOW_STATED.match(sentence) and _PRIOR_LAST.search(line[spans[-1][0]:start]))
                or (_CORRECTED.match(sentence) and _REPLACED.search(line, spans[-1][0], start))):
            start = spans.pop()[0]
        elif (spans and spans[-1][1] == start and _CHANGE_AFTER.match(sentence)
              and _KIND_FIGURES.search(line, spans[-1][0], start)):
            start = spans.pop()[0]
        for m in _UNDATED_TITLE_BREAK.finditer(line, start, end):
            # with nothing between (a space between CJK is dropped), only a title before: 年度报告关于… is one
            if m.end() > m.start() or "关于" in line[start:m.start()]:
                spans.append((start, m.start()))
                start = m.end()
        spans.append((start, end))
        pos = end
    return spans


def _titles(norm: Normalized, line: str, offset: int) -> list[Unit]:
    """The titles of a line (or sentence) that starts with one, each up to the next date that starts one."""
    first = _FIRST_TITLE.match(line)
    assert first is not None
    marks = [first, *(m for m in _NEXT_TITLE.finditer(line, first.end()))]
    units: list[Unit] = []
    for n, m in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(line)
        stop = _TITLE_END.search(line, m.end(), end)
        a, b = _trimmed(line, m.end(), stop.start() if stop else end)
        if b > a:
            units.append(Unit(norm, offset + a, line[a:b], canonical_date(m), True))
        if stop:  # a sentence after the title, on the same line
            units += _line_units(norm, line[stop.end():end], offset + stop.end())
    return units
