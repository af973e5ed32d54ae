"""The chat core's lines as Telegram messages: HTML, split before 4,096 UTF-16 units, buttons, edits, files.

Every Bot API call goes through ``telegram_call``, the one retry policy (RetryAfter waited out,
network errors retried, BadRequest/Forbidden/TimedOut never). A progress edit whose text did not
change is skipped, and Telegram's "message is not modified" answer is ignored.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Literal

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot.core.front import Button, Front, Sent
from bot.core.inbound import ChatRef
from bot.core.text import Line, to_html
from bot.telegram.render import split_messages
from screening.push.telegram import telegram_call

log = logging.getLogger("bot.telegram")


def keyboard(buttons: list[Button] | None) -> InlineKeyboardMarkup | None:
    if not buttons:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(b.label, callback_data=b.action) for b in buttons]])


def is_not_modified(exc: BaseException) -> bool:
    return isinstance(exc, BadRequest) and "not modified" in str(exc).lower()


class TelegramFront(Front):
    platform = "telegram"

    def __init__(self, bot: Bot, *, attempts: int = 4, edit_interval_s: float = 2.0) -> None:
        self.bot, self.attempts, self.edit_interval_s = bot, attempts, edit_interval_s

    async def _call(self, what: str, fn: Any, **kwargs: Any) -> Any:
        return await telegram_call(lambda: fn(**kwargs), attempts=self.attempts, what=what)

    async def send_html(self, chat_id: int, html_lines: list[str], *, reply_to: int | None = None,
                        markup: InlineKeyboardMarkup | None = None) -> list[Message]:
        """HTML lines as one or more messages; the reply on the first, the keyboard on the last."""
        chunks = split_messages(html_lines)
        sent: list[Message] = []
        for n, chunk in enumerate(chunks):
            last = n == len(chunks) - 1
            sent.append(await self._call("send", self.bot.send_message, chat_id=chat_id, text=chunk,
                                         parse_mode=ParseMode.HTML, reply_to_message_id=reply_to if n == 0 else None,
                                         reply_markup=markup if last else None))
        return sent

    async def send(self, chat: ChatRef, lines: list[Line], *, reply_to: str | None = None,
                   buttons: list[Button] | None = None, title: str = "", for_user: str | None = None) -> Sent | None:
        # for_user: a Telegram group notifies through reply_to; a job's later results go to the chat as before
        sent = await self.send_html(int(chat.chat_id), [to_html(ln) for ln in lines],
                                    reply_to=int(reply_to) if reply_to else None, markup=keyboard(buttons))
        return Sent(chat, sent[-1].message_id, lines) if sent else None

    async def open_card(self, chat: ChatRef, lines: list[Line], buttons: list[Button] | None = None,
                        title: str = "") -> Sent:
        msg = await self._call("progress", self.bot.send_message, chat_id=int(chat.chat_id),
                               text="\n".join(to_html(ln) for ln in lines), parse_mode=ParseMode.HTML,
                               reply_markup=keyboard(buttons))
        return Sent(chat, msg.message_id, lines)

    async def edit_card(self, sent: Sent, lines: list[Line], buttons: list[Button] | None = None,
                        title: str = "") -> None:
        try:
            await self._call("progress edit", self.bot.edit_message_text, text="\n".join(to_html(ln) for ln in lines),
                             chat_id=int(sent.chat.chat_id), message_id=int(str(sent.handle)),
                             parse_mode=ParseMode.HTML, reply_markup=keyboard(buttons))
        except BadRequest as exc:
            if not is_not_modified(exc):
                raise

    async def send_file(self, chat: ChatRef, path: Path, name: str, caption: Line,
                        kind: Literal["document", "image"] = "document") -> None:
        if kind == "image":
            await self._call("send chart", self.bot.send_photo, chat_id=int(chat.chat_id), photo=path.read_bytes(),
                             filename=name, caption=to_html(caption), parse_mode=ParseMode.HTML)
        else:
            await self._call("send xlsx", self.bot.send_document, chat_id=int(chat.chat_id),
                             document=path.read_bytes(), filename=name, caption=to_html(caption),
                             parse_mode=ParseMode.HTML)
