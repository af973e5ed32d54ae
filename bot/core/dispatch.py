"""The core's entry: one message from any front goes to its command, after access control.

/whoami is open to everyone (it only tells callers their own ids); everything else runs only for
allow-listed chats and admins, and a stranger is refused once per chat. A file message is a pool
upload; any other text gets a pointer to the commands, in a group too: a group's text reaches the core only
when it is for the bot (Feishu hands on only messages that @-mention it, DingTalk delivers only those, Telegram
only its registered commands), and an @-mention answered with silence looked like a dead bot (a trial, S22 jb).
"""

from __future__ import annotations

import asyncio
import logging
import unicodedata
from collections.abc import Awaitable, Callable

from bot.core import commands, digest_commands, replies
from bot.core.access import is_allowed
from bot.core.front import Front
from bot.core.inbound import Inbound
from bot.core.say import reply
from bot.core.service import ChatCore
from bot.core.text import line, t

log = logging.getLogger("bot.core")
# "/" and what a Chinese IME's punctuation mode types for the "/" key (、); 、 leads only a known command's name
COMMAND_MARKS = ("/", "、")
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
    while len(words) > 1 and unicodedata.normalize("NFKC", words[0]).startswith("@"):
        words = words[1:]  # "@张三 @bot /screen …": the front spells out others' mentions; the command follows them
    if not words:
        return None, []
    head = unicodedata.normalize("NFKC", words[0])  # ／ｓｃｒｅｅｎ typed in full-width mode is /screen
    prefixed = head.startswith(COMMAND_MARKS)
    name = head[1:].split("@", 1)[0].lower() if prefixed else head.lower()
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
    if name is None:  # a group's text is answered when it @-mentions the bot (a silent bot looked dead)
        if not msg.addressed:  # group chatter Feishu hands on with require_mention_in_groups off
            return
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
