"""The chat core's state: settings, the queue, the universe, the followers, and the bot's Redis records.

One ``ChatCore`` per bot process serves every front. Its own small Redis records, under the
queue's prefix (``P:bot:*``)::

    P:bot:track              hash job id -> json {platform, chat, chat_type, user, message, source, sent}:
                             jobs whose results are not fully delivered yet; a restarted bot resumes
                             following them (the job itself lives in the queue's keys)
    P:bot:recent:{user}      list of the user's latest job ids (for /status, /cancel by prefix)
    P:bot:refused:{chat}     set once a stranger chat got its refusal (one refusal per chat)
    P:bot:follow:{job}       the token of the bot process delivering the job, with a TTL (bot/core/follow_lease.py)

Telegram's ids keep their historical form (the bare number); other platforms' ids are written as
``platform:id``, so a DingTalk staff id can never collide with a Telegram user id.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from bot.core.follow_lease import FollowLease, process_token
from bot.core.inbound import ChatRef, Platform
from screening.config import Settings
from screening.data.load import demo_universe_path, open_universe
from screening.data.universe import Universe, file_version
from screening.queue.client import JobQueue

RECENT_KEEP = 20
DEPS_KEY = "screener"  # where a PTB Application keeps the core in bot_data


def scoped(platform: str, ident: object) -> str:
    """A user or chat id as stored: bare for Telegram (as before), ``platform:id`` for the others."""
    return str(ident) if platform == "telegram" else f"{platform}:{ident}"


@dataclass
class ChatCore:
    settings: Settings
    queue: JobQueue
    universe: Universe | None = None
    progress_interval_s: float = 2.0  # at most one progress edit per this many seconds per job
    poll_s: float = 1.0  # job status read interval while following a job
    send_attempts: int = 4  # network errors (not 400s, not timeouts) retried with backoff
    lease_s: float = 30.0  # a job's delivery lease (follow_lease.py): how soon another process takes over a dead one's
    sweep_s: float = 60.0  # how often tracked jobs nobody follows are picked up (jobs.keep_following)
    token: str = field(default_factory=process_token)  # this process in the leases it holds
    universe_version: tuple[int, ...] = ()
    chart_lock: threading.Lock = field(default_factory=threading.Lock)  # matplotlib is not thread-safe
    followers: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    sweepers: list[asyncio.Task[None]] = field(default_factory=list)
    refused_local: set[str] = field(default_factory=set)
    services: dict[str, Any] = field(default_factory=dict)  # e.g. "digest": the DigestService

    def current_universe(self) -> Universe:
        """The universe, reloaded when its file changed since (a refresh or an import by another process)."""
        path = demo_universe_path() if self.settings.universe.demo else self.settings.universe_path()
        version = file_version(path)
        if self.universe is None or version != self.universe_version:
            self.universe = open_universe(self.settings)
            self.universe_version = file_version(path)
        return self.universe

    # -- Redis records -----------------------------------------------------------------
    @property
    def track_key(self) -> str:
        return f"{self.queue.prefix}:bot:track"

    def recent_key(self, user_key: str) -> str:
        return f"{self.queue.prefix}:bot:recent:{user_key}"

    def refused_key(self, chat_key: str) -> str:
        return f"{self.queue.prefix}:bot:refused:{chat_key}"

    def follow_lease(self, job_id: str) -> FollowLease:
        return FollowLease(self.queue.r, f"{self.queue.prefix}:bot:follow:{job_id}", self.token, self.lease_s)

    def save_track(self, job_id: str, record: dict[str, Any]) -> None:
        self.queue.r.hset(self.track_key, job_id, json.dumps(record, ensure_ascii=False))

    def load_track(self, job_id: str) -> dict[str, Any] | None:
        raw = self.queue.r.hget(self.track_key, job_id)
        return json.loads(raw) if raw else None

    def all_tracks(self, platform: Platform | None = None) -> dict[str, dict[str, Any]]:
        out = {k: json.loads(v) for k, v in self.queue.r.hgetall(self.track_key).items()}
        return {k: v for k, v in out.items() if platform is None or v.get("platform", "telegram") == platform}

    def drop_track(self, job_id: str) -> None:
        self.queue.r.hdel(self.track_key, job_id)

    def remember_job(self, user_key: str, job_id: str) -> None:
        key = self.recent_key(user_key)
        pipe = self.queue.r.pipeline(transaction=True)
        pipe.lpush(key, job_id)
        pipe.ltrim(key, 0, RECENT_KEEP - 1)
        pipe.expire(key, self.settings.redis.result_ttl_s)
        pipe.execute()

    def recent_jobs(self, user_key: str) -> list[str]:
        return list(self.queue.r.lrange(self.recent_key(user_key), 0, RECENT_KEEP - 1))

    def first_refusal(self, chat: ChatRef) -> bool:
        """True exactly once per chat (per week, across restarts): whether to send the refusal."""
        key = scoped(chat.platform, chat.chat_id)
        if key in self.refused_local:
            return False
        self.refused_local.add(key)
        try:
            return bool(self.queue.r.set(self.refused_key(key), "1", nx=True, ex=7 * 24 * 3600))
        except Exception:
            return True
