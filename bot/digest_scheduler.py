"""The morning digest in the bot process: APScheduler 3.x jobs, trading days only, once per (day, chat).

One cron job per send time ("slot"): the default ``[digest].time`` (08:45 Asia/Shanghai) and
every distinct per-chat or per-target time. Each job, when it fires:

1. checks the date against the SSE calendar (``screening.data.trading_calendar``: XSHG, then an
   imported notice, then the law, with a logged warning past XSHG) and does nothing on a closed
   day, nor on a ``调休待定`` day unless ``[digest].on_unknown_days = "send"``;
2. takes a short "sending" lease per recipient, ``P:digest:sent:{date}:{recipient}`` (SET NX,
   ``lease_s``, renewed while it builds and sends), which becomes the long "sent" mark
   (``guard_ttl_hours``) when the vendor accepts the recipient's first message (bot/digest_guard.py
   says why two phases). A second live bot process waits while the lease is renewed and skips once
   it is marked; a process that died mid-build lets its lease lapse, and the next one takes it over.
   The lease is released when nothing at all reached the recipient (build failed, or every message
   failed), so the next run can retry; after a partial send the mark stays (at most once beats twice);
3. builds one digest per distinct pool (the universe, or a chat's own pool) through the queue
   on the bulk lane, in a thread, and sends them all concurrently (``screening.push.send_each``).

Restarts: the jobs use ``coalesce=True`` and a ``misfire_grace_time`` in hours, and at start-up
a slot whose time passed less than the grace ago today is added with that past time as its
``next_run_time``, so APScheduler runs it at once as a misfire within grace. A restart at 08:44
fires at 08:45 as usual; a restart at 08:46 fires immediately: if the previous process had sent
anything, the mark stops it; if it died before that, its lease lapses within ``lease_s`` and the
restarted one sends (it waits for that within the grace). Exactly once when the process survives,
at most once per recipient once anything reached the chat.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import functools
import logging
import os
import socket
import sys
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.core.digest_channel import FrontChannel
from bot.core.inbound import ChatRef
from bot.core.service import DEPS_KEY
from bot.digest_guard import SENDING, SENT, DigestGuard
from bot.subscriptions import Subscriptions
from screening.config import DigestSettings, Settings, cache_dir, load_settings
from screening.data.trading_calendar import day_status
from screening.digest.build import make_digest
from screening.digest.model import Digest
from screening.push import Channel, SendOutcome, TelegramChannel, send_each
from screening.push.manager import make_channel
from screening.queue.client import JobQueue

log = logging.getLogger("bot.digest")
SERVICE_KEY = "digest_service"
SCHEDULER_KEY = "digest_scheduler"
JOB_PREFIX = "digest:"
SYNC_JOB = "digest-sync"


@dataclass
class Recipient:
    key: str  # "tg:<chat id>" or "im:<target name>": the guard's name
    channel: Channel
    codes: tuple[str, ...] | None = None  # own pool; None = pool_file or the universe
    pool_file: str | None = None

    @property
    def group(self) -> tuple[Any, ...]:
        return (self.codes, self.pool_file)


class DigestService:
    """Everything the digest jobs need; the scheduler calls ``run_slot``."""

    def __init__(self, settings: Settings, queue: JobQueue, bot: Any = None, *, ds: DigestSettings | None = None,
                 clock: Callable[[], dt.datetime] | None = None, engine: str | None = None,
                 env: Mapping[str, str] | None = None, http_client: Any = None, out_dir: Path | None = None,
                 chart_lock: Any = None) -> None:
        self.settings, self.queue, self.bot = settings, queue, bot
        self.ds = ds or settings.digest
        self.tz = self.ds.tz
        self.clock = clock or (lambda: dt.datetime.now(self.tz))
        self.engine = engine  # None: through the queue (the worker); "rules": in process
        self.env = os.environ if env is None else env
        self.http_client = http_client
        self.out_dir = out_dir or (Path(self.ds.out_dir) if self.ds.out_dir else cache_dir() / "digests")
        self.subs = Subscriptions(queue.r, queue.prefix)
        self.chart_lock = chart_lock or threading.Lock()
        self._built: dict[tuple[Any, ...], Digest] = {}
        self.fronts: dict[str, Any] = {}  # platform -> the front that reaches its chats (bot/core/front.py)
        self.scheduler: AsyncIOScheduler | None = None
        self._token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.guard = DigestGuard(queue.r, queue.prefix, token=self._token, lease_s=self.ds.lease_s,
                                 sent_ttl_s=self.ds.guard_ttl_hours * 3600, clock=self.now)

    # -- time ------------------------------------------------------------------------------
    def now(self) -> dt.datetime:
        now = self.clock()
        return now.astimezone(self.tz) if now.tzinfo else now.replace(tzinfo=self.tz)

    @property
    def grace(self) -> dt.timedelta:
        return dt.timedelta(hours=self.ds.misfire_grace_hours)

    # -- the guard -------------------------------------------------------------------------
    def guard_key(self, day: dt.date, recipient: str) -> str:
        return self.guard.key(day, recipient)

    # -- recipients ------------------------------------------------------------------------
    def slots(self) -> set[str]:
        slots = {self.ds.time} | self.subs.slots(self.ds.time)
        slots |= {t.time or self.ds.time for t in self.ds.targets if t.enabled}
        return slots

    def telegram_recipient(self, chat_id: int, pool: Sequence[str] | None) -> Recipient:
        ch = TelegramChannel(self.bot, chat_id, ds=self.ds, send_files=self.ds.send_files,
                             attempts=self.ds.push_attempts, backoff_s=self.ds.push_backoff_s)
        return Recipient(f"tg:{chat_id}", ch, tuple(pool) if pool else None, self.ds.pool_file or None)

    # -- the fronts: a subscriber on any platform gets the digest through its own front ----------------
    def register_front(self, front: Any) -> None:
        self.fronts[front.platform] = front

    @staticmethod
    def sub_key(chat: Any) -> int | str:
        """The subscription's key: the Telegram chat id as before, ``platform:chat`` elsewhere."""
        return int(chat.chat_id) if chat.platform == "telegram" else f"{chat.platform}:{chat.chat_id}"

    def recipient_for(self, chat: Any, pool: Sequence[str] | None) -> Recipient:
        if chat.platform == "telegram":
            return self.telegram_recipient(int(chat.chat_id), pool)
        ch = FrontChannel(self.fronts[chat.platform], chat, ds=self.ds, send_files=self.ds.send_files)
        return Recipient(f"{chat.platform}:{chat.chat_id}", ch, tuple(pool) if pool else None,
                         self.ds.pool_file or None)

    def _sub_recipient(self, sub: Any) -> Recipient | None:
        key = str(sub.chat_id)
        platform, _, chat_id = key.partition(":") if ":" in key else ("telegram", "", key)
        if platform == "telegram":
            return self.telegram_recipient(int(chat_id), sub.pool) if self.bot is not None else None
        if platform not in self.fronts:
            return None
        kind = "private" if sub.chat_type == "private" else "group"
        return self.recipient_for(ChatRef(platform, chat_id, kind), sub.pool)  # type: ignore[arg-type]

    def resync(self) -> None:
        """Re-read the subscriptions' times now (after /subscribe HH:MM, /unsubscribe)."""
        if self.scheduler is not None:
            self.sync_jobs(self.scheduler)

    def recipients(self, slot: str | None = None, chat_id: int | None = None) -> list[Recipient]:
        """Who gets the digest at ``slot`` (None: everyone), or only ``chat_id`` (a Telegram chat)."""
        out: list[Recipient] = []
        if chat_id is not None:
            sub = self.subs.get(chat_id)
            return [self.telegram_recipient(chat_id, sub.pool if sub else None)]
        skipped = 0
        for sub in self.subs.all():
            if slot is None or sub.slot(self.ds.time) == slot:
                rc = self._sub_recipient(sub)
                if rc is None:
                    skipped += 1
                else:
                    out.append(rc)
        if skipped:
            log.warning("digest: %d subscribed chat(s) skipped: their front is not running in this process", skipped)
        for t in self.ds.targets:
            if t.enabled and (slot is None or (t.time or self.ds.time) == slot):
                ch = make_channel(t, self.ds, self.env, self.http_client, clock=lambda: self.now().timestamp())
                out.append(Recipient(f"im:{t.name}", ch, None, t.pool_file or self.ds.pool_file or None))
        return out

    # -- building and sending --------------------------------------------------------------
    def _build(self, day: dt.date, codes: tuple[str, ...] | None, pool_file: str | None) -> Digest:
        # the chart lock only around drawing (make_digest passes it down): a digest's queue wait must not
        # stall every /screen result at its chart
        return make_digest(self.settings, day, ds=self.ds, codes=list(codes) if codes else None,
                           pool_file=pool_file, engine=self.engine, queue=self.queue,
                           out_dir=self.out_dir, write=self.ds.send_files, now=self.now(), chart_lock=self.chart_lock)

    async def digest_for(self, day: dt.date, group: tuple[Any, ...]) -> Digest:
        """The day's digest for one pool, built once per process and day (later slots reuse it)."""
        key = (day, *group)
        if key not in self._built:
            for old in [k for k in self._built if k[0] != day]:
                del self._built[old]
            self._built[key] = await asyncio.to_thread(self._build, day, *group)
        return self._built[key]

    async def deliver(self, day: dt.date, recipients: Sequence[Recipient], *, force: bool = False,
                      wait_s: float = 0.0) -> list[SendOutcome]:
        """Lease, build (once per pool), send; release the leases of recipients that got nothing.

        ``force`` (a manual send) sends to everyone; it still takes the free leases, so the scheduled
        run of the day does not send again, and never releases one it did not take. ``wait_s``: how
        long to wait for recipients whose lease another process holds (it may have died mid-build).
        """
        leased = [rc for rc in recipients if self.guard.take(day, rc.key)]
        mine = list(recipients) if force else leased
        held = {rc.key for rc in leased}
        busy = [] if force else [rc for rc in recipients
                                 if rc.key not in held and self.guard.state(day, rc.key) == SENDING]
        if skipped := len(recipients) - len(mine):
            log.info("digest %s: %d recipient(s) skipped: %d already served today, %d being served by another "
                     "process", day, skipped, skipped - len(busy), len(busy))
        try:
            async with self.guard.kept():
                outcomes = await self._build_and_send(day, mine, force=force)
        finally:  # an error or a cancel here: the leases still held lapse instead of staying for hours
            self.guard.forget(day, list(held))
        if busy and wait_s > 0:
            outcomes += await self._after_other_process(day, busy, wait_s)
        return outcomes

    async def _build_and_send(self, day: dt.date, mine: list[Recipient], *, force: bool) -> list[SendOutcome]:
        """Build once per pool; a lease the build outlived and lost is left to its new holder (never twice)."""
        pairs: list[tuple[Recipient, Digest]] = []
        outcomes: list[SendOutcome] = []
        for group in dict.fromkeys(rc.group for rc in mine):
            members = [rc for rc in mine if rc.group == group]
            try:
                digest = await self.digest_for(day, group)
            except Exception as exc:
                log.error("digest %s: building failed for %d recipient(s): %s", day, len(members), exc,
                          exc_info=True)
                for rc in members:
                    self.guard.release(day, rc.key)
                    outcomes.append(SendOutcome(rc.key, rc.channel.kind, 0, 0, 0, f"build failed: {exc}"))
                continue
            if digest.demo and not self.ds.allow_demo:
                log.warning("digest %s: screened on demo data; not pushed to %d recipient(s) "
                            "(set [digest] allow_demo = true to push demo digests)", day, len(members))
                for rc in members:
                    self.guard.release(day, rc.key)
                    outcomes.append(SendOutcome(rc.key, rc.channel.kind, 0, 0, 0,
                                                "demo data: not pushed (digest.allow_demo = false)"))
                continue
            pairs += [(rc, digest) for rc in members]
        if not force:  # a lease that lapsed while building may be another process's now: that one sends
            self.guard.renew()
            pairs = [(rc, d) for rc, d in pairs if self.guard.holds(day, rc.key)]
        for rc, _ in pairs:  # phase 2 at the first message the vendor accepts, not after the whole send
            rc.channel.on_accepted = functools.partial(self.guard.mark_sent, day, rc.key)
        sent = await send_each([(rc.channel, d) for rc, d in pairs])
        for (rc, _), outcome in zip(pairs, sent, strict=True):
            if outcome.nothing_sent:
                self.guard.release(day, rc.key)
            else:
                self.guard.mark_sent(day, rc.key)  # a no-op unless the hook's mark failed
        return outcomes + sent

    async def _after_other_process(self, day: dt.date, busy: list[Recipient], wait_s: float) -> list[SendOutcome]:
        """Wait up to ``wait_s`` for another process's leases to be marked sent (done) or to lapse (take over).

        A live holder renews its lease, so this waits while it builds; a holder that was killed stops
        renewing, and its lease lapses within ``lease_s``: without this wait nobody would send that day.
        """
        loop = asyncio.get_running_loop()
        end = loop.time() + wait_s
        while busy and loop.time() < end:
            await asyncio.sleep(min(self.guard.lease_s / 4, 15.0))
            states = [self.guard.state(day, rc.key) for rc in busy]
            if None in states:
                log.info("digest %s: another process's sending lease lapsed: sending from here", day)
                again = [rc for rc, st in zip(busy, states, strict=True) if st != SENT]
                return await self.deliver(day, again, wait_s=end - loop.time())
            busy = [rc for rc, st in zip(busy, states, strict=True) if st == SENDING]
        if busy:
            log.warning("digest %s: %d recipient(s) still leased by another process at the end of the grace; "
                        "not sent from here", day, len(busy))
        return []

    async def run_slot(self, slot: str, now: dt.datetime | None = None) -> list[SendOutcome]:
        """The scheduled job: on a trading day, send the digest to everyone due at ``slot``."""
        now = now.astimezone(self.tz) if now is not None else self.now()
        day = now.date()
        status = day_status(day, self.ds.holiday_set(), store=self.ds.calendar_store())
        if warning := status.warning():
            log.warning("digest %s: %s", day, warning)
        if not status.runs(self.ds.on_unknown_days):
            (log.warning if status.open is None else log.info)("digest %s %s: %s, nothing sent", day, slot,
                                                                status.why_not())
            return []
        recipients = self.recipients(slot)
        if not recipients:
            log.info("digest %s %s: no recipients", day, slot)
            return []
        hh, mm = (int(x) for x in slot.split(":"))
        until = dt.datetime(day.year, day.month, day.day, hh, mm, tzinfo=self.tz) + self.grace
        outcomes = await self.deliver(day, recipients, wait_s=(until - now).total_seconds())
        log.info("digest %s %s: %d/%d recipients served", day, slot, sum(not o.nothing_sent for o in outcomes),
                 len(recipients))
        return outcomes

    # -- the scheduler ---------------------------------------------------------------------
    def initial_run_time(self, slot: str, now: dt.datetime) -> dt.datetime | None:
        """The latest past fire time of ``slot`` if it is within the grace (then run it at once)."""
        hh, mm = (int(x) for x in slot.split(":"))
        for days_back in (0, 1):
            day = now.date() - dt.timedelta(days=days_back)
            fire = dt.datetime(day.year, day.month, day.day, hh, mm, tzinfo=self.tz)
            if fire <= now:
                return fire if now - fire <= self.grace else None
        return None

    def trigger(self, slot: str) -> CronTrigger:
        hh, mm = (int(x) for x in slot.split(":"))
        return CronTrigger(hour=hh, minute=mm, timezone=self.tz)

    def sync_jobs(self, scheduler: AsyncIOScheduler, catch_up: bool = False) -> None:
        """One job per slot in use; new slots added, unused ones removed (called at start and every 5 min)."""
        wanted = self.slots()
        have = {j.id[len(JOB_PREFIX):]: j for j in scheduler.get_jobs() if j.id.startswith(JOB_PREFIX)}
        now = self.now()
        for slot in sorted(wanted - set(have)):
            kwargs: dict[str, Any] = {}
            first = self.initial_run_time(slot, now) if catch_up else None
            if first is not None:
                kwargs["next_run_time"] = first
                log.info("digest slot %s passed %s ago (grace %s): running it now", slot, now - first, self.grace)
            scheduler.add_job(self.run_slot, self.trigger(slot), args=[slot], id=JOB_PREFIX + slot,
                              name=f"digest {slot}", coalesce=True, max_instances=1,
                              misfire_grace_time=int(self.grace.total_seconds()), replace_existing=True, **kwargs)
        for slot in set(have) - wanted:
            scheduler.remove_job(JOB_PREFIX + slot)

    async def _sync_job(self, scheduler: AsyncIOScheduler) -> None:
        try:
            self.sync_jobs(scheduler)
        except Exception:
            log.warning("digest: could not refresh the schedule", exc_info=True)


def build_scheduler(service: DigestService) -> AsyncIOScheduler:
    """An AsyncIOScheduler (not started) with the digest slots and a 5-minute re-sync of subscriptions."""
    scheduler = AsyncIOScheduler(timezone=service.tz, job_defaults={
        "coalesce": True, "max_instances": 1, "misfire_grace_time": int(service.grace.total_seconds())})
    if service.ds.enabled:
        service.sync_jobs(scheduler, catch_up=True)
        scheduler.add_job(service._sync_job, IntervalTrigger(minutes=5, timezone=service.tz), args=[scheduler],
                          id=SYNC_JOB, name="digest re-sync", misfire_grace_time=60)
    return scheduler


def setup_digest(application: Any, settings: Settings, queue: JobQueue, **kwargs: Any) -> AsyncIOScheduler:
    """Create the service and the scheduler for a PTB Application; start it in post_init.

    ``scheduler.start()`` must run on the application's event loop (post_init is a good place),
    and ``scheduler.shutdown(wait=False)`` in post_shutdown. After /subscribe or /unsubscribe,
    call ``refresh_digest_jobs(application)`` (the 5-minute re-sync catches them anyway).
    Keyword arguments go to ``DigestService`` (``engine="rules"`` screens without a worker).
    """
    deps = application.bot_data.get(DEPS_KEY)
    if deps is not None and "chart_lock" not in kwargs:
        kwargs["chart_lock"] = getattr(deps, "chart_lock", None)
    service = DigestService(settings, queue, application.bot, **kwargs)
    scheduler = build_scheduler(service)
    service.scheduler = scheduler
    application.bot_data[SERVICE_KEY] = service
    application.bot_data[SCHEDULER_KEY] = scheduler
    if deps is not None:
        deps.services["digest"] = service  # the core's digest commands reach it here
    return scheduler


def refresh_digest_jobs(application: Any) -> None:
    """Re-read the subscriptions' times now (after /subscribe HH:MM, /unsubscribe)."""
    service = application.bot_data.get(SERVICE_KEY)
    scheduler = application.bot_data.get(SCHEDULER_KEY)
    if service is not None and scheduler is not None:
        service.sync_jobs(scheduler)


async def send_digest_now(bot: Any, settings: Settings, queue: JobQueue, chat_id: int | None = None, *,
                          day: dt.date | None = None, engine: str | None = None,
                          service: DigestService | None = None, **kwargs: Any) -> list[SendOutcome]:
    """Send a digest now, by hand: to ``chat_id`` only, or to every subscriber and IM target.

    Trading day or not, guard held or not: a manual send always goes out, and it takes the
    free guards so the scheduled run of the same day does not send again.
    """
    service = service or DigestService(settings, queue, bot, engine=engine, **kwargs)
    day = day or service.now().date()
    recipients = service.recipients(None, chat_id=chat_id)
    if not recipients:
        log.warning("digest --now: nobody to send to (no subscriptions, no [[digest.targets]])")
        return []
    return await service.deliver(day, recipients, force=True)


def add_digest_now_args(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``python -m bot digest``."""
    parser.add_argument("--now", action="store_true", required=True, help="send the digest now")
    parser.add_argument("--chat", type=int, help="only this chat (default: all subscribers and IM targets)")
    parser.add_argument("--engine", choices=["rules"], help="screen in process instead of through the worker")
    with contextlib.suppress(argparse.ArgumentError):
        parser.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")


def cmd_digest_now(args: argparse.Namespace) -> int:
    """``python -m bot digest --now [--chat ID]``: 0 when every recipient got it, 1 otherwise, 2 on setup errors."""
    from telegram import Bot

    settings = load_settings(getattr(args, "config", None))
    token = settings.telegram.token.get_secret_value().strip() if settings.telegram.token else ""
    ds = settings.digest
    if not token and (args.chat is not None or not ds.targets):
        print("error: no bot token: set SCREENER_TELEGRAM__TOKEN (never read from config.toml)", file=sys.stderr)
        return 2
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)
    queue = JobQueue(settings.redis.url, settings.redis)
    try:
        queue.ping()
    except Exception as exc:
        print(f"error: Redis at {settings.redis.url} is not reachable ({exc})", file=sys.stderr)
        return 2

    async def run() -> list[SendOutcome]:
        engine = getattr(args, "engine", None)
        if not token:  # IM targets only
            return await send_digest_now(None, settings, queue, None, engine=engine)
        tg = settings.telegram
        async with Bot(token, base_url=tg.base_url, base_file_url=tg.base_file_url) as bot:
            return await send_digest_now(bot, settings, queue, args.chat, engine=engine)

    try:
        outcomes = asyncio.run(run())
    finally:
        queue.close()
    for o in outcomes:
        print(o.describe(), file=sys.stderr)
    return 0 if outcomes and all(o.ok for o in outcomes) else 1


__all__ = ["DigestService", "add_digest_now_args", "build_scheduler", "cmd_digest_now", "refresh_digest_jobs",
           "send_digest_now", "setup_digest"]
