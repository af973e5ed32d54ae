"""The core's entry: one message from any front goes to its command, after access control.

/whoami is open to everyone (it only tells callers their own ids); everything else runs only for
allow-listed chats and admins, and a stranger is refused once per chat. A file message is a pool
upload; plain text in a private chat gets a pointer to the commands; groups take commands only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.core import commands, digest_commands, replies
from bot.core.access import is_allowed
from bot.core.front import Front
from bot.core.inbound import Inbound
from bot.core.say import reply
from bot.core.service import ChatCore
from bot.core.text import line, t

log = logging.getLogger("bot.core")
Command = Callable[[ChatCore, Front, Inbound, list[str]], Awaitable[None]]
COMMANDS: dict[str, Command] = {
    "start": commands.start, "help": commands.help_, "whoami": commands.whoami, "screen": commands.screen,
    "status": commands.status, "cancel": commands.cancel, "data": commands.data, "high": commands.high,
    "failed": commands.failed,
    "subscribe": digest_commands.subscribe, "unsubscribe": digest_commands.unsubscribe,
    "watch": digest_commands.watch, "digest": digest_commands.digest, "calendar": digest_commands.calendar,
}


def parse_command(text: str) -> tuple[str | None, list[str]]:
    """(command, args) from a message: ``/screen 600519`` or, where a bot is @mentioned, ``screen 600519``."""
    words = text.strip().split()
    if not words:
        return None, []
    head = words[0]
    name = head[1:].split("@", 1)[0].lower() if head.startswith("/") else head.lower()
    if name in COMMANDS:
        return name, words[1:]
    return (name, words[1:]) if head.startswith("/") else (None, words)


async def handle(core: ChatCore, front: Front, msg: Inbound) -> None:
    """One message: /whoami for anyone; everything else only for allowed chats and admins."""
    name, args = parse_command(msg.text)
    if name == "whoami":
        await commands.whoami(core, front, msg, args)
        return
    if not is_allowed(core.settings, msg.chat, msg.user_id):
        await refuse(core, front, msg, name or ("file" if msg.file else "text"))
        return
    if msg.file is not None:
        await commands.upload(core, front, msg)
        return
    if name is None:
        if msg.chat.chat_type == "private":  # groups: commands only
            await reply(front, msg, [line("发送 /screen 600519.SH 300750, 或直接发送 CSV/XLSX 股票池文件。"),
                                     line("/help 查看用法。")])
        return
    command = COMMANDS.get(name)
    if command is None:
        await reply(front, msg, [line("未知命令 /", t(name, 30), "。/help 查看用法。")])
        return
    await command(core, front, msg, args)


async def refuse(core: ChatCore, front: Front, msg: Inbound, what: str) -> None:
    log.warning("refused %s from user %s in %s %s chat %s", what, msg.user_id, msg.chat.platform,
                msg.chat.chat_type, msg.chat.chat_id)
    if await asyncio.to_thread(core.first_refusal, msg.chat):
        await reply(front, msg, replies.refusal_lines(msg.chat.platform, msg.chat.chat_id, msg.user_id))
