"""One progress message per job, edited in place: queue position, done/total, ETA.

Edits are throttled (at most one per ``min_interval_s``, except the final one) because
Telegram rate-limits edits too; an edit whose text did not change is skipped, and
Telegram's "message is not modified" answer is ignored.
"""

from __future__ import annotations

import logging
import time

from telegram import Bot, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest

log = logging.getLogger("bot.progress")


def is_not_modified(exc: BaseException) -> bool:
    return isinstance(exc, BadRequest) and "not modified" in str(exc).lower()


class ProgressMessage:
    def __init__(self, bot: Bot, chat_id: int, message_id: int, min_interval_s: float = 2.0,
                 text: str = "") -> None:
        self.bot = bot
        self.chat_id = chat_id
        self.message_id = message_id
        self.min_interval_s = min_interval_s
        self.text = text  # what the message shows now
        self._last_edit = 0.0
        self.edits = 0

    def due(self) -> bool:
        return time.monotonic() - self._last_edit >= self.min_interval_s

    async def show(self, text: str, *, keyboard: InlineKeyboardMarkup | None = None,
                   force: bool = False) -> bool:
        """Edit the message to ``text`` if it changed and the throttle allows (or ``force``)."""
        if text == self.text and not force:
            return False
        if not force and not self.due():
            return False
        self._last_edit = time.monotonic()
        try:
            await self.bot.edit_message_text(text, chat_id=self.chat_id, message_id=self.message_id,
                                             parse_mode=ParseMode.HTML, reply_markup=keyboard)
        except BadRequest as exc:
            if not is_not_modified(exc):
                raise
        self.text = text
        self.edits += 1
        return True
