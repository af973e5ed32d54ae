"""Digest subscriptions of chats on every front, in Redis (plain redis-py).

One hash, ``P:digest:subs``, field = chat id, value = JSON::

    {"chat_id": -100123, "time": "07:30" | null, "pool": ["600519.SH", ...] | null,
     "enabled": true, "created_at": 1767225600.0, "updated_at": ...}

``time`` None means the configured default (``[digest].time``); ``pool`` None means the whole
universe. /subscribe [HH:MM] adds or re-enables (keeping the pool), /unsubscribe removes the
chat, /watch (or a pool upload) sets ``pool``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from typing import Any

from screening.config import parse_hhmm
from screening.data.codes import CodeError, normalise_code

MAX_POOL = 10_000


def _key(chat_id: int | str) -> int | str:
    """Telegram chat ids stay numbers (as stored before other fronts existed); others are ``platform:chat``."""
    return int(chat_id) if str(chat_id).lstrip("-").isdigit() else str(chat_id)


@dataclass
class Subscription:
    chat_id: int | str  # a Telegram chat id, or ``platform:chat`` for the other fronts
    time: str | None = None
    pool: list[str] | None = None
    enabled: bool = True
    created_at: float = 0.0
    updated_at: float = 0.0
    chat_type: str = ""  # "private" or "group": how the chat's front addresses it (not Telegram's concern)

    def slot(self, default_time: str) -> str:
        return self.time or default_time

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, raw: str) -> Subscription:
        data: dict[str, Any] = json.loads(raw)
        raw_id = data["chat_id"]
        chat_id = int(raw_id) if isinstance(raw_id, int) or str(raw_id).lstrip("-").isdigit() else str(raw_id)
        return cls(chat_id=chat_id, time=data.get("time"), pool=data.get("pool"),
                   enabled=bool(data.get("enabled", True)), created_at=float(data.get("created_at", 0.0)),
                   updated_at=float(data.get("updated_at", 0.0)), chat_type=str(data.get("chat_type", "")))


def normalise_pool(codes: list[str]) -> list[str]:
    """Codes normalised and de-duplicated in order; ValueError naming every bad one."""
    out: list[str] = []
    bad: list[str] = []
    for token in codes:
        try:
            code = normalise_code(str(token))
        except CodeError:
            bad.append(str(token))
            continue
        if code not in out:
            out.append(code)
    if bad:
        raise ValueError(f"not A-share codes: {', '.join(bad[:20])}")
    if len(out) > MAX_POOL:
        raise ValueError(f"a pool holds at most {MAX_POOL} codes")
    return out


# what /subscribe takes to go back to the configured time, once a chat chose its own (no time keeps the chosen one)
DEFAULT_TIME_WORDS = ("默认", "default")


class Subscriptions:
    """Add, remove and list the chats that get the digest."""

    def __init__(self, r: Any, prefix: str) -> None:
        self.r = r
        self.key = f"{prefix}:digest:subs"

    def get(self, chat_id: int | str) -> Subscription | None:
        raw = self.r.hget(self.key, str(chat_id))
        return Subscription.from_json(raw) if raw else None

    def _put(self, sub: Subscription) -> Subscription:
        sub.updated_at = time.time()
        self.r.hset(self.key, str(sub.chat_id), sub.to_json())
        return sub

    def subscribe(self, chat_id: int | str, at: str | None = None, chat_type: str = "") -> Subscription:
        """Subscribe (or re-enable) ``chat_id`` at ``at`` (HH:MM; 默认/default: the configured time); keeps its pool.

        No ``at`` keeps the time the chat chose: a chat that sends /subscribe again to check it is subscribed
        lost its 07:30 to the default time (a trial, 2026-12-07). A new chat gets the default time."""
        sub = self.get(chat_id) or Subscription(chat_id=_key(chat_id), created_at=time.time())
        if at is not None and at.strip().lower() in DEFAULT_TIME_WORDS:
            sub.time = None
        elif at:
            sub.time = parse_hhmm(at)
        sub.enabled = True
        if chat_type:
            sub.chat_type = chat_type
        return self._put(sub)

    def unsubscribe(self, chat_id: int | str) -> bool:
        """Remove the chat; False if it was not subscribed."""
        return bool(self.r.hdel(self.key, str(chat_id)))

    def set_enabled(self, chat_id: int | str, enabled: bool) -> Subscription | None:
        sub = self.get(chat_id)
        if sub is None:
            return None
        sub.enabled = enabled
        return self._put(sub)

    def set_pool(self, chat_id: int | str, codes: list[str] | None) -> Subscription:
        """The chat's own pool (from /watch or its last upload); None or [] = the universe again.

        A chat that is not subscribed gets a disabled record holding the pool, so a later
        /subscribe uses it.
        """
        pool = normalise_pool(codes) if codes else None
        sub = self.get(chat_id) or Subscription(chat_id=_key(chat_id), enabled=False, created_at=time.time())
        sub.pool = pool
        return self._put(sub)

    def all(self, enabled_only: bool = True) -> list[Subscription]:
        subs = [Subscription.from_json(v) for v in self.r.hvals(self.key)]
        return sorted((s for s in subs if s.enabled or not enabled_only), key=lambda s: str(s.chat_id))

    def at(self, slot: str, default_time: str) -> list[Subscription]:
        """Enabled subscriptions due at ``slot``."""
        return [s for s in self.all() if s.slot(default_time) == slot]

    def slots(self, default_time: str) -> set[str]:
        return {s.slot(default_time) for s in self.all()}
