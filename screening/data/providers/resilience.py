"""Retries, a circuit breaker per provider, and recognising an Eastmoney IP ban.

Why all three: Eastmoney bans an IP that calls too often, and the ban looks like a dropped connection
(``RemoteDisconnected('Remote end closed connection without response')``, akshare issues #6548, #6624, #7054).
Retrying a ban quickly only prolongs it, so a recognised ban is not retried; other network failures are retried
with jittered exponential backoff (tenacity). A provider that fails K calls in a row opens its breaker: further
calls fail at once, without touching the network, until a cooldown has passed; then one trial call decides
(half-open). Schema changes and missing entitlements are not outages: they are never retried and never trip
the breaker.
"""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from screening.data.providers.base import CircuitOpen, NullAnswer, ProviderUnavailable

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3  # tries per call, the first included
    initial_wait_s: float = 2.0  # backoff multiplier: random wait in [0, initial * 2**n], capped
    max_wait_s: float = 60.0


def root_causes(exc: BaseException) -> list[BaseException]:
    """The exception, its causes/contexts and the exceptions in their args (urllib3 nests them there)."""
    seen: list[BaseException] = []
    stack: list[BaseException] = [exc]
    while stack:
        e = stack.pop()
        if any(e is s for s in seen):
            continue
        seen.append(e)
        for nxt in (e.__cause__, e.__context__, getattr(e, "reason", None), *getattr(e, "args", ())):
            if isinstance(nxt, BaseException):
                stack.append(nxt)
    return seen


def is_connection_dropped(exc: BaseException) -> bool:
    """The server closed or reset the connection without an answer.

    Through an HTTPS proxy urllib3 2.x reports the very same drop as ``ProxyError('Unable to connect to proxy',
    RemoteDisconnected(...))``, so the root cause decides, not the outer class.
    """
    return any(
        isinstance(e, http.client.RemoteDisconnected | ConnectionResetError | ConnectionAbortedError)
        or "Remote end closed connection without response" in str(e)
        for e in root_causes(exc)
    )


def is_eastmoney_ban(exc: BaseException, *, host_is_eastmoney: bool = True) -> bool:
    """How an Eastmoney IP ban shows to the client: the connection dropped without any HTTP answer.

    A network outage can look the same; the caller's message says "looks like", and the advice (wait, or use
    Tushare) is right for both.
    """
    return host_is_eastmoney and is_connection_dropped(exc)


class CircuitBreaker:
    """Per provider: opens after ``failure_threshold`` consecutive failures, half-open after ``cooldown_s``."""

    def __init__(
        self,
        name: str,
        *,
        failure_threshold: int = 5,
        cooldown_s: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.failure_threshold = failure_threshold
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_running = False
        self.last_error: str | None = None

    @property
    def state(self) -> str:
        with self._lock:
            return self._state()

    def _state(self) -> str:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self.cooldown_s:
            return "half-open"
        return "open"

    def before_call(self) -> None:
        """Raise CircuitOpen unless a call may go out now (closed, or the one trial of half-open)."""
        with self._lock:
            state = self._state()
            if state == "closed":
                return
            if state == "half-open" and not self._trial_running:
                self._trial_running = True
                return
            assert self._opened_at is not None
            wait = max(0.0, self.cooldown_s - (self._clock() - self._opened_at))
            raise CircuitOpen(
                f"{self.name}: circuit open after {self._failures} consecutive failures "
                f"(last: {self.last_error}); no calls for another {wait:.0f} s"
            )

    def record_success(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._trial_running = False

    def record_failure(self, error: BaseException) -> None:
        with self._lock:
            self._failures += 1
            self.last_error = str(error)[:200]
            if self._trial_running or self._failures >= self.failure_threshold:
                self._opened_at = self._clock()
            self._trial_running = False


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, NullAnswer):
        return True
    return isinstance(exc, ProviderUnavailable) and not isinstance(exc, CircuitOpen) and not exc.ban


def call_resilient(
    fn: Callable[[], T],
    *,
    breaker: CircuitBreaker,
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[int, BaseException], None] | None = None,
) -> T:
    """Run ``fn`` through the breaker with retries; ``fn`` raises ProviderError subclasses only."""

    def attempt() -> T:
        breaker.before_call()
        try:
            result = fn()
        except ProviderUnavailable as exc:
            breaker.record_failure(exc)
            raise
        breaker.record_success()
        return result

    def before_sleep(state: RetryCallState) -> None:
        if on_retry is not None and state.outcome is not None:
            exc = state.outcome.exception()
            if exc is not None:
                on_retry(state.attempt_number, exc)

    retrying = Retrying(
        stop=stop_after_attempt(max(1, policy.attempts)),
        wait=wait_random_exponential(multiplier=policy.initial_wait_s, max=policy.max_wait_s),
        retry=retry_if_exception(_retryable),
        reraise=True,
        sleep=sleep,
        before_sleep=before_sleep,
    )
    return retrying(attempt)
