"""Renew or release a lease in Redis only while this process still holds it (compare the value, in Lua).

Why shared: a job's delivery lease (core/follow_lease.py) and the digest's sending lease (digest_guard.py)
both lapse when their holder dies and may then be another process's; a plain PEXPIRE or DEL would extend or
delete that other process's lease. One pair of scripts, so the two guards cannot drift apart.
"""

from __future__ import annotations

from typing import Any

_RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0"
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


def renew(r: Any, key: str, value: str, ttl_ms: int) -> bool:
    """Push the lease's expiry out to ``ttl_ms``; False when the key no longer holds ``value`` (lapsed or taken)."""
    return bool(r.eval(_RENEW, 1, key, value, ttl_ms))


def release(r: Any, key: str, value: str) -> bool:
    """Delete the lease if it still holds ``value``; False when it had lapsed or is another's."""
    return bool(r.eval(_RELEASE, 1, key, value))
