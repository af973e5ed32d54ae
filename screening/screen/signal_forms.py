"""Read an annual report's form answers: a checkbox ticked, a question answered 无/否/不适用, an option unticked.

Reports and their answers to the exchange are forms as much as prose (违规对外担保情况 □适用 √不适用; 是否存在违规担保：
否; 违规担保是否已解除：□是 √否). A risk word inside a question answered no is no risk, but a question about the cure
answered no (是否已解除：否) says the risk stands, and a field about progress (整改进展：无, 解除时间：无) answers
nothing about whether the risk exists. That knowledge is the vocabulary below, one tuple per role; the readers are
built from it, so a new tick mark or a new progress field is one word in one place (the ninth session's six
reviews found each wording fixed as its own lookaround). ``signals.py`` asks only the functions at the end.
"""

from __future__ import annotations

import re

TICKS = "√☑✓✔■☒"  # a ticked box (☒: some templates print a box with an X as the ticked one)
BOXES = "□☐"  # an unticked box
# words of a cure a question may ask about (是否已解除 / 已归还): answered no, the risk stands
CURE_WORDS = ("解除", "归还", "偿还", "清偿", "消除", "收回", "整改", "完成", "完毕", "撤销", "清理", "解决", "解冻",
              "退还", "追回")
# between 是否 and a cure word, these make it a question about the risk itself (是否存在逾期未偿还)
RISK_ASKED = ("存在", "未", "发生", "有")
# a 无 / 不适用 after these answers something else than whether the risk exists: the subject's details (担保对象,
# 反担保, 余额, 金额) or a remedy (措施, 计划, 安排)
NOT_THE_QUESTION = ("是", "存在", "有(?!关)", "(?<!行)为", "对象", "反担保", "余额", "金额", "措施", "计划", "安排")
# a field about the cure's progress (整改进展：无, 已解除：无, 解除情况：无): its 无 says no cure, the risk stands.
# A field's name is short and plain: with one of QUESTION_WORDS in it the words are the question's own
# (是否存在尚未解除的违规担保：无, …（含已解除）：无), which 无 answers whole (review 7, 2026-12-06)
PROGRESS_FIELDS = ("进展", "进度", "时间", "日期", "期限", "已(?:全部)?(?:解除|归还|收回|偿还|清偿)", "解除", "归还",
                   "收回", "追究", "追偿")
# (截至 before a progress field's own name is the field's: 截至目前解除进展：无 says no progress; review 8)
QUESTION_WORDS = ("未", "含", "截至(?![^，,。；;：:]{0,6}?(?:进展|进度))", "需", "被", "[（(]")
NO_ANSWERS = ("无", "不适用")
PERIOD_WORDS = ("报告期内", "本报告期内?", "报告期末")  # 是否存在违规担保：报告期内无
# a heading right after the risk words, answered no without 是否 (违规担保情况：无, 违规对外担保情况：不适用, 资金占用
# 事项：报告期内无; review 12); a longer field (解除情况, 整改措施) is another question's. The annual report's heading
# names 诉讼 with 仲裁 (重大诉讼、仲裁事项：无; review 13)
HEADINGS = ("", "情况", "事项", "事项情况", "(?:、|及|和)仲裁(?:事项|情况)?")
# what may follow an answer: the sentence's end, the next numbered item or question, a bracket
# (the eighteenth session: a table cell's end too, | 是否存在…的情形 | 否 |)
ANSWER_END = r"(?:[。；;]|$|(?=[一二三四五六七八九十]{1,3}、|\d{1,2}[、.]|是否|[（(]|[|｜]))"


def _any(words: tuple[str, ...]) -> str:
    return "(?:" + "|".join(words) + ")"


_TICK, _BOX, _MARKS = f"[{TICKS}]", f"[{BOXES}]", BOXES + TICKS
_FIELD = r"[^，,。；;：:" + _MARKS + "]"  # a character of a form's field: not a clause break, a colon or a box
_CURE = _any(CURE_WORDS)
_ASKED_GAP = r"(?:(?!" + "|".join(RISK_ASKED) + ")" + _FIELD + "){0,8}?"
_NO_BOX = (r"(?:" + _BOX + r"\s*(?:适用|是)\s*" + _TICK + r"\s*(?:不适用|否)"
           r"|(?:适用|是)\s*" + _BOX + r"\s*(?:不适用|否)\s*" + _TICK + ")")
# an annual report's checkbox answered no, after the heading it answers (违规对外担保情况：□适用 √不适用)
_CHECKBOX_NO = re.compile(r"(?!" + _FIELD + r"{0,12}?(?:是否|已)" + _ASKED_GAP + _CURE + ")"
                          + _FIELD + r"{0,12}[：:]?\s*" + _NO_BOX)
_CURE_ASKED = re.compile("是否" + _ASKED_GAP + _CURE)
_ASKED_BEFORE = re.compile(r"是否(?:已经|已|全部|均)*$")
_NOT_ASKED = "(?!" + "|".join(NOT_THE_QUESTION) + ")"
_PROGRESS_FIELD = ("(?:(?!" + "|".join(QUESTION_WORDS) + ")" + _FIELD[:-1] + r"\d]){0,8}?" + _any(PROGRESS_FIELDS)
                   + r"(?:情况)?[：:]?\s*" + _any(NO_ANSWERS))
# a bracket after 报告期内无 of what came after the period (（期后新增违规担保…）) takes the answer back (review 8),
# unless it is a no or an end itself (（截至本报告披露日亦无）, （发生额0元…）, （…已于2023年12月全部归还）; review 9):
# a no said before any new risk or amount in it, or of the risk itself, an end of all of it (not （…8,000万元，均未
# 履行审议程序）, （…，已于…解除1,000万元）, （…，其中1笔已于…解除）; review 10)
_LATER_NEW = r"(?!新增(?![：:]\s*无)|发生(?!额)|(?<![\d,.])(?:[1-9]|0\.\d*[1-9])[\d,.]*\s*(?:万|亿|元|笔))[^）)]"
_LATER_NO = (r"(?:" + _LATER_NEW + r")*?(?:亦无|亦未|均无|均未|无新增|不存在|未发生|[：:]\s*无)|"
             r"(?:(?!其中|部分)[^）)])*?已(?:于[^）)]{0,12}?)?(?:全部)?(?:归还|解除|收回|清偿|偿还)"
             r"(?!\s*\d|[^）)]*?(?:尚|仍|未|剩余|其余))|"
             r"(?![^）)]*?(?:尚未|仍|未(?:解除|归还|收回)))[^）)]*?(?:不存在|未发生|无)(?:任何)?(?:违规(?:对外)?担保|(?:非经营性)?资金占用)")
_LATER = (r"(?!\s*[（(](?!" + _LATER_NO + r")"
          r"[^）)]{0,6}?(?:期后|之后|以后|\d{4}年|截至|新增|发生(?!额)))")
# (the eighteenth session) the date a form's answer speaks at, in brackets before it (是否存在资金占用
# （截至本核查意见出具日期）：无); one naming a remainder or a case (（含已解除）, （尚未解除部分）) is the
# question's own and read as before
_AS_OF = r"(?:[（(](?:截至|截止|于)[^（()）未尚]{0,20}?(?:日|日期|时|止)[)）])?"
_ANSWER_NO = re.compile(r"(?:(?:(?!是)" + _FIELD + r"){0,30}[：:]?\s*否|(?!" + _PROGRESS_FIELD + ")"
                        r"(?:" + _NOT_ASKED + _FIELD[:-1] + r"\d]){0,12}?" + _AS_OF + r"[：:]?\s*(?:"
                        + _any(PERIOD_WORDS) + r"\s*" + _any(NO_ANSWERS) + _LATER + "|" + _any(NO_ANSWERS) + _LATER
                        + r"))\s*" + ANSWER_END)
# the SZSE 主要会计数据 line (…孰低者均为负值，且…持续经营能力存在不确定性 □是 √否): the box ends the sentence
# (a comma only before 且, the line's second condition: not 控股股东被立案调查，公司不存在违规担保□是√否)
_BOX_NO_AT_END = re.compile(r"(?:(?!是否|已|未|尚)(?:[^，,。；;" + _MARKS + r"]|[，,](?=且))){0,60}?"
                            r"[：:]?\s*(?:" + _BOX + r"\s*是\s*" + _TICK + r"\s*否|是\s*" + _BOX + r"\s*否\s*" + _TICK
                            + r")\s*[。；;]?\s*$")
# the SSE 重大诉讼 line (□本年度公司有重大诉讼、仲裁事项 √本年度公司无…): the heading before it, and the unticked option
_OPTION_NO = re.compile(_FIELD + r"{0,12}\s*" + _BOX + "[^" + _MARKS + "]{0,24}" + _TICK
                        + r"\s*本(?:年度|报告期)(?:本?公司)?无")
_UNTICKED_BEFORE = re.compile(_BOX + r"\s*本(?:年度|报告期)(?:本?公司)?有$")
_EXISTS_Q = re.compile(r"是否存在")
# (a bracket of what came after takes the answer back: 违规担保情况：无（期后新增违规担保3,000万元）)
_HEADING_NO = re.compile(r"(?:的)?(?:相关)?" + _any(HEADINGS) + r"\s*[：:]\s*(?:" + _any(PERIOD_WORDS) + r"\s*)?"
                         + _any(NO_ANSWERS) + _LATER + r"\s*" + ANSWER_END)
_QUESTION = re.compile(r"是否")
# (the eighteenth session) a verification form's field after the risk words: what is left of it answered none
# (是否存在违规担保 未解除金额：无), and a progress field answered none right after the same risk was answered no
# (是否存在违规担保：无；违规担保解除时间：不适用): the no before it is the answer, the field has nothing to report
_LEFT_NONE = re.compile(r"\s*(?:的)?(?:尚)?未(?:解除|归还|偿还|清偿|收回)(?:的)?(?:担保|资金)?(?:金额|余额)\s*[：:]\s*"
                        r"(?:无|不适用|0(?:\.0+)?\s*(?:万元|亿元|元)?)\s*" + ANSWER_END)
_PROGRESS_NO = re.compile(_PROGRESS_FIELD + r"\s*" + ANSWER_END)
_NO_BEFORE = re.compile(r"是否存在(?P<asked>[^：:；;。，,？?]{1,30}?)[：:]\s*(?:否|无)\s*[；;。]\s*$")
# a yes ticked or said (√是, 是√, ：是) and not taken back (是（部分归还）, 是，仅部分解除, 是否)
# (the eighteenth session) a table's next cell (| 控股股东是否已归还占用的全部资金 | 是 |), and a yes whose parts are
# each said done on a date (是，部分于2025年3月解除，其余于2025年6月解除; not 其余尚未解除, 其余将于…解除)
_CELL = r"[^|｜\n。；;]{0,16}?\s*[|｜]\s*(?=是\s*(?:[|｜]|$))"
_DONE_ON = r"(?:已)?于20\d\d年\d{1,2}月(?:\d{1,2}日)?(?:全部)?(?:解除|归还|收回|清偿|偿还)"
_REST_TOO = _DONE_ON + r"[，,](?:其余|剩余|余下)(?:部分)?(?:亦|也)?" + _DONE_ON + r"\s*(?:[。；;]|$)"
_TICKED_YES = re.compile(r"[^。；;" + TICKS + r"]{0,16}?(?:" + _TICK + r"\s*(?:是|不适用)|(?<!" + _BOX + r")(?<!"
                         + _BOX + r"[ \t\u3000])是\s*" + _TICK + ")"
                         r"|(?:" + _FIELD + r"{0,12}?[：:]\s*|\s*|" + _CELL + r")是(?!否|\s*" + _BOX
                         + r"|\s*[（(，,]?\s*(?:仅|只|但)?部分(?!" + _REST_TOO + r")|\s*[（(]\s*其中)")
# a check said done and what it found (进行了核查并确认已…, 已核查并确认已…), not one asked for (请保荐机构…进行核查并
# 确认…, 要求公司…核实已…)
_CONFIRMED = re.compile(r"(?:进行了|已经?)(?:核查|核实|检查|查验|审查)(?:[，,]?并|后|[，,])?(?:确认|认为|证实|查明)"
                        r"(?:其|上述|该等?|相关)?[^，,。；;是否]{0,8}?已")
_REQUESTED = re.compile(r"(?<!申)请|要求|责令|督促|需|须|应")
# (the nineteenth session) a regulator's request (问询函, 关注函: 请保荐机构核查…是否已全部归还，并确认已全部归还的
# 时间): what it asks to be checked, confirmed or told is asked to its sentence's end, its 已 too, unless an answer
# opens after it (回复：, 经核查). The letter's 请 opens its clause (…，请你公司说明, …，并请保荐机构, （1）请说明),
# so a party's own (公司已请会计师核查, 董事会请控股股东说明), 申请, 敬请 and 请求 are none
_REQUEST = re.compile(r"(?:(?<![^，,。；;：:！!？?\s)）、.])|(?<=[并另亦也])|(?<=同时|此外|对此|另外|最后))"
                      r"请(?![求示假])[^。；;！!？?\n]{0,40}?"
                      r"(?:核查|核实|说明|确认|补充|披露|解释|列示|分析|发表|自查|论证|提供)")
_ANSWER = re.compile(r"回复|答复|经核查|经核实|经查|答[：:]")
_ANSWER_LINE = re.compile(r"\n(?=[ \t]*(?:" + _BOX[:-1] + TICKS + r"]|(?:是|否)[ \t]*(?:\n|$)))")


def answered_no(unit: str, clause_start: int, start: int, end: int) -> bool:
    """Whether the risk words at ``unit[start:end]`` are a form's question or heading answered no: a box ticked no
    after them (unless the question asks about a cure), 是否存在… answered 否/无, a heading answered 无
    (违规担保情况：无), the SSE option unticked."""
    cure = _CURE_ASKED.search(unit, clause_start, end) is not None
    return bool((_CHECKBOX_NO.match(unit, end) and not cure)
                or (_EXISTS_Q.search(unit, clause_start, start) and _ANSWER_NO.match(unit, end))
                or (_BOX_NO_AT_END.match(unit, end) and not cure) or _HEADING_NO.match(unit, end)
                or _OPTION_NO.match(unit, end) or _UNTICKED_BEFORE.search(unit, clause_start, start)
                or _LEFT_NONE.match(unit, end) or _progress_after_no(unit, start, end))


def _progress_after_no(unit: str, start: int, end: int) -> bool:
    """A progress field of the risk (违规担保解除时间：不适用) right after a question of the same risk answered no."""
    before = _NO_BEFORE.search(unit, 0, start)
    return bool(before and _PROGRESS_NO.match(unit, end) and unit[start:end] in before.group("asked"))


def asked_not_ticked(text: str, start: int, end: int) -> bool:
    """Whether good news at ``text[start:end]`` is asked (是否已解除, 请…确认已全部归还的时间) rather than said, and
    not answered yes."""
    requested = any(not _ANSWER.search(text, r.end(), start) for r in _REQUEST.finditer(text, 0, start))
    asked = [q.end() for q in _QUESTION.finditer(text, start, end)]
    # (the eighteenth session: the question checked and answered in words, 就…是否已全部解除进行了核查并确认已全部解除)
    confirmed = asked and _CONFIRMED.search(text, asked[-1], end) and not _REQUESTED.search(text, start, end)
    return (bool(asked) or requested) and not _TICKED_YES.match(text, end) and not confirmed


def asked_before(clause: str, start: int, end: int) -> bool:
    """Whether the words at ``clause[start:end]`` follow 是否(已) and no yes is ticked after them: a question."""
    return bool(_ASKED_BEFORE.search(clause[max(0, start - 8):start])) and not _TICKED_YES.match(clause, end)


def join_answer_lines(text: str) -> str:
    """An answer on the line below its question (是否存在违规担保\\n√否) joined to it, same length."""
    return _ANSWER_LINE.sub(" ", text)
