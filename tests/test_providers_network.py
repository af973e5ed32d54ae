"""What the real network does to a refresh, through ``python -m screening universe refresh`` against the fakes.

akshare 1.19.5's own code runs unmodified against the fake Eastmoney (tests/fakes), which now also answers the
way the live servers were seen to misbehave in akshare's issue tracker: ``result: null`` for a period that has
data (#6522), fields that come back empty. A 300-stock market keeps each refresh to seconds; every test starts
from a copy of one good universe, so the "last good universe is kept" checks compare against real data.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.data.universe import Universe
from tests.fakes.fixtures import last_weekday_before
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import FakeMarketRemote

REPO = Path(__file__).resolve().parent.parent
TODAY = dt.datetime.now(ZoneInfo("Asia/Shanghai")).date()
TRADE_DATE = last_weekday_before(TODAY)


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
                "SCREENER_UNIVERSE__PROVIDER": "akshare"})
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
