"""Pytest fixtures for the fake market remote ends (a plugin module: list it in conftest's pytest_plugins, or
import the fixtures into a test module).

- ``fake_market_remote`` (session): the proxy with the fake Eastmoney and Tushare behind it, 5,000 stocks, quotes
  for the session the board shows now (refresh.quote_session) and everything published up to today, so that
  ``python -m screening universe refresh --date <remote.market.trade_date>`` works with the real clock.
  ``remote.faults`` injects failures; ``remote.log``/``refused_hosts``/``eastmoney.rejections`` show what came in.
- ``market_env`` (function): sets the variables in this process (the SDKs then reach only the fakes), resets
  faults and logs, and returns them for a subprocess: ``subprocess.run(cmd, env={**os.environ, **market_env})``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from zoneinfo import ZoneInfo

import pytest

from screening.data.refresh import quote_session
from screening.data.trading_calendar import IMPORT_HINT, SessionUncertain
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import FakeMarketRemote


def board_session_now(now: dt.datetime | None = None) -> dt.date:
    """The session Eastmoney's board shows at this moment: the only ``--date`` an AKShare refresh accepts.

    On a day the calendar cannot date without the year's State Council notice (调休待定) the product refuses
    to refresh, by design, so a test that refreshes with the real clock is skipped with the one-line fix
    instead of failing on the calendar (it runs again once the notice is imported, or the stretch is over).
    """
    try:
        return quote_session(now or dt.datetime.now(ZoneInfo("Asia/Shanghai")))
    except SessionUncertain as e:
        pytest.skip(f"the real clock is in a 调休待定 stretch ({e}); import the year's notice: {IMPORT_HINT}")


@pytest.fixture(scope="session")
def fake_market_remote() -> Iterator[FakeMarketRemote]:
    now = dt.datetime.now(ZoneInfo("Asia/Shanghai"))
    market = FakeMarket(trade_date=board_session_now(), as_of=now.date())
    # one page for the whole board: akshare sleeps 0.5-1.5 s between pages (see FakeEastmoney.clist_page_size)
    with FakeMarketRemote(market, clist_page_size=6000) as remote:
        yield remote


@pytest.fixture
def market_env(fake_market_remote: FakeMarketRemote, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    fake_market_remote.faults.reset()
    fake_market_remote.clear_log()
    env = fake_market_remote.env()
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env
