"""A repayment of part of a fund occupation, or one only planned, leaves it live (the seventeenth session).

These read 资金占用 cleared before, so the row was not 高: an amount repaid with no 全部/全额
(控股股东已归还占用资金1亿元, 已收回占用资金人民币1亿元: signal_repaid.REPAID's loose 归还/收回…占用资金 entry
may no longer be followed by an amount or a share), a part of the whole (已归还全部占用资金中的1亿元,
全部占用资金的一半: signal_repaid._ELSE and that entry's look-ahead), a plan (控股股东将代为归还:
signal_words.PLANNED's 将代为) and another debt recovered (已全部收回应收账款: signal_repaid._ELSE).
The whole repaid (已归还全部占用资金, 已全部归还, 归还的全部占用资金2.3亿元) still clears it. An amount equal
to the amount occupied (占用2亿元…已归还占用资金2亿元) now reads live: a false alarm, not a hidden risk.
"""

from __future__ import annotations

import pytest

from tests.signal_checks import read_at, states

P = "控股股东占用公司资金2亿元，"

STANDS = [
    # the brief's five
    P + "控股股东已归还占用资金1亿元",
    P + "已收回占用资金1亿元",
    P + "控股股东将代为归还全部占用资金",
    P + "已全部收回应收账款",
    P + "控股股东已归还全部占用资金中的1亿元",
    # near neighbours
    P + "控股股东已收回占用资金1亿元",
    P + "已收回占用资金人民币1亿元",
    P + "控股股东已归还占用资金约1亿元",
    P + "控股股东已归还占用资金的一半",
    P + "控股股东已归还全部占用资金的一半",
    P + "控股股东已全部归还占用资金中的1亿元",
    P + "控股股东已归还全部非经营性占用资金中的1亿元",
    P + "控股股东已归还占用资金1亿元及全部利息",
    P + "实际控制人将代为归还占用资金",
    P + "控股股东将代其归还全部占用资金",
    P + "已收回全部应收账款",
    P + "已全部收回货款",
]

CLEARED = [
    P + "控股股东已归还全部占用资金",
    P + "已全部归还",
    P + "控股股东已归还全部占用资金及利息",
    P + "控股股东已归还全部非经营性占用资金",
    P + "控股股东已归还全部占用资金2亿元",
    P + "控股股东已归还占用资金",
    P + "已收回占用资金",
    P + "控股股东已归还占用的资金",
    P + "公司已收到控股股东归还的全部占用资金2亿元",
    "公司已收到控股股东归还的全部占用资金2.3亿元",
    "控股股东已履行承诺，于2026年11月15日归还全部非经营性占用资金。",
    "资金占用方已按照决定书要求归还占用资金本金及利息",
]


@pytest.mark.parametrize("text", STANDS)
def test_a_part_a_plan_or_another_debt_leaves_the_occupation_live(text: str) -> None:
    hits = read_at(text, "高")
    assert states(hits) == [("资金占用", "live")]


@pytest.mark.parametrize("text", CLEARED)
def test_the_whole_repaid_still_clears_it(text: str) -> None:
    hits = read_at(text, None)
    assert states(hits) == [("资金占用", "cleared")]
