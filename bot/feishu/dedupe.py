"""Seen-once memory for event ids and message ids, so a redelivered event is acted on once.

Feishu redelivers an event whose push it thinks failed (no answer within 3 s, or a non-200) after
15 s, 5 min, 1 h and 6 h, with the same ``event_id``; the long connection may also hand the same
message again after a reconnect. The default memory covers that 6-hour tail. It is per process: a
deployment that restarts often, or runs two bot processes, passes a shared (Redis) implementation.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

REDELIVERY_WINDOW_S = 8 * 3600.0  # Feishu's last retry comes about 6 h 20 min after the first push


class Deduper(Protocol):
    def first_time(self, key: str) -> bool:
        """True the first time ``key`` is seen within the window; must be safe to call from any thread."""
        ...


class MemoryDeduper:
    """A bounded, thread-safe TTL set (the SDK's long connection calls it from its own thread)."""

    def __init__(self, ttl_s: float = REDELIVERY_WINDOW_S, max_keys: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl_s = ttl_s
        self._max_keys = max_keys
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, key: str) -> bool:
        now = self._clock()
        with self._lock:
            while self._seen:
                oldest, at = next(iter(self._seen.items()))
                if now - at <= self._ttl_s and len(self._seen) < self._max_keys:
                    break
                del self._seen[oldest]
            if key in self._seen:
                return False
            self._seen[key] = now
            return True
