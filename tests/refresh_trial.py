"""What the refresh trials' tests share (2026-12-07): a 300-stock fake market on Saturday before the open, the real
Refresher against it through the real SDKs (a value fault goes in ``remote.faults.edit``).

``remote`` is a module-scoped fixture a test module imports (``from tests.refresh_trial import remote_fixture  #
noqa: F401``), as tests/test_text_signals.py imports ``im``: each importing module starts its own fake market once
and keeps it for its tests (tests/fixtures_markers.py sends a module to one xdist worker as a unit); the project's
one conftest names only the plugin modules of real parts, and this market is the refresh trials' own. Imported
under another name than the fixture's, so a test's ``remote`` argument does not shadow an import (ruff F811).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.refresh import Refresher
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import FULL_TOKEN, FakeMarketRemote

SH = ZoneInfo("Asia/Shanghai")
SATURDAY = dt.datetime(2026, 12, 5, 7, 30, tzinfo=SH)  # the board shows Friday 12-04
SESSION = dt.date(2026, 12, 4)


def saturday_market() -> FakeMarketRemote:
    """The fake remote ends of a 300-stock market whose board shows Friday's session (use it as a context)."""
    return FakeMarketRemote(FakeMarket(300, trade_date=SESSION, as_of=SATURDAY.date()), clist_page_size=6000)


@pytest.fixture(scope="module", name="remote")
def remote_fixture() -> Iterator[FakeMarketRemote]:
    """One fake market per test module that imports this fixture, shut down after the module's last test."""
    with saturday_market() as r:
        yield r


def make_refresher(remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Refresher:
    remote.faults.reset()
    for key, value in remote.env(tushare_token=FULL_TOKEN).items():
        monkeypatch.setenv(key, value)
    us = UniverseSettings(path=str(tmp_path / "universe.sqlite"), announcement_days=3, pace_s=0, refresh_attempts=1)
    settings = Settings().model_copy(update={"universe": us, "digest": DigestSettings(calendar_dir=str(tmp_path))})
    return Refresher(settings, now=lambda: SATURDAY)
