"""``@authorized_only``: allow-listed chats and admin users may use the bot; nobody else.

* A chat id in ``telegram.allowed_chats`` opens the bot to everyone in that chat (a team
  group, or one person's private chat: there chat id == user id).
* A user id in ``telegram.admin_users`` may use it from any chat and may cancel any job.
* Anyone else gets one polite refusal per chat (remembered in Redis, so a restart does not
  repeat it), is logged, and nothing else happens: the handler never runs, no job is created.
* An empty allow-list allows nobody: the safe default for a bot anyone can find.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram import Chat, Update, User

from screening.config import TelegramSettings

from .deps import ScreenerContext
from .render import esc

log = logging.getLogger("bot.auth")

Handler = Callable[[Update, ScreenerContext], Coroutine[Any, Any, None]]


def is_admin(settings: TelegramSettings, user: User | None) -> bool:
    return user is not None and user.id in settings.admin_users


def is_allowed(settings: TelegramSettings, chat: Chat | None, user: User | None) -> bool:
    if is_admin(settings, user):
        return True
    return chat is not None and chat.id in settings.allowed_chats


def refusal_text(chat: Chat | None, user: User | None) -> str:
    chat_id = chat.id if chat else "?"
    user_id = user.id if user else "?"
    return ("抱歉, 这是一个私有的选股机器人, 你所在的会话不在允许名单中。\n"
            "Sorry, this screening bot is private and this chat is not on its allow-list.\n"
            f"如需使用, 请把 chat id <code>{esc(chat_id)}</code> (user id <code>{esc(user_id)}</code>) "
            "发给管理员, 加入 config.toml 的 telegram.allowed_chats。")


def authorized_only(func: Handler) -> Handler:
    """Run ``func`` only for allow-listed chats / admin users; refuse everyone else once."""

    @functools.wraps(func)
    async def wrapper(update: Update, context: ScreenerContext) -> None:
        deps = context.deps
        chat, user = update.effective_chat, update.effective_user
        if is_allowed(deps.settings.telegram, chat, user):
            await func(update, context)
            return
        what = func.__name__
        log.warning("refused %s from user %s in %s chat %s", what, user.id if user else None,
                    chat.type if chat else None, chat.id if chat else None)
        if update.callback_query is not None:
            await update.callback_query.answer("Not allowed / 无权限", show_alert=False)
            return
        if chat is None or update.effective_message is None:
            return
        if await asyncio.to_thread(deps.first_refusal, chat.id):
            await update.effective_message.reply_html(refusal_text(chat, user))

    return wrapper
