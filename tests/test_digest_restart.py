"""A bot killed while it builds the digest does not cost the day's digest; a second live bot never sends it twice.

The build screens the whole market (minutes); the guard used to be the 36 h mark taken before it, so
a SIGKILL / OOM / deploy in that window left every later run of the day skipping. Now the slot holds
a renewed "sending" lease until the first message is accepted (bot/digest_guard.py). Real Redis, a
real child process killed with SIGKILL (no finally block runs), a one-second lease instead of minutes.

Run as ``python -m tests.test_digest_restart child URL PREFIX UNIVERSE TMP``, this module is that child:
it runs the 08:45 slot through the queue with no worker, so it builds until it is killed.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.digest_scheduler import DigestService
from screening.config import DigestSettings, Settings, UniverseSettings
from screening.queue.client import JobQueue
from tests.fixtures_redis import REPO
from tests.test_digest import write_universe
from tests.test_digest_schedule import RecordingBot

SH = ZoneInfo("Asia/Shanghai")
DAY = dt.date(2026, 10, 9)  # a Friday, an SSE trading day
LEASE_S = 1.0


def make(settings: Settings, q: JobQueue, tmp: Path, at: dt.datetime, engine: str | None,
         **ds_kw: object) -> tuple[DigestService, RecordingBot]:
    ds = DigestSettings(**{"send_files": False, "push_backoff_s": 0.01, "calendar_dir": str(tmp / "cal"),
                           "lease_s": LEASE_S, **ds_kw})
    bot = RecordingBot()
    return DigestService(settings, q, bot, ds=ds, clock=lambda: at, engine=engine, env={}, out_dir=tmp / "out"), bot


def state(q: JobQueue, svc: DigestService) -> dict | None:
    raw = q.r.get(svc.guard_key(DAY, "tg:101"))
    return json.loads(raw) if raw else None


def wait_for(cond: Callable[[], object], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _settings(queue_settings: Settings, tmp: Path) -> Settings:
    uni = tmp / "universe.sqlite"
    write_universe(uni, 1, DAY.isoformat())
    return queue_settings.model_copy(update={"universe": UniverseSettings(path=str(uni))})


@pytest.mark.slow  # a child process of its own (imports, the queue): about 10 s on two cores
def test_a_bot_killed_mid_build_leaves_a_lease_that_lapses_and_the_restart_sends_once(queue_settings, tmp_path):
    settings = _settings(queue_settings, tmp_path)
    q = JobQueue(settings.redis.url, settings.redis)
    child = None
    try:
        svc, bot = make(settings, q, tmp_path, dt.datetime(2026, 10, 9, 8, 50, tzinfo=SH), "rules",
                        misfire_grace_hours=2)
        svc.subs.subscribe(101)
        child = subprocess.Popen([sys.executable, "-m", "tests.test_digest_restart", "child", settings.redis.url,
                                  settings.redis.prefix, settings.universe.path, str(tmp_path)], cwd=REPO)
        wait_for(lambda: state(q, svc) is not None)
        time.sleep(3 * LEASE_S)  # the build goes on past the lease: the child renews it
        held = state(q, svc)
        assert held is not None and child.poll() is None
        child.send_signal(signal.SIGKILL)
        child.wait()
        orphan = state(q, svc)  # the dead child's lease, not lapsed yet

        t0 = time.monotonic()
        out = asyncio.run(svc.run_slot("08:45"))  # the restarted bot at 08:50, within the grace
        assert bot.digests() == Counter({(101, DAY.isoformat()): 1})
        assert [o.ok for o in out] == [True] and time.monotonic() - t0 < 20 * LEASE_S
        assert held.get("state") == "sending" and orphan is not None and orphan.get("state") == "sending"
        mark = state(q, svc)
        assert mark is not None and mark["state"] == "sent" and mark["by"] != held["by"]
        assert q.r.ttl(svc.guard_key(DAY, "tg:101")) > 30 * 3600
        assert asyncio.run(svc.run_slot("08:45")) == [] and len(bot.digests()) == 1  # and never again
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        q.close()


@pytest.mark.slow  # five seconds of real leases
async def test_a_second_live_bot_waits_while_the_first_builds_and_never_sends_twice(queue_settings, tmp_path):
    """The first bot's build is held up (its chart lock, which the test holds) for several leases.

    The lease is 2 s (renewed every 0.67 s), not less: both bots share this test's event loop, and on a loaded
    two-core CI machine the build thread held the loop off for more than a 0.4 s lease once (stop 48): the
    lease lapsed and the second bot rightly took it over, which is the crash case, not this one.
    """
    settings = _settings(queue_settings, tmp_path)
    q = JobQueue(settings.redis.url, settings.redis)
    at = dt.datetime(2026, 10, 9, 8, 45, tzinfo=SH)
    lease = 2.0
    first, bot = make(settings, q, tmp_path, at, "rules", send_files=True, lease_s=lease)
    second, bot2 = make(settings, q, tmp_path, at, "rules", lease_s=lease)
    first.subs.subscribe(101)
    first.chart_lock = lock = threading.Lock()
    lock.acquire()
    one = asyncio.create_task(first.run_slot("08:45"))
    try:
        while state(q, first) is None:
            await asyncio.sleep(0.05)
        two = asyncio.create_task(second.run_slot("08:45"))
        await asyncio.sleep(2.5 * lease)  # past two leases: the first renews its own, the second waits
        assert not one.done() and not two.done() and bot.sent == [] and bot2.sent == []
        assert state(q, first)["state"] == "sending"  # type: ignore[index]
        lock.release()
        out1, out2 = await asyncio.wait_for(asyncio.gather(one, two), 60)
        assert [o.ok for o in out1] == [True] and out2 == []
        assert bot.digests() == Counter({(101, DAY.isoformat()): 1}) and bot2.sent == []
        assert state(q, first)["state"] == "sent"  # type: ignore[index]
    finally:
        if lock.locked():  # a failed assertion: let the build thread finish, or the loop never closes
            lock.release()
            await asyncio.wait_for(asyncio.gather(one, return_exceptions=True), 60)
        q.close()


def _child(url: str, prefix: str, universe: str, tmp: str) -> None:
    """The bot that gets killed: the 08:45 slot through the queue, which no worker serves."""
    from screening.config import RedisSettings

    settings = Settings().model_copy(update={"redis": RedisSettings(url=url, prefix=prefix),
                                             "universe": UniverseSettings(path=universe)})
    q = JobQueue(settings.redis.url, settings.redis)
    svc, bot = make(settings, q, Path(tmp), dt.datetime(2026, 10, 9, 8, 45, tzinfo=SH), None)
    asyncio.run(svc.run_slot("08:45"))
    print("child finished (unexpected)", bot.sent, flush=True)


if __name__ == "__main__" and sys.argv[1:2] == ["child"]:
    _child(*sys.argv[2:6])
