"""The controller's own 重整/破产 reads 控股股东重整 (中), not the company's 债务违约 (高); one event's effect on
the profit is no 业绩预亏 (the twenty-second session, helper ji)."""

from __future__ import annotations

import pytest

from screening.screen.signals import read_signals


def _live(text: str) -> dict[str, str]:
    return {h.name: h.tier for h in read_signals(text) if h.state == "live"}


@pytest.mark.parametrize("text", [
    "2026-11-20 关于控股股东被法院裁定受理重整申请的公告",
    "2026-11-20 关于控股股东被债权人申请重整的公告",
    "2026-11-20 关于控股股东被申请破产清算的风险提示性公告",
    "2026-11-20 关于控股股东进入破产重整程序的公告",
    "公司控股股东之母公司因债务违约被债权人申请破产重整，可能导致公司控制权发生变化。",
])
def test_the_controllers_insolvency_is_a_middle_risk_not_the_companys_default(text: str):
    assert _live(text) == {"控股股东重整": "中"}


@pytest.mark.parametrize("text", [
    "2026-11-20 关于公司被法院裁定受理重整申请的公告",
    "2026-11-20 关于公司及控股股东被申请重整的公告",
    "控股股东以公司不能清偿到期债务为由向法院申请对公司进行重整。",
])
def test_the_companys_own_restructuring_stays_high(text: str):
    assert _live(text).get("债务违约") == "高"


def test_occupied_funds_the_insolvent_controller_cannot_repay_stay_high():
    assert _live("控股股东已被法院裁定受理破产重整，无力归还占用资金。").get("资金占用") == "高"


@pytest.mark.parametrize("text", [
    "预计本期对公司净利润的影响金额为-500万元至-300万元。",
    "诉讼事项对公司本期净利润的影响为-500万元。",
])
def test_an_events_effect_on_the_profit_is_no_forecast_loss(text: str):
    assert "业绩预亏" not in _live(text)


@pytest.mark.parametrize("text", [
    "本次计提预计对公司净利润的影响为-800万元，公司本期净利润为-300万元。",
    "预计本期净利润为-500万元至-300万元。",
])
def test_the_years_own_loss_beside_it_still_reads(text: str):
    assert _live(text).get("业绩预亏") == "中"


@pytest.mark.parametrize("text", [
    "控股股东重整计划已执行完毕，公司控制权未发生变更。",
    "2026-11-20 关于控股股东破产重整完成暨公司控制权变更的公告",
    "如控股股东被法院裁定破产，公司控制权可能发生变更。",
])
def test_the_controllers_restructuring_ended_or_supposed_reads_nothing(text: str):
    assert _live(text) == {}
