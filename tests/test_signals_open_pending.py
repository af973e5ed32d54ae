"""Hidden risks of review 9's open list that read nothing (or only 中) where a careful analyst reads 高 (the
seventeenth session), and their calm neighbours.

PENDING: 资金占用 said repaid only in words that do not say it was: an order (证监局责令公司于…前收回, 限其于15日内
归还), a suit or a judgment (请求判令其归还, 法院已判决…全部归还), a decision or a promise (已决定于/已书面保证在/已表态
于…前), money too short (所得款项仅够归还…的一半), a part with a plan for the rest, or a part of the whole (的首期款项,
的过半, 的利息, 的资金占用费, 的第一笔), or a paper about it (的路径作出说明, 的责任未履行) (signal_pending.py,
signal_repaid._NOT_PART). OURS: the company's own trouble that read as another party's: the other side applying to
the court to freeze accounts, the company named with the other side (公司及交易对方…银行账户被冻结), the debtor that
is the company or its subsidiary (债务人某某股份有限公司（本公司）, 子公司（债务人）), a lessee that is the company's
subsidiary, a bill the company raises money to pay, a concert party's shares a lift of the controller's left frozen,
a loan to the controller in breach of the rules. CALM: a repayment done, an order complied with, another party's
own trouble: as they read before.
"""

from __future__ import annotations

import pytest

from tests.signal_checks import assert_live, open_inputs, read_at, states

# (text, the signal read live, the tier)
STANDS = [
    ("证监局责令公司于2027年1月31日前收回被占用资金", "资金占用", "高"),
    ("公司已于2026年11月向控股股东发出通知，限其于15日内归还占用资金", "资金占用", "高"),
    ("公司已起诉控股股东，请求判令其归还占用资金1.5亿元", "资金占用", "高"),
    ("控股股东已经变卖部分资产，但所得款项仅够归还占用资金的一半", "资金占用", "高"),
    ("控股股东已于近日归还占用资金6,000万元，并计划于2027年3月前归还占用的全部资金", "资金占用", "高"),
    ("法院已判决控股股东全部归还占用资金", "资金占用", "高"),
    ("控股股东已决定于2027年6月30日前全部归还占用资金", "资金占用", "高"),
    ("控股股东已书面保证在2027年3月31日前全部归还占用资金", "资金占用", "高"),
    ("控股股东已表态于年底前全部归还占用资金", "资金占用", "高"),
    ("控股股东已以现金方式归还占用的全部资金的首期款项", "资金占用", "高"),
    ("控股股东已于2026年12月归还占用的全部资金的过半", "资金占用", "高"),
    ("控股股东已以现金方式归还占用的全部资金的利息", "资金占用", "高"),
    ("控股股东已以现金方式归还占用的全部资金的资金占用费", "资金占用", "高"),
    ("控股股东已以现金方式归还占用的全部资金的第一笔", "资金占用", "高"),
    ("控股股东已按照要求归还占用的全部资金的路径作出说明", "资金占用", "高"),
    ("控股股东已以现金方式归还占用的全部资金的责任未履行", "资金占用", "高"),
    ("公司违规向控股股东、实际控制人拆借资金被深交所出具监管函，截至目前尚未归还", "资金占用", "高"),
    ("交易对方某某有限公司申请法院冻结了银行账户2,000万元", "资产冻结", "高"),
    ("2026-11-20 关于公司及交易对方某某有限公司银行账户被冻结的公告", "资产冻结", "高"),
    ("债权人起诉债务人某某股份有限公司（本公司）拖欠借款本息", "债务违约", "高"),
    ("子公司（债务人）拖欠某某资产管理公司借款本息8,000万元", "债务违约", "高"),
    ("某某融资租赁公司诉称承租人（公司子公司）拖欠租金", "债务违约", "高"),
    ("因客户资金紧张导致汇票到期未能兑付，公司正积极筹措资金", "债务违约", "高"),
    ("2026-12-01 关于控股股东所持股份解除司法冻结的公告，2026-11-20 关于控股股东及其一致行动人张某某所持股份被司法"
     "冻结的公告", "股份冻结", "中"),
    ("2026-12-01 关于控股股东某某控股集团有限公司所持股份解除司法冻结的公告，2026-11-20 关于控股股东某某控股集团有限"
     "公司及其一致行动人所持股份被司法冻结的公告", "股份冻结", "中"),
]

# (text, the state its one hit keeps, or None for no hit at all)
CALM = [
    ("控股股东已归还全部占用资金", "cleared"),
    ("控股股东已按照法院判决归还占用的全部资金", "cleared"),
    ("控股股东已根据法院判决全部归还占用资金", "cleared"),
    ("公司已起诉控股股东，请求判令其归还占用资金，控股股东已于2026年12月全部归还", "cleared"),
    ("法院判决控股股东归还占用资金，控股股东已按照判决全部归还", "cleared"),
    ("证监局责令公司收回被占用资金，公司已全部收回", "cleared"),
    ("控股股东已在限期内归还占用的全部资金", "cleared"),
    ("控股股东已于2026年12月归还占用的全部资金及利息", "cleared"),
    ("控股股东已变卖部分资产，所得款项已全部用于归还占用资金", "cleared"),
    ("公司已于2026年11月向控股股东发出通知，控股股东已于15日内全部归还占用资金", "cleared"),
    ("公司违规向控股股东拆借资金，已于2026年11月全部归还", "cleared"),
    ("公司向控股股东拆借资金用于补充流动资金", None),
    ("交易对方某某有限公司申请法院冻结了其名下银行账户", None),
    ("公司申请法院冻结了银行账户2,000万元", None),
    ("对方某某有限公司名下银行账户被法院冻结", "excluded"),
    ("2026-11-20 关于交易对方某某有限公司银行账户被冻结的公告", "excluded"),
    ("公司起诉债务人某某有限公司拖欠借款本息", "excluded"),
    ("债务人某某有限公司（公司客户）拖欠借款本息", "excluded"),
    ("子公司某某融资租赁公司诉称承租人某某有限公司拖欠租金", "excluded"),
    ("因客户资金紧张导致汇票到期未能兑付，公司已计提坏账准备", "excluded"),
    ("2026-12-01 关于控股股东及其一致行动人所持股份解除司法冻结的公告，2026-11-20 关于控股股东及其一致行动人张某某"
     "所持股份被司法冻结的公告", "resolved"),
    ("2026-12-01 关于控股股东所持股份解除司法冻结的公告，2026-11-20 关于控股股东所持股份被司法冻结的公告", "resolved"),
]


@pytest.mark.parametrize(("text", "signal", "tier"), STANDS)
def test_a_hidden_risk_now_reads_live_at_its_tier(text: str, signal: str, tier: str) -> None:
    assert_live(text, signal, tier)


@pytest.mark.parametrize(("text", "state"), CALM)
def test_the_neighbours_stay_as_they_read(text: str, state: str | None) -> None:
    hits = read_at(text, None)
    assert [h.state for h in hits] == ([state] if state else []), states(hits)


def test_the_fixed_lines_left_the_open_list() -> None:
    inputs = open_inputs()
    assert not inputs & {text for text, _, _ in STANDS}
