"""A Tushare refresh whose ``anns_d`` fails for one day carries that day's titles from the last refresh that read it.

The AKShare path has this at the refresh level (tests/test_refresh_ban_titles.py); Tushare's per-day titles had
only a provider-level test (tests/test_providers_tushare.py), so nothing showed that the Refresher carries a day
Tushare missed, names it on every row, and keeps a 立案 title of that day raising its stock. The real Refresher and
the tushare SDK against the fake Tushare API (300 stocks, fixed clocks, a token with the anns_d permission; the fake
publishes daily_basic for Thu 12-03 only): a good refresh on Fri 12-04 at 08:00 (window 11-30..12-04), then one at
09:00 whose anns_d call for 12-02 answers 502 every time. 12-02 is carried from the first refresh; 11-30, 12-01,
12-03 and 12-04 are fresh. With no earlier refresh to carry it from, 12-02 is named missing on every row.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.data.refresh import Refresher
from screening.data.refresh_titles import FLAG_CARRIED, dated_titles
from screening.data.universe import Universe
from screening.screen.rules import assess
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import FULL_TOKEN, FakeMarketRemote
from tests.universes import fixed_clock_refresher

pytestmark = [pytest.mark.slow]  # two real refreshes of a 300-stock fake market (seconds each)

SH = ZoneInfo("Asia/Shanghai")
FIRST = dt.datetime(2026, 12, 4, 8, 0, tzinfo=SH)  # titles 11-30..12-04
SECOND = dt.datetime(2026, 12, 4, 9, 0, tzinfo=SH)  # the same window, 12-02 failing
BAD = dt.date(2026, 12, 2)
CASE = "立案告知书"


@pytest.fixture(scope="module")
def remote() -> Iterator[FakeMarketRemote]:
    with FakeMarketRemote(FakeMarket(300, trade_date=dt.date(2026, 12, 3)), clist_page_size=6000) as r:
        yield r


def _refresher(tmp_path: Path, now: dt.datetime) -> Refresher:
    return fixed_clock_refresher(tmp_path, now, "tushare")


def test_a_day_tushare_missed_is_carried_from_the_refresh_that_read_it(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    remote.faults.reset()
    for key, value in remote.env(tushare_token=FULL_TOKEN).items():
        monkeypatch.setenv(key, value)
    market = remote.market
    # a stock whose 立案 title is dated 12-02 only (the day the second refresh cannot read)
    by_day = {d: {a.code for a in market.announcements(d) if CASE in a.title}
              for d in (dt.date(2026, 11, 30), dt.date(2026, 12, 1), BAD, dt.date(2026, 12, 3), dt.date(2026, 12, 4))}
    code = next(iter(sorted(by_day[BAD] - set().union(*(v for d, v in by_day.items() if d != BAD)))))

    first = _refresher(tmp_path, FIRST).refresh(choice="tushare")
    assert not any("公告" in n for n in first.notes if n.startswith("warning: ")), first.notes
    remote.faults.status_days["tushare:anns_d"] = {BAD.isoformat(): 502}
    outcome = _refresher(tmp_path, SECOND).refresh(choice="tushare")

    u = Universe.load(tmp_path / "universe.sqlite")
    stock = next(s for s in u if s.code.split(".")[0] == code)
    # the 12-02 立案 title is kept under the heading naming the first refresh, and still raises the stock
    assert any(d == BAD and CASE in t for d, t in dated_titles(stock.report_text)), stock.report_text
    assert any(h.name == "立案调查" and h.date == BAD.isoformat() for h in assess(stock).signals), stock.report_text
    assert "沿用此前刷新的公告" in (stock.report_text or "") and FIRST.isoformat() in (stock.report_text or "")
    # the day is carried, so no day is missing; the flag names the carried day, the fresh ones and the refresh
    read = "2026-11-30 至 2026-12-01、2026-12-03 至 2026-12-04"
    carried = f"{FLAG_CARRIED} ({FIRST.isoformat()}): {BAD} 沿用, {read} 本次取得"
    assert u.info.degraded == [carried], u.info.degraded
    assert all(carried in s.notes for s in u), stock.notes  # every row says so
    assert any(n.startswith("warning: ") and str(BAD) in n and FIRST.isoformat() in n for n in outcome.notes), \
        outcome.notes


def test_a_day_tushare_missed_with_no_earlier_refresh_is_named_on_every_row(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first refresh into an empty folder, anns_d answering 502 for 12-02 alone: nothing can carry that day, so
    the universe and every row name it as missing beside the days read (as AKShare's path does,
    tests/test_refresh_ban_titles.py), the refresh warns of it, and the other days' titles still reach their stocks."""
    remote.faults.reset()
    for key, value in remote.env(tushare_token=FULL_TOKEN).items():
        monkeypatch.setenv(key, value)
    remote.faults.status_days["tushare:anns_d"] = {BAD.isoformat(): 502}
    outcome = _refresher(tmp_path, SECOND).refresh(choice="tushare")
    remote.faults.reset()

    u = Universe.load(tmp_path / "universe.sqlite")
    read = "2026-11-30 至 2026-12-01、2026-12-03 至 2026-12-04"
    missing = f"公告数据缺失: {BAD} 未取得 (本次取得 {read})"
    assert u.info.degraded == [missing], u.info.degraded
    assert len(u) == 300 and all(missing in s.notes for s in u)  # every row says which day is missing
    assert not any(d == BAD for s in u for d, _ in dated_titles(s.report_text))
    assert not any("沿用此前刷新的公告" in (s.report_text or "") for s in u)  # nothing to carry it from
    warnings = [n for n in outcome.notes if n.startswith("warning: ")]
    assert any("anns_d(20261202)" in n for n in warnings), warnings
    older = dt.date(2026, 11, 30)  # a day read on either side of the missing one still reaches its stock
    code = sorted(a.code for a in remote.market.announcements(older))[0]
    stock = next(s for s in u if s.code.split(".")[0] == code)
    assert older in {d for d, _ in dated_titles(stock.report_text)}, stock.report_text
