"""What the text reader found: one signal's hit, where it stands (live, or kept but not counted) and its flag.

Apart from ``signals.py`` (how a text is read) because every row, the digest and the fine-tuning set read hits
and their flags, and none of them needs the reader's patterns to do it.
"""

from __future__ import annotations

from dataclasses import dataclass

LIVE, RESOLVED, CLARIFIED, CLEARED, EXCLUDED = "live", "resolved", "clarified", "cleared", "excluded"
NOT_COUNTED = "低"  # the tier of a resolved, clarified, cleared or excluded hit: shown as a flag, raises nothing
# why an ``excluded`` hit's words were read as no risk of the company's (``SignalHit.why``), and how a flag and a
# cell say it. One reason so far: denials (否定), forms answered no (表单) and hypotheticals (假设) were measured
# too and left silent, being noise on the benign texts (signals.py)
OTHER = "他方"
WHY_SHOWN = {OTHER: "读作他方的事"}


@dataclass(frozen=True)
class SignalHit:
    """One risk the text states: which signal, its tier, the words that said it, and where they stand.

    A hit whose ``state`` is ``resolved`` (a later title ended it: 结案通知书, 撤销退市风险警示),
    ``clarified`` (the company's 澄清 of a rumour) or ``cleared`` (a 高 signal whose own sentence says the good
    news: 已归还占用的全部资金, 违规担保已全部解除) raises nothing (tier 低) but is kept, so the row says why a risk
    word in its text did not count. The last matters most: the reader of good news is the part most often wrong
    (a repayment phrased a way it does not know, or one it reads where none came), and a row that showed nothing
    would hide a live risk read as repaid.

    ``excluded`` is the same for the reader's reading of whose risk it is: risk words it matched and then read as
    another party's trouble (``why`` 他方: 客户…商票逾期, 交易对方…申请冻结, the company as the plaintiff or the
    creditor). That reading is as fallible as a repayment's, so the words stay visible, not counted, naming why.
    """

    name: str
    tier: str
    group: str
    matched: str  # the words that matched, as the text wrote them
    text: str  # the announcement title, or the report sentence (cut to _SHOWN_CHARS), as written
    date: str | None  # the title's date (YYYY-MM-DD), or the notice date a sentence states
    is_title: bool
    state: str = LIVE
    # the dated title that ended the risk ("2026-11-20 关于…结案通知书的公告"), or the words of its own sentence that
    # cleared it ("已归还占用的全部资金"), or the words that excluded it ("客户", "受让方某某有限公司")
    resolved_by: str | None = None
    why: str | None = None  # an excluded hit's reason (OTHER)

    def flag(self) -> str:
        """E.g. ``公告风险: 立案调查 (2026-11-20 关于收到中国证监会《立案告知书》的公告)``, or for an excluded hit
        ``报告风险词未计(读作他方的事): 债务违约 (「…」 → 「客户」), 请核对原文``."""
        where = (f"{self.date} {self.text}" if self.date else self.text) if self.is_title else \
            f"{self.date}, 「{self.text}」" if self.date else f"「{self.text}」"
        kind = "公告" if self.is_title else "报告"
        if self.state == RESOLVED:
            return f"{kind}风险已解除: {self.name} ({where} → {self.resolved_by})"
        if self.state == CLARIFIED:
            return f"{kind}澄清(不计风险): {self.name} ({where})"
        if self.state == CLEARED:
            return f"{kind}称风险已消除(不计风险, 请核对原文): {self.name} ({where} → 「{self.resolved_by}」)"
        if self.state == EXCLUDED:
            words = f" → 「{self.resolved_by}」" if self.resolved_by else ""
            why = WHY_SHOWN.get(self.why or "", "读作无风险")
            return f"{kind}风险词未计({why}): {self.name} ({where}{words}), 请核对原文"
        return f"{kind}风险: {self.name} ({where})"

    def to_dict(self) -> dict[str, str | bool | None]:
        return {"signal": self.name, "tier": self.tier, "matched": self.matched, "text": self.text,
                "date": self.date, "title": self.is_title, "state": self.state,
                "resolved_by": self.resolved_by, "why": self.why}
