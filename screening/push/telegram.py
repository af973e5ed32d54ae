"""Telegram: the digest as HTML messages (split before 4,096 characters), then the XLSX and the chart.

Uses the python-telegram-bot ``Bot`` it is given (the bot's own, with its rate limiter, or a
plain ``Bot`` for ``python -m bot digest --now``). ``RetryAfter`` is waited out and retried;
network errors are retried with backoff, except ``TimedOut``: the request may have arrived, and
a retry could post the message twice. A failed message stops the rest (order matters).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from screening.digest.render import render_telegram
from screening.push.base import Channel, SendOutcome, log_outcome

if TYPE_CHECKING:
    from screening.config import DigestSettings
    from screening.digest.model import Digest

class TelegramChannel(Channel):
    kind = "telegram"

    def __init__(self, bot: Any, chat_id: int | str, *, ds: DigestSettings | None = None, send_files: bool = True,
                 attempts: int = 4, backoff_s: float = 1.0) -> None:
        self.bot, self.chat_id, self.ds = bot, chat_id, ds
        self.name = str(chat_id)
        self.send_files, self.attempts, self.backoff_s = send_files, max(1, attempts), backoff_s

    async def _call(self, method: Any, counter: list[int], **kwargs: Any) -> Any:
        from telegram.error import NetworkError, RetryAfter, TimedOut

        delay = self.backoff_s
        for attempt in range(1, self.attempts + 1):
            counter[0] += 1
            try:
                return await method(**kwargs)
            except RetryAfter as exc:
                if attempt == self.attempts:
                    raise
                ra = exc.retry_after
                await asyncio.sleep(ra.total_seconds() if hasattr(ra, "total_seconds") else float(ra))
            except TimedOut:
                raise
            except NetworkError:
                if attempt == self.attempts:
                    raise
                await asyncio.sleep(delay)
                delay = min(30.0, delay * 2)
        raise RuntimeError("unreachable")  # pragma: no cover

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
            for kind, path in files:
                caption = f"盘前摘要 {digest.date.isoformat()}"
                if kind == "document":
                    await self._call(self.bot.send_document, counter, chat_id=self.chat_id,
                                     document=path.read_bytes(), filename=path.name, caption=caption)
                else:
                    await self._call(self.bot.send_photo, counter, chat_id=self.chat_id, photo=path.read_bytes(),
                                     caption=caption)
                sent += 1
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        outcome = SendOutcome(self.name, self.kind, total, sent, counter[0], error, time.perf_counter() - t0)
        log_outcome(outcome, digest)
        return outcome
