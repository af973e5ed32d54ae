"""The Tushare provider against the fake Tushare Pro API: tushare 1.4.29's DataApi runs unmodified over HTTP.

The SDK reaches the fake only through HTTP_PROXY; the fake checks the token and the points each endpoint needs
and answers with Tushare's documented codes and messages.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from zoneinfo import ZoneInfo

import pytest
import tushare

from screening.data.providers import (
    IncompleteData,
    MarketSnapshot,
    NotEntitled,
    ProviderUnavailable,
    RetryPolicy,
    SchemaChanged,
)
from screening.data.providers.tushare_provider import TushareProvider
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import DEFAULT_TOKEN, FULL_TOKEN, FakeMarketRemote
from tests.fakes.tushare_api import Grant

TRADE_DATE = dt.date(2026, 12, 3)
NOW = dt.datetime(2026, 12, 4, 8, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
TOKENS = {FULL_TOKEN: Grant(5000, {"anns_d"}), DEFAULT_TOKEN: Grant(5000), "t2000": Grant(2000), "t120": Grant(120)}


def _provider() -> TushareProvider:
    return TushareProvider(retry=RetryPolicy(attempts=1), now=lambda: NOW, sleep=lambda s: None)


@pytest.fixture(scope="module")
def remote() -> Iterator[FakeMarketRemote]:
    with FakeMarketRemote(FakeMarket(5000, trade_date=TRADE_DATE), grants=TOKENS) as r:
        yield r


@pytest.fixture
def ts_env(remote: FakeMarketRemote, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMarketRemote]:
    remote.faults.reset()
    remote.clear_log()
    for key, value in remote.env(tushare_token=FULL_TOKEN).items():
        monkeypatch.setenv(key, value)
    yield remote
    remote.faults.reset()  # the module's other fixtures share this server (xdist may run `full` after a fault test)


@pytest.fixture(scope="module")
def full(remote: FakeMarketRemote) -> MarketSnapshot:
    remote.faults.reset()  # the clean market, whatever ran on this xdist worker before (CI 2026-12-05: a rename)
    with pytest.MonkeyPatch.context() as mp:
        for key, value in remote.env(tushare_token=FULL_TOKEN).items():
            mp.setenv(key, value)
        return _provider().fetch(TRADE_DATE)


@pytest.mark.slow  # the 5,000-stock fetch
def test_full_fetch_has_true_pe_ttm_and_derived_losses(remote: FakeMarketRemote, full: MarketSnapshot) -> None:
    market = remote.market
    assert (full.provider, full.provider_version, full.report_period) == ("tushare", tushare.__version__, "2026-09-30")
    assert len(full.stocks) == 5000
    assert remote.tushare.rejections == [] and remote.refused_hosts == []
    by_code = {p.stock.code: p for p in full.stocks}
    true_pe = derived = 0
    for s in market.stocks:
        p = by_code[f"{s.code}.{s.exchange}"]
        st = p.stock
        assert (st.name, st.industry, st.st) == (s.name, s.industry, s.st)
        latest = market.latest_report(s.code)
        if latest is not None:
            # ROE is the last fiscal year's (a quarter's is cumulative for the year so far; the rules are annual)
            annual = latest if latest.period.month == 12 else market.published(
                s.code, dt.date(latest.period.year - 1, 12, 31))
            assert st.eps == pytest.approx(latest.eps)
            if annual is None:
                assert st.roe is None
            else:
                assert st.roe == pytest.approx(annual.roe)
                assert p.field_sources["roe"] == f"tushare:fina_indicator_vip({annual.period:%Y%m%d})"
            y1 = market.published(s.code, dt.date(2025, 12, 31))
            if y1 is not None:
                assert st.net_profit_y1 == pytest.approx(y1.net_profit)
                assert p.field_sources["net_profit_y1"] == "tushare:income_vip(20251231)"
        if s.suspended:
            assert st.pe_ttm is None and st.market_cap is None
            continue
        assert st.market_cap == pytest.approx(s.price * s.shares, rel=1e-6)  # 万元 -> yuan
        ttm = market.ttm_net_profit(s.code, as_of=TRADE_DATE)
        if ttm is None:
            assert st.pe_ttm is None
        elif ttm > 0:
            assert p.field_sources["pe_ttm"] == "tushare:daily_basic.pe_ttm"
            assert st.pe_ttm == pytest.approx(s.price * s.shares / ttm, rel=1e-4, abs=6e-5)  # 4 decimals
            true_pe += 1
        else:  # daily_basic leaves a loss empty: derived, negative
            assert st.pe_ttm is not None and st.pe_ttm < 0
            assert p.field_sources["pe_ttm"].startswith("derived:total_mv/TTM净利润(tushare:income_vip ")
            derived += 1
    assert true_pe > 3500 and derived > 300
    assert any("loss-makers derived as total_mv / TTM net profit" in n for n in full.notes)


@pytest.mark.slow  # the 5,000-stock fetch
def test_full_fetch_report_text_has_titles(full: MarketSnapshot) -> None:
    titled = [p for p in full.stocks if "近30日公告（新→旧）：" in (p.stock.report_text or "")]
    assert len(titled) > 2000
    assert all(p.field_sources["report_text"].endswith("anns_d") for p in titled)


def test_no_token_is_not_entitled_and_calls_nothing(ts_env: FakeMarketRemote, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TUSHARE_TOKEN")
    with pytest.raises(NotEntitled, match="TUSHARE_TOKEN is not set"):
        _provider().fetch(TRADE_DATE)
    assert ts_env.tushare.calls == []


def test_wrong_token_is_named_but_never_shown(
    ts_env: FakeMarketRemote, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "not-a-real-token-0123456789abcdef"
    monkeypatch.setenv("TUSHARE_TOKEN", secret)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(NotEntitled) as info:
        _provider().fetch(TRADE_DATE)
    assert "rejected the token in TUSHARE_TOKEN" in str(info.value) and "您的token不对" in str(info.value)
    assert secret not in str(info.value) and secret not in caplog.text
    assert info.value.endpoint == "stock_basic"


def test_too_few_points_for_an_essential_endpoint(ts_env: FakeMarketRemote, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUSHARE_TOKEN", "t2000")
    with pytest.raises(NotEntitled) as info:
        _provider().fetch(TRADE_DATE)
    err = info.value
    assert (err.endpoint, err.needs) == ("fina_indicator_vip", "5000 points")
    assert "essential" in str(err) and "fina_indicator_vip(20260930)" in str(err)
    monkeypatch.setenv("TUSHARE_TOKEN", "t120")
    with pytest.raises(NotEntitled, match="stock_basic: this Tushare account may not call stock_basic; it needs 2000"):
        _provider().fetch(TRADE_DATE)


def test_missing_optional_entitlement_is_a_note(ts_env: FakeMarketRemote, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUSHARE_TOKEN", DEFAULT_TOKEN)  # 5000 points, no anns_d permission
    snap = _provider().fetch(TRADE_DATE, announcement_days=3)
    # warnings, as on the AKShare path: `universe status` lists the notes that start with "warning: "
    assert any(n.startswith("warning: anns_d(20261204) left out:") and "separately granted permission" in n
               for n in snap.notes)
    left_out = "warning: 公告数据缺失: announcement titles left out of the report texts (anns_d not available)"
    assert left_out in snap.notes
    assert snap.degraded == ["公告数据缺失"]  # every row says so
    assert all("公告（新→旧）" not in (p.stock.report_text or "") and "无公告" not in (p.stock.report_text or "")
               for p in snap.stocks)  # never "no announcements" when they were not fetched


def test_rate_limit_on_an_optional_endpoint_is_a_note(ts_env: FakeMarketRemote) -> None:
    ts_env.faults.rate_limited.add("tushare:forecast_vip")
    snap = _provider().fetch(TRADE_DATE, announcement_days=1)
    assert any(n.startswith("warning: forecast_vip(20261231) left out:") and "rate limit" in n for n in snap.notes)
    assert snap.degraded == ["业绩预告数据缺失"]


def test_http_error_on_daily_basic_is_not_an_empty_market(ts_env: FakeMarketRemote) -> None:
    ts_env.faults.status["tushare:daily_basic"] = 502
    with pytest.raises(ProviderUnavailable, match="turns any non-2xx answer into an empty table"):
        _provider().fetch(TRADE_DATE)


def test_no_rows_for_the_trade_date(ts_env: FakeMarketRemote) -> None:
    with pytest.raises(IncompleteData, match=r"daily_basic\(20261202\) returned no rows"):
        _provider().fetch(dt.date(2026, 12, 2))


def test_renamed_field_is_schema_changed(ts_env: FakeMarketRemote) -> None:
    ts_env.faults.rename["tushare:daily_basic"] = {"pe_ttm": "pe_ttm_new"}
    with pytest.raises(SchemaChanged) as info:
        _provider().fetch(TRADE_DATE)
    err = info.value
    assert err.missing == ["pe_ttm"] and f"tushare {tushare.__version__}" in str(err)
    assert "columns seen: ts_code, trade_date, close, pb, total_mv" in str(err)


@pytest.mark.slow  # the 5,000-stock fetch
def test_vip_reports_are_paged_and_roe_is_the_weighted_one(full: MarketSnapshot) -> None:
    """fina_indicator_vip's roe is on period-end equity; roe_waa (weighted) is what the rules' thresholds mean."""
    fina = next(c for c in full.calls if c.function == "fina_indicator_vip(20260930)")
    assert fina.pages == 2 and fina.outcome == "ok"  # 5,000 rows fill one page: the next page is asked for


def test_ip_limit_is_named_and_not_retried(ts_env: FakeMarketRemote) -> None:
    ts_env.faults.tushare_ip_limited = True
    provider = TushareProvider(retry=RetryPolicy(attempts=4, initial_wait_s=0), now=lambda: NOW, sleep=lambda s: None)
    with pytest.raises(ProviderUnavailable) as info:
        provider.fetch(TRADE_DATE)
    assert info.value.ban and "more IPs than the account allows" in str(info.value)
    assert "您的IP数量超限" in str(info.value) and len(ts_env.tushare.calls) == 1


def test_a_per_minute_limit_waits_out_the_minute_before_the_retry(ts_env: FakeMarketRemote) -> None:
    ts_env.faults.rate_limited.add("tushare:stock_basic")
    waits: list[float] = []
    provider = TushareProvider(retry=RetryPolicy(attempts=2, initial_wait_s=0), now=lambda: NOW, sleep=waits.append)
    with pytest.raises(ProviderUnavailable, match="rate limit"):
        provider.fetch(TRADE_DATE)
    assert waits.count(61.0) == 2 and len(ts_env.tushare.calls) == 2


def test_one_failing_announcement_day_costs_only_that_day(ts_env: FakeMarketRemote) -> None:
    """anns_d for Wed 12-02 answers 502 every time (the other days answer): the days read are kept and the rows
    name the one missing, as on the AKShare path; it used to leave every title out for the one day."""
    bad = dt.date(2026, 12, 2)
    ts_env.faults.status_days["tushare:anns_d"] = {bad.isoformat(): 502}
    snap = _provider().fetch(TRADE_DATE, announcement_days=3)  # 12-02 .. 12-04
    read = "2026-12-03 至 2026-12-04"
    assert snap.degraded == [f"公告数据缺失: {bad} 未取得 (本次取得 {read})"], snap.degraded
    assert any(n.startswith("warning: anns_d(20261202) left out:") for n in snap.notes)
    texts = [p.stock.report_text or "" for p in snap.stocks]
    assert any(f"本次刷新只取得 {read} 的公告，未取得 {bad} 的公告" in t for t in texts)
    assert not any("近3日公告" in t for t in texts)  # no block claims the whole window
    titled = [p for p in snap.stocks if "本次刷新只取得" in (p.stock.report_text or "")]
    assert titled and all(p.field_sources["report_text"].endswith("anns_d") for p in titled)
