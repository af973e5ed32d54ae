"""A third user trial of the text-risk floor: good news that did not come, or came only in part, or is another
matter's, read as the end of a risk (all 低 / 100 with no flag before), and risk wording the table missed.

Each case is the trial's input (or its shape), with what a careful analyst reads; the controls below keep the
good news that did come good.
"""

from __future__ import annotations

import pytest

from screening.screen.signals import read_signals, text_tier

RISKY = [
    # an end whose party is named in brackets after its words ends that party's case only
    ("2026-09-01 关于收到立案告知书的公告；2026-11-20 关于收到中国证监会《结案通知书》（子公司）的公告", "高"),
    ("董事会关于2025年度无法表示意见审计报告所涉事项影响尚未消除的专项说明", "高"),
    ("导致持续经营能力存在重大不确定性的事项无法消除", "中"),
    ("控股股东资金占用的影响仍未能消除", "高"),
    ("截至本公告日，公司逾期债务本金合计12.3亿元，其中已偿还1.2亿元", "高"),
    ("公司违规担保已解除1.2亿元，剩余3.5亿元尚未解除", "高"),
    ("公司董事长被留置，尚未恢复履职", "高"),
    ("公司至今未能与实际控制人重新取得联系", "高"),
    ("关于公司收到立案告知书暨子公司诉讼结案的公告", "高"),
    ("关于终止重大资产重组暨收到立案调查通知书的公告", "高"),
    ("关于公司涉及重大诉讼及部分诉讼和解的公告", "中"),
    ("关于公司申请撤销其他风险警示（摘帽）未获同意的公告", "高"),
    ("控股股东所持股份被轮候冻结，前次冻结已解除", "中"),
    ("关于收到立案告知书的公告 关于子公司诉讼结案的公告", "高"),
    ("关于收到立案告知书的公告，关于子公司诉讼结案的公告", "高"),
    ("关于公司债务逾期的公告，关于已兑付“21XX01”利息的公告", "高"),
    ("关于实际控制人被留置的公告 关于财务总监恢复履职的公告", "高"),
    ("关于控股股东减持计划的预披露公告 关于董事减持计划期限届满未减持的公告", "中"),
    ("2026-11-05 关于控股股东股份被司法冻结的公告；2026-11-10 关于控股股东股份被轮候冻结的公告；"
     "2026-11-20 关于控股股东股份解除司法冻结的公告", "中"),  # the 轮候冻结 behind it takes effect
    ("关于公司股票撤销退市风险警示及被实施其他风险警示的公告", "高"),
    ("关于公司股票撤销退市风险警示、继续被实施其他风险警示的公告", "高"),
    ("关于公司股票撤销退市风险警示及仍实施其他风险警示的公告", "高"),
    ("关于公司股票撤销退市风险警示和继续被实施其他风险警示的公告", "高"),
    ("关于公司因投资者举报财务数据不实被中国证监会立案调查的公告", "高"),
    ("关于媒体报道的澄清暨收到立案告知书的公告", "高"),
    ("公司没有按期偿还到期债务本息", "高"),
    ("公司债券到期后并未兑付本息", "高"),
    ("公司在无董事会授权下违规为控股股东提供担保", "高"),
    ("关于公司被供应商申请破产清算的提示性公告", "高"),
    ("关于公司客户申请对公司进行重整的公告", "高"),
    ("关于公司被供应商提起诉讼的公告", "中"),
    ("因客户合同纠纷公司银行账户被冻结", "高"),
    ("关于公司未在法定期限内披露2025年年度报告的公告", "高"),
    ("公司最近两个会计年度经审计的净利润均为负值，且营业收入低于1亿元", "高"),
    ("公司2025年度归属于上市公司股东的净利润为-3.2亿元，2024年度为-1.5亿元", "高"),
    ("法院查封了公司名下的土地使用权及厂房", "高"),
    ("董事会对会计师事务所出具带强调事项段的无保留意见审计报告的专项说明", "中"),
    ("关于公司董事长无法履行职责的公告", "高"),
    ("公司实际控制人因个人原因暂时无法履职", "高"),
    ("关于控股股东所持股份被司法处置的公告", "中"),
    ("公司存在未披露的关联方资金往来，涉及金额5.6亿元", "高"),
]

CALM = [
    ("2026-09-01 关于子公司收到立案告知书的公告；2026-11-20 关于收到中国证监会《结案通知书》（子公司）的公告", None),
    ("2026-11-20：关于收到立案告知书的公告|2026-11-25：关于收到结案通知书的公告", None),
    ("2026-12-01 关于公司实际控制人解除留置的公告\n2026-10-10 关于公司实际控制人被留置的公告", None),
    ("公司控股股东占用资金已全部归还", None),
    ("审计报告中无法表示意见所涉事项的影响已消除", None),
    ("关于网络传闻公司被立案调查的澄清公告", None),
    ("关于公司股票撤销退市风险警示及其他风险警示的公告", None),
    ("公司不存在违规担保", None),
    ("公司客户破产清算", None),
    ("2026-11-05 关于控股股东股份被司法冻结的公告；2026-11-20 关于控股股东股份解除司法冻结的公告", None),
    ("公司债券按期足额兑付本息", None),
    ("本期债券未偿还余额为10亿元", None),
    ("会计师出具了标准无保留意见的审计报告", None),
    ("公司诉讼案件一审判决公司胜诉", None),
]


@pytest.mark.parametrize(("text", "tier"), RISKY)
def test_a_risk_that_did_not_end_stays_live(text: str, tier: str) -> None:
    assert text_tier(read_signals(text)) == tier, read_signals(text)


@pytest.mark.parametrize(("text", "tier"), CALM)
def test_good_news_that_came_still_counts(text: str, tier: None) -> None:
    assert text_tier(read_signals(text)) is tier, read_signals(text)


def test_a_date_a_title_states_does_not_cut_it() -> None:
    """股份于 2026年10月8日 被冻结: the date inside the title started a new title dated 10-08, which an earlier
    dated 解除留置 then lifted."""
    from screening.screen.signal_text import split_units

    text = ("2026-11-20 关于控股股东所持股份于 2026年10月8日 被司法冻结及实际控制人被留置的公告\n"
            "2026-11-01 关于实际控制人解除留置的公告")
    assert [(u.date, u.is_title) for u in split_units(text)] == [("2026-11-20", True), ("2026-11-01", True)]
    assert text_tier(read_signals(text)) == "高"
