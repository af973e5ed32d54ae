"""python-telegram-bot callbacks: each Update becomes the core's ``Inbound`` (or a button press).

One callback per kind of update, as in PTB's examples: commands, a document in a private chat, plain
text in a private chat, and inline-keyboard presses. What to do with them is the core's business
(bot/core/dispatch.py); what is Telegram's alone stays here: the cloud Bot API's 20 MB download
limit, and answering a callback query.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, cast

from telegram import BotCommand, Update
from telegram.ext import ApplicationHandlerStop, CallbackContext, ContextTypes, ExtBot

from bot.core import dispatch
from bot.core.actions import handle_action
from bot.core.commands import COMMAND_HELP
from bot.core.guard import ChatGuard, GuardUnavailable
from bot.core.inbound import ChatRef, Inbound, InboundFile
from bot.core.service import DEPS_KEY, ChatCore
from bot.core.text import line
from bot.telegram.front import TelegramFront

log = logging.getLogger("bot.handlers")
FRONT_KEY = "telegram_front"
GUARD_KEY = "telegram_guard"
# Telegram keeps an unconfirmed update for 24 hours and redelivers it (a webhook answered late, a poller that
# restarted before confirming its offset): an update id is remembered for twice that
UPDATE_TTL_S = 2 * 24 * 3600
_MB = 1024 * 1024
CLOUD_API_DOWNLOAD_MB = 20  # getFile limit of the cloud Bot API; a self-hosted one allows 2,000 MB
COMMANDS = [BotCommand(name, text) for name, text in COMMAND_HELP.items()]
COMMAND_NAMES = tuple(dispatch.COMMANDS)


class ScreenerContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """The typed custom context (python-telegram-bot's contexttypesbot.py): ``context.deps`` is the chat core
    and ``context.front`` the Telegram front, so no handler looks up a string key in ``bot_data`` itself."""

    @property
    def deps(self) -> ChatCore:
        return cast(ChatCore, self.application.bot_data[DEPS_KEY])

    @property
    def front(self) -> TelegramFront:
        return cast(TelegramFront, self.application.bot_data[FRONT_KEY])


CONTEXT_TYPES = ContextTypes(context=ScreenerContext)


async def once_cb(update: object, context: ScreenerContext) -> None:
    """Runs before every other handler (group -1): an update id seen before stops here, so a redelivered
    ``/screen`` never runs a second job. The id is claimed in Redis (bot/core/guard.py), so a restarted bot
    or a second process remembers it. When Redis cannot answer, the update is handled: Telegram already has
    its 200, so dropping it would lose the message, and its command then meets the same Redis anyway.
    """
    if not isinstance(update, Update):
        return
    guard = cast(ChatGuard, context.application.bot_data[GUARD_KEY])
    try:
        # update ids are per bot: two bots sharing one Redis prefix must not drop each other's updates
        key = f"update:{context.bot.id}:{update.update_id}"
        first = await asyncio.to_thread(guard.first, "delivery", key, UPDATE_TTL_S)
    except GuardUnavailable as exc:
        log.warning("update %s: %s; handled without the duplicate check", update.update_id, exc)
        return
    if not first:
        log.info("update %s delivered again: dropped", update.update_id)
        raise ApplicationHandlerStop


def chat_ref(update: Update) -> ChatRef:
    chat = update.effective_chat
    assert chat is not None
    return ChatRef("telegram", str(chat.id), "private" if chat.type == "private" else "group")


def inbound(update: Update, context: ScreenerContext) -> Inbound | None:
    msg, user = update.effective_message, update.effective_user
    if msg is None or update.effective_chat is None:
        return None
    file = None
    if msg.document is not None:
        doc = msg.document

        async def download(dest: Path) -> None:
            tg_file = await context.front._call("getFile", context.bot.get_file, file_id=doc.file_id)
            await context.front._call("download", tg_file.download_to_drive, custom_path=dest)

        file = InboundFile(doc.file_name or "upload", doc.file_size, download)
    return Inbound(chat_ref(update), str(user.id) if user else "?", str(msg.message_id), msg.text or msg.caption or "",
                   user.full_name if user else None, file)


async def message_cb(update: Update, context: ScreenerContext) -> None:
    """Every command, document and private text goes to the core."""
    msg = inbound(update, context)
    if msg is None:
        return
    if msg.file is not None and msg.file.size is not None:
        cloud = context.deps.settings.telegram.base_url.startswith("https://api.telegram.org")
        if cloud and msg.file.size > CLOUD_API_DOWNLOAD_MB * _MB and msg.file.size <= (
                context.deps.settings.input.max_file_mb * _MB):
            await context.front.send(msg.chat, [line(f"Telegram 云端 Bot API 只能下载 {CLOUD_API_DOWNLOAD_MB} MB "
                                                     "以内的文件; 请压缩或拆分, 或使用自建 telegram-bot-api "
                                                     "(telegram.base_url)。")], reply_to=msg.message_id)
            return
    await dispatch.handle(context.deps, context.front, msg)


async def button_cb(update: Update, context: ScreenerContext) -> None:
    query = update.callback_query
    if query is None:
        return
    user_id = str(update.effective_user.id) if update.effective_user else "?"
    chat = chat_ref(update) if update.effective_chat else ChatRef("telegram", user_id)
    handle = query.message.message_id if query.message is not None else None
    answer = await handle_action(context.deps, context.front, chat, user_id, query.data or "", handle)
    if answer == "Not allowed / 无权限":
        log.warning("refused a button from user %s in chat %s", user_id, chat.chat_id)
    await query.answer(answer or None)
