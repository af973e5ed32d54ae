"""Hidden risks of review 9's open list that read nothing at all, no hit of any state (the sixteenth session).

STANDS: each now reads its risk, live, at the tier a careful analyst gives it: a partial repayment whose rest is
owed (a bracketed source of funds between), a subsidiary's or the company's deposits frozen at another party's
application (申请人某某公司申请冻结, 交易对方某某有限公司申请冻结, a long name after 被), accounts counted and then
frozen (其中17个处于冻结状态), a form's guarantee row whose 无 answers 反担保, not the question, a debt not repaid
(未偿还到期借款), a criminal fine (被判处罚金), shares that cannot be unfrozen, a plaintiff's long name before 诉至
法院, a supplier's demand for overdue bills, arrears with late fees. CALM: the near neighbours the new words must not
read as the company's risk (the company the applicant or the claimant, a hypothetical, a director's sentence).
"""

from __future__ import annotations

import pytest

from tests.signal_checks import assert_live, read_at, states

STANDS = [
    ("是否存在违规担保 担保对象控股股东 反担保 无", "违规担保", "高"),
    ("控股股东已归还公司资金1.5亿元（资金来源为银行借款），剩余1亿元尚未归还", "资金占用", "高"),
    ("全资子公司收到法院送达的财产保全裁定，申请人某某公司申请冻结银行存款2,000万元", "资产冻结", "高"),
    ("公司供应商某某有限公司关于要求支付逾期货款的律师函", "拖欠经营款项", "中"),
    ("因交易对方违约，公司未偿还到期借款", "债务违约", "高"),
    ("2026-11-20 关于交易对方某某有限公司申请冻结银行账户的公告", "资产冻结", "高"),
    ("公司因单位行贿罪被判处罚金800万元", "重大诉讼", "中"),
    ("关于控股股东股份无法解除冻结的风险提示公告", "股份冻结", "中"),
    ("公司银行账户被交易对方某某有限公司申请冻结，冻结金额5,600万元", "资产冻结", "高"),
    ("管理人报告：债务人（即公司）名下共有银行账户23个，其中17个处于冻结状态", "资产冻结", "高"),
    ("公司被原告某某省某某市某某区某某建筑安装工程有限责任公司第三分公司诉至法院", "重大诉讼", "中"),
    ("公司拖欠机票款及滞纳金", "拖欠经营款项", "中"),
]

# (text, the signal kept visible but not counted as another party's, or None for no hit at all)
CALM = [
    ("是否存在违规担保需向被担保方追偿：无", None),  # was read 高: 违规…担保 ran on to 被担保方
    ("是否存在违规担保：否", None),
    ("公司作为申请人申请冻结被告银行存款2,000万元", None),
    ("申请人公司申请冻结被申请人银行存款", None),
    ("公司作为原告向法院申请冻结银行存款800万元", None),
    ("对方名下资产被申请冻结", None),
    ("客户某某公司共有银行账户5个，其中3个被冻结", "资产冻结"),
    ("如公司未偿还到期借款，将影响公司信用", None),
    ("借款人某某公司未偿还到期借款，公司已提起诉讼", "债务违约"),
    ("公司起诉某某有限公司，要求其支付逾期货款", None),
    ("公司起诉某某有限公司，要求支付逾期货款及违约金", "拖欠经营款项"),
    ("公司要求客户支付逾期货款", None),
    ("公司董事长因受贿罪被判处有期徒刑并处罚金", None),
    ("控股股东所持股份已全部解除冻结", None),
    ("控股股东归还银行借款（含利息）后，剩余质押股份尚未解除质押", None),
]


@pytest.mark.parametrize(("text", "signal", "tier"), STANDS)
def test_a_risk_that_read_nothing_now_reads_live(text: str, signal: str, tier: str) -> None:
    assert_live(text, signal, tier)


@pytest.mark.parametrize(("text", "kept"), CALM)
def test_the_new_words_leave_their_benign_neighbours_calm(text: str, kept: str | None) -> None:
    hits = read_at(text, None)
    if kept is None:
        assert hits == [], states(hits)
    else:
        assert [(h.name, h.state, h.why) for h in hits] == [(kept, "excluded", "他方")]
