"""Answering a message in its own chat, on whichever front it came from, for its sender (DingTalk @-mentions
them in a group)."""

from __future__ import annotations

from bot.core.front import Front
from bot.core.inbound import Inbound
from bot.core.text import Line, line


async def reply(front: Front, msg: Inbound, lines: list[Line] | Line | str) -> None:
    if isinstance(lines, str):
        lines = [line(lines)]
    elif isinstance(lines, tuple):
        lines = [lines]
    await front.send(msg.chat, lines, reply_to=msg.message_id, for_user=msg.user_id)
