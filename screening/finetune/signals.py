"""The announcement titles planted into training and held-out report texts.

SYNTHETIC: the titles are written in the style of real Shanghai/Shenzhen announcement titles, but they are
attached to invented companies. They are grouped by the tier they were written for (the planting draws a
tier, then a group, then a title: the order is part of the data spec, so a model card's held-out set can be
rebuilt). What a title means is NOT decided here: ``visible_signal`` reads the prompt with the product's
own signal reader (screen/signals.py, the rules floor's), so a target names the signal as the floor does;
tests check that the reader reads every planted title as the tier of its group.
Benign titles are there so that a block of announcements is not itself a clue; the look-alikes (担保 for a
subsidiary, 增持 instead of 减持, 标准无保留意见) are there so that a keyword alone is not one either.
"""

from __future__ import annotations

from dataclasses import dataclass

from screening.screen.prompt import DATA_CLOSE, DATA_OPEN
from screening.screen.signals import LIVE, SignalHit, read_signals


@dataclass(frozen=True)
class Signal:
    """A group of planted risk titles and the tier they were written for (the reader names the signal)."""

    name: str  # a label for the group (the reader's name for its titles may be finer)
    tier: str  # 高 or 中
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


def shown_data(user_message: str) -> str:
    """The fenced data of a rendered user message: the part of the prompt a title can be seen in."""
    _, _, rest = user_message.partition(DATA_OPEN)
    return rest.partition(DATA_CLOSE)[0] if rest else ""


def visible_signal(text: str) -> SignalHit | None:
    """The risk a text states, read by the product's own reader (the rules floor's): the highest tier, newest.

    Training targets name the signal exactly as the floor's flag and reason do, so what the model learns to
    say and what the product says without a model cannot drift apart.
    """
    hits = [h for h in read_signals(text) if h.state == LIVE]  # a hit in any other state raises nothing
    return hits[0] if hits else None
