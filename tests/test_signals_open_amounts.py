"""Amounts, released guarantees and verification forms that review 9's open list showed misread (the eighteenth
session).

AMOUNTS: a repayment is read against the occupation its sentence states, as numbers (亿元/万元/元, thousands
separators; ``signal_repaid.covers`` with the pool's own ``screening.data.values.parse_number``): smaller stays live
even when it says 全部 (控股股东占用公司资金2亿元，…已全部归还占用资金1亿元, a hidden risk before), equal or larger
clears (…已归还占用资金2亿元 / 20,000万元 / 2.0亿元, a false alarm before); several occupations are added up; one
amount alone reads as before. RELEASED: a broken-rule guarantee said released as 对外担保/上述担保, as promised (已按
承诺) or as checked (…核查并确认已全部解除), or a yes whose parts are each dated (是，部分于…解除，其余于…解除).
FORMS: a verification form's no with its date in brackets, a field of what is left answered none, a progress field
after the same risk answered no, a table row's cell. Their neighbours that must stay live are pinned beside them.
"""

from __future__ import annotations

import pytest

from tests.signal_checks import assert_live, open_inputs, read_at, states

OCCUPIED = "控股股东占用公司资金2亿元，截至目前"

# a repayment short of the occupation, or not one: 资金占用 stays live at 高
AMOUNTS_LIVE = [
    "控股股东占用公司资金2亿元，截至目前控股股东已全部归还占用资金1亿元",
    "控股股东占用公司资金2亿元，截至目前控股股东已归还占用的全部资金1亿元",
    "控股股东占用公司资金2亿元，截至目前控股股东已全额归还占用资金1亿元",
    "控股股东占用公司资金2亿元，控股股东已全部归还占用资金1亿元",
    OCCUPIED + "控股股东已归还占用资金1.5亿元",
    OCCUPIED + "控股股东已归还占用资金19,999万元",
    OCCUPIED + "控股股东已全部归还占用资金1.9亿元",
    "控股股东非经营性资金占用余额为2亿元，截至目前控股股东已全部归还占用资金1亿元",
    "控股股东占用公司资金2亿元，截至目前已全部归还，归还金额1亿元",
    "控股股东占用公司资金2亿元，关联方占用公司资金1亿元，控股股东已归还占用资金2亿元",
    "控股股东占用公司资金2亿元，控股股东于2026年12月向公司归还占用的全部资金共计1亿元",
    "控股股东占用公司资金2亿元，公司已收到控股股东归还的全部占用资金1亿元",
    "控股股东占用公司资金2亿元，控股股东拟归还占用资金2亿元",
    "控股股东占用公司资金2亿元，控股股东将归还占用资金2亿元",
    "控股股东占用公司资金2亿元，证监局责令控股股东归还占用资金2亿元",
    "控股股东占用公司资金2亿元，控股股东尚未归还占用资金2亿元",
    "控股股东占用公司资金2亿元，控股股东已承诺归还占用资金2亿元",
    "控股股东占用公司资金2亿元，控股股东已决定于2026年12月31日前归还占用资金2亿元",
    "控股股东占用公司资金2亿元，控股股东已归还占用资金2亿元中的1亿元",
    "控股股东占用公司资金2亿元，控股股东已归还占用资金2亿元的一半",
    "控股股东占用公司资金2亿元，其中控股股东已归还占用资金2亿元",
    "控股股东占用公司资金2亿元，控股股东已归还占用资金2亿元，剩余利息500万元尚未归还",
    "控股股东占用公司资金2亿元，控股股东已归还占用资金2亿元，但又新增占用资金5,000万元",
    "控股股东占用公司资金2亿元，控股股东已归还银行借款2亿元",
    "控股股东占用公司资金2亿元，控股股东仅归还占用资金1亿元",
    "控股股东已归还占用资金1.2亿元，还有关联方某某实业占用的8,000万元仍在协调中",
    "请核查控股股东是否存在资金占用并确认已全部归还",
    # one amount alone: as before the eighteenth session
    "控股股东已归还占用资金2亿元",
    "控股股东已归还占用的全部资金1亿元",
]

# a repayment that covers the occupation stated: 资金占用 cleared (kept, not counted)
AMOUNTS_REPAID = [
    OCCUPIED + "控股股东已归还占用资金2亿元",
    OCCUPIED + "控股股东已归还占用资金20,000万元",
    OCCUPIED + "控股股东已归还占用资金2.0亿元",
    OCCUPIED + "控股股东已归还占用资金3亿元",
    OCCUPIED + "控股股东已归还占用的全部资金2亿元",
    OCCUPIED + "控股股东已全额归还占用资金2亿元",
    OCCUPIED + "控股股东已偿还占用资金2亿元",
    OCCUPIED + "控股股东已于2026年11月30日归还占用资金2亿元",
    OCCUPIED + "控股股东已以现金方式归还占用资金2亿元",
    "控股股东占用公司资金2亿元，控股股东已归还占用资金2亿元",
    "控股股东占用公司资金20,000万元，截至目前控股股东已归还占用资金2亿元",
    "控股股东非经营性资金占用余额为2亿元，截至目前控股股东已归还占用资金2亿元",
    "控股股东占用公司资金2亿元，关联方占用公司资金1亿元，控股股东及关联方已归还占用资金3亿元",
    # the whole's amount with no other stated: as before
    "公司已收到控股股东归还的全部占用资金2.3亿元",
    "控股股东于2026年12月向公司归还占用的全部资金共计1.2亿元",
    # a check done and what it found (the eighteenth session)
    "保荐机构就控股股东占用的资金是否已全部归还进行了核查并确认已全部归还。",
]

# a broken-rule guarantee released: (text, cleared) where the release is kept, or (text, None) for a form answered
# yes, read as no risk at all
RELEASED = [
    ("公司存在违规担保，对外担保已全部解除", "cleared"),
    ("公司存在违规担保，上述担保均已解除", "cleared"),
    ("公司未依据《公司章程》履行审议程序的对外担保已全部解除", "cleared"),
    ("控股股东已按承诺解除公司为其提供的违规担保", "cleared"),
    ("控股股东已按照承诺解除公司为其提供的违规担保", "cleared"),
    ("控股股东已解除公司为其提供的违规担保", "cleared"),
    ("公司已解除为控股股东提供的违规担保", "cleared"),
    ("保荐机构就违规担保是否已全部解除进行了核查并确认已全部解除。", "cleared"),
    ("保荐机构就违规担保是否已全部解除进行了核查，经核查确认已全部解除。", "cleared"),
    ("控股股东已解除其为子公司提供的违规担保", "cleared"),
    ("违规担保是否已全部解除：是，部分于2025年3月解除，其余于2025年6月解除", None),
]

GUARANTEE_LIVE = [
    "公司存在违规担保，对外担保尚未全部解除",
    "公司存在违规担保，对外担保已部分解除",
    "公司存在违规担保，上述担保已部分解除",
    "公司存在违规担保，对外担保将于2026年6月解除",
    "公司存在违规担保，上述担保将于2026年6月前全部解除",
    "公司存在违规担保，对外担保正在解除",
    "公司存在违规担保，相关担保正在解除中",
    "公司存在违规担保，对外担保已开始解除",
    "公司存在违规担保，相关担保已全部解除的承诺尚未履行",
    "公司存在违规担保，对外担保已全部解除3,000万元",
    "公司存在违规担保，对外担保已全部解除，另有1笔违规担保尚未解除",
    "公司存在违规担保，如上述担保已全部解除，公司将申请撤销其他风险警示",
    "子公司对外担保已全部解除，违规担保仍未解除",
    "公司为子公司提供的担保已全部解除，但违规担保尚未解除",
    "公司未依据《公司章程》履行审议程序的对外担保已解除1亿元",
    "公司未依据《公司章程》履行审议程序的对外担保尚未解除",
    "控股股东承诺解除公司为其提供的违规担保",
    "控股股东已承诺解除公司为其提供的违规担保",
    "控股股东将按承诺解除公司为其提供的违规担保",
    "控股股东拟按承诺解除公司为其提供的违规担保",
    "控股股东尚未按承诺解除公司为其提供的违规担保",
    "控股股东未按承诺解除公司为其提供的违规担保",
    "控股股东已按承诺解除公司为其提供的部分违规担保",
    "控股股东已按承诺解除公司为其提供的违规担保3,000万元，剩余5,000万元尚未解除",
    "保荐机构就违规担保是否已全部解除进行了核查。",
    "保荐机构就违规担保是否已全部解除进行了核查，尚未确认",
    "保荐机构就违规担保是否已全部解除进行了核查并确认尚未全部解除。",
    "保荐机构就违规担保是否已全部解除进行了核查并确认已部分解除。",
    "请保荐机构核查并确认违规担保是否已全部解除",
    "请说明违规担保是否已全部解除，并核实已全部解除的依据",
    "请保荐机构就违规担保是否已全部解除进行核查并确认已全部解除",
    "请保荐机构就违规担保是否已全部解除进行了核查并确认已全部解除",
    "要求公司就违规担保是否已全部解除进行核查并确认已全部解除",
    "公司存在违规担保，上述担保已全部解除，但又为控股股东新增违规担保2亿元",
    "违规担保是否已全部解除：是，部分于2025年3月解除，其余尚未解除",
    "违规担保是否已全部解除：是，部分于2025年3月解除，其余将于2026年6月解除",
    "违规担保是否已全部解除：是，部分于2025年3月解除，其余于2026年6月前解除",
    "违规担保是否已全部解除：是，部分于2025年3月解除，其余仍在协商中",
    "违规担保是否已全部解除：否，部分于2025年3月解除，其余于2025年6月解除",
    "违规担保是否已全部解除：是，部分解除",
    "违规担保是否已解除：是，剩余担保将于2026年3月前解除",
]

# forms answered no: no risk at all
FORMS_NO = [
    "是否存在资金占用（截至本核查意见出具日期）：无",
    "是否存在违规担保（截至2026年11月30日）：无",
    "是否存在违规担保：无；违规担保解除时间：不适用",
    "是否存在违规担保：否；违规担保解除时间：无",
    "是否存在违规担保 未解除金额：无",
    "| 核查事项 | 核查结果 |\n| 控股股东是否已归还占用的全部资金 | 是 |",
    "| 核查事项 | 是/否 |\n| 是否存在暂停支付或未按期足额支付债券利息的情形 | 否 |",
    "| 是否存在资金占用 | 否 |",
]

# forms answered yes, asked only, or answered about something else: (text, the signal read live at 高)
FORMS_LIVE = [
    ("是否存在资金占用：是", "资金占用"),
    ("是否存在资金占用：有", "资金占用"),
    ("是否存在资金占用（截至本核查意见出具日期）：是", "资金占用"),
    ("是否存在资金占用（截至本核查意见出具日期）：有", "资金占用"),
    ("是否存在资金占用（截至本核查意见出具日期）：无（期后新增占用资金3,000万元）", "资金占用"),
    ("是否存在资金占用：无（期后新增占用资金3,000万元）", "资金占用"),
    ("是否存在资金占用（截至本核查意见出具日期）", "资金占用"),
    ("是否存在违规担保：有；违规担保解除时间：不适用", "违规担保"),
    ("是否存在违规担保：是；违规担保解除时间：不适用", "违规担保"),
    ("是否存在违规担保：无；违规担保解除时间：尚未解除", "违规担保"),
    ("是否存在违规担保：无；违规担保余额：3,000万元", "违规担保"),
    ("是否存在违规担保：无；资金占用解除时间：不适用", "资金占用"),
    ("是否存在违规担保：无；是否存在资金占用：是", "资金占用"),
    ("是否存在违规担保：无。违规担保解除时间：不适用", "违规担保"),
    ("是否存在违规担保 未解除金额：3,000万元", "违规担保"),
    ("是否存在违规担保 已解除金额：无", "违规担保"),
    ("是否存在违规担保：是 未解除金额：无", "违规担保"),
    ("| 核查事项 | 核查结果 |\n| 控股股东是否已归还占用的全部资金 | 否 |", "资金占用"),
    ("| 核查事项 | 核查结果 |\n| 控股股东是否已归还占用的全部资金 |  |", "资金占用"),
    ("| 控股股东是否已归还占用的全部资金 | 是（部分归还） |", "资金占用"),
    ("| 控股股东是否已归还占用的全部资金 | 是，仅部分归还 |", "资金占用"),
    ("| 核查事项 | 核查结果 |\n| 是否存在违规担保 | 是 |", "违规担保"),
    ("| 是否存在违规担保 | 有 |", "违规担保"),
    ("| 核查事项 | 是/否 |\n| 是否存在暂停支付或未按期足额支付债券利息的情形 | 是 |", "债务违约"),
]


@pytest.mark.parametrize("text", AMOUNTS_LIVE)
def test_a_short_or_unsaid_repayment_stays_live(text: str) -> None:
    assert_live(text, "资金占用", "高")


@pytest.mark.parametrize("text", AMOUNTS_REPAID)
def test_a_repayment_that_covers_the_occupation_clears_it(text: str) -> None:
    assert states(read_at(text, None)) == [("资金占用", "cleared")]


@pytest.mark.parametrize(("text", "state"), RELEASED)
def test_a_released_guarantee_is_no_risk(text: str, state: str | None) -> None:
    assert states(read_at(text, None)) == ([("违规担保", state)] if state else [])


@pytest.mark.parametrize("text", GUARANTEE_LIVE)
def test_a_release_not_done_stays_live(text: str) -> None:
    assert_live(text, "违规担保", "高")


@pytest.mark.parametrize("text", FORMS_NO)
def test_a_form_answered_no_is_no_risk(text: str) -> None:
    assert read_at(text, None) == []


@pytest.mark.parametrize(("text", "signal"), FORMS_LIVE)
def test_a_form_answered_yes_or_not_at_all_stays_live(text: str, signal: str) -> None:
    assert_live(text, signal, "高")


def test_the_fixed_lines_left_the_open_list() -> None:
    fixed = {t for t, _ in RELEASED} | set(FORMS_NO) | set(AMOUNTS_REPAID)
    assert not open_inputs() & {t.replace("\n", "\\n") for t in fixed}
