"""The morning (and optional evening) universe refresh in the bot process: trading days, exactly once.

At ``universe.refresh_time`` (08:00 Asia/Shanghai, before the 08:45 digest) on SSE trading days,
one bot process takes a Redis ``SET NX`` guard for (day, slot) and refreshes the universe from the
providers (screening/data/refresh.py: AKShare, then Tushare with a token; retries per call and a
circuit breaker per provider). A failed attempt is retried with backoff (tenacity) until
``retry_until_min`` minutes after the slot; if it still fails the guard is released (a later run
or a person may try again) and the digest goes out on the last good data, saying how old it is.
A second bot process, or a restart, finds the guard and does not fetch the market twice.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import socket
from collections.abc import Callable
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    retry_if_not_exception_type,
    stop_after_delay,
    wait_exponential,
)

from screening.config import Settings
from screening.data.refresh import Refresher, RefreshFailed, RefreshOutcome, SessionUndated
from screening.data.trading_calendar import day_status
from screening.screen.open_risks import open_risk_titles

log = logging.getLogger("bot.refresh")
JOB_PREFIX = "universe-refresh:"


class RefreshService:
    """Everything the refresh jobs need; the scheduler calls ``run_slot``."""

    def __init__(self, settings: Settings, r: Any, *, refresher: Refresher | None = None,
                 clock: Callable[[], dt.datetime] | None = None, retry_until_min: float = 30.0,
                 first_wait_s: float = 60.0) -> None:
        self.settings, self.r = settings, r
        self.tz = settings.digest.tz
        self.clock = clock or (lambda: dt.datetime.now(self.tz))
        # one clock picks the session and checks the board (an injected refresher keeps its own)
        # the text reader says which stored titles state an open 高 risk: kept past the window (refresh_open_risks)
        self.refresher = refresher or Refresher(settings, now=self.clock, open_risks=open_risk_titles)
        self.retry_until_s = retry_until_min * 60
        self.first_wait_s = first_wait_s
        self._me = f"{socket.gethostname()}:{os.getpid()}"

    def slots(self) -> list[str]:
        us = self.settings.universe
        return [t for t in (us.refresh_time, us.evening_refresh_time) if t]

    def guard_key(self, day: dt.date, slot: str) -> str:
        return f"{self.settings.redis.prefix}:universe:refresh:{day.isoformat()}:{slot}"

    async def run_slot(self, slot: str) -> RefreshOutcome | None:
        """On a trading day, refresh once for (day, slot); None when skipped or failed (logged)."""
        day = self.clock().astimezone(self.tz).date()
        ds = self.settings.digest
        status = day_status(day, ds.holiday_set(), store=ds.calendar_store())
        if warning := status.warning():
            log.warning("universe refresh %s: %s", day, warning)
        if not status.runs(ds.on_unknown_days):  # a statutory holiday never runs; 调休待定 as the digest does
            log.info("universe refresh %s %s: %s", day, slot, status.why_not())
            return None
        key = self.guard_key(day, slot)
        if not self.r.set(key, self._me, nx=True, ex=36 * 3600):
            log.info("universe refresh %s %s: already done or running elsewhere (%s)", day, slot, self.r.get(key))
            return None
        try:
            retry = retry_if_exception_type(RefreshFailed) & retry_if_not_exception_type(SessionUndated)
            async for attempt in AsyncRetrying(retry=retry, reraise=True,
                                               wait=wait_exponential(multiplier=self.first_wait_s, max=600),
                                               stop=stop_after_delay(self.retry_until_s)):
                with attempt:
                    # the board before the open shows the previous session: the Refresher dates the quotes by the
                    # session it shows, on this clock, with the configured calendar (holidays, imported notices);
                    # an uncertain session (调休待定) is SessionUndated, which only the notice settles
                    outcome = await asyncio.to_thread(self.refresher.refresh)
        except RefreshFailed as exc:
            self.r.delete(key)
            log.error("universe refresh %s %s failed; the digest uses the last good data: %s", day, slot, exc)
            return None
        log.info("universe refresh %s %s: %d stocks from %s", day, slot, outcome.stocks, outcome.provider)
        return outcome

    def add_jobs(self, scheduler: AsyncIOScheduler) -> None:
        for slot in self.slots():
            hh, mm = (int(x) for x in slot.split(":"))
            scheduler.add_job(self.run_slot, CronTrigger(hour=hh, minute=mm, timezone=self.tz), args=[slot],
                              id=JOB_PREFIX + slot, name=f"universe refresh {slot}", coalesce=True, max_instances=1,
                              misfire_grace_time=1800, replace_existing=True)
