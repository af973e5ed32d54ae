"""Whether risk words stand in a clarification as the rumour it answers (a 澄清 title or sentence), not as a fact.

Moved out of signals.py (at its 450-line limit) by the twentieth session, which added the clarification's own
subject: a title of the form 关于<risk>的澄清公告 whose body denies it (关于子公司某某新能源债务逾期的澄清公告：经核实，
相关报道不属实，子公司不存在债务逾期; blind set 3) named no rumour word before the risk and read 债务违约 高. The risk
it names is the rumour only where the same unit says the report is untrue after the 澄清 (不属实, 不存在, 谣言); a
bare 关于…债务逾期的澄清公告, or one that corrects a detail (实际逾期金额为1亿元), stays a live risk. Part of the
reader (``signals.TABLE_ID`` hashes every signal_*.py).
"""

from __future__ import annotations

import re

from screening.screen.signal_words import RUMOUR

_RUMOUR = re.compile(RUMOUR)
# a rumour word that is the cause of an action (因投资者举报…被立案调查), or one before a document received (媒体报道
# 的澄清暨收到立案告知书): the risk after it is no rumour
_CAUSE = re.compile(r"因[^，,。；;]{0,6}$")
_OFFICIAL = re.compile(r"收到|暨")
# the subject a clarification names (关于<subject>的澄清), not past a second matter (暨) or a clause
_SUBJECT = re.compile(r"关于(?P<subject>[^，,。；;：:暨]{2,40}?)(?:事项|事宜|情况)?的?澄清(?:公告|说明|声明)?")
# the report said untrue after it, and not corrected in part (部分属实, 实际…为)
_UNTRUE = re.compile(r"(?![^。；;]*?(?:部分属实|基本属实|实际[^，,。；;]{0,12}?为|确实存在|确有))"
                     r"[^。；;]*?(?:不属实|不实|失实|谣言|不存在|并不存在|均不存在|未发生)")


def rumoured(unit: str, start: int, end: int) -> bool:
    """Whether a rumour word stands in ``unit[start:end]`` (before a risk in its clause) as the rumour itself, or the
    risk at ``end`` is the subject of a clarification (关于…的澄清) the unit says is untrue."""
    for m in _RUMOUR.finditer(unit, start, end):
        if not _CAUSE.search(unit, max(0, m.start() - 8), m.start()) and not _OFFICIAL.search(unit, m.end(), end):
            return True
    subject = _SUBJECT.search(unit)
    return bool(subject and subject.start("subject") <= end < subject.end("subject")
                and _UNTRUE.match(unit, subject.end()))
