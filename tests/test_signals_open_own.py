"""The company's own risk that review 9's open list showed read as another party's (the seventeenth session): a suit
against the company and its own arrears to suppliers and builders, set aside (``excluded``) where a careful analyst
reads the 重大诉讼 or 拖欠经营款项 row live at 中, and their neighbours that are another party's and stay so.

OWN: a creditor's 分公司 suing (公司遭到债权人某某资产管理股份有限公司江苏省分公司向法院起诉: its 公司向法院起诉 read
as the company's suit), a 股份/股份有限公司 named as the one who must pay (要求某某股份支付拖欠的工程款: the listed
company), the company in arrears to a supplier (遭公司恶意拖欠, 公司已向供应商申请延期支付), a dunning letter from
a long name (公司收到…第三分公司发来的催款函，要求其支付), a plaintiff's 请求判令支付 after suing the issuer
(原告某某公司起诉被告一（发行人）…). OTHERS: the company as the creditor or the plaintiff, its own branch suing, the
customer or the supplier in arrears to it: excluded, as they read before; or nothing read at all, as before.
"""

from __future__ import annotations

import pytest

from tests.signal_checks import open_inputs, read_at, states

# (text, the signal read live at 中)
OWN = [
    ("公司遭到债权人某某资产管理股份有限公司江苏省分公司向法院起诉", "重大诉讼"),
    ("公司遭到债权人某某银行股份有限公司南京分公司向法院起诉", "重大诉讼"),
    ("某某建设集团向法院起诉，要求某某股份支付拖欠的工程款", "拖欠经营款项"),
    ("某某物流有限公司发函要求某某科技股份有限公司支付拖欠运费320万元", "拖欠经营款项"),
    ("供应商反映遭公司恶意拖欠货款", "拖欠经营款项"),
    ("公司已向供应商申请延期支付拖欠的工程款", "拖欠经营款项"),
    ("公司收到某某市某某区建筑工程劳务有限公司第三分公司发来的催款函，要求其支付拖欠的劳务款", "拖欠经营款项"),
    ("公司收到某某市某某区建筑工程劳务有限公司第三分公司发来的律师函，要求其支付拖欠的劳务款", "拖欠经营款项"),
    ("原告某某公司起诉被告一（发行人）、被告二（发行人子公司），请求判令支付拖欠货款1,500万元", "拖欠经营款项"),
]

# (text, the signal kept as another party's) or (text, None) for no hit at all
OTHERS = [
    ("因客户资金紧张导致汇票到期未能兑付，公司已计提坏账准备", "债务违约"),
    ("公司起诉客户要求其支付拖欠货款", "拖欠经营款项"),
    ("供应商拖欠公司预付款项", "拖欠经营款项"),
    ("公司向法院起诉某某有限公司，涉及诉讼金额5,000万元", "重大诉讼"),
    ("子公司向法院起诉某某有限公司，涉及诉讼金额5,000万元", "重大诉讼"),
    ("公司江苏省分公司向法院起诉某某有限公司，涉及诉讼金额5,000万元", "重大诉讼"),
    ("本公司上海分公司向法院起诉某某有限公司，涉及诉讼金额5,000万元", "重大诉讼"),
    ("某某建设集团向法院起诉，要求某某有限公司支付拖欠的工程款", "拖欠经营款项"),
    ("公司发函要求某某有限公司支付拖欠运费320万元", "拖欠经营款项"),
    ("公司起诉某某有限公司，要求某某有限公司支付拖欠的工程款", "拖欠经营款项"),
    ("公司遭到某某有限公司恶意拖欠货款", "拖欠经营款项"),
    ("供应商反映遭客户恶意拖欠货款", "拖欠经营款项"),
    ("客户向公司申请延期支付拖欠的货款", "拖欠经营款项"),
    ("公司已同意客户申请延期支付拖欠的货款", "拖欠经营款项"),
    ("公司起诉某某市某某区建筑工程劳务有限公司第三分公司，要求其支付拖欠的劳务款", "拖欠经营款项"),
    ("本公司诉某某公司，请求判令支付拖欠款项", "拖欠经营款项"),
    ("公司起诉某某公司，请求判令支付拖欠货款1,500万元", "拖欠经营款项"),
    ("公司起诉客户，请求判令其支付拖欠货款", "拖欠经营款项"),
    ("公司遭到某某有限公司侵权后向法院起诉", None),
    ("公司向法院起诉客户某某有限公司", None),
]


@pytest.mark.parametrize(("text", "signal"), OWN)
def test_the_companys_own_risk_reads_live(text: str, signal: str) -> None:
    hits = read_at(text, "中")
    assert [(h.name, h.state, h.tier) for h in hits] == [(signal, "live", "中")]


@pytest.mark.parametrize(("text", "signal"), OTHERS)
def test_another_partys_stays_excluded(text: str, signal: str | None) -> None:
    hits = read_at(text, None)
    assert states(hits) == ([(signal, "excluded")] if signal else [])


def test_the_fixed_lines_left_the_open_list() -> None:
    assert not open_inputs() & {text for text, _ in OWN}
