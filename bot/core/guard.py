"""One durable memory of what the chat fronts already took: replay keys and delivery ids, in Redis.

Why Redis and not a dict: a callback replayed after a restart, or delivered to the second of two bot
processes behind one callback URL, must find the first delivery remembered, or its command runs twice.
Every front claims its keys here with ``SET NX`` plus an expiry, atomically, so exactly one process (and
one request) wins a key. Keys live under the queue's prefix::

    P:bot:guard:{platform}:{kind}:{sha256 of the key, 32 hex}   "1", expiring after ttl_s

where ``kind`` is a row of ``KINDS`` (what the vendor repeats: a signed request, or a delivery id).
The expiry is at least twice the window in which the front accepts the thing at all (a timestamp is
accepted up to ``window`` early or late, so a key must outlive a span of two windows): a replay older
than the key is refused by its timestamp instead.

When Redis cannot be reached the claim raises ``GuardUnavailable`` and the front answers with its
vendor's "try again" status, so the vendor redelivers later; acting without the guard could run a
command twice, refusing outright would lose the message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

Kind = Literal["request", "delivery"]
# what each kind of key is, for the log and docs/IM.md
KINDS: dict[Kind, str] = {
    "request": "a signed request: (timestamp, nonce) or its signature; a byte-identical replay",
    "delivery": "a vendor's delivery id (MsgId, event_id, message_id, msgId); a redelivery or retry",
}


# The vendors wait 3 s (Feishu) or 5 s (WeCom) for an answer: the guard's own client gives up within about
# 2 s (one retry, 0.5 s timeouts) so the front can still answer "retry later" in time; the queue's client,
# built to ride out blips, retries for several seconds.
GUARD_TIMEOUT_S = 0.5
GUARD_RETRIES = 1


class GuardUnavailable(RuntimeError):
    """Redis did not answer the claim: the delivery can be neither accepted nor refused as a repeat."""


def skew_problem(sent_at_s: float, now_s: float, window_s: float) -> str | None:
    """None when a timestamp is within ``window_s`` of now, else why not (the freshness half of replay)."""
    skew = now_s - sent_at_s
    if skew > window_s:
        return f"timestamp is {skew:.0f} s old (window {window_s:.0f} s)"
    if skew < -window_s:
        return f"timestamp is {-skew:.0f} s in the future (window {window_s:.0f} s)"
    return None


def ttl_for(window_s: float) -> int:
    """The expiry of a key accepted within ``window_s`` either side of now: two windows, whole seconds."""
    return max(1, int(2 * window_s + 0.999))


@dataclass(frozen=True)
class ChatGuard:
    """Claims of one front (``platform``) in the shared Redis; safe from any thread (redis-py pools)."""

    r: redis.Redis
    prefix: str
    platform: str

    @classmethod
    def connect(cls, url: str, prefix: str, platform: str) -> ChatGuard:
        """A guard with a client of its own that fails fast (see GUARD_TIMEOUT_S)."""
        client = redis.Redis.from_url(url, socket_connect_timeout=GUARD_TIMEOUT_S, socket_timeout=GUARD_TIMEOUT_S,
                                      retry=Retry(NoBackoff(), GUARD_RETRIES))
        return cls(client, prefix, platform)

    def key(self, kind: Kind, value: str) -> str:
        digest = hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]
        return f"{self.prefix}:bot:guard:{self.platform}:{kind}:{digest}"

    def first(self, kind: Kind, value: str, ttl_s: int) -> bool:
        """True when this process is the first to claim ``value`` within ``ttl_s``; raises GuardUnavailable."""
        return self.first_all(kind, [value], ttl_s)

    def first_all(self, kind: Kind, values: Sequence[str], ttl_s: int) -> bool:
        """Claim every value (all of them, even after a repeat, so each is remembered); True when none
        was claimed before."""
        if not values:
            raise ValueError("nothing to claim")
        try:
            pipe = self.r.pipeline(transaction=False)
            for value in values:
                pipe.set(self.key(kind, value), "1", nx=True, ex=ttl_s)
            claimed = pipe.execute()
        except RedisError as exc:
            raise GuardUnavailable(f"Redis unavailable for the {self.platform} duplicate guard "
                                   f"({type(exc).__name__}: {exc})") from None
        return all(bool(c) for c in claimed)
