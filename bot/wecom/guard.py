"""Freshness and replay checks for WeCom callbacks, run before any decryption.

WeCom signs (token, timestamp, nonce, ciphertext) but the signature alone does not expire: a captured
request would verify forever. So a timestamp outside the window is refused, and a (timestamp, nonce)
pair seen inside the window is refused. WeCom retries a callback it got no answer to within 5 s, with the
same MsgId; that one is answered but not processed twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

K = TypeVar("K")


@dataclass
class ReplayGuard:
    window_s: float = 300.0
    clock: Callable[[], float] = time.time
    _nonces: dict[tuple[str, str], float] = field(default_factory=dict)
    _msg_ids: dict[str, float] = field(default_factory=dict)

    def stale(self, timestamp: str) -> str | None:
        """None if ``timestamp`` (seconds) is within the window of now, else why not."""
        if not timestamp.isdigit():
            return f"timestamp {timestamp[:20]!r} is not a number"
        skew = self.clock() - int(timestamp)
        if abs(skew) > self.window_s:
            return f"timestamp is {skew:.0f} s off (window {self.window_s:.0f} s)"
        return None

    def first_nonce(self, timestamp: str, nonce: str) -> bool:
        """Record a signed request's (timestamp, nonce); False if it was seen already."""
        self._expire()
        key = (timestamp, nonce)
        if key in self._nonces:
            return False
        self._nonces[key] = self.clock()
        return True

    def first_msg_id(self, msg_id: str) -> bool:
        self._expire()
        if msg_id in self._msg_ids:
            return False
        self._msg_ids[msg_id] = self.clock()
        return True

    def _expire(self) -> None:
        cutoff = self.clock() - 2 * self.window_s
        _drop_before(self._nonces, cutoff)
        _drop_before(self._msg_ids, cutoff)


def _drop_before(store: dict[K, float], cutoff: float) -> None:
    for key in [k for k, seen in store.items() if seen < cutoff]:
        del store[key]
