"""Risks the table read as cured or as another party's (a review of the eighth session's misses, 2026-12-06).

STANDS: a release still being worked on (违规担保解除工作尚在推进中), a checkbox asking whether a cure came answered
no (违规担保是否已解除：□是 √否), the company guaranteeing for an associate (为参股公司违规提供担保), a supplier or a
counterparty freezing the company's assets (供应商申请…冻结了公司银行账户). CALM: the same checkbox answered yes,
a checkbox asking whether a risk exists answered no, the other party's own trouble, the company freezing a
debtor's assets.
"""

from __future__ import annotations

import pytest

from screening.screen.signals import read_signals, text_tier

STANDS = [
    ("公司存在违规担保2.5亿元，违规担保解除工作尚在推进中，公司已解除其中1.2亿元。", "违规担保", "高"),
    ("公司存在违规担保2.5亿元。截至本公告日，违规担保已解除1.2亿元。", "违规担保", "高"),
    ("违规担保是否已解除：□是 √否", "违规担保", "高"),
    ("违规担保是否已全部解除：□是 √否", "违规担保", "高"),
    ("违规担保整改是否完成：□是 √否", "违规担保", "高"),
    ("公司为参股公司违规提供担保，担保金额8,000万元。", "违规担保", "高"),
    ("供应商申请诉前财产保全冻结了公司银行账户。", "资产冻结", "高"),
    ("某银行申请冻结了公司持有的子公司股权。", "资产冻结", "高"),
    ("交易对方申请冻结了公司持有的子公司股权，冻结期限三年。", "资产冻结", "高"),
]

CALM = [
    "违规担保是否已解除：√是 □否",
    "是否存在违规担保：□是 √否",
    "报告期内公司债券是否存在逾期未偿还情况：□是 √否",
    "控股股东非经营性占用公司资金3亿元，截至本公告披露日已全部归还。",
    "公司参股公司某某科技被债权人申请破产重整。",
    "客户A公司因经营困难破产清算，公司已对应收账款计提坏账。",
    "公司与供应商的采购合同正常履行，供应商所属行业部分企业出现债务违约。",
    "公司申请冻结了被告名下银行账户。",
    "法院已冻结对方名下银行存款3000万元。",
    "公司向法院申请财产保全，冻结了债务人名下资产。",
    "2026-10-10 为参股公司提供担保的公告",
]


@pytest.mark.parametrize(("text", "signal", "tier"), STANDS)
def test_a_half_cure_or_a_risk_the_company_bears_stands(text: str, signal: str, tier: str) -> None:
    hits = read_signals(text)
    assert text_tier(hits) == tier, [(h.name, h.state, h.matched) for h in hits]
    assert any(h.name == signal and h.state == "live" for h in hits), [(h.name, h.state) for h in hits]


@pytest.mark.parametrize("text", CALM)
def test_a_cure_ticked_yes_a_risk_ticked_no_or_another_partys_trouble_raise_nothing(text: str) -> None:
    hits = read_signals(text)
    assert text_tier(hits) is None, [(h.name, h.state, h.matched) for h in hits]
