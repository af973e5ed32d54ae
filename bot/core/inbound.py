"""What a front hands the core: one message from one user in one chat, with its file if any.

Vendors name these things differently (DingTalk conversationId/senderStaffId, Feishu chat_id/open_id,
WeCom ToUserName/FromUserName); the core only ever sees this shape, so access control, quotas and
commands are written once. Ids are strings because every vendor's are.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

Platform = Literal["telegram", "dingtalk", "feishu", "wecom"]
ChatType = Literal["private", "group"]


@dataclass(frozen=True)
class ChatRef:
    """Where a reply goes: the platform, the chat, and whether it is a one-to-one chat."""

    platform: Platform
    chat_id: str
    chat_type: ChatType = "private"


@dataclass
class InboundFile:
    """A file the user sent. ``download`` writes it to a local path (the vendor's API fetches it)."""

    name: str
    size: int | None
    download: Callable[[Path], Awaitable[None]]


@dataclass
class Inbound:
    """One message from a user; ``text`` has the bot mention removed, ``file`` is set for a file message."""

    chat: ChatRef
    user_id: str
    message_id: str
    text: str = ""
    user_name: str | None = None
    file: InboundFile | None = None
    # whether the message is for the bot: a private chat's always; a group's when it @-mentions the bot. Feishu with
    # require_mention_in_groups off hands on every group message, and a pointer answered to each would be spam
    addressed: bool = True
    # vendor-specific context a front needs to reply (e.g. DingTalk's sessionWebhook); the core never reads it
    context: dict[str, object] = field(default_factory=dict)
