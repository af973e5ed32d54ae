"""Which bot process delivers a job's results: a lease in Redis, so two processes never both send them.

Two bot processes on one Redis are a supported setup (a second process behind one callback URL, and every
rolling restart, where the new process starts before the old one stops). Each resumes the tracked jobs of its
platform; without a claim both followed the same job and the chat got the summary, the XLSX and the chart twice
(a trial, 2026-12-07). The follower of a job holds ``P:bot:follow:{job}`` (its process token, a TTL of
``ChatCore.lease_s``) and renews it while it follows; another process takes the job over only once that lease
lapsed, that is once its holder died, and the holder, should it find its lease gone, stops before it sends.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from dataclasses import dataclass

from redis import Redis
from redis.exceptions import RedisError

from bot.core import redis_lease

log = logging.getLogger("bot.jobs")


def process_token() -> str:
    """This process's name in a lease: readable in redis-cli (host, pid) and unique across restarts."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass
class FollowLease:
    r: Redis
    key: str
    token: str
    ttl_s: float

    def take(self) -> bool:
        """True when this process now follows the job (the lease was free, had lapsed, or is already its own)."""
        ms = int(self.ttl_s * 1000)
        return bool(self.r.set(self.key, self.token, nx=True, px=ms)) or redis_lease.renew(
            self.r, self.key, self.token, ms)

    def renew(self) -> bool:
        return redis_lease.renew(self.r, self.key, self.token, int(self.ttl_s * 1000))

    def release(self) -> None:
        redis_lease.release(self.r, self.key, self.token)


async def keep(lease: FollowLease, follower: asyncio.Task[None], job_id: str) -> None:
    """Renew ``lease`` three times a lease while ``follower`` runs; cancel it if another process holds it now."""
    while True:
        await asyncio.sleep(lease.ttl_s / 3)
        try:
            held = await asyncio.to_thread(lease.renew)
        except RedisError as exc:  # Redis away: tried again; a lease that lapsed meanwhile fails the next renew
            log.warning("job %s: could not renew the delivery lease (%s)", job_id, exc)
            continue
        if not held:
            log.warning("job %s: another bot process delivers it now; this one stops following", job_id)
            follower.cancel()
            return
