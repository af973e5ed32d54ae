"""An Eastmoney IP ban while the refresh fetches the announcement days keeps the days it already has.

A trial (2026-12-06, ``ban_mid``): the ban came after the newest days' titles had arrived, and the refresh dropped
them all and carried the last good universe's titles for every day (``公告沿用上次刷新``): a company that announced
立案调查 that day screened without it. The real Refresher and akshare against the fake Eastmoney (300 stocks, fixed
clocks): a good refresh on Wed 2026-12-02 (window 11-28..12-02), then one on Fri 12-04 (window 11-30..12-04) whose
connections are all dropped from the first page of 12-03's announcements on. 12-04 is then fresh, 11-30..12-02 are
carried from the first refresh, and 12-03 (which no refresh fetched) is said to be missing, never silently empty.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.data.providers import RetryPolicy
from screening.data.providers.akshare_provider import AkshareProvider
from screening.data.refresh import Refresher
from screening.data.refresh_titles import FLAG_CARRIED, dated_titles
from screening.data.universe import Universe
from screening.screen.rules import assess
from tests.fakes.market_data import FakeAnnouncement, FakeMarket
from tests.fakes.market_proxy import FakeMarketRemote
from tests.universes import fixed_clock_refresher

pytestmark = [pytest.mark.slow]  # real refreshes of a 300-stock fake market (seconds each)

SH = ZoneInfo("Asia/Shanghai")
FIRST = dt.datetime(2026, 12, 2, 8, 0, tzinfo=SH)  # the board shows Tue 12-01's close; titles 11-28..12-02
SECOND = dt.datetime(2026, 12, 4, 8, 0, tzinfo=SH)  # the board shows Thu 12-03's close; titles 11-30..12-04
BAN_DAY = dt.date(2026, 12, 3)
FRESH, MISSING = dt.date(2026, 12, 4), dt.date(2026, 12, 3)
CARRIED = [dt.date(2026, 11, 30), dt.date(2026, 12, 1), dt.date(2026, 12, 2)]
CASE = "立案告知书"


class BanningMarket(FakeMarket):
    """The fake market whose Eastmoney side drops every connection (an IP ban, at the wire) from the moment the
    announcements of ``ban_day`` are first asked for: that request is answered, every later one is dropped."""

    remote: FakeMarketRemote | None = None
    ban_day: dt.date | None = None

    def announcements(self, day: dt.date) -> list[FakeAnnouncement]:  # type: ignore[override]  # base: cached
        remote = self.remote
        if day == self.ban_day and remote is not None and remote.faults.ban_after is None:
            remote.faults.ban_after = remote.eastmoney.requests
        return super().announcements(day)


@pytest.fixture(scope="module")
def remote() -> Iterator[FakeMarketRemote]:
    market = BanningMarket(300, trade_date=dt.date(2026, 12, 3))
    with FakeMarketRemote(market, clist_page_size=6000) as r:
        market.remote = r
        yield r


@pytest.fixture
def env(remote: FakeMarketRemote, monkeypatch: pytest.MonkeyPatch) -> FakeMarketRemote:
    remote.faults.reset()
    for key, value in remote.env().items():
        monkeypatch.setenv(key, value)
    return remote


def _refresher(tmp_path: Path, now: dt.datetime) -> Refresher:
    return fixed_clock_refresher(tmp_path, now, "akshare")


def _titles(market: FakeMarket, day: dt.date) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for a in market.announcements(day):
        out.setdefault(a.code, []).append(a.title)
    return out


def test_a_ban_mid_announcements_keeps_the_days_fetched_and_carries_only_the_others(
        env: FakeMarketRemote, tmp_path: Path) -> None:
    market = env.market
    assert isinstance(market, BanningMarket)
    by_day = {d: _titles(market, d) for d in [FRESH, MISSING, *CARRIED]}
    older = [MISSING, *CARRIED]
    # A: 立案 announced on the newest day only; B: 立案 on a carried day; C: a 立案 title on the unfetched day
    a = next(c for c, ts in by_day[FRESH].items() if any(CASE in t for t in ts)
             and not any(CASE in t for d in older for t in by_day[d].get(c, [])))
    b = next(c for c, ts in by_day[CARRIED[1]].items() if any(CASE in t for t in ts)
             and not any(CASE in t for t in by_day[FRESH].get(c, []) + by_day[MISSING].get(c, [])))
    c = next(c for c, ts in by_day[MISSING].items() if any(CASE in t for t in ts))

    first = _refresher(tmp_path, FIRST).refresh(choice="akshare")
    assert not any("公告" in n for n in first.notes if n.startswith("warning: ")), first.notes
    market.ban_day = BAN_DAY
    outcome = _refresher(tmp_path, SECOND).refresh(choice="akshare")
    assert env.faults.ban_after is not None  # the ban did come, during 12-03's announcements

    u = Universe.load(tmp_path / "universe.sqlite")
    code_of = {s.code.split(".")[0]: s.code for s in u}
    sa, sb, sc = (u.get(code_of[x]) for x in (a, b, c))
    assert sa is not None and sb is not None and sc is not None
    # A: today's 立案 title, fetched before the ban, is in its text and raises it
    assert any(h.name == "立案调查" and h.date == FRESH.isoformat() for h in assess(sa).signals), sa.report_text
    assert any(d == FRESH and CASE in t for d, t in dated_titles(sa.report_text))
    # B: the carried day's 立案 title is kept, under the heading naming the first refresh
    assert any(h.name == "立案调查" and h.date == CARRIED[1].isoformat() for h in assess(sb).signals), sb.report_text
    assert "沿用此前刷新的公告" in (sb.report_text or "") and FIRST.isoformat() in (sb.report_text or "")
    # C: the day no refresh fetched has no title anywhere, and no text claims a quiet window
    assert all(d != MISSING for s in u for d, _ in dated_titles(s.report_text))
    assert not any("近5日" in (s.report_text or "") for s in u)

    missing = f"公告数据缺失: {MISSING} 未取得 (本次取得 {FRESH})"
    carried = f"{FLAG_CARRIED} ({FIRST.isoformat()}): {CARRIED[0]} 至 {CARRIED[-1]} 沿用, {FRESH} 本次取得"
    assert sorted(u.info.degraded) == sorted([missing, carried]), u.info.degraded
    for stock in (sa, sb, sc):  # every row says which days are fresh, carried and missing
        assert missing in stock.notes and carried in stock.notes, stock.notes
    warnings = [n for n in outcome.notes if n.startswith("warning: 公告数据缺失")]
    assert any(f"{CARRIED[0]} 至 {CARRIED[-1]}" in w and str(FRESH) in w and str(MISSING) in w for w in warnings), \
        warnings

    # then a refresh that reads no day (the notice endpoint answers 503) carries from this one what it stands for:
    # the days it read and those it carried, never 12-03, which neither read
    env.faults.reset()
    env.faults.status["notice"] = 503
    market.ban_day = None
    # Monday 08:00: titles 12-03..12-07 (those filed over the weekend are dated up to Monday's session)
    _refresher(tmp_path, dt.datetime(2026, 12, 7, 8, 0, tzinfo=SH)).refresh(choice="akshare")
    u3 = Universe.load(tmp_path / "universe.sqlite")
    assert sorted(u3.info.degraded) == ["公告数据缺失", f"{FLAG_CARRIED} ({SECOND.isoformat()}): {FRESH} 沿用"], \
        u3.info.degraded
    s3 = u3.get(code_of[a])
    assert s3 is not None
    assert any(h.name == "立案调查" and h.date == FRESH.isoformat() for h in assess(s3).signals), s3.report_text
    assert all(d in (CARRIED[1], CARRIED[2], FRESH) for s in u3 for d, _ in dated_titles(s.report_text))


def test_a_ban_after_only_quiet_days_keeps_nothing_of_them(env: FakeMarketRemote) -> None:
    """Sun 12-06: the window starts on Saturday 12-05 (no announcements); a ban from Friday's on leaves only a quiet
    day in hand, which akshare's empty answer cannot tell from a renamed field: the titles are missing as a whole."""
    market = env.market
    assert isinstance(market, BanningMarket)
    market.ban_day = dt.date(2026, 12, 4)
    now = dt.datetime(2026, 12, 6, 10, 0, tzinfo=SH)
    provider = AkshareProvider(retry=RetryPolicy(attempts=1), now=lambda: now, sleep=lambda s: None)
    snap = provider.fetch(dt.date(2026, 12, 4), announcement_days=5)
    assert snap.degraded == ["公告数据缺失"]
    texts = [p.stock.report_text or "" for p in snap.stocks]
    assert not any("近5日" in t or "本次刷新取得" in t for t in texts)  # no block claims a day it did not read


def test_one_failing_day_costs_only_that_day(env: FakeMarketRemote) -> None:
    """Thu 12-04's window is 11-30..12-04; the notice query for Wed 12-02 answers 502 every time (no ban: the other
    days answer). The days older than it are still fetched (they used to be lost with it), and the flag names
    12-02 alone; a title of 11-30 reaches its stock."""
    market = env.market
    assert isinstance(market, BanningMarket)
    market.ban_day = None
    bad, older = dt.date(2026, 12, 2), dt.date(2026, 11, 30)
    env.faults.status_days["notice"] = {bad.isoformat(): 502}
    provider = AkshareProvider(retry=RetryPolicy(attempts=1), now=lambda: SECOND, sleep=lambda s: None)
    snap = provider.fetch(dt.date(2026, 12, 3), announcement_days=5)
    read = "2026-11-30 至 2026-12-01、2026-12-03 至 2026-12-04"
    assert snap.degraded == [f"公告数据缺失: {bad} 未取得 (本次取得 {read})"], snap.degraded
    assert any("stock_notice_report failed for 2026-12-02 (every other day was asked for)" in n for n in snap.notes)
    code = next(iter(_titles(market, older)))
    stock = next(p.stock for p in snap.stocks if p.stock.code.split(".")[0] == code)
    assert older in {d for d, _ in dated_titles(stock.report_text)}, stock.report_text
    assert all(d != bad for p in snap.stocks for d, _ in dated_titles(p.stock.report_text))
