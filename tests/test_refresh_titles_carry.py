"""A refresh that cannot fetch announcement titles keeps the last good universe's dated ones inside the window.

The real Refresher, akshare and tushare against the fake Eastmoney and Tushare (300 stocks, a fixed clock): one
good refresh with titles, then a second whose title source fails (Eastmoney's notice endpoint answering 503, or a
Tushare token without ``anns_d``). A stock the rules raised for 立案调查 must stay raised, with the title's date
and the refresh it came from named; before, it dropped to 低 with only ``公告数据缺失``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.data.providers import MarketSnapshot, ProvidedStock
from screening.data.refresh import Refresher, note_line
from screening.data.refresh_titles import FLAG_CARRIED, dated_titles, keep_known_titles
from screening.data.universe import Record, Universe, UniverseInfo
from screening.models import StockInput
from screening.screen.rules import assess
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import DEFAULT_TOKEN, FakeMarketRemote
from tests.universes import fixed_clock_refresher

pytestmark = [pytest.mark.slow]  # two real refreshes of a 300-stock fake market (seconds)

SH = ZoneInfo("Asia/Shanghai")
NOW = dt.datetime(2026, 12, 4, 8, 0, tzinfo=SH)  # the board shows Thursday 12-03's close
SESSION = dt.date(2026, 12, 3)
CASE = "立案告知书"


@pytest.fixture(scope="module")
def remote() -> Iterator[FakeMarketRemote]:
    with FakeMarketRemote(FakeMarket(300, trade_date=SESSION), clist_page_size=6000) as r:
        yield r


def _refresher(tmp_path: Path) -> Refresher:
    return fixed_clock_refresher(tmp_path, NOW)


@pytest.mark.parametrize("failure", ["eastmoney-503", "tushare-without-anns_d"])
def test_a_known_investigation_title_survives_a_refresh_without_titles(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str) -> None:
    remote.faults.reset()
    for key, value in remote.env(tushare_token=DEFAULT_TOKEN).items():  # 5000 points, no anns_d permission
        monkeypatch.setenv(key, value)
    refresher = _refresher(tmp_path)
    refresher.refresh(choice="akshare")
    good = Universe.load(tmp_path / "universe.sqlite")
    code = next(s.code for s in good if CASE in (s.report_text or ""))
    before = assess(good.get(code))  # type: ignore[arg-type]
    titles = [t for t in dated_titles(good.get(code).report_text) if CASE in t[1]]  # type: ignore[union-attr]
    assert titles and any(h.name == "立案调查" for h in before.signals), before

    if failure == "eastmoney-503":
        remote.faults.status["notice"] = 503
        outcome = refresher.refresh(choice="akshare")
    else:
        outcome = refresher.refresh(choice="tushare")
    u = Universe.load(tmp_path / "universe.sqlite")
    stock, rec = u.get(code), u.record(code)
    assert stock is not None and rec is not None
    after = assess(stock)
    assert (after.risk, after.score) == (before.risk, before.score), (before, after)
    assert any(h.name == "立案调查" and h.date == titles[0][0].isoformat() for h in after.signals), after
    text = stock.report_text or ""
    for day, title in titles:  # the title with its date, under a heading that names the earlier refresh
        assert f"{day.isoformat()} {title}" in text
    assert "本次刷新未取得公告标题" in text and "akshare:stock_notice_report" in text
    assert "carried:akshare:stock_notice_report@2026-12-04T08:00:00+08:00" in rec.sources["report_text"]
    assert "公告数据缺失" in u.info.degraded and any(f.startswith(FLAG_CARRIED) for f in u.info.degraded)
    assert any(f.startswith(FLAG_CARRIED) for f in stock.notes)  # the row says so
    assert any(n.startswith("warning: 公告数据缺失: kept") for n in outcome.notes)


def _universe(path: Path) -> Universe:
    u = Universe.load(path)
    text = ("2026年三季报（截至2026-09-30）：ROE 3.00%。\n近30日公告（新→旧）：\n"
            "2026-12-04 关于收到中国证券监督管理委员会立案告知书的公告\n2026-11-20 关于召开临时股东大会的通知")
    rec = Record(StockInput(code="600001.SH", name="甲", report_text=text),
                 {"report_text": "composed:akshare:stock_yjbb_em(20260930)+stock_notice_report"},
                 {"report_text": "2026-12-04"}, "2026-12-03")
    u.replace([rec], UniverseInfo(provider="akshare", trade_date="2026-12-03", refreshed_at="2026-12-04T08:00:00+08:00",
                                  count=1))
    return u


def _snapshot(degraded: list[str]) -> MarketSnapshot:
    text = "2026年三季报（截至2026-09-30）：ROE 3.00%。"
    p = ProvidedStock(StockInput(code="600001.SH", name="甲", report_text=text),
                      {"report_text": "2026-10-30"}, {"report_text": "composed:tushare:fina_indicator_vip"})
    return MarketSnapshot("tushare", "1.4.29", "2026-12-07", "2026-09-30", "2026-12-08T08:00:00+08:00", [p], [],
                          degraded=degraded)


@pytest.mark.parametrize(("days", "kept"), [(3, []), (10, ["2026-12-04"]), (30, ["2026-12-04", "2026-11-20"])])
def test_only_titles_inside_the_new_window_are_kept(tmp_path: Path, days: int, kept: list[str]) -> None:
    snap = keep_known_titles(_snapshot(["公告数据缺失"]), _universe(tmp_path / "u.sqlite"), days)
    p = snap.stocks[0]
    assert [d.isoformat() for d, _ in dated_titles(p.stock.report_text)] == kept
    assert ("carried:" in p.field_sources["report_text"]) == bool(kept)
    assert any(f.startswith(FLAG_CARRIED) for f in snap.degraded) == bool(kept)
    if kept:  # the text is as of its newest material, the carried title included
        assert p.field_dates["report_text"] == kept[0]
        assert p.field_sources["report_text"] == ("composed:tushare:fina_indicator_vip+carried:"
                                                  "akshare:stock_notice_report@2026-12-04T08:00:00+08:00")


def test_nothing_is_carried_when_the_titles_came(tmp_path: Path) -> None:
    snap = keep_known_titles(_snapshot([]), _universe(tmp_path / "u.sqlite"), 30)
    assert dated_titles(snap.stocks[0].stock.report_text) == [] and snap.degraded == []


def test_a_warning_note_is_printed_with_its_marker_once() -> None:
    """The CLI printed `note: warning: ...` after a refresh and `warning: warning: ...` on `universe status`."""
    assert note_line("warning: 公告数据缺失: anns_d left out") == "warning: 公告数据缺失: anns_d left out"
    assert note_line("PE-TTM from daily_basic.pe_ttm") == "note: PE-TTM from daily_basic.pe_ttm"
