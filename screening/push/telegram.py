"""Telegram: the digest as HTML messages (split before 4,096 characters), then the XLSX and the chart.

Uses the python-telegram-bot ``Bot`` it is given (the bot's own, with its rate limiter, or a
plain ``Bot`` for ``python -m bot digest --now``), through ``telegram_call``: the one retry policy
the bot's own replies use too. A failed message stops the rest (order matters).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from screening.digest.render import render_telegram
from screening.push.base import Channel, SendOutcome, log_outcome

if TYPE_CHECKING:
    from screening.config import DigestSettings
    from screening.digest.model import Digest

T = TypeVar("T")
log = logging.getLogger("screening.push")


async def telegram_call(call: Callable[[], Awaitable[T]], *, attempts: int = 4, backoff_s: float = 0.5,
                        what: str = "send") -> T:
    """The one retry policy for Bot API calls (the bot's replies and the digest push).

    RetryAfter is waited out; other network errors are retried with backoff, except those that
    are permanent or ambiguous: BadRequest and Forbidden (the request is wrong or the bot is
    blocked: a retry fails the same way; in python-telegram-bot both are NetworkError subclasses),
    TimedOut (Telegram may have delivered it: a retry could post twice) and InvalidToken.
    """
    from telegram.error import BadRequest, Forbidden, InvalidToken, NetworkError, RetryAfter, TimedOut

    delay = backoff_s
    for attempt in range(1, max(1, attempts) + 1):
        try:
            return await call()
        except (BadRequest, Forbidden, TimedOut, InvalidToken):
            raise
        except RetryAfter as exc:
            if attempt >= attempts:
                raise
            after = exc.retry_after
            wait = after.total_seconds() if hasattr(after, "total_seconds") else float(after)
            log.warning("%s: flood control, waiting %.1f s", what, wait)
            await asyncio.sleep(wait + 0.1)
        except NetworkError as exc:
            if attempt >= attempts:
                raise
            log.warning("%s: network error (%s), retry %d in %.1f s", what, exc, attempt, delay)
            await asyncio.sleep(delay)
            delay = min(30.0, delay * 2)
    raise AssertionError("unreachable")


class TelegramChannel(Channel):
    kind = "telegram"

    def __init__(self, bot: Any, chat_id: int | str, *, ds: DigestSettings | None = None, send_files: bool = True,
                 attempts: int = 4, backoff_s: float = 1.0) -> None:
        self.bot, self.chat_id, self.ds = bot, chat_id, ds
        self.name = str(chat_id)
        self.send_files, self.attempts, self.backoff_s = send_files, max(1, attempts), backoff_s

    async def _call(self, method: Any, counter: list[int], **kwargs: Any) -> Any:
        def call() -> Awaitable[Any]:
            counter[0] += 1
            return method(**kwargs)

        return await telegram_call(call, attempts=self.attempts, backoff_s=self.backoff_s, what="digest send")

    async def send(self, digest: Digest) -> SendOutcome:
        t0 = time.perf_counter()
        counter = [0]
        texts = render_telegram(digest, self.ds)
        files = []
        if self.send_files:
            if digest.xlsx_path and digest.xlsx_path.exists():
                files.append(("document", digest.xlsx_path))
            if digest.chart_path and digest.chart_path.exists():
                files.append(("photo", digest.chart_path))
        total, sent, error = len(texts) + len(files), 0, None
        try:
            for text in texts:
                await self._call(self.bot.send_message, counter, chat_id=self.chat_id, text=text, parse_mode="HTML")
                sent += 1
                self.accepted()
            for kind, path in files:
                caption = f"盘前摘要 {digest.date.isoformat()}"
                if kind == "document":
                    await self._call(self.bot.send_document, counter, chat_id=self.chat_id,
                                     document=path.read_bytes(), filename=path.name, caption=caption)
                else:
                    await self._call(self.bot.send_photo, counter, chat_id=self.chat_id, photo=path.read_bytes(),
                                     caption=caption)
                sent += 1
                self.accepted()
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            from telegram.error import TimedOut

            if isinstance(exc, TimedOut):  # Telegram may have it: served, never sent again by a restart
                self.accepted()
        outcome = SendOutcome(self.name, self.kind, total, sent, counter[0], error, time.perf_counter() - t0)
        log_outcome(outcome, digest)
        return outcome
