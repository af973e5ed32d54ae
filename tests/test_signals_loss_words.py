"""A loss stated plainly, and two fiscal years' losses stated with their years (the eighteenth session's tester,
findings F2, F3 and F7; screen/signal_loss.py).

F2: 公司2025年度亏损3.2亿元 / 本年度亏损3.2亿元 / 公司2025年度出现亏损 read nothing, while the same fact worded
净利润-3.2亿元 read 业绩预亏 (中): a hidden risk. F3: 2025年度…-3.2亿元，2024年度…-1.1亿元 read one year's 预亏
(中), where two consecutive annual losses are 续亏 (高), as 上年同期亏损 already was. Their twins stay as they
read: another party's loss, accounting words (亏损合同, 弥补亏损, 可抵扣亏损), hypotheticals, a risk factor, a
turnaround (last year's loss beside this year's profit), years not consecutive (one year's loss: 中).
F7: the full-width ％ reads as % (占公司净资产12％ is over 10% of net assets).
"""

from __future__ import annotations

import pytest

from tests.signal_checks import assert_live, open_inputs, read_at

# the tester's inputs and their realistic neighbours: the company's own loss of the current period, 中
ONE_YEAR = [
    "公司2025年度亏损3.2亿元。",
    "2025年公司亏损3.2亿元。",
    "本年度亏损3.2亿元。",
    "公司2025年前三季度亏损3.2亿元。",
    "公司2025年度出现亏损。",
    "公司2025年营业收入12.5亿元，净利润由盈转亏，亏损3.2亿元。",
    "受行业下行影响，公司2025年度亏损3.2亿元。",
    "2025年度，公司亏损3.2亿元。",
    "报告期内，公司实现营业收入12亿元，亏损3.2亿元。",
    "公司2025年度营业收入12亿元，同比下降30%，亏损3.2亿元。",
    "公司2025年上半年亏损5000万元。",
    "公司2025年一季度亏损3000万元。",
    "集团2025年度录得亏损3.2亿元。",
    "公司2025年度亏损额为3.2亿元。",
    "今年公司亏损3.2亿元。",
    # one year's loss beside the other's profit: a first loss (首亏), not 续亏
    "公司2025年度亏损3.2亿元，2024年度盈利1亿元。",
    "2025年度、2024年度归母净利润分别为-3.2亿元、1.1亿元。",
    "公司2025年度亏损3.2亿元（上年同期盈利1.1亿元）。",
    # years not consecutive: each a year's loss
    "公司2025年度亏损3.2亿元，2023年度亏损1.1亿元。",
    "公司2023年度亏损0.5亿元，2024年度盈利1亿元，2025年度亏损3.2亿元。",
    # last year's loss with this year's profit denied or only aimed at: the loss stands
    "公司2024年度亏损1.1亿元，2025年度仍未扭亏。",
    "公司2024年度亏损1.1亿元，2025年度未能实现盈利。",
    "公司2024年度亏损1.1亿元，2025年度无法实现盈利。",
    "公司2024年度亏损1.1亿元，2025年度力争扭亏。",
    "公司2024年度亏损1.1亿元，2025年度盈利能力改善。",
]

# two consecutive fiscal years' losses, each stated with its year: 续亏, 高
TWO_YEARS = [
    "公司2025年度归母净利润为负，2024年度亦为负。",
    "公司2025年度净利润-3.2亿元，2024年度净利润-1.1亿元。",
    "公司2025年度、2024年度归母净利润分别为-3.2亿元、-1.1亿元。",
    "2025年度、2024年度归母净利润分别为-3.2亿元、-1.1亿元。",
    "公司2025年度亏损3.2亿元，2024年度亏损1.1亿元。",
    "2024年度、2025年度归母净利润分别为-1.1亿元、-3.2亿元。",
    "2025年度、2024年度公司分别亏损3.2亿元、1.1亿元。",
    "公司2025年度亏损3.2亿元，2024年度亦亏损。",
    "公司2024年度亏损1.1亿元，2025年度继续亏损3.2亿元。",
    "公司2024年度亏损1.1亿元，2025年度亏损扩大至3.2亿元。",
    "公司2025年度亏损3.2亿元，2024年度归母净利润为-1.1亿元。",
    "公司2023年度、2024年度、2025年度归母净利润分别为-0.5亿元、-1.1亿元、-3.2亿元。",
    "公司2025年度亏损3.2亿元，2024年度亏损1.1亿元，2023年度盈利0.5亿元。",
    "报告期内公司亏损3.2亿元，上年同期亏损1.1亿元。",  # the control that read so before
]

# look-alikes that state no loss of the company's current period: nothing read
NONE = [
    "公司2025年度扭亏为盈。",
    "公司2024年度亏损1.1亿元，2025年度实现盈利2亿元。",
    "公司2024年度亏损1.1亿元，2025年度盈利2亿元。",
    "公司2024年度亏损1.1亿元，2025年度归母净利润为2亿元。",
    "公司2025年度盈利2亿元，2024年度亏损1.1亿元。",
    "公司2024年度亏损1.1亿元，2025年度扭亏为盈。",
    "2024年度公司净亏损为1.5亿元，2025年度预计扭亏为盈",  # review 9's open list: read 中 before
    "上年公司亏损1.1亿元，本年实现净利润2亿元。",
    "亏损的子公司已全部处置。",
    "计提亏损合同准备3000万元。",
    "公司2025年度计提亏损合同准备3000万元。",
    "弥补以前年度亏损。",
    "公司2025年度弥补以前年度亏损1亿元。",
    "未弥补亏损达到实收股本总额三分之一。",
    "2025年度可抵扣亏损3.2亿元，2024年度可抵扣亏损1.1亿元。",
    "2025年度公司弥补亏损1亿元，2024年度弥补亏损0.5亿元。",
    "公司2025年度亏损合同损失3.2亿元，2024年度亏损合同损失1.1亿元。",
    "汇兑损失3000万元。",
    "公司2025年度投资亏损3000万元。",
    "若行业持续下行，公司可能出现亏损。",
    "若公司2025年度亏损，将触及退市标准。",
    "如公司2025年度出现亏损，公司将采取措施。",
    "公司2025年度可能出现亏损。",
    "公司存在亏损风险。",
    "公司2025年度亏损风险较大。",
    "公司2025年度未出现亏损。",
    "公司2025年度亏损的主要原因是计提减值。",
    "标的公司2025年度亏损3.2亿元。",
    "参股公司2025年度亏损3.2亿元。",
    "子公司2025年度亏损3.2亿元。",
    "公司子公司2025年度亏损3.2亿元。",
    "公司持有的参股公司2025年度亏损3.2亿元。",
    "2025年度，标的公司亏损3.2亿元。",
    "2025年度标的公司营业收入1亿元，亏损3.2亿元。",
    "标的公司2025年度亏损3.2亿元，2024年度亏损1.1亿元。",
    "子公司2025年度亏损3.2亿元，2024年度亏损1.1亿元。",
    "参股公司2025年度、2024年度分别亏损3.2亿元、1.1亿元。",
    "公司2025年度营业收入12亿元，亏损客户减少。",
    "2025年度，公司对亏损子公司计提减值准备1亿元。",
    "公司2025年第三季度亏损3000万元，前三季度实现净利润2亿元。",  # one quarter of a profitable nine months
]


@pytest.mark.parametrize("text", ONE_YEAR)
def test_a_loss_stated_plainly_reads_a_years_loss(text: str) -> None:
    hits = read_at(text, "中")
    assert [(h.name, h.state) for h in hits if h.tier == "中"] == [("业绩预亏", "live")]


@pytest.mark.parametrize("text", TWO_YEARS)
def test_two_consecutive_years_losses_read_continued_loss(text: str) -> None:
    assert_live(text, "业绩续亏", "高")


@pytest.mark.parametrize("text", NONE)
def test_look_alikes_read_no_loss(text: str) -> None:
    hits = read_at(text, None)
    assert all(h.state != "live" for h in hits), hits


def test_another_partys_years_are_kept_as_theirs() -> None:
    hits = read_at("交易对方2025年度亏损3.2亿元，2024年度亏损1.1亿元。", None)
    assert [(h.name, h.state) for h in hits] == [("业绩预亏", "excluded")]


@pytest.mark.parametrize("pct", ["%", "％"])
def test_a_full_width_percent_reads_as_a_percent(pct: str) -> None:
    assert_live(f"公司作为被告的诉讼涉案金额占公司净资产12{pct}。", "重大诉讼(超净资产10%)", "高")
    assert_live(f"控股股东累计质押股份占其所持股份的86{pct}。", "质押风险", "中")


def test_the_fixed_line_left_the_open_list() -> None:
    assert not open_inputs() & {*ONE_YEAR, *TWO_YEARS, *NONE}
