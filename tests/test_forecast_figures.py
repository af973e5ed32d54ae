"""A 业绩预告 whose profit figure is stated negative reads as the loss it is (screen/signal_forecast.py).

Before, a 东方财富 export row with no 预告类型 whose 业绩变动 was a bare range (-8,000万元至-6,000万元) under
预测指标 归属于上市公司股东的净利润 came back 低 without a 业绩预亏 flag: the line the pool joins names the metric
inside the head's brackets, so no row read the figure after it. A growth range, a revenue figure, last year's loss
beside a profit, must not read as a loss; a range crossing zero may be one (中, visible, never 续亏).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pandas as pd
import pytest

from screening.cli import main
from screening.data.pool_rows import join_forecast
from screening.data.providers.akshare_frames import forecasts_of
from screening.data.providers.report_text import Forecast, forecast_sentence
from screening.data.universe import Universe
from screening.models import StockInput
from screening.screen.signals import read_signals, text_tier


def _pool_line(change: str, metric: str | None, kind: str | None = None) -> str:
    values: dict[str, object] = {"forecast_kind": kind, "forecast_change": change, "forecast_metric": metric,
                                 "notice_date": "2026-10-20"}
    join_forecast(values)
    return str(values["report_text"])


def _provider_line(change: str, metric: str | None = None) -> str:
    return forecast_sentence(Forecast(period=dt.date(2026, 9, 30), notice_date=dt.date(2026, 10, 20),
                                      content=change, metric=metric))


PROFIT = "归属于上市公司股东的净利润"
# (业绩变动, 预测指标, the tier the floor reads, the live signals)
CASES = [
    ("-8,000万元至-6,000万元", PROFIT, "中", ["业绩预亏"]),
    ("-8000万~-6000万", "扣除非经常性损益后的净利润", "中", ["业绩预亏"]),
    ("-8000万～-6000万", "扣非净利润", "中", ["业绩预亏"]),
    ("-1.2亿元至-0.8亿元", "净利润", "中", ["业绩预亏"]),
    ("预计净利润-8000万元至-6000万元", PROFIT, "中", ["业绩预亏"]),
    ("预计-8000万元至-6000万元", PROFIT, "中", ["业绩预亏"]),
    ("-8,000万元至-6,000万元", None, "中", ["业绩预亏"]),  # no 预测指标: the profit's forecast
    ("亏损：8,000万元–12,000万元", PROFIT, "中", ["业绩预亏"]),
    ("-0.12元", "基本每股收益", "中", ["业绩预亏"]),  # a loss per share
    ("-500万元至1,000万元", "净利润", "中", ["业绩预亏"]),  # may be a loss: 中, visible
    ("-500万元至1,000万元，上年同期：-5,000万元", "净利润", "中", ["业绩预亏"]),  # …and never 续亏
    ("-8,000万元至-6,000万元，上年同期：-5,000万元", PROFIT, "高", ["业绩续亏", "业绩预亏"]),
    # (the twenty-first session) without the colon the range read 续亏 高; after a ；the year before's loss read nothing
    ("-500万元至1,000万元，上年同期-5,000万元", "净利润", "中", ["业绩预亏"]),
    ("-500万元至1,000万元；上年同期：-5,000万元", "净利润", "中", ["业绩预亏"]),
    ("-8,000万元至-6,000万元；上年同期：-5,000万元", PROFIT, "高", ["业绩续亏", "业绩预亏"]),
    ("-8,000万元至-6,000万元；上年同期-5,000万元", PROFIT, "高", ["业绩续亏", "业绩预亏"]),
    # not a loss
    ("-35%至-20%", PROFIT, None, []),  # a growth range: 预减 territory, read by its own rows
    ("同比下降20%至35%", "净利润", None, []),
    ("-8,000万元至-6,000万元", "营业收入", None, []),  # revenue is never negative: no loss
    ("-500万元", "非经常性损益", None, []),  # a charge, not a loss
    ("1,000万元至2,000万元；上年同期：-5000万元", "净利润", None, []),  # 扭亏: last year's loss
    ("1,000万元至2,000万元，上年同期：-5000万元", "净利润", None, []),
    ("1,000万元-2,000万元", "净利润", None, []),  # a range's dash is no minus
    # (the twenty-first session) 亏损…至盈利… may be a profit: it read 续亏 高 beside last year's loss
    ("亏损1,000万元至盈利500万元，上年同期：-5,000万元", PROFIT, "中", ["业绩预亏"]),
    ("亏损8,000万元至6,000万元，上年同期：-5,000万元", PROFIT, "高", ["业绩续亏", "业绩预亏"]),  # as before
    # (the twenty-first session, later) a range written high to low whose lower bound may be a profit read 续亏 高
    ("500万元至-1,000万元，上年同期：-5,000万元", PROFIT, "中", ["业绩预亏"]),
    ("盈利500万元至亏损1,000万元，上年同期：-5,000万元", PROFIT, "中", ["业绩预亏"]),
    ("-6,000万元至-8,000万元，上年同期：-5,000万元", PROFIT, "高", ["业绩续亏", "业绩预亏"]),  # both bounds losses
    # (the twenty-first session, later) the year before's figure another measure's: it read 续亏 高
    ("-3,000万元，上年同期非经常性损益为-300万元", PROFIT, "中", ["业绩预亏"]),
    ("-3,000万元，上年同期扣除非经常性损益后的净利润为-5,000万元", PROFIT, "高", ["业绩续亏", "业绩预亏"]),
]


@pytest.mark.parametrize(("change", "metric", "tier", "names"), CASES)
@pytest.mark.parametrize("line", [_pool_line, _provider_line])
def test_a_forecast_figure_reads_by_its_metric(line: object, change: str, metric: str | None, tier: str | None,
                                               names: list[str]) -> None:
    text = line(change, metric)  # type: ignore[operator]
    hits = read_signals(text)
    assert text_tier(hits) == tier, (text, hits)
    assert [h.name for h in hits if h.state == "live"] == names, (text, hits)
    assert all(h.matched in text for h in hits)  # the flag quotes the line as written


# (the twenty-first session) a forecast sentence in a report, read by the same rule: 续亏 高 only when this year's loss
# is certain and the year before's stated, across a ；too; a range reaching a profit is a possible loss after a loss,
# 中 and visible (the seed's 高 is a loss in each of two years); a change against last year is no loss of it
SENTENCES = [
    ("预计2026年归母净利润-500万元至1,000万元，上年同期-5,000万元。", "中", ["业绩预亏"]),  # read 高
    ("预计2026年归母净利润-500万元至1,000万元，上年同期为-5,000万元。", "中", ["业绩预亏"]),  # read 高
    ("预计净利润-500万元-1,000万元，上年同期-5,000万元。", "中", ["业绩预亏"]),  # read 高: a range's dash
    ("预计亏损500万元至盈利1,000万元，上年同期亏损3,000万元。", "中", ["业绩预亏"]),  # read 高
    ("预计2026年归母净利润-8,000万元至-6,000万元；上年同期：-5,000万元。", "高", ["业绩续亏", "业绩预亏"]),  # read 中
    ("预计2026年归母净利润-8,000万元至-6,000万元，上年同期：-5,000万元。", "高", ["业绩续亏", "业绩预亏"]),  # read 中
    ("预计2026年度净利润为-8,000万元；上年同期归属于上市公司股东的净利润为-5,000万元。", "高",
     ["业绩续亏", "业绩预亏"]),
    ("预计2026年归母净利润-8,000万元至-6,000万元，上年同期-5,000万元。", "高", ["业绩续亏", "业绩预亏"]),  # as before
    ("预计2026年度净利润为-8,000万元，较上年同期-35%。", "中", ["业绩预亏"]),  # read 高: a change, not a loss
    ("预计2026年度净利润为1,000万元至2,000万元；上年同期：-5,000万元。", None, []),  # 扭亏
    ("预计2026年度净利润为-8,000万元；上年同期：3,000万元。", "中", ["业绩预亏"]),  # 首亏
    # (the twenty-first session) 去年同期 / 上年度 / 上一年度 state the year before as 上年同期 does: the four 高 rows
    # read 中 (the year before's loss unread), the 上年度 turnaround 业绩预亏 中 (last year's loss read as this year's)
    ("预计2026年度净利润为-8,000万元；去年同期：-5,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("预计2026年度净利润为-8,000万元，去年同期-5,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("预计2026年度净利润为-8,000万元；上年度净利润为-5,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("预计2026年度净利润为-8,000万元；上一年度亏损5,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("预计2026年归母净利润-500万元至1,000万元；去年同期：-5,000万元。", "中", ["业绩预亏"]),  # may be a profit
    ("预计2026年度净利润为1,000万元至2,000万元；去年同期：-5,000万元。", None, []),  # 扭亏
    ("预计2026年度净利润为1,000万元至2,000万元；上年度净利润为-5,000万元。", None, []),
    # a year-end's net assets are no year's loss: no 续亏 (净资产为负 reads the figure, as before)
    ("预计2026年度净利润为-8,000万元；上年度末净资产为-2,000万元。", "高", ["净资产为负", "业绩预亏"]),
    ("预计2026年度净利润为-8,000万元，较上年度-35%。", "中", ["业绩预亏"]),  # a change
    # (the twenty-first session, later) a range high to low that may be a profit read 续亏 高; the year before's loss
    # stated first, then this year's certain one, read 业绩预亏 中 (two years' losses: 高)
    ("预计2026年度归母净利润500万元至-1,000万元，上年同期-5,000万元。", "中", ["业绩预亏"]),
    ("预计2026年度净利润盈利500万元至亏损1,000万元，上年同期亏损5,000万元。", "中", ["业绩预亏"]),
    ("上年度净利润为-5,000万元，本年度净利润为-3,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("上年同期亏损5,000万元，本报告期预计亏损3,000万元至4,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("去年同期净利润为-5,000万元，本期净利润预计为-6,000万元至-4,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("2025年度亏损5,000万元，预计2026年度继续亏损。", "高", ["业绩续亏", "业绩预亏"]),  # as before
    ("去年同期净利润为-5,000万元，本期净利润预计为-1,000万元至500万元。", "中", ["业绩预亏"]),  # may be a profit
    ("上年同期净利润为-5,000万元，本期较上年同期-35%。", None, []),  # a change, no loss stated
    ("上年同期亏损5,000万元，本期实现盈利300万元。", None, []),  # 扭亏
    ("上年同期亏损5,000万元，本期非经常性损益为-300万元。", None, []),  # another measure's figure
    ("上年同期非经常性损益为-300万元，本期净利润为-3,000万元。", "中", ["业绩预亏"]),
    # (the twenty-first session, later) this year's loss first, the year before's another measure's figure: read 高;
    # the net profit's (扣除非经常性损益后 too) stays 高; a cause after a figure (资产减值) is no measure's (read 中)
    ("预计2026年度净利润-3,000万元，上年同期非经常性损益为-300万元。", "中", ["业绩预亏"]),
    ("预计2026年度净利润-3,000万元，上年同期经营活动产生的现金流量净额为-300万元。", "中", ["业绩预亏"]),
    ("预计净利润-3,000万元，上年同期-5,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("预计净利润-3,000万元，上年同期扣除非经常性损益后的净利润为-5,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("预计净利润-3,000万元，上年同期扣除非经常性损益的净利润为-5,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("上年同期扣除非经常性损益的净利润为-5,000万元，本期扣除非经常性损益的净利润为-3,000万元。", "高",
     ["业绩续亏", "业绩预亏"]),  # read 中
    ("预计净利润为-8,000万元，上年同期亏损500万元主要系计提资产减值准备所致。", "高", ["业绩续亏", "业绩预亏"]),
    ("上年同期亏损5,000万元，本期亏损800万元主要系计提资产减值准备所致。", "高", ["业绩续亏", "业绩预亏"]),  # read 中
    ("上年同期亏损500万元主要系资产减值，本期亏损800万元。", "高", ["业绩续亏", "业绩预亏"]),  # read 中
    # the year before's figure, ；, this year's: read 中 (the sentences apart); not a change, a profit, another
    # measure, a cause between, a sentence that opens otherwise
    ("去年同期净利润-5,000万元；本期净利润为-3,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("上年同期亏损5,000万元；本报告期预计亏损3,000万元至4,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("上年同期净利润为-5,000万元至-4,000万元;本年度净利润为-3,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("去年同期净利润-5,000万元；本期较上年同期-35%。", None, []),
    ("去年同期净利润-5,000万元；本期实现盈利300万元。", None, []),
    ("去年同期净利润-5,000万元；本期净利润预计为-1,000万元至500万元。", "中", ["业绩预亏"]),
    ("去年同期净利润-5,000万元；本期经营活动产生的现金流量净额为-3,000万元。", None, []),
    ("去年同期非经常性损益为-300万元；本期净利润为-3,000万元。", "中", ["业绩预亏"]),
    # (the twenty-second session) a cause after the year before's figure, and this year opened by the company, are
    # still two years' losses (both read 中 before; the pins said 中 as the sentences were kept apart)
    ("去年同期净利润-5,000万元，主要系商誉减值；本期净利润为-3,000万元。", "高", ["业绩续亏", "业绩预亏", "商誉减值"]),
    ("去年同期净利润-5,000万元；公司本期净利润为-3,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("上年同期净利润-5,000万元，主要系计提资产减值准备；本期预计净利润-3,000万元至-2,000万元。", "高",
     ["业绩续亏", "业绩预亏"]),  # read 中
    ("上年同期净利润-5,000万元，主要系计提资产减值准备；本期预计净利润1,000万元至2,000万元。", None, []),
    # a profit named after another measure's word is the figure's (read 中: 费用, 减值 seen anywhere in the clause)
    ("预计2026年度净利润为-3,000万元，上年同期剔除股份支付费用影响后的净利润为-5,000万元。", "高",
     ["业绩续亏", "业绩预亏"]),
    ("上年同期净利润为-5,000万元，本期计提资产减值准备后净利润预计为-3,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("上年同期计提资产减值后净利润为-5,000万元，本期预计净利润为-3,000万元。", "高", ["业绩续亏", "业绩预亏"]),
    ("上年同期净利润为-5,000万元，本期资产减值损失为-3,000万元。", None, []),  # still another measure's
    # no head, no metric: this period's forecast beside the year before's loss (a straddle read nothing)
    ("上年同期-5,000万元，本期预计500万元至-1,000万元。", "中", ["业绩预亏"]),
    ("本期预计-1,000万元至500万元，上年同期-5,000万元。", "中", ["业绩预亏"]),
    ("上年同期净利润-5,000万元，本期预计500万元至-1,000万元。", "中", ["业绩预亏"]),
    ("本期预计营业收入-1,000万元至500万元。", None, []),
    ("本期预计1,000万元至2,000万元，上年同期-5,000万元。", None, []),
    # another measure's negative figure, this year's, is no loss (read 续亏 高: a growing company's cash flow)
    ("经营活动产生的现金流量净额为-3,000万元，上年同期为-5,000万元。", None, []),
    ("2025年度经营活动产生的现金流量净额为-3.2亿元，2024年度为-1.5亿元。", None, []),
    ("非经常性损益为-300万元，上年同期为-500万元。", None, []),
    ("预计2025年度投资收益为-500万元至-300万元，上年同期-800万元。", None, []),  # read 续亏 高
    ("预计本期诉讼事项对公司利润的影响为-500万元至100万元。", None, []),
    ("预计2025年度基本每股收益为-0.12元至-0.08元，上年同期-0.2元。", "高", ["业绩续亏", "业绩预亏"]),
    ("公司2025年度实现营业收入8亿元、净利润-3,000万元，2024年度净利润-1.5亿元。", "高", ["业绩续亏", "业绩预亏"]),
    # a forecast a correction replaces is not read (read 中: a correction to a profit raised the risk); the
    # corrected figure is, and an 原预计 with no correction after it still is
    ("原预计亏损2,000万元至3,000万元，修正后预计盈利500万元至800万元。", None, []),
    ("原预计亏损2,000万元至3,000万元；修正后预计盈利500万元至800万元。", None, []),
    ("更正前：预计净利润-2,000万元至-1,000万元；更正后：预计净利润500万元至800万元。", None, []),
    ("原预计净利润为-2,000万元至-1,000万元，现修正为500万元至800万元。", None, []),
    ("原预计盈利2,000万元，修正后预计亏损1,000万元至1,500万元。", "中", ["业绩预亏"]),
    ("原预计亏损2,000万元至3,000万元；修正后预计亏损5,000万元至6,000万元，上年同期亏损3,000万元。", "高",
     ["业绩续亏", "业绩预亏"]),
    ("公司原预计2025年度亏损2,000万元，因审计调整，预计亏损金额将扩大。", "中", ["业绩预亏"]),
]


@pytest.mark.parametrize(("text", "tier", "names"), SENTENCES)
def test_a_forecast_sentence_reads_last_year_beside_this_year(text: str, tier: str | None, names: list[str]) -> None:
    hits = read_signals(text)
    assert text_tier(hits) == tier, hits
    assert [h.name for h in hits if h.state == "live"] == names, hits


def test_a_kind_the_row_gives_is_read_as_before() -> None:
    assert text_tier(read_signals(_pool_line("-8,000万元至-6,000万元", PROFIT, "续亏"))) == "高"
    assert text_tier(read_signals(_pool_line("预计增长20%", PROFIT, "略增"))) is None


def test_the_provider_names_a_metric_other_than_the_net_profit() -> None:
    """A stock whose only 业绩预告 row is its revenue's: the line names it, so -8,000万元 is no loss."""
    columns = ("股票代码", "预测指标", "业绩变动", "业绩变动原因", "预告类型", "公告日期")
    frame = pd.DataFrame([("600519", "营业收入", "-8,000万元至-6,000万元", None, None, "2026-10-20"),
                          ("000001", PROFIT, "-8,000万元至-6,000万元", None, None, "2026-10-20")], columns=columns)
    got = forecasts_of(frame, dt.date(2026, 9, 30), "stock_yjyg_em(20260930)", "akshare")
    revenue, profit = forecast_sentence(got["600519.SH"]), forecast_sentence(got["000001.SZ"])
    assert revenue == "业绩预告（2026年三季报，2026-10-20公告，预测指标 营业收入）：-8,000万元至-6,000万元。"
    assert profit == "业绩预告（2026年三季报，2026-10-20公告）：-8,000万元至-6,000万元。"  # as before
    assert text_tier(read_signals(revenue)) is None and text_tier(read_signals(profit)) == "中"


def test_an_export_row_with_a_bare_loss_range_is_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    u_path = tmp_path / "u.sqlite"
    universe = Universe.load(u_path)
    universe.update([StockInput(code="600519.SH", name="贵州茅台", pe_ttm=22.5, roe=34.2),
                     StockInput(code="000001.SZ", name="平安银行", pe_ttm=5.1, roe=20.2)], as_of="2026-12-04")
    universe.save()
    monkeypatch.setenv("SCREENER_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(u_path))
    path = tmp_path / "yjyg.csv"
    path.write_text("股票代码,股票简称,预测指标,业绩变动,预告类型,公告日期\n"
                    f"600519,贵州茅台,{PROFIT},\"-8,000万元至-6,000万元\",,2026-10-20\n"
                    f"000001,平安银行,{PROFIT},-35%至-20%,,2026-10-20\n", encoding="utf-8-sig")
    assert main(["screen", str(path), "--engine", "rules", "--format", "json"]) == 0
    moutai, pingan = json.loads(capsys.readouterr().out)
    assert moutai["risk_level"] == "中" and moutai["reason"] == "2026-10-20报告: 业绩预亏", moutai
    assert any("业绩预亏" in f and "-8,000万元至-6,000万元" in f for f in moutai["flags"]), moutai["flags"]
    assert pingan["risk_level"] == "低" and not [f for f in pingan["flags"] if "业绩" in f], pingan["flags"]
