"""The digest's once-per-(day, recipient) guard, in two phases, so that a crash mid-build loses nothing.

Why two phases: building the digest screens the whole market through the queue (minutes). A 36 h
guard taken before that work stays behind when the process dies in between (SIGKILL, the OOM
killer, a deploy), and every later run of the day, the restarted bot included, then skips: the
day's digest is lost and nothing says so. One key per (day, recipient),
``P:digest:sent:{date}:{recipient}``, holds a JSON value whose ``state`` is one of:

1. ``"sending"``: a short lease (``[digest].lease_s``, SET NX) with the holder's token. The holder
   renews it while it builds and sends (``kept``). Another live process finds it and waits; when
   the holder dies, the lease lapses within ``lease_s`` and the next process (or the restarted one,
   with a new token) takes it over and sends.
2. ``"sent"``: the long mark (``guard_ttl_hours``), written over the lease, comparing the token in
   Lua, the moment the vendor accepts the first message for that recipient (``mark_sent``, called
   by the channel): from then on no restart sends again. At most once per recipient as soon as
   anything reached the chat; exactly once when the process survives.

A lease whose holder reached the recipient with nothing is deleted (compare and delete), so a
retry may send. One key, not a lease key beside a mark key: the state changes atomically.
A value without ``state`` (written before the lease existed) counts as sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from bot.core import redis_lease

log = logging.getLogger("bot.digest")
SENDING, SENT = "sending", "sent"

# the lease that lapsed and that nobody took over is still ours to mark: the message is out
_MARK = """
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] or not v then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end
return 0
"""


class DigestGuard:
    """The leases this process holds, and the Redis side of both phases."""

    def __init__(self, r: Any, prefix: str, *, token: str, lease_s: float, sent_ttl_s: float,
                 clock: Callable[[], dt.datetime]) -> None:
        self.r, self.prefix, self.token, self.clock = r, prefix, token, clock
        self.lease_ms, self.sent_ttl_ms = max(1, int(lease_s * 1000)), max(1, int(sent_ttl_s * 1000))
        self.leases: dict[tuple[dt.date, str], str] = {}  # (day, recipient) -> the lease's value
        self._mark = r.register_script(_MARK)

    @property
    def lease_s(self) -> float:
        return self.lease_ms / 1000

    def key(self, day: dt.date, recipient: str) -> str:
        return f"{self.prefix}:digest:sent:{day.isoformat()}:{recipient}"

    def _value(self, state: str) -> str:
        return json.dumps({"state": state, "by": self.token, "at": self.clock().isoformat()})

    def take(self, day: dt.date, recipient: str) -> bool:
        """SET NX the lease; True when this process now holds it (free, or lapsed since)."""
        value = self._value(SENDING)
        ok = bool(self.r.set(self.key(day, recipient), value, nx=True, px=self.lease_ms))
        if ok:
            self.leases[(day, recipient)] = value
        return ok

    def holds(self, day: dt.date, recipient: str) -> bool:
        return (day, recipient) in self.leases

    def state(self, day: dt.date, recipient: str) -> str | None:
        """None (free), ``"sending"`` (someone's lease) or ``"sent"``."""
        raw = self.r.get(self.key(day, recipient))
        if raw is None:
            return None
        with contextlib.suppress(ValueError, AttributeError):
            return str(json.loads(raw).get("state", SENT))
        return SENT

    def renew(self) -> None:
        """Push every held lease's expiry out again; forget (and say) the ones another process took over."""
        for (day, recipient), value in list(self.leases.items()):
            if not redis_lease.renew(self.r, self.key(day, recipient), value, self.lease_ms):
                del self.leases[(day, recipient)]
                log.warning("digest %s %s: the sending lease lapsed and was taken over; not sent from here",
                            day, recipient)

    def mark_sent(self, day: dt.date, recipient: str) -> None:
        """Phase 2, at the first accepted message: the lease becomes the long "sent" mark (a no-op after)."""
        value = self.leases.get((day, recipient))
        if value is None:
            return
        done = self._mark(keys=[self.key(day, recipient)], args=[value, self._value(SENT), self.sent_ttl_ms])
        del self.leases[(day, recipient)]  # only once Redis answered: a failed mark is tried again at the end
        if not done:
            log.warning("digest %s %s: another process took the lapsed lease over while this one was sending; "
                        "the recipient may get the digest twice", day, recipient)

    def release(self, day: dt.date, recipient: str) -> None:
        """Nothing reached the recipient: delete the lease if it is still ours, so a retry may send."""
        value = self.leases.pop((day, recipient), None)
        if value is not None:
            redis_lease.release(self.r, self.key(day, recipient), value)

    def forget(self, day: dt.date, recipients: list[str]) -> None:
        """Stop renewing without deleting (an unexpected error, a cancel): these leases lapse within ``lease_s``."""
        for recipient in recipients:
            self.leases.pop((day, recipient), None)

    async def _renew_every(self, period: float) -> None:
        while True:
            await asyncio.sleep(period)
            try:
                self.renew()
            except Exception as exc:  # a Redis blip: the next period tries again, the lease has room for two
                log.warning("digest: could not renew the sending leases: %s", exc)

    @contextlib.asynccontextmanager
    async def kept(self) -> AsyncIterator[None]:
        """Renew the held leases every third of ``lease_s`` while the body builds and sends."""
        task = asyncio.create_task(self._renew_every(self.lease_s / 3))
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
