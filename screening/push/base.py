"""The channel interface, the retrying webhook POST, target configuration and fan-out."""

from __future__ import annotations

import json
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from screening.metrics import push_error

if TYPE_CHECKING:
    from screening.config import DigestSettings
    from screening.digest.model import Digest

log = logging.getLogger("screening.push")


@dataclass
class SendOutcome:
    """What one channel did with one digest."""

    target: str
    kind: str
    messages: int  # messages the digest took on this channel
    sent: int  # messages the vendor accepted
    attempts: int  # requests made, retries included
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None and self.sent == self.messages

    @property
    def nothing_sent(self) -> bool:
        return self.sent == 0

    def describe(self) -> str:
        state = "ok" if self.ok else ("partial" if self.sent else "failed")
        text = f"{self.kind}:{self.target} {state} {self.sent}/{self.messages} msgs, {self.attempts} requests"
        return text + (f": {self.error}" if self.error else "")


class Channel(ABC):
    """One destination of the digest."""

    name: str
    kind: str
    # called after each message the vendor accepted: the digest scheduler marks the recipient served at the
    # first one, so a crash later in the send never sends it twice
    on_accepted: Callable[[], object] | None = None

    def accepted(self) -> None:
        """Tell ``on_accepted``; a failing hook is logged and never stops the delivery (the message is out)."""
        if self.on_accepted is not None:
            try:
                self.on_accepted()
            except Exception as exc:
                log.warning("push %s:%s: the accepted-message hook failed: %s", self.kind, self.name, exc)

    @abstractmethod
    async def send(self, digest: Digest) -> SendOutcome:
        """Deliver ``digest``; never raises for delivery problems (they are in the outcome)."""


class TransientError(Exception):
    """Worth retrying: network error, 5xx, 429, a vendor's rate-limit code."""


class PermanentError(Exception):
    """Not worth retrying: bad signature, bad payload, unknown hook."""


class MaybeSent(PermanentError):
    """Sent, answer lost (a read timeout): the vendor may have it, so it is neither retried nor sent again later.
    The recipient counts as served (``Channel.accepted``): a restart must not post a second copy either."""


def redact_url(url: str) -> str:
    """scheme://host/… only: webhook paths and queries carry access tokens."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/…" if parts.netloc else "…"


class WebhookChannel(Channel):
    """A JSON webhook: payloads per digest, signing per attempt, vendor answer checked per request."""

    kind = "webhook"

    def __init__(self, name: str, url: str, secret: str | None, *, attempts: int = 4, backoff_s: float = 1.0,
                 timeout_s: float = 15.0, client: httpx.AsyncClient | None = None,
                 clock: Callable[[], float] = time.time, config_error: str | None = None) -> None:
        self.name, self.url, self.secret = name, url, secret
        self.attempts, self.backoff_s, self.timeout_s = max(1, attempts), backoff_s, timeout_s
        self.client, self.clock, self.config_error = client, clock, config_error

    # -- vendor specifics ------------------------------------------------------------------
    @abstractmethod
    def payloads(self, digest: Digest) -> list[dict[str, Any]]:
        """The messages this digest takes on this vendor, unsigned, each within its size limit."""

    def prepare(self, payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """(url, body) for one attempt: signing happens here, with a fresh timestamp each time."""
        return self.url, payload

    @abstractmethod
    def check(self, status: int, answer: Any) -> None:
        """Raise TransientError/PermanentError unless the vendor accepted the message."""

    # -- sending ---------------------------------------------------------------------------
    def _secrets(self) -> list[str]:
        out = [s for s in (self.secret, self.url) if s]
        parts = urlsplit(self.url)
        out += [p for p in (parts.path, parts.query) if p and len(p) > 8]
        return out

    def _scrub(self, text: str) -> str:
        for s in sorted(self._secrets(), key=len, reverse=True):
            text = text.replace(s, "***")
        return text

    async def _post(self, client: httpx.AsyncClient, payload: dict[str, Any], counter: list[int]) -> None:
        retrying = AsyncRetrying(stop=stop_after_attempt(self.attempts),
                                 wait=wait_exponential(multiplier=self.backoff_s, max=30),
                                 retry=retry_if_exception_type(TransientError), reraise=True)
        async for attempt in retrying:
            with attempt:
                counter[0] += 1
                url, body = self.prepare(payload)
                content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
                try:
                    resp = await client.post(url, content=content, timeout=self.timeout_s,
                                             headers={"Content-Type": "application/json; charset=utf-8"})
                except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.WriteError,
                        httpx.WriteTimeout) as exc:  # the request never reached the vendor whole: safe to repeat
                    raise TransientError(f"network: {type(exc).__name__}") from None
                except httpx.TransportError as exc:  # sent, answer lost: the vendor may have it (a retry posts twice)
                    raise MaybeSent(f"network: {type(exc).__name__} after sending; not sent again") from None
                if resp.status_code == 429 or resp.status_code >= 500:
                    raise TransientError(f"HTTP {resp.status_code}")
                try:
                    answer = resp.json()
                except ValueError:
                    answer = None
                self.check(resp.status_code, answer)

    async def send(self, digest: Digest) -> SendOutcome:
        t0 = time.perf_counter()
        counter = [0]
        payloads: list[dict[str, Any]] = []
        sent, error = 0, self.config_error
        if error is None:
            try:
                payloads = self.payloads(digest)
            except Exception as exc:
                error = f"render: {type(exc).__name__}: {exc}"
        if error is None:
            client = self.client or httpx.AsyncClient()
            try:
                for payload in payloads:
                    try:
                        await self._post(client, payload, counter)
                    except (TransientError, PermanentError) as exc:
                        error = str(exc)
                        if isinstance(exc, MaybeSent):
                            self.accepted()
                        break
                    except Exception as exc:  # anything else: report, never raise into the scheduler
                        error = f"{type(exc).__name__}: {exc}"
                        break
                    sent += 1
                    self.accepted()
            finally:
                if self.client is None:
                    await client.aclose()
        outcome = SendOutcome(self.name, self.kind, len(payloads), sent, counter[0],
                              self._scrub(error) if error else None, time.perf_counter() - t0)
        log_outcome(outcome, digest)
        return outcome


def log_outcome(outcome: SendOutcome, digest: Digest) -> None:
    level = logging.INFO if outcome.ok else logging.WARNING
    if not outcome.ok:  # ops: screener_push_send_errors_total (screening/metrics.py)
        push_error(outcome.kind, outcome.target)
    log.log(level, "digest %s (%s) -> %s in %.1f s", digest.date, digest.scope, outcome.describe(), outcome.seconds)


class MarkdownRobotChannel(WebhookChannel):
    """WeCom and DingTalk robots: markdown parts under a byte limit, answers as ``errcode``/``errmsg``."""

    limit_default = 4096
    retry_codes: frozenset[int] = frozenset({-1})

    def __init__(self, name: str, url: str, secret: str | None = None, *, ds: DigestSettings | None = None,
                 limit_bytes: int | None = None, **kwargs: Any) -> None:
        super().__init__(name, url, secret, **kwargs)
        self.ds, self.limit_bytes = ds, limit_bytes or self.limit_default

    def check(self, status: int, answer: Any) -> None:
        if status != 200 or not isinstance(answer, dict):
            raise PermanentError(f"HTTP {status}, unexpected answer")
        code = answer.get("errcode")
        if code == 0:
            return
        error = f"{self.kind} errcode {code}: {str(answer.get('errmsg', ''))[:200]}"
        raise (TransientError if code in self.retry_codes else PermanentError)(error)

