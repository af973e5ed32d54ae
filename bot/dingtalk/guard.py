"""Refuse a chatbot message that was already processed (same msgId) or is too old (createAt).

DingTalk documents robot messages as fire-and-forget, but also that a push may arrive twice after network
trouble, and a reconnecting stream can replay what was in flight. A command such as /screen must never
run twice, and a message that sat somewhere for an hour is no longer what the user is waiting for.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class MessageGuard:
    """Remembers processed msgIds for ``remember_s`` (at least the staleness window, so nothing slips through)."""

    stale_after_s: float = 300.0
    remember_s: float = 3600.0
    clock: Callable[[], float] = time.time
    _seen: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stale_after_s <= 0:
            raise ValueError("stale_after_s must be positive")
        if self.remember_s < self.stale_after_s:
            raise ValueError("remember_s must cover the staleness window, or a late duplicate could pass")

    def admit(self, msg_id: str | None, create_at_ms: int | None) -> str | None:
        """None when the message may be processed (it is then remembered), else why it may not."""
        now = self.clock()
        self._forget_before(now - self.remember_s)
        if not msg_id:
            return "it has no msgId, so a redelivery could not be recognised"
        if msg_id in self._seen:
            return f"msgId {msg_id} was already processed (redelivery)"
        if create_at_ms is None:
            return f"msgId {msg_id} has no createAt, so its age is unknown"
        age = now - create_at_ms / 1000.0
        if age > self.stale_after_s:
            return f"msgId {msg_id} is stale: createAt is {age:.0f} s old (window {self.stale_after_s:.0f} s)"
        if age < -self.stale_after_s:
            return f"msgId {msg_id} has a createAt {-age:.0f} s in the future"
        self._seen[msg_id] = now
        return None

    def _forget_before(self, cutoff: float) -> None:
        for key in [k for k, seen in self._seen.items() if seen < cutoff]:
            del self._seen[key]
