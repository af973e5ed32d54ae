"""Waiting, in an async test, for something another task or process does: one helper for every chat-front test."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


async def until(predicate: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    """``predicate()``'s first truthy value, polled every 50 ms; an AssertionError naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
