"""A 业绩预告's own figures (预测数值, 上年同期值, 业绩变动幅度) and a forecast of negative net assets are read.

Before (the twentieth session): a 东方财富 export row whose only sign of a loss was 预测数值 -2.0E8 (业绩变动 and
预告类型 empty) came back 低: the pool dropped the three columns as figures no field reads, and the providers never
asked for them; and a forecast line of 预测指标 期末净资产 with a negative figure (the *ST trigger) read nothing. The
pool and the providers now write the figures alike (providers/forecast_words.py), read by the line's metric.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pandas as pd
import pytest

from screening.cli import main
from screening.config import InputSettings
from screening.data.pool import read_pool
from screening.data.pool_rows import join_forecast
from screening.data.providers.akshare_frames import forecasts_of
from screening.data.providers.forecast_words import amount, figure
from screening.data.providers.report_text import Forecast, forecast_sentence
from screening.data.universe import Universe
from screening.models import NOTE_IGNORED, StockInput
from screening.screen.signals import read_signals, text_tier

PROFIT = "归属于上市公司股东的净利润"
NET_ASSETS = "期末净资产"


@pytest.mark.parametrize(("metric", "value", "shown"), [
    (None, -2.0e8, "-2亿元"), (PROFIT, -200000000, "-2亿元"), (None, -5.0e7, "-5,000万元"),  # no invented 0s
    (None, -123456789, "-1.2346亿元"), (None, 1.36e11, "1,360亿元"), (None, -2500, "-2,500元"),
    ("基本每股收益", -0.12, "-0.12元"), ("每股净资产", -0.0005, "-0.0005元"), ("净利润增长率", -35.5, "-35.5"),
])
def test_a_figure_is_written_as_given(metric: str | None, value: float, shown: str) -> None:
    assert figure(metric, value) == shown
    assert amount(-1.5e8) == "-1.5亿元"


def _lines(metric: str | None, value: float | None, last: float | None = None, pct: float | None = None,
           kind: str | None = None, change: str | None = None) -> tuple[str, str]:
    """The pool's line from an export's columns and the provider's from akshare's, bodies compared by the test."""
    values: dict[str, object] = {"forecast_kind": kind, "forecast_change": change, "forecast_metric": metric,
                                 "forecast_value": value, "forecast_last_year": last, "forecast_change_pct": pct,
                                 "notice_date": "2026-10-20"}
    join_forecast(values)
    provider = forecast_sentence(Forecast(period=dt.date(2026, 12, 31), notice_date=dt.date(2026, 10, 20), kind=kind,
                                          content=change, metric=metric, value=value, last_year=last, change_pct=pct))
    return str(values["report_text"]), provider


# (预测指标, 预测数值, 上年同期值, 业绩变动幅度, 预告类型, 业绩变动, the tier the floor reads, the live signals)
CASES = [
    (PROFIT, -2.0e8, None, None, None, None, "中", ["业绩预亏"]),  # the only sign of a loss
    (None, -2.0e8, None, None, None, None, "中", ["业绩预亏"]),  # no 预测指标 column: the profit's
    (PROFIT, -2.0e8, -5.0e7, -300.0, None, None, "高", ["业绩续亏", "业绩预亏"]),
    (PROFIT, -2.0e8, 1.6e9, -112.5, "不确定", None, "中", ["业绩预亏"]),  # after a kind that says nothing
    ("扣除非经常性损益后的净利润", -7.0e7, -5.0e7, -40.0, None, "-8,000万元至-6,000万元", "高",
     ["业绩续亏", "业绩预亏"]),
    ("基本每股收益", -0.12, 0.3, -140.0, None, None, "中", ["业绩预亏"]),
    (PROFIT, 1.5e8, 3.0e8, -50.0, None, None, "中", ["业绩预亏"]),  # a fall of 50%: 预减
    (PROFIT, 1.5e8, 3.0e8, -50.0, "预减", None, "中", ["业绩预亏"]),
    (PROFIT, 2.5e6, -5.0e7, 105.0, None, "-500万元至1,000万元", "中", ["业绩预亏"]),  # may be a loss, never 续亏
    # (the twenty-first session) the midpoint of a range reaching a profit is negative: 预测数值 -250万元 beside
    # 上年同期 -5,000万元 read 续亏 高, where the range alone reads 中; after a kind the range is the next sentence
    (PROFIT, -2.5e6, -5.0e7, 95.0, None, "-1,000万元至500万元", "中", ["业绩预亏"]),
    (PROFIT, -2.5e6, -5.0e7, None, "不确定", "-1,000万元至500万元", "中", ["业绩预亏"]),
    (PROFIT, -2.5e6, -5.0e7, None, "预亏", "预计净利润-1,000万元至500万元", "中", ["业绩预亏"]),
    (PROFIT, -2.5e6, -5.0e7, None, None, "亏损1,000万元至盈利500万元", "中", ["业绩预亏"]),
    (PROFIT, -2.5e6, -5.0e7, None, None, "-1000万~500万", "中", ["业绩预亏"]),
    (PROFIT, -2.5e6, -5.0e7, None, None, "500万元至-1,000万元", "中", ["业绩预亏"]),  # high to low (read 高)
    (PROFIT, -7.0e7, -5.0e7, None, "不确定", "-8,000万元至-6,000万元", "高", ["业绩续亏", "业绩预亏"]),  # certain
    (PROFIT, -7.0e7, -5.0e7, None, "预亏", "-8,000万元至-6,000万元。业绩变动原因：-1,000万元至500万元", "高",
     ["业绩续亏", "业绩预亏"]),
    # not a loss, not a fall
    (PROFIT, 2.0e8, 3.0e8, -33.33, None, None, None, []),
    (PROFIT, 2.0e8, -5.0e7, 500.0, "扭亏", None, None, []),  # last year's loss
    (PROFIT, 2.0e8, -5.0e7, 500.0, None, None, None, []),
    (PROFIT, 1.2e9, 1.0e9, 20.0, "略增", "预计增长20%", None, []),
    ("营业收入", -2.0e8, -5.0e7, -300.0, None, None, None, []),  # a revenue's figure is no loss
    ("营业收入", 1.0e8, 3.0e8, -66.67, None, None, None, []),
    ("净利润增长率", -35.0, 10.0, None, None, None, None, []),  # a rate, no unit invented
    # a forecast of negative net assets: the *ST trigger, named for what it is (业绩续亏 before the twenty-first
    # session)
    (NET_ASSETS, -3.0e7, 2.0e7, None, None, None, "高", ["净资产为负"]),
    ("归属于上市公司股东的净资产", None, None, None, None, "-5,000万元至-3,000万元", "高", ["净资产为负"]),
    (NET_ASSETS, None, None, None, None, "-1,000万元至2,000万元", "高", ["净资产为负"]),  # may be negative
    (NET_ASSETS, None, None, None, None, "预计为负值", "高", ["净资产为负"]),
    (NET_ASSETS, 6.5e7, -2.0e7, None, None, "5,000万元至8,000万元", None, []),  # positive now
    ("净资产收益率", None, None, None, None, "-5%至-3%", None, []),
]


@pytest.mark.parametrize(("metric", "value", "last", "pct", "kind", "change", "tier", "names"), CASES)
def test_the_figures_read_by_the_metric(metric: str | None, value: float | None, last: float | None,
                                        pct: float | None, kind: str | None, change: str | None, tier: str | None,
                                        names: list[str]) -> None:
    pool, provider = _lines(metric, value, last, pct, kind, change)
    assert pool.partition("）：")[2] == provider.partition("）：")[2]  # the two paths write one body
    for text in (pool, provider):
        hits = read_signals(text)
        assert text_tier(hits) == tier, (text, hits)
        assert [h.name for h in hits if h.state == "live"] == names, (text, hits)


@pytest.mark.parametrize(("text", "tier"), [
    ("预计2026年末归属于上市公司股东的净资产为负值。", "高"),  # the text form read so already
    ("期末净资产：-5,000万元至-3,000万元。", "高"),  # a table row
    ("1.归属于上市公司股东的净资产：-0.5亿元至-0.3亿元。", "高"),
    ("预计2026年末归属于上市公司股东的净资产（未经审计）为负值。", "高"),
    ("公司已资不抵债。", "高"),
    ("上年末归属于上市公司股东的净资产：-2,000万元。", None),  # the year before's
    ("期初净资产：-2,000万元。", None),
    ("归属于上市公司股东的净资产：3.2亿元。", None),
    ("业绩预告（2026-10-20公告，预测指标 归属于上市公司股东的净利润）：上年同期 -5,000万元。", None),
    # denied (the twenty-first session: the first and third read 高, 不/并非 inside the row's gap)
    ("预计2026年末归属于上市公司股东的净资产不为负值。", None),
    ("预计2026年末净资产为正值，不会为负。", None),
    ("预计2026年末归属于上市公司股东的净资产并非负值。", None),
    ("预计2026年末归属于上市公司股东的净资产不会为负值。", None),
])
def test_net_assets_stated_negative(text: str, tier: str | None) -> None:
    hits = read_signals(text)
    assert text_tier(hits) == tier, hits
    # named for what it is, the *ST trigger, not 业绩续亏 (the twenty-first session)
    assert [h.name for h in hits if h.state == "live"] == (["净资产为负"] if tier else []), hits


# (the twenty-first session) another party's insolvency is not the company's net assets (控股股东已资不抵债 read
# 净资产为负 高); the *ST profit-and-revenue test is the rule 退市风险警示, not two years' losses (it read 业绩续亏 too)
@pytest.mark.parametrize(("text", "tier", "names"), [
    ("控股股东已资不抵债难以归还占用的全部资金", "高", ["资金占用"]),
    ("公司控股股东已资不抵债。", None, []),
    ("实际控制人资不抵债，其所持股份质押比例较高。", None, []),
    ("被担保方已资不抵债。", None, []),
    ("关联方某某集团有限公司已严重资不抵债。", None, []),
    ("控股股东及公司均已资不抵债。", "高", ["净资产为负"]),  # the company's own too
    ("公司及控股股东均已资不抵债。", "高", ["净资产为负"]),
    ("公司已资不抵债。", "高", ["净资产为负"]),
    # (the twenty-first session, later) a subsidiary's insolvency: its deficit is consolidated, but it says nothing
    # of the group's net assets being negative (the *ST trigger); it read 净资产为负 高
    ("子公司已资不抵债", None, []),
    ("公司全资子公司某某有限公司已资不抵债。", None, []),
    ("参股公司资不抵债。", None, []),
    ("公司及子公司均已资不抵债。", "高", ["净资产为负"]),  # the company's own too
    ("预计2025年度利润总额、净利润或者扣除非经常性损益后的净利润孰低者为负值且营业收入低于3亿元。", "高",
     ["退市风险警示"]),
])
def test_whose_insolvency_and_which_rule(text: str, tier: str | None, names: list[str]) -> None:
    hits = read_signals(text)
    assert text_tier(hits) == tier, hits
    assert [h.name for h in hits if h.state == "live"] == names, hits


def test_a_last_year_figure_alone_is_no_forecast() -> None:
    values: dict[str, object] = {"forecast_last_year": -5.0e7, "forecast_metric": PROFIT, "notice_date": "2026-10-20"}
    join_forecast(values)
    assert "report_text" not in values and "forecast_last_year" not in values


def test_the_provider_reads_the_figures_when_the_frame_has_them() -> None:
    columns = ("股票代码", "预测指标", "业绩变动", "业绩变动原因", "预告类型", "公告日期", "预测数值", "上年同期值",
               "业绩变动幅度")
    frame = pd.DataFrame([("600519", PROFIT, None, None, None, "2026-10-20", -2.0e8, -5.0e7, float("nan"))],
                         columns=columns)
    (got,) = forecasts_of(frame, dt.date(2026, 12, 31), "stock_yjyg_em(20261231)", "akshare").values()
    line = forecast_sentence(got)
    assert line == "业绩预告（2026年年报，2026-10-20公告）：预测数值 -2亿元，上年同期 -5,000万元。"
    assert text_tier(read_signals(line)) == "高"


def test_an_unreadable_figure_is_said_and_the_row_screened(tmp_path: Path) -> None:
    path = tmp_path / "yjyg.csv"
    path.write_text("股票代码,预测指标,业绩变动,预测数值(元),预告类型,公告日期\n"
                    f"600519,{PROFIT},预计亏损,约两亿,首亏,2026-10-20\n", encoding="utf-8-sig")
    pool = read_pool(path, InputSettings())
    (item,) = pool.items
    assert item.stock is not None and "首亏。预计亏损。" in (item.stock.report_text or "")
    assert f"{NOTE_IGNORED}: 预测数值(元) 值 '约两亿': 预测数值(元) 列的值不是数字; 该值未写入业绩预告, 本行照常筛选" \
        in item.stock.notes, item.stock.notes
    assert any("预测数值(元)" in w.message for w in pool.warnings)


def test_an_export_row_whose_only_loss_is_its_figure_is_flagged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    u_path = tmp_path / "u.sqlite"
    universe = Universe.load(u_path)
    universe.update([StockInput(code=c, name=n, pe_ttm=12.0, roe=15.0) for c, n in (
        ("600519.SH", "贵州茅台"), ("000001.SZ", "平安银行"), ("000002.SZ", "万科A"), ("600036.SH", "招商银行"))],
        as_of="2026-12-04")
    universe.save()
    monkeypatch.setenv("SCREENER_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(u_path))
    path = tmp_path / "yjyg.csv"  # akshare stock_yjyg_em's columns, as a user saves them
    path.write_text("序号,股票代码,股票简称,预测指标,业绩变动,预测数值,业绩变动幅度,业绩变动原因,预告类型,上年同期值,公告日期\n"
                    f"1,600519,贵州茅台,{PROFIT},,-2.0E8,,,,,2026-10-20\n"
                    f"2,000001,平安银行,{PROFIT},,-200000000,-300.0,,,-5.0E7,2026-10-20\n"
                    f"3,000002,万科A,{NET_ASSETS},,-3.0E7,,,,2.0E7,2026-10-20\n"
                    f"4,600036,招商银行,{PROFIT},,1.2E9,20.0,,略增,1.0E9,2026-10-20\n", encoding="utf-8-sig")
    assert main(["screen", str(path), "--engine", "rules", "--format", "json"]) == 0
    rows = {r["code"]: r for r in json.loads(capsys.readouterr().out)}
    moutai, pingan, vanke, cmb = (rows[c] for c in ("600519.SH", "000001.SZ", "000002.SZ", "600036.SH"))
    assert moutai["risk_level"] == "中" and moutai["reason"] == "2026-10-20报告: 业绩预亏", moutai
    assert any("业绩预亏" in f and "预测数值 -2亿元" in f for f in moutai["flags"]), moutai["flags"]
    assert pingan["risk_level"] == "高" and "业绩续亏" in pingan["reason"], pingan
    assert vanke["risk_level"] == "高" and any("期末净资产" in f for f in vanke["flags"]), vanke
    assert "净资产为负" in vanke["reason"] and "续亏" not in vanke["reason"], vanke
    assert cmb["risk_level"] == "低" and not [f for f in cmb["flags"] if "业绩" in f], cmb["flags"]
