"""The bot's 08:00 refresh dates its quotes with the configured calendar, imported notices included.

bot/refresh_scheduler.py against a real Redis guard, the real Refresher and akshare, and the fake Eastmoney, at
08:00 on Monday 2027-02-15 (the week after 春节). The law leaves 02-09..02-12 调休待定: with the 2027 notice
in ``[digest].calendar_dir`` they are closed, so the board shows Thursday 02-04's close; without one, which close
it shows is unknown and the refresh must not run on a guess (it counted 02-12 as the session before).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import redis

from bot.refresh_scheduler import RefreshService
from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.calendar_notice import import_notice
from screening.data.universe import Universe
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import FakeMarketRemote
from tests.notice_2027 import NOTICE_2027

pytestmark = [pytest.mark.slow]  # a real refresh of a 300-stock fake market (seconds)

SH = ZoneInfo("Asia/Shanghai")
MONDAY_0800 = dt.datetime(2027, 2, 15, 8, 0, tzinfo=SH)
SESSION = dt.date(2027, 2, 4)  # the last session before the notice's 春节 break (02-05..02-13)


@pytest.fixture(scope="module")
def remote() -> Iterator[FakeMarketRemote]:
    with FakeMarketRemote(FakeMarket(300, trade_date=SESSION, as_of=MONDAY_0800.date()), clist_page_size=6000) as r:
        yield r


def _service(remote: FakeMarketRemote, tmp_path: Path, queue_settings: Settings,
             monkeypatch: pytest.MonkeyPatch) -> tuple[RefreshService, Path]:
    remote.faults.reset()
    for key, value in remote.env(tushare_token=None).items():
        monkeypatch.setenv(key, value)
    path = tmp_path / "universe.sqlite"
    us = UniverseSettings(path=str(path), provider="akshare", announcement_days=3, pace_s=0, refresh_attempts=1)
    ds = DigestSettings(calendar_dir=str(tmp_path / "calendar"))
    settings = queue_settings.model_copy(update={"universe": us, "digest": ds})
    service = RefreshService(settings, redis.Redis.from_url(settings.redis.url), clock=lambda: MONDAY_0800,
                             retry_until_min=0.01, first_wait_s=0.01)
    return service, path


def test_the_scheduled_refresh_reads_the_imported_notice(
        remote: FakeMarketRemote, tmp_path: Path, queue_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    service, path = _service(remote, tmp_path, queue_settings, monkeypatch)
    notice = tmp_path / "notice-2027.toml"
    notice.write_text(NOTICE_2027, encoding="utf-8")
    import_notice(notice, tmp_path / "calendar")
    outcome = asyncio.run(service.run_slot("08:00"))
    assert outcome is not None and outcome.trade_date == SESSION.isoformat()
    assert Universe.load(path).info.trade_date == SESSION.isoformat()


def test_without_the_notice_the_scheduled_refresh_refuses_to_guess_the_session(
        remote: FakeMarketRemote, tmp_path: Path, queue_settings: Settings, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    service, path = _service(remote, tmp_path, queue_settings, monkeypatch)
    remote.clear_log()
    with caplog.at_level("INFO", logger="bot.refresh"):
        assert asyncio.run(service.run_slot("08:00")) is None
    said = " ".join(r.getMessage() for r in caplog.records if r.name == "bot.refresh")
    assert "failed" in said and "2027-02-12 调休待定" in said and "calendar import" in said
    assert not path.exists() or Universe.load(path).info.trade_date is None
    assert remote.eastmoney.requests == 0  # nothing fetched on a guess
    assert not service.r.exists(service.guard_key(MONDAY_0800.date(), "08:00"))  # a later run may try again
