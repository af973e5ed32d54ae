"""Row flags judged like with like: annual figures age by the annual report deadline, quarterly ones by the next
quarter's; the composed text's quarter ROE is not a contradiction of the annual ROE, while a text stating another
ROE for the same period still is; and the digest shows each listed row's doubt and stale flags, short, in chat.

The trial this guards (2026-12-05): a fresh refresh flagged 4,953 of 5,000 rows 数据过期 (FY2025 ROE "stale" after
2026-04-30) and 4,534 数据存疑 (the text's Q3 cumulative ROE against the annual ROE), and the whole-market digest
showed neither the stale flags nor any flag in its md/html lists.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.freshness import FLAG_STALE, stale_notes
from screening.data.providers.fundamentals import PeriodFigures
from screening.data.providers.report_text import compose_report_text
from screening.data.universe import Record, Universe, UniverseInfo
from screening.digest.build import make_digest
from screening.digest.render import render_json, render_markdown, render_telegram
from screening.models import StockInput
from screening.screen.rules import data_doubts

D = dt.date
TODAY = D(2026, 12, 5)


def fiscal(roe: str, y1: str, y2: str, eps: str) -> dict[str, str]:
    return {"roe": roe, "net_profit_y1": y1, "net_profit_y2": y2, "eps": eps, "report_date": eps}


# ---- freshness: which deadline each figure keeps --------------------------------------------------------------

def test_a_fresh_refresh_after_q3_is_not_stale() -> None:
    """FY2025's ROE and net profits are current until FY2026's report is due (2027-04-30); the Q3 EPS until the
    annual one is due."""
    assert stale_notes(fiscal("2025-12-31", "2025-12-31", "2024-12-31", "2026-09-30"), TODAY, 3) == []
    assert stale_notes(fiscal("2025-12-31", "2025-12-31", "2024-12-31", "2026-09-30"), D(2027, 4, 30), 3) == []


def test_annual_figures_are_stale_once_the_next_annual_report_is_due() -> None:
    notes = stale_notes(fiscal("2024-12-31", "2024-12-31", "2023-12-31", "2026-09-30"), TODAY, 3)
    assert notes == [f"{FLAG_STALE}: 财报 ROE, 净利润 为 2024-12-31 报告期; 上年净利润 为 2023-12-31 报告期 "
                     "(2025年年报应于 2026-04-30 前披露)"]
    # before that deadline FY2024 is still the last annual report every company must have published
    assert stale_notes(fiscal("2024-12-31", "2024-12-31", "2023-12-31", "2025-12-31"), D(2026, 4, 30), 3) == []


def test_the_previous_year_ages_with_the_year_after_it() -> None:
    """net_profit_y2 is the year before y1: FY2024 beside FY2025 is current; FY2023 beside FY2025 is not."""
    assert stale_notes({"net_profit_y2": "2024-12-31"}, TODAY, 3) == []
    assert stale_notes({"net_profit_y2": "2023-12-31"}, TODAY, 3) == [
        f"{FLAG_STALE}: 财报 上年净利润 为 2023-12-31 报告期 (2025年年报应于 2026-04-30 前披露)"]


@pytest.mark.parametrize(("period", "today", "stale"), [
    ("2026-06-30", D(2026, 10, 31), False), ("2026-06-30", D(2026, 11, 1), True),  # Q3 due 10-31
    ("2026-03-31", D(2026, 9, 1), True), ("2025-12-31", D(2026, 5, 1), True),  # H1 08-31, Q1 04-30
    ("2026-09-30", D(2027, 4, 30), False), ("2026-09-30", D(2027, 5, 1), True),  # the annual report 04-30
])
def test_quarterly_figures_age_by_the_next_quarters_report(period: str, today: dt.date, stale: bool) -> None:
    notes = stale_notes({"eps": period, "report_date": period}, today, 3)
    assert bool(notes) is stale
    if stale:
        assert notes[0].startswith(f"{FLAG_STALE}: 财报 EPS, 报告期 为 {period} 报告期 (")


def test_an_import_day_is_no_report_period() -> None:
    assert stale_notes({"roe": "2025-11-20", "eps": "2025-11-20"}, TODAY, 3) == []


# ---- data_doubts: the text's ROE against the data's of the same period ---------------------------------------

def figures(period: dt.date, roe: float) -> PeriodFigures:
    return PeriodFigures(period=period, source="akshare:stock_yjbb_em", net_profit=1e8, roe=roe,
                         notice_date=period + dt.timedelta(days=25))


def universe_stock(roe: float, text: str | None, roe_period: str = "2025-12-31") -> StockInput:
    return StockInput(code="600001.SH", name="测试", roe=roe, pe_ttm=20.0, report_text=text,
                      report_date="2026-09-30",
                      sources={"roe": f"universe:akshare@{roe_period}", "report_date": "universe:akshare@2026-09-30"})


def test_the_composed_quarter_roe_is_not_compared_with_the_annual_roe() -> None:
    text = compose_report_text(latest=figures(D(2026, 9, 30), 9.0), forecast=None, announcements=[], days=30)
    assert text is not None and "ROE（2026年三季报累计）9.00%" in text
    assert data_doubts(universe_stock(20.0, text)) == []


def test_a_text_roe_of_the_same_period_that_differs_is_still_flagged() -> None:
    composed = compose_report_text(latest=figures(D(2025, 12, 31), 30.0), forecast=None, announcements=None,
                                   days=30)
    assert data_doubts(universe_stock(20.0, composed)) == ["数据存疑: 文本ROE 30% vs 数据 20%"]
    assert data_doubts(universe_stock(30.0, composed)) == []
    for user_text in ("ROE（2025年年报）30%", "2025年净资产收益率为30%", "ROE 30%", "ROE(TTM) 30%"):
        assert data_doubts(universe_stock(20.0, user_text)) == ["数据存疑: 文本ROE 30% vs 数据 20%"], user_text
    assert data_doubts(universe_stock(20.0, "2024年年报ROE 30%")) == []  # another year's: no contradiction


def test_a_files_roe_is_of_the_files_report_period() -> None:
    row = StockInput(code="600001.SH", roe=12.0, report_date="2025-12-31", report_text="2025年年报ROE 18%",
                     sources={"roe": "file", "report_date": "file"})
    assert data_doubts(row) == ["数据存疑: 文本ROE 18% vs 数据 12%"]
    assert data_doubts(StockInput(code="600001.SH", roe=12.0, report_text="ROE（2026年三季报累计）8%",
                                  report_date="2025-12-31", sources={"roe": "file", "report_date": "file"})) == []


def test_the_texts_own_rounding_is_no_contradiction() -> None:
    text = compose_report_text(latest=figures(D(2025, 12, 31), -0.0358), forecast=None, announcements=None, days=30)
    assert "ROE（2025年年报）-0.04%" in (text or "")
    assert data_doubts(universe_stock(-0.0358, text)) == []


# ---- the digest: stale rows flagged, and every listed row's flags shown -------------------------------------

def record(code: str, name: str, roe: float, annual: int, latest: dt.date, text: str | None) -> Record:
    """A refreshed record: quotes of 2026-12-04, ROE and net profits of FY``annual``, EPS of ``latest``."""
    stock = StockInput(code=code, name=name, roe=roe, pe_ttm=10.0, eps=1.0, st=False, price=10.0,
                       net_profit_y1=1e8, net_profit_y2=1e8, report_date=latest.isoformat(), report_text=text)
    quote, period = "2026-12-04", latest.isoformat()
    dates = {"price": quote, "pe_ttm": quote, "st": quote, "roe": f"{annual}-12-31",
             "net_profit_y1": f"{annual}-12-31", "net_profit_y2": f"{annual - 1}-12-31", "eps": period,
             "report_date": period}
    sources = dict.fromkeys(dates, "akshare:test")
    return Record(stock, sources, dates, quote)


@pytest.fixture
def market(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "u.sqlite"
    q3 = compose_report_text(latest=figures(D(2026, 9, 30), 9.0), forecast=None, announcements=[], days=30)
    fy = f"{q3}\n年报摘要：ROE（2025年年报）30.00%"  # the same period as the data's ROE, another figure
    Universe.load(path).replace([
        record("600001.SH", "新鲜", 20.0, 2025, D(2026, 9, 30), q3),  # current data, its own Q3 text: no flag
        record("600002.SH", "陈旧", 20.0, 2024, D(2025, 9, 30), None),  # FY2024 in December 2026: stale
        record("600003.SH", "矛盾", 20.0, 2025, D(2026, 9, 30), fy),  # text's FY2025 ROE 30% vs data 20%
    ], UniverseInfo(provider="akshare", trade_date="2026-12-04", report_period="2026-09-30"))
    return Settings(universe=UniverseSettings(path=str(path)))


def test_the_whole_market_digest_flags_stale_rows_and_shows_every_listed_rows_flags(market: Settings) -> None:
    ds = DigestSettings(top_n=10)
    d = make_digest(market, TODAY, ds=ds, engine="rules", use_history=False, write=False)
    flags = {r.code: r.flags for r in d.rows}
    assert flags["600001.SH"] == []
    assert any(f.startswith(f"{FLAG_STALE}: 财报 ") and "2024-12-31" in f for f in flags["600002.SH"])
    assert flags["600003.SH"] == ["数据存疑: 文本ROE 30% vs 数据 20%"]
    assert {r["code"]: r["flags"] for r in render_json(d)["top"]} == flags
    md = render_markdown(d, ds)
    lines = {code: next(line for line in md.splitlines() if code in line) for code in flags}
    assert "⚠️" not in lines["600001.SH"]
    assert "⚠️ 财报滞后、数据过期(财报)" in lines["600002.SH"] and "⚠️ 数据存疑" in lines["600003.SH"]
    assert "**数据提示**: 数据存疑 1 只 · 数据过期 1 只 · 财报滞后 1 只" in md
    html = "\n".join(render_telegram(d, ds))
    assert "600002.SH 陈旧 · 低 · 100" in html and "数据过期(财报)" in html
