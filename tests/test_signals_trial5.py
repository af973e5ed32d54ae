"""A fifth trial: the fourth trial's rules checked for what they broke, both directions.

CAME: good news that came, with a word elsewhere in its sentence that only looks like "not yet" or "in part"
(其中 giving a breakdown, 拟 for another matter after 暨, 前次 naming the same matter, 履行承诺, 在…督促下, 经…努力).
HIDDEN: risks the new rules hid: a checkbox about another heading (…□适用√不适用 after a stated risk, or a ticked
适用), a denial cut at 应披露但未披露 / 包括但不限于 / 暨, another party's good news after a contrast, a plan before 但.
"""

from __future__ import annotations

import pytest

from screening.screen.signals import read_signals, text_tier

CAME = [
    "控股股东已归还全部占用资金2.35亿元，其中本金2.1亿元，利息0.25亿元。",
    "重大诉讼已全部结案，其中公司胜诉2起、和解1起。",
    "公司拟于2026年12月召开临时股东大会，控股股东已归还全部占用资金。",
    "2026-04-30 关于公司股票被实施退市风险警示的公告；2026-11-20 关于拟变更证券简称暨公司股票撤销退市风险警示的公告",
    "2026-04-30 关于收到中国证监会立案告知书的公告；2026-11-20 关于前次立案调查事项收到结案通知书的公告",
    "公司前次收到的立案告知书所涉事项已于2026年11月结案。",
    "控股股东已履行承诺，于2026年11月15日归还全部非经营性占用资金。",
    "在公司董事会的督促下，控股股东已归还全部占用资金。",
    "经公司努力，触及退市风险警示的情形已消除，公司股票已摘帽。",
    "公司实际控制人此前无法履职，现已恢复履职。",
    "控股股东已将占用资金全部归还。",
    "控股股东已于2026年11月18日将占用资金全部归还，公司督促其进一步规范资金往来。",
    "公司部分董事对违规担保事项负有责任，目前违规担保已全部解除。",
    "2026-04-30 关于控股股东所持股份被司法冻结的公告；"
    "2026-11-20 关于控股股东所持股份全部解除司法冻结（其中限售股5000万股）的公告",
    "减持期间届满，股东李某未以任何方式减持公司股份。",
]

HIDDEN = [
    ("报告期内公司存在为控股股东违规担保的情形，涉及金额2亿元，"
     "控股股东及其关联方非经营性占用资金情况□适用√不适用", "高"),
    ("违规对外担保情况 √适用 □不适用 单位：元 担保对象 控股股东 违规担保金额 200,000,000 "
     "其他违规担保情况 □适用 √不适用", "高"),
    ("公司因涉嫌信息披露违法违规被中国证监会立案调查，破产重整相关事项□适用√不适用", "高"),
    ("公司董事长被留置，公司控股股东、实际控制人是否发生变更□是√否", "高"),
    ("截至目前公司尚未收到中国证监会的结论性意见，但公司董事长已收到《结案通知书》，公司立案调查仍在进行中。", "高"),
    ("公司尚未收到结案通知书，不过公司董事长已收到结案通知书，公司仍处于被立案调查阶段。", "高"),
    ("公司董事已恢复履职，实际控制人仍处于留置状态。", "高"),
    ("控股股东承诺在2026年12月31日前，但最迟不晚于2027年3月31日归还全部占用资金。", "高"),
    ("公司将督促控股股东尽快归还，但具体归还占用资金的时间尚不确定。", "高"),
    ("这不是公司首次收到中国证监会立案告知书。", "高"),
    ("公司作为被告的另一案件尚未判决，其他案件均已和解。", "中"),
]

DENIED = [
    "公司不存在应披露但未披露的重大诉讼、仲裁事项。",
    "公司不存在包括但不限于违规担保、资金占用等情形。",
    "公司不存在违规担保暨资金占用情形。",
    "公司不存在在未经董事会审议的情况下违规对外提供担保的情形。",
    "违规对外担保情况□适用√不适用",
    "公司无形资产未发生减值。",
]


@pytest.mark.parametrize("text", CAME)
def test_good_news_that_came_lifts_the_risk(text: str) -> None:
    assert text_tier(read_signals(text)) is None, read_signals(text)


@pytest.mark.parametrize(("text", "tier"), HIDDEN)
def test_a_stated_risk_is_not_hidden_by_another_clause(text: str, tier: str) -> None:
    assert text_tier(read_signals(text)) == tier, read_signals(text)


@pytest.mark.parametrize("text", DENIED)
def test_a_denial_still_denies(text: str) -> None:
    assert text_tier(read_signals(text)) is None, read_signals(text)
