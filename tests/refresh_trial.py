"""What the refresh trials' tests share (2026-12-07): a 300-stock fake market on Saturday before the open, the real
Refresher against it through the real SDKs (a value fault goes in ``remote.faults.edit``)."""

from __future__ import annotations

import datetime as dt
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


def make_refresher(remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Refresher:
    remote.faults.reset()
    for key, value in remote.env(tushare_token=FULL_TOKEN).items():
        monkeypatch.setenv(key, value)
    us = UniverseSettings(path=str(tmp_path / "universe.sqlite"), announcement_days=3, pace_s=0, refresh_attempts=1)
    settings = Settings().model_copy(update={"universe": us, "digest": DigestSettings(calendar_dir=str(tmp_path))})
    return Refresher(settings, now=lambda: SATURDAY)
