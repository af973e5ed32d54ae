"""Arrears and enforcement: wordings a user's announcements carry that the table read as nothing (2026-12-06).

RAISED: a company behind on what it owes suppliers, builders, staff or the tax office (拖欠经营款项, 中), a court
summons, enforcement of an unpaid judgment (被列为被执行人, 执行通知书). CALM: the same words about another
party's arrears to the company, a denial, arrears already paid, the company as the creditor who asked for
enforcement, the 失信被执行人 check that a routine filing answers no.
"""

from __future__ import annotations

import pytest

from screening.screen.signals import read_signals, text_tier

RAISED = [
    ("2026-10-10 公司拖欠供应商货款逾期未付", "拖欠经营款项"),
    ("2026-10-10 关于拖欠员工工资的说明", "拖欠经营款项"),
    ("2026-10-10 关于子公司拖欠供应商款项被起诉的公告", "拖欠经营款项"),
    ("公司因资金紧张欠缴社会保险费及税款。", "拖欠经营款项"),
    ("2026-10-10 关于公司收到法院传票的公告", "重大诉讼"),
    ("2026-10-10 关于公司被列为被执行人的公告", "重大诉讼"),
    ("2026-10-10 关于公司收到执行通知书的公告", "重大诉讼"),
]

CALM = [
    "公司不存在拖欠员工工资的情形。",
    "报告期内，公司不存在拖欠供应商货款的情况。",
    "客户拖欠公司货款，公司已提起诉讼。",
    "经销商欠付公司款项已全部收回。",
    "公司已将拖欠的工程款支付完毕。",
    "截至本公告日，公司及子公司均不是失信被执行人。",
    "公司已向法院申请强制执行，法院已向被执行人送达执行通知书。",
    "公司按时足额缴纳社保，不存在欠缴情形。",
    "公司作为申请执行人，被执行人为某某有限公司。",
    "2026-10-10 关于收到法院执行款的公告",
]


@pytest.mark.parametrize(("text", "signal"), RAISED)
def test_arrears_and_enforcement_raise_the_text_tier(text: str, signal: str) -> None:
    hits = read_signals(text)
    assert text_tier(hits) in ("中", "高"), [(h.name, h.state) for h in hits]
    assert any(h.name == signal and h.state == "live" for h in hits), [(h.name, h.state) for h in hits]


@pytest.mark.parametrize("text", CALM)
def test_another_partys_arrears_a_denial_or_a_paid_debt_raise_nothing(text: str) -> None:
    hits = read_signals(text)
    assert text_tier(hits) is None, [(h.name, h.state, h.matched) for h in hits]
