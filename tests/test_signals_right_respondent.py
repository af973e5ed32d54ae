"""Two false 高 of the text floor, and their neighbours: a creditor's right after a hypothetical, and the other
side's accounts named after a company name the 12-character gap stopped short of.

RIGHT: 如公司未偿还到期借款，银行有权宣布贷款提前到期 states a loan's terms, not a default; the consequence of a
condition (signal_rights.RIGHT_IF, a counter of 债务违约, 资产冻结 and 重大诉讼) stays silent as every hypothetical
does, with the open list's three lines of the same form. RESPONDENT: 被申请人某某公司的银行账户已被法院冻结 is the
other side's freeze (signal_freeze: a role, a name up to its 公司, 的/名下 and its assets), kept as ``excluded``.
LIVE: the company's own accounts (also where the role names it: 被申请人本公司, 被告即公司), the company's right
already used, a real default beside a hypothetical, the other side's name in a dispute that froze the company's
accounts: still the company's risk, counted.
"""

from __future__ import annotations

import pytest

from tests.signal_checks import assert_live, read_at, states

# (text, the signal kept visible as another party's, or None for no hit at all)
CALM = [
    ("如公司未偿还到期借款，银行有权宣布贷款提前到期", None),
    ("被申请人某某公司的银行账户已被法院冻结", "资产冻结"),
    # review 9's open list, the same right after a condition
    ("如公司未能按期偿还借款，贷款银行有权宣布贷款提前到期", None),
    ("如果公司未能按期偿还借款，银行有权宣布贷款提前到期", None),
    ("如上述借款到期后公司未能按期还款，出借方有权要求公司承担违约责任", None),
    ("如公司未能按期还款，债权人有权申请冻结公司银行账户", None),
    ("被申请人某某公司名下的银行存款已被法院冻结", "资产冻结"),
    ("被告某某科技公司名下的房产已被法院查封", "资产冻结"),
    ("债务人某某公司的银行账户已被法院冻结", "资产冻结"),
    ("交易对方某某公司的银行账户已被法院冻结", "资产冻结"),
]

# (text, the signal read live, its tier)
LIVE = [
    ("公司的银行账户已被法院冻结", "资产冻结", "高"),
    # the role is the company itself: its own assets (read as another party's before, a silent 低)
    ("被申请人本公司的银行账户已被法院冻结", "资产冻结", "高"),
    ("被申请人即公司的银行账户已被法院冻结", "资产冻结", "高"),
    ("被告本公司名下的房产已被法院查封", "资产冻结", "高"),
    ("被告我公司的银行存款被冻结", "资产冻结", "高"),
    ("被申请人上市公司的银行账户已被冻结", "资产冻结", "高"),
    ("对方本公司账户被冻结", "资产冻结", "高"),
    ("公司银行账户被冻结", "资产冻结", "高"),
    ("某某公司的银行账户已被法院冻结", "资产冻结", "高"),
    ("公司全资子公司某某科技发展有限公司的银行账户已被法院冻结", "资产冻结", "高"),
    ("公司控股子公司某某科技公司的银行账户已被法院冻结", "资产冻结", "高"),
    ("公司与被申请人某某公司的纠纷导致公司银行账户被冻结", "资产冻结", "高"),
    ("被申请人某某公司的银行账户已被法院冻结，公司的基本户也被冻结", "资产冻结", "高"),
    ("原告某某公司申请冻结了公司的银行账户", "资产冻结", "高"),
    ("公司作为被申请人，公司的银行账户已被法院冻结", "资产冻结", "高"),
    ("因公司未偿还到期借款，银行有权宣布贷款提前到期", "债务违约", "高"),
    ("公司未偿还到期借款，银行已宣布贷款提前到期", "债务违约", "高"),
    ("公司逾期未偿还借款，如公司仍未偿还，银行有权宣布贷款提前到期", "债务违约", "高"),
    ("如公司未偿还到期借款，银行有权且已宣布贷款提前到期", "债务违约", "高"),
    ("如前所述，公司未偿还到期借款，银行有权宣布贷款提前到期", "债务违约", "高"),
    ("截至目前公司借款已逾期，银行有权宣布贷款提前到期", "债务违约", "高"),
    ("如公司未偿还到期借款，银行有权宣布贷款提前到期。目前公司借款已逾期", "债务违约", "高"),
]


@pytest.mark.parametrize(("text", "kept"), CALM)
def test_a_right_or_the_other_sides_freeze_is_not_counted(text: str, kept: str | None) -> None:
    hits = read_at(text, None)
    if kept is None:
        assert hits == [], states(hits)
    else:
        assert [(h.name, h.state, h.tier, h.why) for h in hits] == [(kept, "excluded", "低", "他方")]


@pytest.mark.parametrize(("text", "signal", "tier"), LIVE)
def test_the_companys_own_risk_beside_them_stays_live(text: str, signal: str, tier: str) -> None:
    assert_live(text, signal, tier)
