"""The creditor's recovery and a repayment on the occupier's behalf answer a fund occupation (the seventeenth session).

RECOVERED: the company, the creditor, recovering the whole of the occupation (公司已收回控股股东占用的全部资金;
控股股东占用公司资金2亿元，公司已全部收回), and the controller's side repaying the whole for the occupier
(实际控制人已代为归还全部占用资金及利息) clear 资金占用 (signal_repaid.PAID_FOR, read by signal_repaid.answered from
signals._clears). A part, an amount, a plan, an order, a promise, a recovery still pending, another debt recovered, a
hypothetical, a payer of no standing (子公司, 董事长) and an occupation done again after it (控股股东再次占用公司资金:
signals._DONE_AGAIN, which before read only 再次为/提供/被…, so 控股股东已归还占用的全部资金，控股股东再次占用… read
cleared) leave it live.

RELEASED: a guarantee released as a plan said (违规担保已按整改计划解除, 已按还款计划全部解除:
signal_words.PLANNED's 整改/还款计划 is no plan after 已按) is released; one only begun or under way (已开始解除,
已按整改计划推进解除, 已着手解除: signal_table._GUARANTEE_ENDED, which read 违规担保已开始解除 released before),
planned or partly done is not.
"""

from __future__ import annotations

import pytest

from tests.signal_checks import open_inputs, read_at, states

# the open list's lines (read 高 before), then the brief's and neighbours that read 高 before too
FIXED_OPEN = [
    "公司已收回控股股东占用的全部资金",
    "公司已追回被控股股东占用的全部资金",
    "公司已通过仲裁收回控股股东占用的全部资金",
    "公司已通过司法途径收回控股股东占用的全部资金",
    "公司已通过法院强制执行收回控股股东占用的全部资金",
    "公司已于2026年12月收回控股股东占用的全部资金",
    "公司已全额收回控股股东占用资金，在公司多次催促下控股股东于2026年11月30日归还",
    "控股股东及其关联方非经营性占用公司资金1.2亿元，截至2026年4月20日，实际控制人已代为归还全部占用资金及利息",
]
CLEARED = [
    *FIXED_OPEN,
    "控股股东占用公司资金2亿元，公司已全部收回",
    "控股股东占用公司资金2亿元，公司已全部收回。",
    "控股股东占用公司资金2亿元，实际控制人已代为归还全部占用资金",
    "控股股东占用公司资金2亿元，实际控制人已代为偿还全部占用资金",
]

# still live, 高
STANDS = [
    "控股股东占用公司资金2亿元，公司已收回部分",
    "控股股东占用公司资金2亿元，公司已全部收回部分",
    "控股股东占用公司资金2亿元，公司已收回1亿元",
    "控股股东占用公司资金2亿元，公司已收回占用资金1亿元",
    "控股股东占用公司资金2亿元，公司已全部收回占用资金1亿元",
    "控股股东占用公司资金2亿元，公司已收回1亿元，剩余1亿元尚未收回",
    "控股股东占用公司资金2亿元，公司计划收回",
    "控股股东占用公司资金2亿元，公司计划全部收回",
    "控股股东占用公司资金2亿元，公司将全部收回",
    "控股股东占用公司资金2亿元，公司拟全部收回",
    "控股股东占用公司资金2亿元，证监局责令公司收回",
    "控股股东占用公司资金2亿元，证监局责令公司全部收回",
    "控股股东占用公司资金2亿元，公司尚未收回",
    "控股股东占用公司资金2亿元，公司尚未全部收回",
    "控股股东占用公司资金2亿元，公司未能全部收回",
    "控股股东占用公司资金2亿元，公司已收回应收账款",
    "控股股东占用公司资金2亿元，公司已全部收回应收账款",
    "控股股东占用公司资金2亿元，公司已收回全部应收账款",
    "如公司已全部收回控股股东占用的资金，公司将及时披露",
    "如公司已收回控股股东占用的全部资金，公司将及时披露",
    "控股股东占用公司资金2亿元，如公司已全部收回，公司将申请撤销其他风险警示",
    "控股股东占用公司资金2亿元，公司已全部收回，但实际控制人仍占用公司资金1亿元",
    "控股股东占用公司资金2亿元，董事长已全部收回",
    "控股股东占用公司资金2亿元，实际控制人已代为归还",
    "控股股东占用公司资金2亿元，实际控制人已代为归还1亿元",
    "控股股东占用公司资金2亿元，实际控制人已代为归还部分占用资金",
    "控股股东占用公司资金2亿元，实际控制人已代为归还全部银行借款",
    "控股股东占用公司资金2亿元，子公司已代为归还全部占用资金",
    "控股股东占用公司资金2亿元，公司已代为归还全部占用资金",
    # said, not done: the 已 of the payers' own clause (PAID_FOR)
    "控股股东占用公司资金2亿元，实际控制人将代为归还全部占用资金",
    "控股股东占用公司资金2亿元，实际控制人已承诺代为归还全部占用资金",
    # done again after the recovery or the repayment (signals._DONE_AGAIN: 再次/又 占用)
    "公司已收回控股股东占用的全部资金，控股股东再次占用公司资金1亿元",
    "公司已收回控股股东占用的全部资金，此后控股股东又占用公司资金5000万元",
    "控股股东已归还占用的全部资金，控股股东再次占用公司资金1亿元",
    "控股股东占用公司资金2亿元，已全部归还，此后控股股东又占用公司资金5000万元",
]


@pytest.mark.parametrize("text", CLEARED)
def test_the_whole_recovered_or_repaid_for_the_occupier_clears_it(text: str) -> None:
    hits = read_at(text, None)
    assert states(hits) == [("资金占用", "cleared")]


@pytest.mark.parametrize("text", STANDS)
def test_no_whole_recovery_leaves_the_occupation_live(text: str) -> None:
    hits = read_at(text, "高")
    assert any(h.name == "资金占用" and h.state == "live" for h in hits), states(hits)


GUARANTEE_FIXED_OPEN = ["上述违规担保已按整改计划解除", "违规担保已按还款计划全部解除"]
GUARANTEE_STANDS = [
    "违规担保已开始解除",
    "违规担保已按整改计划开始解除",
    "违规担保已按约定推进解除",
    "违规担保已按整改计划推进解除",
    "违规担保已着手解除",
    "违规担保已按整改计划解除部分",
    "违规担保将按整改计划解除",
    "违规担保尚未按整改计划解除",
    "违规担保已按整改计划于2027年解除",
]


@pytest.mark.parametrize("text", GUARANTEE_FIXED_OPEN)
def test_a_guarantee_released_as_planned_is_released(text: str) -> None:
    hits = read_at(text, None)
    assert states(hits) == [("违规担保", "cleared")]


@pytest.mark.parametrize("text", GUARANTEE_STANDS)
def test_a_release_begun_or_planned_leaves_the_guarantee_live(text: str) -> None:
    hits = read_at(text, "高")
    assert ("违规担保", "live") in states(hits)


def test_the_fixed_lines_left_the_open_list() -> None:
    inputs = open_inputs()
    assert not inputs & {*FIXED_OPEN, *GUARANTEE_FIXED_OPEN}
