"""What every handler needs (settings, the queue, the universe), kept in ``application.bot_data``.

Also the bot's own small Redis records, under the queue's prefix (``P:bot:*``):

    P:bot:track              hash job id -> json {chat, user, message, source, sent: [...]}:
                             jobs whose results are not fully delivered yet; a restarted bot
                             resumes following them (the job itself lives in the queue's keys)
    P:bot:recent:{user}      list of the user's latest job ids (for /status, /cancel by prefix)
    P:bot:refused:{chat}     set once a stranger chat got its refusal (one refusal per chat)
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass, field
from typing import Any, cast

from telegram.ext import CallbackContext, ContextTypes, ExtBot

from screening.config import Settings
from screening.data.universe import Universe
from screening.queue.client import JobQueue

DEPS_KEY = "screener"
RECENT_KEEP = 20


@dataclass
class BotDeps:
    settings: Settings
    queue: JobQueue
    universe: Universe | None = None
    progress_interval_s: float = 2.0  # at most one progress edit per this many seconds per job
    poll_s: float = 1.0  # job status read interval while following a job
    send_attempts: int = 4  # network errors (not 400s, not timeouts) retried with backoff
    chart_lock: threading.Lock = field(default_factory=threading.Lock)  # matplotlib is not thread-safe
    followers: dict[str, asyncio.Task] = field(default_factory=dict)
    refused_local: set[int] = field(default_factory=set)

    # -- Redis records -----------------------------------------------------------------
    @property
    def track_key(self) -> str:
        return f"{self.queue.prefix}:bot:track"

    def recent_key(self, user_id: int) -> str:
        return f"{self.queue.prefix}:bot:recent:{user_id}"

    def refused_key(self, chat_id: int) -> str:
        return f"{self.queue.prefix}:bot:refused:{chat_id}"

    def save_track(self, job_id: str, record: dict[str, Any]) -> None:
        self.queue.r.hset(self.track_key, job_id, json.dumps(record, ensure_ascii=False))

    def load_track(self, job_id: str) -> dict[str, Any] | None:
        raw = self.queue.r.hget(self.track_key, job_id)
        return json.loads(raw) if raw else None

    def all_tracks(self) -> dict[str, dict[str, Any]]:
        return {k: json.loads(v) for k, v in self.queue.r.hgetall(self.track_key).items()}

    def drop_track(self, job_id: str) -> None:
        self.queue.r.hdel(self.track_key, job_id)

    def remember_job(self, user_id: int, job_id: str) -> None:
        key = self.recent_key(user_id)
        pipe = self.queue.r.pipeline(transaction=True)
        pipe.lpush(key, job_id)
        pipe.ltrim(key, 0, RECENT_KEEP - 1)
        pipe.expire(key, self.settings.redis.result_ttl_s)
        pipe.execute()

    def recent_jobs(self, user_id: int) -> list[str]:
        return list(self.queue.r.lrange(self.recent_key(user_id), 0, RECENT_KEEP - 1))

    def first_refusal(self, chat_id: int) -> bool:
        """True exactly once per chat (per week, across restarts): whether to send the refusal."""
        if chat_id in self.refused_local:
            return False
        self.refused_local.add(chat_id)
        try:
            return bool(self.queue.r.set(self.refused_key(chat_id), "1", nx=True, ex=7 * 24 * 3600))
        except Exception:
            return True


class ScreenerContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """The typed custom context (python-telegram-bot's contexttypesbot.py): ``context.deps`` is the bot's
    services, so no handler looks up a string key in ``bot_data`` itself."""

    @property
    def deps(self) -> BotDeps:
        return cast(BotDeps, self.application.bot_data[DEPS_KEY])


CONTEXT_TYPES = ContextTypes(context=ScreenerContext)
