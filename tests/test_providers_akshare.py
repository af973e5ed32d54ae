"""The AKShare provider against the fake Eastmoney: akshare 1.19.5's own code runs unmodified over HTTPS.

The SDK reaches the fake only through HTTPS_PROXY and REQUESTS_CA_BUNDLE (a CA generated for the test run); the
fake checks every query parameter akshare sends and answers in the live shapes, so these tests fail if akshare
changes its requests or its parsing, and if our adapter misreads a column.
"""

from __future__ import annotations

import datetime as dt
import http.client
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import akshare
import pytest
import requests

from screening.data.names import st_mark as name_marks_st
from screening.data.providers import (
    CircuitBreaker,
    CircuitOpen,
    IncompleteData,
    MarketSnapshot,
    NullAnswer,
    ProviderError,
    ProviderUnavailable,
    RetryPolicy,
    SchemaChanged,
)
from screening.data.providers.akshare_calls import AkshareCalls
from screening.data.providers.akshare_frames import period_table_of
from screening.data.providers.akshare_provider import AkshareProvider
from screening.data.providers.resilience import call_resilient, is_connection_dropped, is_eastmoney_ban
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import FakeMarketRemote

SH = ZoneInfo("Asia/Shanghai")
TRADE_DATE = dt.date(2026, 12, 3)
NOW = dt.datetime(2026, 12, 4, 8, 0, tzinfo=SH)


FullFetch = tuple[MarketSnapshot, float, list[tuple[str, int, int]]]


def _provider(**kw: object) -> AkshareProvider:
    kw.setdefault("retry", RetryPolicy(attempts=1))
    return AkshareProvider(now=lambda: NOW, sleep=lambda s: None, **kw)  # type: ignore[arg-type]


def _env(remote: FakeMarketRemote) -> Iterator[FakeMarketRemote]:
    with pytest.MonkeyPatch.context() as mp:
        for key, value in remote.env().items():
            mp.setenv(key, value)
        yield remote


@pytest.fixture(scope="module")
def big() -> Iterator[FakeMarketRemote]:
    """5,000 stocks; the spot board in one page (akshare sleeps 0.5-1.5 s between pages)."""
    with FakeMarketRemote(FakeMarket(5000, trade_date=TRADE_DATE), clist_page_size=6000) as remote:
        yield remote


@pytest.fixture(scope="module")
def full_fetch(big: FakeMarketRemote) -> FullFetch:
    big.clear_log()
    events: list[tuple[str, int, int]] = []
    for _ in _env(big):
        started = time.monotonic()
        snap = _provider().fetch(TRADE_DATE, progress=lambda s, d, n: events.append((s, d, n)))
        seconds = time.monotonic() - started
    return snap, seconds, events


@pytest.fixture(scope="module")
def small_remote() -> Iterator[FakeMarketRemote]:
    with FakeMarketRemote(FakeMarket(300, trade_date=TRADE_DATE), clist_page_size=6000) as remote:
        yield remote


@pytest.fixture
def small(small_remote: FakeMarketRemote, monkeypatch: pytest.MonkeyPatch) -> FakeMarketRemote:
    """300 stocks for the failure modes (spot in one page; the paging test uses live 100-row pages)."""
    small_remote.faults.reset()
    small_remote.clear_log()
    for key, value in small_remote.env().items():
        monkeypatch.setenv(key, value)
    return small_remote


# ---- the whole market ---------------------------------------------------------------------------------------
@pytest.mark.slow  # the 5,000-stock fetch / akshare's page pauses
def test_full_fetch_fills_the_whole_fake_market(big: FakeMarketRemote, full_fetch: FullFetch) -> None:
    snap, seconds, _ = full_fetch
    market = big.market
    assert seconds < 60, f"a full fake fetch took {seconds:.1f} s"
    assert big.eastmoney.rejections == [] and big.refused_hosts == []
    assert (snap.provider, snap.provider_version) == ("akshare", akshare.__version__)
    assert (snap.trade_date, snap.report_period) == ("2026-12-03", "2026-09-30")
    assert snap.fetched_at == "2026-12-04T08:00:00+08:00"
    assert len(snap.stocks) == len(market.stocks) == 5000
    by_code = {p.stock.code: p for p in snap.stocks}
    with_pe = losses = 0
    for s in market.stocks:
        p = by_code[f"{s.code}.{s.exchange}"]
        st = p.stock
        latest = market.latest_report(s.code)
        assert st.name == s.name and st.st is s.st
        assert p.field_sources["name"] == "akshare:stock_zh_a_spot_em"
        if s.st:  # BSE *ST stocks are not on the board: their names mark them
            want = "akshare:stock_zh_a_spot_em(名称:ST)" if s.exchange == "BJ" else "akshare:stock_zh_a_st_em"
            assert p.field_sources["st"] == want
        if latest is None:
            assert st.roe is None and st.report_date is None
            continue
        assert st.industry == s.industry
        # ROE is the last fiscal year's: a quarter's is cumulative for the year so far, the rules are annual
        annual = latest if latest.period.month == 12 else market.published(
            s.code, dt.date(latest.period.year - 1, 12, 31))
        assert st.eps == pytest.approx(latest.eps) and st.report_date == latest.period.isoformat()
        if annual is None:
            assert st.roe is None and "roe" not in p.field_dates
        else:
            assert st.roe == pytest.approx(annual.roe) and p.field_dates["roe"] == annual.period.isoformat()
            assert p.field_sources["roe"] == f"akshare:stock_yjbb_em({annual.period:%Y%m%d})"
        y1 = market.published(s.code, dt.date(2025, 12, 31))
        y2 = market.published(s.code, dt.date(2024, 12, 31))
        assert st.net_profit_y1 == (pytest.approx(y1.net_profit) if y1 else None)
        assert st.net_profit_y2 == (pytest.approx(y2.net_profit) if y2 else None)
        ttm = market.ttm_net_profit(s.code)
        if s.suspended or not ttm:
            assert st.pe_ttm is None
        else:
            assert st.pe_ttm == pytest.approx(round(s.price * s.shares, 2) / ttm, abs=6e-5)  # 4 decimals
            assert p.field_sources["pe_ttm"] == "derived:总市值/TTM净利润(stock_yjbb_em 20260930+20251231-20250930)"
            assert p.field_dates["pe_ttm"] == "2026-12-03"
            with_pe += 1
            losses += ttm < 0
        assert st.report_text is not None and st.report_text.startswith("2026年三季报（截至2026-09-30")
    assert with_pe > 4800 and losses > 300  # a loss is a negative PE-TTM, not a gap
    assert any("PE-TTM left empty" in n for n in snap.notes)
    assert any("市盈率-动态 is not PE-TTM" in n for n in snap.notes)


@pytest.mark.slow  # the 5,000-stock fetch / akshare's page pauses
def test_report_text_has_titles_newest_first_and_the_forecast(big: FakeMarketRemote, full_fetch: FullFetch) -> None:
    snap, _, _ = full_fetch
    market = big.market
    days = [NOW.date() - dt.timedelta(days=i) for i in range(30)]
    titled = 0
    for p in snap.stocks:
        code = p.stock.code[:6]
        expected = [a for d in days for a in market.announcements(d) if a.code == code]
        text = p.stock.report_text or ""
        if not expected:
            assert "近30日无公告。" in text
            continue
        titled += 1
        lines = text.split("近30日公告（新→旧）：\n", 1)[1].splitlines()
        shown = [ln for ln in lines if not ln.startswith("（另有")]
        assert [ln[:10] for ln in shown] == sorted((ln[:10] for ln in shown), reverse=True)
        newest = max(a.day for a in expected)
        assert p.field_dates["report_text"] == newest.isoformat()
        assert shown[0].startswith(newest.isoformat())
        first = next(a for a in expected if a.day == newest)
        assert any(first.title.split(":", 1)[1] in ln for ln in shown)
    assert titled > 2000
    with_forecast = [p for p in snap.stocks if "业绩预告（2026年年报" in (p.stock.report_text or "")]
    assert with_forecast
    sample = with_forecast[0]
    f = market.forecast(sample.stock.code[:6], dt.date(2026, 12, 31))
    assert f is not None and f.reason.rstrip("。") in (sample.stock.report_text or "")
    assert "stock_yjyg_em(20261231)" in sample.field_sources["report_text"]


@pytest.mark.slow  # the 5,000-stock fetch / akshare's page pauses
def test_calls_timings_and_progress(full_fetch: FullFetch) -> None:
    snap, _, events = full_fetch
    names = [c.function for c in snap.calls]
    assert names[:2] == ["stock_zh_a_spot_em", "stock_zh_a_st_em"]
    assert sorted(n for n in names if n.startswith("stock_yjbb_em")) == [
        "stock_yjbb_em(20241231)", "stock_yjbb_em(20250930)", "stock_yjbb_em(20251231)", "stock_yjbb_em(20260930)"
    ]
    assert [n for n in names if n.startswith("stock_yjyg_em")] == ["stock_yjyg_em(20261231)", "stock_yjyg_em(20260930)"]
    assert len([n for n in names if n.startswith("stock_notice_report")]) == 30
    weekend = [c for c in snap.calls if c.function == "stock_notice_report(20261129)"]
    assert weekend[0].outcome == "empty"  # akshare raises KeyError('代码') for a day without announcements
    fetch = [e for e in events if e[0] == "fetch"]
    assert fetch[-1] == ("fetch", len(snap.calls), len(snap.calls))
    assert ("stock_yjbb_em(20260930)", 10, 10) in events  # pages, read from akshare's own tqdm bar


def test_partial_period_is_used_by_the_stocks_that_reported_it() -> None:
    market = FakeMarket(800, trade_date=dt.date(2027, 4, 9), as_of=dt.date(2027, 4, 10))
    now = dt.datetime(2027, 4, 10, 8, 0, tzinfo=SH)
    with FakeMarketRemote(market, clist_page_size=6000) as remote:
        for _ in _env(remote):
            provider = AkshareProvider(retry=RetryPolicy(attempts=1), now=lambda: now)
            snap = provider.fetch(dt.date(2027, 4, 9), announcement_days=3)
    periods = {p.stock.code: p.stock.report_date for p in snap.stocks}
    assert {"2027-03-31", "2026-12-31", "2026-09-30"} <= set(periods.values())
    for p in snap.stocks:
        latest = market.latest_report(p.stock.code[:6])
        assert p.stock.report_date == (latest.period.isoformat() if latest else None)
        if latest is not None and latest.period == dt.date(2026, 12, 31) and not market.by_code[latest.code].suspended:
            assert p.field_sources["pe_ttm"].endswith("(stock_yjbb_em 20261231)")  # an annual report is its own TTM
            assert p.stock.net_profit_y1 == pytest.approx(latest.net_profit)
    partial = [n for n in snap.notes if n.startswith("report period 2027-03-31:")]
    assert partial and "stocks have reported; the others use their newest earlier report" in partial[0]


# ---- failure modes ------------------------------------------------------------------------------------------
def test_eastmoney_ban_is_a_pattern_of_refusals_and_then_not_retried(small: FakeMarketRemote) -> None:
    small.faults.ban_after = 2  # spot and the ST board pass, then every connection is dropped
    provider = _provider(retry=RetryPolicy(attempts=5, initial_wait_s=0))
    with pytest.raises(ProviderUnavailable) as info:
        provider.fetch(TRADE_DATE)
    err = info.value
    assert err.ban and err.function == "stock_yjbb_em(20260930)"
    assert "IP ban" in str(err) and "3 consecutive refusals after 2 successful calls" in str(err)
    assert "before its first page had arrived" in str(err)
    assert small.eastmoney.requests == 2 + 3  # two drops are retried as blips; the third makes a ban: no more


@pytest.mark.slow  # a 1,200-stock market: akshare's page pauses
def test_a_report_page_dropped_half_way_says_which_page() -> None:
    """The report tables come through the project's own datacenter fetch (no tqdm bar to read): a dropped second
    page was reported "on its first page" (a trial, 2026-12-06); the page hook says how far it got."""
    with FakeMarketRemote(FakeMarket(1200, trade_date=TRADE_DATE)) as remote:  # 500-row report pages: 3 of them
        for _ in _env(remote):
            remote.faults.drop_pages["yjbb"] = {2}
            with pytest.raises(ProviderUnavailable) as info:
                _provider(retry=RetryPolicy(attempts=1, initial_wait_s=0)).fetch(TRADE_DATE)
    err = info.value
    assert err.function.startswith("stock_yjbb_em(")
    assert (err.pages_done, err.pages_total) == (1, 3) and "on page 2 of 3 (1 pages had arrived)" in str(err)


def test_ban_recognised_from_the_real_exception_chain(small: FakeMarketRemote) -> None:
    small.faults.ban_after = 0
    with pytest.raises(requests.exceptions.ConnectionError) as info:
        akshare.stock_yjbb_em(date="20260930")
    assert is_eastmoney_ban(info.value)  # urllib3 wraps it as ProxyError(RemoteDisconnected(...)) via a proxy


@pytest.mark.slow  # the 5,000-stock fetch / akshare's page pauses
def test_spot_paging_dying_half_way_says_how_far_it_got() -> None:
    with FakeMarketRemote(FakeMarket(300, trade_date=TRADE_DATE)) as remote:  # live 100-row pages
        for _ in _env(remote):
            remote.faults.drop_pages["spot"] = {2}
            with pytest.raises(ProviderUnavailable) as info:
                _provider().fetch(TRADE_DATE)
    err = info.value  # page 2 dies on push2 and on the push2delay fallback alike: the last one is reported
    assert (err.function, err.pages_done, err.pages_total) == ("stock_zh_a_spot_em@push2delay", 1, 3)
    assert "on page 2 of 3 (1 pages had arrived)" in str(err)
    assert ("spot", 1) in remote.eastmoney.served and ("spot", 3) not in remote.eastmoney.served
    assert {"82.push2.eastmoney.com", "82.push2delay.eastmoney.com"} <= set(remote.eastmoney.clist_hosts)


def _runner(timeout_s: float = 180.0) -> AkshareCalls:
    return AkshareCalls(CircuitBreaker("t"), RetryPolicy(attempts=1), timeout_s, sleep=lambda s: None)


def test_renamed_upstream_field_names_the_column_and_version(small: FakeMarketRemote) -> None:
    small.faults.rename["notice"] = {"title": "notice_title"}
    with pytest.raises(SchemaChanged) as info:
        _runner().run("stock_notice_report", "stock_notice_report(20261204)", symbol="全部", date="20261204")
    err = info.value
    assert err.missing == ["公告标题"] and err.version == akshare.__version__
    assert err.function == "stock_notice_report(20261204)"
    assert "公告标题" in str(err) and f"akshare {akshare.__version__}" in str(err)
    assert not isinstance(err.__cause__, SchemaChanged) and isinstance(err.__cause__, KeyError)
    # the titles are optional: the fetch completes without them, the named error in a warning, rows flagged
    snap = _provider().fetch(TRADE_DATE, announcement_days=1)
    assert snap.degraded == ["公告数据缺失"]
    assert any(n.startswith("warning: 公告数据缺失") and "could not find title" in n for n in snap.notes)
    assert all("近1日" not in (p.stock.report_text or "") for p in snap.stocks)


def test_akshare_side_rename_fails_in_the_adapter_with_the_columns_seen(small: FakeMarketRemote) -> None:
    """The 营业收入-* -> 营业总收入-* rename seen between akshare releases, on the pinned version's real frame."""
    frame = akshare.stock_yjbb_em(date="20260930")
    frame = frame.rename(columns={"营业总收入-营业总收入": "营业收入-营业收入"})
    with pytest.raises(SchemaChanged) as info:
        period_table_of(frame, dt.date(2026, 9, 30), "stock_yjbb_em(20260930)", "akshare 1.19.5")
    err = info.value
    assert err.missing == ["营业总收入-营业总收入"] and "营业收入-营业收入" in err.seen
    assert "columns seen:" in str(err) and "akshare 1.19.5" in str(err)


def test_added_upstream_fields_break_akshare_but_not_the_refresh(small: FakeMarketRemote) -> None:
    """akshare labels 业绩预告's and 业绩报表's fields by position: one added upstream (#5997, #5933) and no column
    can be trusted (named as SchemaChanged); the refresh reads both by name, so an added field changes nothing."""
    small.faults.extra_field["yjyg"] = "NEW_FIELD"
    small.faults.extra_field["yjbb"] = "BOARD_NEW_FIELD"
    with pytest.raises(SchemaChanged) as info:
        _runner().run("stock_yjyg_em", "stock_yjyg_em(20261231)", date="20261231")
    assert info.value.function == "stock_yjyg_em(20261231)"
    assert re.search(r"returns (\d+) fields per row where akshare \S+ labels (\d+) by position", str(info.value))
    snap = _provider().fetch(TRADE_DATE, announcement_days=1)
    assert snap.degraded == [] and all(p.stock.report_date for p in snap.stocks if p.stock.eps is not None)
    assert sum("业绩预告（2026年年报" in (p.stock.report_text or "") for p in snap.stocks) > 10


def test_empty_quotes_are_incomplete_data(small: FakeMarketRemote) -> None:
    small.faults.empty.add("spot")
    with pytest.raises(IncompleteData, match="stock_zh_a_spot_em returned no quotes"):
        _provider().fetch(TRADE_DATE)


def test_no_reports_at_all_is_incomplete_data(small: FakeMarketRemote) -> None:
    small.faults.empty.add("yjbb")
    # 2026-09-30 is past its deadline (10-31): "no data" there is Eastmoney's null fault, named, not "no reports"
    with pytest.raises(NullAnswer, match=r"stock_yjbb_em\(20260930\): Eastmoney answered \"no data\" \(result: null\)"):
        _provider().fetch(TRADE_DATE)


def test_empty_forecasts_and_st_board_are_notes_not_failures(small: FakeMarketRemote) -> None:
    small.faults.empty.update({"yjyg", "st_board"})
    snap = _provider().fetch(TRADE_DATE, announcement_days=2)
    assert "stock_yjyg_em(20261231): no forecasts published" in snap.notes
    assert snap.degraded == ["ST板数据缺失"]  # no forecasts published is not a failure; no ST board is
    assert any("stock_zh_a_st_em returned nothing: ST left unknown" in n for n in snap.notes)
    for p in snap.stocks:  # without the board, the name still marks ST (with its source); else ST is unknown
        if (p.stock.name or "").startswith(("*ST", "ST")):
            assert p.stock.st is True and p.field_sources["st"] == "akshare:stock_zh_a_spot_em(名称:ST)"
        else:
            assert p.stock.st is None and "st" not in p.field_sources
    assert all("业绩预告" not in (p.stock.report_text or "") for p in snap.stocks)


def test_no_announcements_on_any_weekday_is_not_taken_for_a_quiet_month(small: FakeMarketRemote) -> None:
    small.faults.empty.add("notice")
    snap = _provider().fetch(TRADE_DATE, announcement_days=5)  # optional: a warning naming why, not a failure
    assert snap.degraded == ["公告数据缺失"]
    assert any(n.startswith("warning: 公告数据缺失") and "KeyError('代码')" in n for n in snap.notes)


def test_http_5xx_is_unavailable(small: FakeMarketRemote) -> None:
    small.faults.status["yjbb"] = 502
    with pytest.raises(ProviderUnavailable, match=r"stock_yjbb_em\(20260930\): Eastmoney answered HTTP 502"):
        _provider().fetch(TRADE_DATE)


def test_a_stalled_call_hits_the_deadline(small: FakeMarketRemote) -> None:
    small.faults.delay["notice"] = 3.0
    with pytest.raises(ProviderUnavailable, match=r"stock_notice_report\(20261204\): no answer within 1 s"):
        _runner(1.0).run("stock_notice_report", "stock_notice_report(20261204)", symbol="全部", date="20261204")
    small.faults.delay.clear()
    for thread in threading.enumerate():  # the abandoned call finishes on its own; keep it out of the next test
        if thread.name.startswith("akshare:"):
            thread.join(timeout=15)


def test_quotes_cannot_stand_for_an_old_date(small: FakeMarketRemote) -> None:
    with pytest.raises(ProviderError, match=r"still shows the previous session's close \(2026-12-03\)"):
        _provider().fetch(dt.date(2026, 10, 9))
    assert small.eastmoney.requests == 0


@pytest.mark.parametrize("asked", [dt.date(2026, 12, 3), dt.date(2026, 11, 28), dt.date(2026, 12, 5)])
def test_on_saturday_the_board_stands_for_fridays_session_only(small: FakeMarketRemote, asked: dt.date) -> None:
    """Saturday 07:30: the board shows Friday 12-04's close; Thursday's date (the trial's mislabel), a Saturday
    (which replaced a newer universe and made every row 数据过期) and today are refused, naming the session."""
    saturday = dt.datetime(2026, 12, 5, 7, 30, tzinfo=SH)
    provider = AkshareProvider(now=lambda: saturday, sleep=lambda s: None, retry=RetryPolicy(attempts=1))
    with pytest.raises(ProviderError) as err:
        provider.fetch(asked)
    message = str(err.value)
    assert "\n" not in message and "previous session's close (2026-12-04)" in message and asked.isoformat() in message
    assert "only the Tushare provider" in message
    assert small.eastmoney.requests == 0


def test_an_undecided_day_before_the_board_refuses_every_date(small: FakeMarketRemote, tmp_path: Path) -> None:
    """2027-02-15 08:00 without the 2027 notice: 02-09..02-12 are 调休待定, so which close the board shows is not
    known; 02-12 (what the undecided day counted as open gave) and 02-03 (the last certain session) are refused."""
    monday = dt.datetime(2027, 2, 15, 8, 0, tzinfo=SH)
    provider = AkshareProvider(now=lambda: monday, sleep=lambda s: None, retry=RetryPolicy(attempts=1))
    provider.use_calendar((), tmp_path / "no-notice")
    for asked in (dt.date(2027, 2, 12), dt.date(2027, 2, 3)):
        with pytest.raises(ProviderError, match=r"2027-02-12 调休待定.*last certain trading day: 2027-02-03.*"
                                                "calendar import"):
            provider.fetch(asked)
    assert small.eastmoney.requests == 0


def test_unknown_hosts_are_refused_by_the_fake(small: FakeMarketRemote) -> None:
    with pytest.raises(requests.exceptions.ProxyError):
        requests.get("https://quote.eastmoney.com/center/gridlist.html", timeout=5)
    assert small.refused_hosts == ["quote.eastmoney.com:443"]


def test_circuit_breaker_opens_and_fails_fast(small: FakeMarketRemote) -> None:
    small.faults.ban_after = 2
    breaker = CircuitBreaker("akshare", failure_threshold=3, cooldown_s=600)  # the three refusals of a ban
    provider = _provider(breaker=breaker, retry=RetryPolicy(attempts=5, initial_wait_s=0))
    with pytest.raises(ProviderUnavailable) as first:
        provider.fetch(TRADE_DATE)
    assert first.value.ban and breaker.state == "open"
    seen = small.eastmoney.requests
    with pytest.raises(CircuitOpen, match="circuit open after 3 consecutive failures"):
        provider.fetch(TRADE_DATE)
    assert small.eastmoney.requests == seen  # nothing went out


def test_shared_fixture_env_reaches_the_fakes_from_a_subprocess(
    market_env: dict[str, str], fake_market_remote: FakeMarketRemote
) -> None:
    """How `python -m screening universe refresh` is to be run against the fakes: env=os.environ | market_env."""
    code = "import akshare; df = akshare.stock_zh_a_st_em(); print(len(df), df['代码'].iloc[0])"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, **market_env}, capture_output=True,
                         text=True, timeout=120, check=True)
    n = int(out.stdout.split()[0])
    assert n == sum(s.st and s.exchange != "BJ" for s in fake_market_remote.market.stocks)  # the board: SH, SZ
    assert fake_market_remote.eastmoney.rejections == [] and fake_market_remote.refused_hosts == []
    assert ("GET", "40.push2.eastmoney.com") in {(m, h) for m, h, _ in fake_market_remote.log}


# ---- retry and circuit breaker rules (plain functions, no network) -----------------------------------------

class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _failing(exc: Exception, log: list[int]) -> object:
    def fn() -> object:
        log.append(1)
        raise exc

    return fn


def test_transient_failures_are_retried_with_jittered_backoff() -> None:
    calls: list[int] = []
    waits: list[float] = []
    outcomes: list[Exception | str] = [ProviderUnavailable("blip"), ProviderUnavailable("blip"), "ok"]

    def fn() -> str:
        calls.append(1)
        out = outcomes.pop(0)
        if isinstance(out, Exception):
            raise out
        return out

    breaker = CircuitBreaker("p", failure_threshold=5)
    result = call_resilient(fn, breaker=breaker, policy=RetryPolicy(3, 2.0, 60.0), sleep=waits.append)
    assert result == "ok" and len(calls) == 3 and len(waits) == 2
    assert 0 <= waits[0] <= 2.0 and 0 <= waits[1] <= 4.0
    assert breaker.state == "closed"


def test_bans_and_schema_changes_are_not_retried() -> None:
    log: list[int] = []
    breaker = CircuitBreaker("p")
    with pytest.raises(ProviderUnavailable):
        call_resilient(_failing(ProviderUnavailable("ban", ban=True), log), breaker=breaker,  # type: ignore[arg-type]
                       policy=RetryPolicy(5, 0), sleep=lambda s: None)
    with pytest.raises(SchemaChanged):
        call_resilient(_failing(SchemaChanged("col", function="f"), log), breaker=breaker,  # type: ignore[arg-type]
                       policy=RetryPolicy(5, 0), sleep=lambda s: None)
    assert len(log) == 2


def test_breaker_opens_half_opens_and_closes() -> None:
    clock = Clock()
    breaker = CircuitBreaker("akshare", failure_threshold=3, cooldown_s=60, clock=clock)
    for _ in range(3):
        breaker.before_call()
        breaker.record_failure(ProviderUnavailable("down"))
    assert breaker.state == "open"
    with pytest.raises(CircuitOpen, match="akshare: circuit open after 3 consecutive failures"):
        breaker.before_call()
    clock.t += 61
    assert breaker.state == "half-open"
    breaker.before_call()  # the one trial
    with pytest.raises(CircuitOpen):
        breaker.before_call()  # a second caller waits for the trial
    breaker.record_failure(ProviderUnavailable("still down"))
    assert breaker.state == "open"  # a failed trial opens it again at once
    clock.t += 61
    breaker.before_call()
    breaker.record_success()
    assert breaker.state == "closed"
    breaker.before_call()


def test_schema_changes_do_not_trip_the_breaker() -> None:
    breaker = CircuitBreaker("p", failure_threshold=1)
    with pytest.raises(SchemaChanged):
        call_resilient(_failing(SchemaChanged("col", function="f"), []), breaker=breaker,  # type: ignore[arg-type]
                       policy=RetryPolicy(1), sleep=lambda s: None)
    assert breaker.state == "closed"


def test_dropped_connection_is_found_in_nested_causes() -> None:
    inner = http.client.RemoteDisconnected("Remote end closed connection without response")
    outer = OSError("Unable to connect to proxy", inner)
    try:
        try:
            raise outer
        except OSError as exc:
            raise RuntimeError("wrapped") from exc
    except RuntimeError as exc:
        assert is_connection_dropped(exc)
    assert not is_connection_dropped(OSError("Tunnel connection failed: 403"))


@pytest.mark.parametrize(("name", "mark"), [
    ("*ST仿科", "ST"), ("ST拟信", "ST"), ("S*ST模达", "ST"), ("SST虚华", "ST"), ("st东仿", "ST"),
    ("东仿退", "退"), ("退市拟达", "退"), ("东仿科技", None), (None, None), ("", None),
])
def test_name_marks_st_and_delisting_names(name: str | None, mark: str | None) -> None:
    assert name_marks_st(name) == mark
