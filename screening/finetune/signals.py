"""The announcement titles planted into training and held-out report texts, each with what it means.

SYNTHETIC: the titles are written in the style of real Shanghai/Shenzhen announcement titles, but they are
attached to invented companies. Each risk title carries the signal's short name (the word a reason must
name) and the tier it justifies, as the product's full system prompt (``RISK_SIGNALS``) states them.
Benign titles are there so that a block of announcements is not itself a clue; the look-alikes (担保 for a
subsidiary, 增持 instead of 减持, 标准无保留意见) are there so that a keyword alone is not one either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Signal:
    """A risk the rules cannot see: its name as a reason should say it, and the tier it justifies."""

    name: str
    tier: str  # 高 or 中: the least risk the announcement justifies
    titles: tuple[str, ...]


SIGNALS: tuple[Signal, ...] = (
    Signal("立案调查", "高", (
        "关于收到中国证券监督管理委员会立案告知书的公告",
        "关于公司及实际控制人被中国证监会立案调查的公告",
    )),
    Signal("退市风险警示", "高", (
        "关于公司股票被实施退市风险警示的公告",
        "关于公司股票可能被终止上市的风险提示公告",
    )),
    Signal("违规担保", "高", (
        "关于公司存在违规担保的风险提示公告",
        "关于控股股东违规占用资金及违规担保的公告",
    )),
    Signal("债务违约", "高", (
        "关于公司债券未能按期兑付本息的公告",
        "关于公司银行借款逾期的公告",
    )),
    Signal("审计保留意见", "中", (
        "关于会计师事务所出具保留意见审计报告的专项说明",
        "董事会关于保留意见审计报告涉及事项的专项说明",
    )),
    Signal("重大诉讼", "中", (
        "关于公司涉及重大诉讼的公告",
        "关于重大诉讼事项的进展公告",
    )),
    Signal("商誉减值", "中", (
        "关于计提大额商誉减值准备的公告",
        "关于2025年度计提商誉减值准备的提示性公告",
    )),
    Signal("股东减持", "中", (
        "关于控股股东减持股份计划的预披露公告",
        "关于持股5%以上股东及董监高减持股份计划的公告",
    )),
    Signal("业绩预亏", "中", (
        "2025年度业绩预亏公告",
        "关于2025年度业绩预计首次亏损的公告",
    )),
)

BENIGN_TITLES: tuple[str, ...] = (
    "关于召开2025年第三次临时股东大会的通知",
    "关于使用部分闲置募集资金进行现金管理的进展公告",
    "关于获得政府补助的公告",
    "关于回购公司股份的进展公告",
    "关于董事会换届选举的公告",
    "2026年第三季度报告",
    "关于参加投资者集体接待日活动的公告",
    "关于变更公司注册资本并修订公司章程的公告",
    "关于签订日常经营重大合同的公告",
    "关于部分限制性股票解除限售上市流通的提示性公告",
    "关于聘任公司高级管理人员的公告",
    "关于全资子公司完成工商变更登记的公告",
)

# benign, but sharing a word with a risk title: only a model that reads the title gets them right
LOOKALIKE_TITLES: tuple[str, ...] = (
    "关于为全资子公司提供担保的进展公告",
    "关于控股股东增持公司股份计划的公告",
    "关于会计师事务所出具标准无保留意见审计报告的说明",
    "关于诉讼事项达成和解的公告",
    "关于公司不存在违规担保及资金占用情况的说明",
)

TIERS = ("低", "中", "高")

# Real titles are worded many ways, so a real stock's announcements are read by keyword, one title at a
# time. A negation right before the keyword (不存在违规担保, 标准无保留意见) makes it no signal.
_NOT = r"(?<!不存在)(?<!无)(?<!未)(?<!没有)"
KEYWORDS: dict[str, str] = {
    "立案调查": r"立案",
    "退市风险警示": r"退市风险警示|终止上市",
    "违规担保": _NOT + r"违规担保|违规占用",
    "债务违约": r"未能按期兑付|(?<!不存在)逾期|违约",
    "审计保留意见": _NOT + r"保留意见|无法表示意见|否定意见",
    "重大诉讼": r"重大诉讼|重大仲裁",
    "商誉减值": r"商誉减值",
    "股东减持": r"减持",
    "业绩预亏": r"预亏|首次亏损|预计亏损",
}
_TITLE_LINE = re.compile(r"^\d{4}-\d{2}-\d{2} (.+)$", re.MULTILINE)


def signal_in(text: str) -> Signal | None:
    """The highest-tier signal whose title appears in ``text`` (first in catalogue order among equals)."""
    found = [s for s in SIGNALS if any(t in text for t in s.titles)]
    if not found:
        return None
    return max(found, key=lambda s: (TIERS.index(s.tier), -SIGNALS.index(s)))


def signal_in_titles(text: str) -> Signal | None:
    """The highest-tier signal among the dated announcement titles in ``text`` (a real report text, as
    data/providers/report_text.py writes it), read by keyword; the report's own sentences are not read."""
    titles = _TITLE_LINE.findall(text)
    found = [s for s in SIGNALS if any(re.search(KEYWORDS[s.name], t) for t in titles)]
    if not found:
        return None
    return max(found, key=lambda s: (TIERS.index(s.tier), -SIGNALS.index(s)))
