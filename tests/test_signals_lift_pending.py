"""A lift of a freeze planned, being negotiated, being processed or applied for, and the freeze it leaves in force (the
eighteenth session).

Review 9's open list showed four statements of a freeze still in force read as nothing: the lift's words were read as
the end (公司拟通过提供担保的方式解除银行账户冻结, 公司正与申请人协商解除银行账户冻结事宜, 公司正在办理银行账户解除
冻结手续 for the company's accounts: 资产冻结 高; 控股股东正在积极协商解除股份冻结: 股份冻结 中). A word of a lift not
yet made up to 16 characters before it in the clause, with no 已 between (拟, 计划, 正在, 正与, 将, 待, 申请, 请求),
a lift negotiated as a matter still open (协商解除…冻结事宜) or asked for (解除…冻结的申请) no longer blank the
freeze (signal_freeze._SOUGHT, for both rows; SHARES_UNLIFTED reads 股份…解除冻结 left unblanked). A lift done stays
done (已解除, 已办理完毕解除冻结手续, 经协商已解除, 协商解除了, 已通过提供担保的方式解除), and a lift negotiated
whose next clause says it is over (公司积极协商解除银行账户冻结，目前已全部解除, on the same open list as a false
alarm) is now cleared by that clause (FROZEN_CLEARS).
"""

from __future__ import annotations

import pytest

from tests.signal_checks import assert_live, open_inputs, read_at

# the four open-list lines and their twins: (text, the signal read live, its tier)
LIVE = [
    ("公司拟通过提供担保的方式解除银行账户冻结。", "资产冻结", "高"),
    ("公司正与申请人协商解除银行账户冻结事宜。", "资产冻结", "高"),
    ("公司正在办理银行账户解除冻结手续。", "资产冻结", "高"),
    ("控股股东正在积极协商解除股份冻结。", "股份冻结", "中"),
    ("公司计划通过提供担保的方式解除银行账户冻结。", "资产冻结", "高"),
    ("公司正在协商解除银行账户冻结。", "资产冻结", "高"),
    ("公司正在申请解除银行账户冻结。", "资产冻结", "高"),
    ("公司已申请解除银行账户冻结。", "资产冻结", "高"),
    ("公司已向法院申请解除银行账户冻结。", "资产冻结", "高"),
    ("公司申请法院解除银行账户冻结。", "资产冻结", "高"),
    ("公司已向法院提出解除银行账户冻结的申请。", "资产冻结", "高"),
    ("公司待提供担保后解除银行账户冻结。", "资产冻结", "高"),
    ("公司待法院裁定后即可解除银行账户冻结。", "资产冻结", "高"),
    ("公司银行账户将于近日解除冻结。", "资产冻结", "高"),
    ("公司拟于近期解除银行账户冻结。", "资产冻结", "高"),
    ("公司正在积极与申请人沟通，拟通过和解方式解除银行账户冻结。", "资产冻结", "高"),
    ("公司与申请人协商解除银行账户冻结事宜。", "资产冻结", "高"),
    ("公司积极协商解除银行账户冻结，目前已部分解除。", "资产冻结", "高"),
    ("公司积极协商解除银行账户冻结，目前尚未解除。", "资产冻结", "高"),
    ("公司银行账户被冻结，目前已全部解除，但基本户又被冻结。", "资产冻结", "高"),
    ("公司正在协商解除子公司股权冻结。", "资产冻结", "高"),
    ("公司正与申请人协商解除股份冻结事宜。", "股份冻结", "中"),
    ("控股股东拟通过提供担保的方式解除股份冻结。", "股份冻结", "中"),
    ("控股股东正在办理股份解除冻结手续。", "股份冻结", "中"),
    ("控股股东正在协商解除股份冻结。", "股份冻结", "中"),
    ("控股股东计划解除股份冻结。", "股份冻结", "中"),
    ("控股股东正在申请解除股份冻结。", "股份冻结", "中"),
    ("控股股东已申请解除股份冻结。", "股份冻结", "中"),
    ("控股股东待偿还债务后解除股份冻结。", "股份冻结", "中"),
    ("控股股东正在与债权人协商解除股份冻结事宜。", "股份冻结", "中"),
    ("控股股东计划通过偿还借款解除股份冻结。", "股份冻结", "中"),
]

# a lift done, another party's, a form's question: (text, tier)
DONE = [
    ("公司银行账户冻结已解除。", None),
    ("公司已办理完毕银行账户解除冻结手续。", None),
    ("公司已办理完毕解除冻结手续。", None),
    ("公司已于2026年11月30日办理完毕银行账户解除冻结手续。", None),
    ("经协商，公司银行账户已解除冻结。", None),
    ("经协商已解除银行账户冻结。", None),
    ("公司与申请人协商解除了银行账户冻结。", None),
    ("公司已通过提供担保的方式解除银行账户冻结。", None),
    ("公司通过提供担保的方式解除了银行账户冻结。", None),
    ("公司积极协商解除银行账户冻结，目前已全部解除。", None),
    ("公司与申请人协商解除银行账户冻结事宜，目前已全部解除。", None),
    ("公司银行账户被冻结，目前已全部解除。", None),
    ("公司拟通过提供担保的方式解除银行账户冻结，目前银行账户已全部解除冻结。", None),
    ("公司计划提供担保，法院已解除银行账户冻结。", None),
    ("法院已将公司银行账户解除冻结。", None),
    ("经公司申请，法院已解除银行账户冻结。", None),
    ("公司申请人民法院解除了银行账户冻结。", None),
    ("公司已与申请人协商解除银行账户冻结。", None),
    ("公司已与申请人达成和解，银行账户已解除冻结。", None),
    ("公司账户已解除冻结，公司将继续推进和解。", None),
    ("申请执行人已同意解除公司银行账户冻结。", None),
    ("2026-12-01 关于公司银行账户解除冻结的公告", None),
    ("控股股东已解除股份冻结。", None),
    ("控股股东经协商已解除股份冻结。", None),
    ("控股股东与申请人协商解除了股份冻结。", None),
    ("控股股东已通过提供担保的方式解除股份冻结。", None),
    ("控股股东所持股份已解除冻结。", None),
    ("控股股东所持股份冻结已全部解除。", None),
    ("控股股东股份已于2026年11月解除冻结。", None),
    ("公司控股股东拟通过提供担保的方式解除股份冻结，目前已全部解除。", None),
    ("控股股东所持股份是否已解除冻结：是", None),
    ("2026-12-01 关于控股股东股份解除冻结的公告", None),
    ("客户拟通过提供担保的方式解除其银行账户冻结。", None),
    ("交易对方正在办理银行账户解除冻结手续。", None),
    ("公司银行账户被冻结，相关担保已全部解除。", "高"),
]


@pytest.mark.parametrize(("text", "signal", "tier"), LIVE)
def test_a_lift_not_yet_made_leaves_the_freeze_live(text: str, signal: str, tier: str) -> None:
    assert_live(text, signal, tier)


@pytest.mark.parametrize(("text", "tier"), DONE)
def test_a_lift_done_stays_done(text: str, tier: str | None) -> None:
    read_at(text, tier)


def test_none_of_them_is_on_the_open_list() -> None:
    assert not open_inputs() & ({t for t, _, _ in LIVE} | {t for t, _ in DONE})
