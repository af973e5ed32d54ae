"""What the real network does to a refresh, through ``python -m screening universe refresh`` against the fakes.

akshare 1.19.5's own code runs unmodified against the fake Eastmoney (tests/fakes), which now also answers the
way the live servers were seen to misbehave in akshare's issue tracker: ``result: null`` for a period that has
data (#6522), fields that come back empty. A 300-stock market keeps each refresh to seconds; every test starts
from a copy of one good universe, so the "last good universe is kept" checks compare against real data.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.config import Settings
from screening.data.providers import ProviderError
from screening.data.providers.akshare_provider import AkshareProvider
from screening.data.providers.fetch_plan import announcement_window
from screening.data.refresh import Refresher, quote_session
from screening.data.trading_calendar import previous_trading_day
from screening.data.universe import Universe
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import FakeMarketRemote

pytestmark = [pytest.mark.slow]  # each test is a real refresh (a subprocess with akshare) of a 300-stock market

REPO = Path(__file__).resolve().parent.parent
TODAY = dt.datetime.now(ZoneInfo("Asia/Shanghai")).date()
TRADE_DATE = quote_session(dt.datetime.now(ZoneInfo("Asia/Shanghai")))  # the only --date AKShare accepts now


def cli(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "screening", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def remote() -> Iterator[FakeMarketRemote]:
    with FakeMarketRemote(FakeMarket(300, trade_date=TRADE_DATE, as_of=TODAY), clist_page_size=6000) as r:
        yield r


def env_for(remote: FakeMarketRemote, tmp: Path, universe: Path) -> dict[str, str]:
    """Only the fakes reachable, no repo config, a universe of the test's own, short backoff."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_") and "proxy" not in k.lower()}
    (tmp / "none.toml").write_text("", encoding="utf-8")
    env.update({"SCREENER_CONFIG": str(tmp / "none.toml"), "SCREENER_UNIVERSE__PATH": str(universe),
                "SCREENER_UNIVERSE__ANNOUNCEMENT_DAYS": "3", "SCREENER_UNIVERSE__REFRESH_ATTEMPTS": "3",
                "SCREENER_UNIVERSE__PROVIDER": "akshare", "SCREENER_UNIVERSE__PACE_S": "0"})
    env.update(remote.env(tushare_token=None))
    return env


def refresh(env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    return cli("universe", "refresh", "--date", TRADE_DATE.isoformat(), *extra, env=env)


@pytest.fixture(scope="module")
def good(remote: FakeMarketRemote, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One good universe of the 300-stock market, refreshed through the CLI."""
    remote.faults.reset()
    tmp = tmp_path_factory.mktemp("good")
    path = tmp / "universe.sqlite"
    res = refresh(env_for(remote, tmp, path))
    assert res.returncode == 0, res.stderr[-3000:]
    return path


@pytest.fixture
def fresh(remote: FakeMarketRemote, good: Path, tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A copy of the good universe and the env to refresh it, with the fakes' faults and logs cleared."""
    remote.faults.reset()
    remote.clear_log()
    path = tmp_path / "universe.sqlite"
    shutil.copyfile(good, path)
    return env_for(remote, tmp_path, path), path


def _unchanged(path: Path, good: Path) -> bool:
    a, b = Universe.load(path), Universe.load(good)
    return a.info.refreshed_at == b.info.refreshed_at and len(a) == len(b)


# ---- 1. completeness per field ---------------------------------------------------------------------------
def test_a_null_period_is_retried_and_then_the_refresh_completes(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path]) -> None:
    env, path = fresh
    remote.faults.null_period["yjbb"] = {"2025-12-31": 1}  # one null answer, then the data
    res = refresh(env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert remote.faults.null_period["yjbb"]["2025-12-31"] == 0
    u = Universe.load(path)
    with_roe = sum(1 for s in u if s.roe is not None)
    assert with_roe >= 0.9 * len(u)


def test_a_period_answered_null_every_time_is_named_and_the_last_good_universe_stays(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path], good: Path) -> None:
    env, path = fresh
    remote.faults.null_period["yjbb"] = {"2025-12-31": 10_000}
    res = refresh(env)
    assert res.returncode == 1, res.stderr[-3000:]
    assert "stock_yjbb_em(20251231)" in res.stderr and "result: null" in res.stderr, res.stderr[-2000:]
    assert "#6522" in res.stderr and "kept the last good universe" in res.stderr
    assert _unchanged(path, good)


def test_an_essential_field_answered_empty_refuses_naming_field_period_and_call(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path], good: Path) -> None:
    env, path = fresh
    remote.faults.blank_fields["yjbb"] = {"WEIGHTAVG_ROE"}  # every report answers, without its ROE
    res = refresh(env)
    assert res.returncode == 1, res.stderr[-3000:]
    line = next(ln for ln in res.stderr.splitlines() if "universe refresh failed" in ln)
    assert "ROE present for 0 of the" in line and "its period there: " in line, line
    assert "kept the last good universe" in line
    assert _unchanged(path, good)


# ---- 2. transport ----------------------------------------------------------------------------------------
def test_one_dropped_connection_after_a_success_is_retried_and_the_refresh_completes(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path]) -> None:
    env, path = fresh
    remote.faults.host_drop["datacenter-web.eastmoney.com"] = 1  # the first 业绩报表 request, after quotes and ST
    res = refresh(env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert remote.faults.host_drop["datacenter-web.eastmoney.com"] == 0
    assert "universe refreshed from akshare" in res.stderr and len(Universe.load(path)) == len(remote.market.stocks)


def _show(env: dict[str, str], code: str) -> dict[str, object]:
    res = cli("universe", "show", code, "--format", "json", env=env)
    assert res.returncode == 0, res.stderr
    out: dict[str, object] = json.loads(res.stdout)
    return out


@pytest.mark.parametrize("fault", ["drop", "empty"])
def test_quote_hosts_failing_while_push2delay_answers_completes_and_says_so(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path], fault: str) -> None:
    env, _ = fresh
    for host in ("82.push2.eastmoney.com", "40.push2.eastmoney.com"):
        if fault == "drop":
            remote.faults.host_drop[host] = 10_000
        else:
            remote.faults.host_empty.add(host)
    res = refresh(env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert set(remote.eastmoney.clist_hosts) == {"82.push2delay.eastmoney.com"}
    assert "taken from 82.push2delay.eastmoney.com" in res.stderr
    stock = next(s for s in remote.market.stocks if not s.suspended)
    shown = _show(env, f"{stock.code}.{stock.exchange}")
    ids = shown["source_ids"]
    assert isinstance(ids, dict) and ids["price"] == "akshare:stock_zh_a_spot_em@push2delay"
    figures = shown["figures"]
    assert isinstance(figures, dict) and figures["price"] == pytest.approx(stock.price)
    st = next(s for s in remote.market.stocks if s.st and s.exchange != "BJ")  # the board lists SH, SZ
    st_ids = _show(env, f"{st.code}.{st.exchange}")["source_ids"]
    assert isinstance(st_ids, dict) and st_ids["st"] == "akshare:stock_zh_a_st_em@push2delay"


# ---- 3. dates that are true -------------------------------------------------------------------------------
SH = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize(("now", "session"), [
    (dt.datetime(2026, 12, 4, 8, 0, tzinfo=SH), dt.date(2026, 12, 3)),  # Friday before the open: Thursday's
    (dt.datetime(2026, 12, 4, 9, 15, tzinfo=SH), dt.date(2026, 12, 4)),  # the call auction: today's session
    (dt.datetime(2026, 12, 5, 11, 0, tzinfo=SH), dt.date(2026, 12, 4)),  # Saturday: Friday's close
    (dt.datetime(2026, 12, 7, 8, 0, tzinfo=SH), dt.date(2026, 12, 4)),  # Monday 08:00: Friday's close
    (dt.datetime(2026, 10, 8, 8, 0, tzinfo=SH), dt.date(2026, 9, 30)),  # after the National Day closure
    (dt.datetime(2026, 12, 4, 0, 30, tzinfo=dt.UTC), dt.date(2026, 12, 3)),  # 08:30 in Shanghai
])
def test_quote_session_is_the_session_the_board_shows(now: dt.datetime, session: dt.date) -> None:
    assert quote_session(now) == session


def test_a_refresh_at_0800_stores_quotes_dated_the_previous_session(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    remote.faults.reset()
    env = env_for(remote, tmp_path, tmp_path / "universe.sqlite")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    eight = dt.datetime.combine(TODAY, dt.time(8, 0), tzinfo=SH)
    outcome = Refresher(Settings(), now=lambda: eight).refresh()
    expected = previous_trading_day(TODAY)
    assert outcome.trade_date == expected.isoformat() != TODAY.isoformat()
    u = Universe.load(tmp_path / "universe.sqlite")
    assert u.info.trade_date == expected.isoformat()
    assert {u.field_dates(s.code)["price"] for s in u if s.price is not None} == {expected.isoformat()}


def test_today_before_the_call_auction_is_refused_by_the_provider() -> None:
    eight = dt.datetime.combine(TODAY, dt.time(8, 0), tzinfo=SH)
    with pytest.raises(ProviderError, match="still shows the previous session's close"):
        AkshareProvider(now=lambda: eight).fetch(TODAY)


def test_a_revised_forecast_wins_over_its_original_and_says_so(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path]) -> None:
    env, _ = fresh
    period = dt.date(TODAY.year if TODAY.month > 10 else TODAY.year - 1, 12, 31)
    f = next(f for f in remote.market.forecasts(period) if f.predict_type in ("预增", "略增", "扭亏"))
    remote.faults.forecast_original[f.code] = "预减"
    res = refresh(env)
    assert res.returncode == 0, res.stderr[-3000:]
    stock = remote.market.by_code[f.code]
    shown = _show(env, f"{f.code}.{stock.exchange}")
    figures = shown["figures"]
    assert isinstance(figures, dict)
    text = figures["report_text"]
    # the row's own figures join the head's sentence after the kind (providers/forecast_words.py)
    head = f"业绩预告修正（{period.year}年年报，{f.notice_date.isoformat()}公告）"
    assert f"{head}：{f.predict_type}，预测数值 " in text, text
    assert "预减" not in text and "原预告" not in text


def test_dynamic_pe_is_stored_beside_pe_ttm(remote: FakeMarketRemote, good: Path) -> None:
    u = Universe.load(good)
    stock = next(s for s in remote.market.stocks if not s.suspended and remote.market.latest_report(s.code))
    rec = u.record(f"{stock.code}.{stock.exchange}")
    assert rec is not None and rec.stock.pe_dynamic is not None and rec.stock.pe_dynamic != rec.stock.pe_ttm
    assert rec.sources["pe_dynamic"] == "akshare:stock_zh_a_spot_em"


# ---- 4. optional sources degrade, 5. late filers ------------------------------------------------------------
def _screen(env: dict[str, str], *codes: str) -> dict[str, dict[str, object]]:
    res = cli("screen", *codes, "--engine", "rules", "--format", "json", env=env)
    assert res.returncode == 0, res.stderr[-2000:]
    return {r["code"]: r for r in json.loads(res.stdout)}


@pytest.mark.parametrize("fault", ["down", "drifted"])
def test_optional_sources_failing_leave_a_complete_refresh_with_warnings_and_row_flags(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path], fault: str) -> None:
    env, path = fresh
    if fault == "down":
        remote.faults.status.update({"notice": 502, "yjyg": 502, "st_board": 502})
    else:  # fields renamed upstream; an added one on the ST board (akshare's positional labels break there)
        remote.faults.extra_field.update({"st_board": "f999"})
        remote.faults.rename.update({"notice": {"title": "notice_title"}, "yjyg": {"PREDICT_TYPE": "PREDICT_KIND"}})
    res = refresh(env)
    assert res.returncode == 0, res.stderr[-3000:]
    u = Universe.load(path)
    assert len(u) == len(remote.market.stocks) and sum(s.roe is not None for s in u) >= 0.9 * len(u)
    # down: all three; drifted: the ST board's added field breaks akshare's labels, and push2delay (read by name)
    # then brings the board, so only the renamed ones are missing
    want = {"业绩预告数据缺失", "公告数据缺失"} | ({"ST板数据缺失"} if fault == "down" else set())
    # the good universe's titles inside the window are kept (refresh_titles.py), which a flag of its own says
    assert {f for f in u.info.degraded if not f.startswith("公告沿用上次刷新")} == want
    assert any(f.startswith("公告沿用上次刷新 (") for f in u.info.degraded)
    status = json.loads(cli("universe", "status", "--format", "json", env=env).stdout)
    assert any("公告数据缺失" in w for w in status["warnings"]) and "⚠ 公告数据缺失" in status["summary"]
    stock = next(s for s in remote.market.stocks if not s.st and not s.suspended)
    code = f"{stock.code}.{stock.exchange}"
    row = _screen(env, code)[code]
    assert any(str(f).startswith("公告数据缺失") for f in row["flags"]), row  # type: ignore[union-attr]
    text = u.get(code).report_text or ""  # type: ignore[union-attr]
    assert text and "近3日" not in text  # no fresh titles block: never "近3日无公告" unchecked
    if fault == "down":  # the digest footer names the data, and what it lacks
        digest = cli("digest", "--engine", "rules", "--no-files", "--no-history", "--format", "md", env=env)
        assert digest.returncode == 0, digest.stderr[-2000:]
        assert "⚠ 公告数据缺失" in digest.stdout, digest.stdout[-1500:]


def test_a_late_filer_keeps_its_older_report_with_its_date_and_a_flag(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path]) -> None:
    env, path = fresh
    complete = dt.date(2026, 9, 30) if TODAY > dt.date(2026, 10, 31) else None
    if complete is None:
        pytest.skip("the fake's newest complete period is computed for December 2026")
    older = dt.date(2026, 6, 30)
    late = next(s for s in remote.market.stocks if not s.st and not s.suspended
                and remote.market.published(s.code, older) and remote.market.published(s.code, complete))
    remote.faults.withheld[complete.isoformat()] = {late.code}
    # a first refresh: the good universe has the stock's newer report, and a report it had is kept, never taken
    # for a late filing (data/refresh_reports.py; tests/test_refresh_trial_b.py)
    path.unlink()
    res = refresh(env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "late filers" in res.stderr
    code = f"{late.code}.{late.exchange}"
    rec = Universe.load(path).record(code)
    report = remote.market.published(late.code, older)
    assert rec is not None and report is not None
    assert rec.stock.report_date == older.isoformat() and rec.stock.eps == pytest.approx(report.eps)
    assert rec.dates["eps"] == older.isoformat() and rec.sources["eps"] == "akshare:stock_yjbb_em(20260630)"
    assert rec.stock.pe_ttm is not None  # TTM from 2026H1 + 2025 annual - 2025H1, all real reports
    row = _screen(env, code)[code]
    assert any(str(f).startswith("财报滞后") for f in row["flags"]), row  # type: ignore[union-attr]


# ---- 7. probe ----------------------------------------------------------------------------------------------
def test_probe_names_each_host_state_in_one_line(remote: FakeMarketRemote, tmp_path: Path) -> None:
    remote.faults.reset()
    env = env_for(remote, tmp_path, tmp_path / "u.sqlite")
    remote.faults.host_drop["82.push2.eastmoney.com"] = 10_000
    remote.faults.host_empty.add("40.push2.eastmoney.com")
    remote.faults.status["yjyg"] = 429
    remote.faults.rename["notice"] = {"title": "notice_title"}
    res = cli("universe", "probe", env=env, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr[-2000:]
    lines = {ln.split("  ")[0]: ln for ln in res.stdout.splitlines() if not ln.startswith("advice")}
    assert len(lines) == 7, res.stdout
    assert " skipped " in lines["fallback (tushare stock_basic)"]  # no TUSHARE_TOKEN in this env
    assert " blocked " in lines["quotes (stock_zh_a_spot_em)"] and "IP ban" in lines["quotes (stock_zh_a_spot_em)"]
    assert " ok " in lines["quotes fallback (push2delay)"]
    assert " empty " in lines["ST board (stock_zh_a_st_em)"]
    assert " throttled " in next(v for k, v in lines.items() if k.startswith("forecasts"))
    assert " schema drift " in lines["announcements (stock_notice_report)"]
    assert "records lack title" in lines["announcements (stock_notice_report)"]
    assert " ok " in next(v for k, v in lines.items() if k.startswith("reports"))
    assert "advice: quotes: push2 does not answer, push2delay does" in res.stdout
    remote.faults.host_drop["82.push2delay.eastmoney.com"] = 10_000
    remote.faults.tushare_ip_limited = True
    res = cli("universe", "probe", env={**env, **remote.env()}, timeout=120)
    assert res.returncode == 1 and "HTTPS_PROXY" in res.stdout and "TUSHARE_TOKEN" in res.stdout
    tushare = next(ln for ln in res.stdout.splitlines() if ln.startswith("fallback (tushare"))
    assert " blocked " in tushare and "more IPs than the account allows" in tushare


def test_each_title_lands_on_the_codes_its_own_item_names(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path]) -> None:
    """akshare 1.19.5 joins titles and codes by position: one item without an A-share code shifts the rest."""
    env, path = fresh
    remote.faults.foreign_notices = 2
    res = refresh(env)
    assert res.returncode == 0, res.stderr[-3000:]
    u = Universe.load(path)
    # the refresh's own window: on a weekend or holiday it ends the day after the session, not today
    days = announcement_window(TRADE_DATE, TODAY, 3)
    checked = 0
    for s in remote.market.stocks:
        text = (u.get(f"{s.code}.{s.exchange}").report_text or "")  # type: ignore[union-attr]
        own = {a.title.split(":", 1)[1] for d in days for a in remote.market.announcements(d) if a.code == s.code}
        block = text.split("公告（新→旧）：\n", 1)
        shown = [ln[11:] for ln in block[1].splitlines() if ln[:4].isdigit()] if len(block) == 2 else []
        assert set(shown) == own, (s.code, shown, own)  # no other company's title, none of its own lost
        assert "港股" not in text
        checked += bool(own)
    assert checked > 50


def test_show_gives_each_report_figure_its_period_and_first_notice_date(
        remote: FakeMarketRemote, good: Path, tmp_path: Path) -> None:
    """Not 最新公告日期 (UPDATE_DATE), which akshare keeps: a report updated later would look newer than it is."""
    path = tmp_path / "universe.sqlite"
    shutil.copyfile(good, path)
    env = env_for(remote, tmp_path, path)
    m = remote.market
    stock = next(s for s in m.stocks if not s.suspended and (r := m.latest_report(s.code)) is not None
                 and r.update_date > r.notice_date and r.period.month != 12)
    latest = m.latest_report(stock.code)
    annual = m.published(stock.code, dt.date(latest.period.year - 1, 12, 31))  # type: ignore[union-attr]
    assert latest is not None and annual is not None
    shown = _show(env, f"{stock.code}.{stock.exchange}")
    dates, notices = shown["dates"], shown["notices"]
    assert isinstance(dates, dict) and isinstance(notices, dict)
    assert dates["eps"] == latest.period.isoformat() and notices["eps"] == latest.notice_date.isoformat()
    assert dates["roe"] == annual.period.isoformat() and notices["roe"] == annual.notice_date.isoformat()
    text = shown["figures"]["report_text"]  # type: ignore[index]
    assert f"（截至{latest.period.isoformat()}，{latest.notice_date.isoformat()}公告）" in text
    assert latest.update_date.isoformat() + "公告" not in text
    plain = cli("universe", "show", f"{stock.code}.{stock.exchange}", env=env).stdout
    assert f"首次公告 {latest.notice_date.isoformat()}" in plain


def test_an_added_upstream_field_in_reports_is_read_by_name(
        remote: FakeMarketRemote, fresh: tuple[dict[str, str], Path]) -> None:
    """业绩报表 gained BOARD_* fields in 2025-03 (akshare #5933): by name, an added field changes nothing."""
    env, path = fresh
    remote.faults.extra_field["yjbb"] = "BOARD_NEW_FIELD"
    res = refresh(env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert sum(s.roe is not None for s in Universe.load(path)) >= 0.9 * len(remote.market.stocks)


def test_the_bots_0800_refresh_dates_quotes_by_the_previous_session(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, queue_settings: Settings) -> None:
    """bot/refresh_scheduler.py at 08:00 on a trading day: real Redis guard, the real refresh, the fake remote."""
    import asyncio

    import redis

    from bot.refresh_scheduler import RefreshService
    from screening.config import UniverseSettings
    from screening.data.trading_calendar import next_trading_day

    remote.faults.reset()
    for key, value in env_for(remote, tmp_path, tmp_path / "universe.sqlite").items():
        monkeypatch.setenv(key, value)
    us = UniverseSettings(path=str(tmp_path / "universe.sqlite"), provider="akshare", announcement_days=3, pace_s=0,
                          refresh_attempts=1)
    settings = queue_settings.model_copy(update={"universe": us})
    day = next_trading_day(TODAY, inclusive=True)
    eight = dt.datetime.combine(day, dt.time(8, 0), tzinfo=SH)
    service = RefreshService(settings, redis.Redis.from_url(settings.redis.url), clock=lambda: eight,
                             retry_until_min=0.01, first_wait_s=0.01)
    outcome = asyncio.run(service.run_slot("08:00"))
    assert outcome is not None and outcome.trade_date == previous_trading_day(day).isoformat()
    assert Universe.load(tmp_path / "universe.sqlite").info.trade_date == previous_trading_day(day).isoformat()
