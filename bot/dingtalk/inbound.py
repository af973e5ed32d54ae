"""Turn a DingTalk chatbot message (the SDK's ChatbotMessage) into the core's neutral ``Inbound``.

Private chats are addressed by the sender's staff id (what oToMessages/batchSend takes, and what an admin
puts in the allow-list); group chats by the conversationId (the openConversationId groupMessages/send
takes). A message DingTalk sends without a staff id in a private chat (a user outside the organisation)
cannot be answered through the robot API, so it is not handed on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.core.inbound import ChatRef, Inbound, InboundFile

Downloader = Callable[[str, str], Callable[[Path], Awaitable[None]]]


def chat_of(message: Any) -> ChatRef | None:
    if message.conversation_type == "2" and message.conversation_id:
        return ChatRef("dingtalk", str(message.conversation_id), "group")
    if message.conversation_type == "1" and message.sender_staff_id:
        return ChatRef("dingtalk", str(message.sender_staff_id), "private")
    return None


def strip_mention(text: str, robot_name: str | None) -> str:
    """DingTalk removes the robot's @name from a group message but leaves the space; strip both forms."""
    text = text.strip()
    if robot_name:
        mention = "@" + robot_name
        if text.startswith(mention):
            text = text[len(mention):].strip()
    return text


def to_inbound(message: Any, download: Downloader, robot_name: str | None = None) -> Inbound | str:
    """The Inbound for ``message``, or a sentence saying why it is not handed on."""
    chat = chat_of(message)
    if chat is None:
        return (f"conversationType {message.conversation_type!r} without a usable id "
                "(a private chat needs senderStaffId: is the sender outside the organisation?)")
    user_id = str(message.sender_staff_id or message.sender_id or "")
    if not user_id:
        return "the message names no sender"
    context: dict[str, object] = {
        "msgtype": message.message_type,
        "conversation_id": message.conversation_id,
        "sender_id": message.sender_id,
        "sender_staff_id": message.sender_staff_id,
        "session_webhook_expires_ms": message.session_webhook_expired_time,
    }

    def make(text: str = "", file: InboundFile | None = None) -> Inbound:
        return Inbound(chat=chat, user_id=user_id, message_id=str(message.message_id), text=text,
                       user_name=message.sender_nick, file=file, context=context)

    kind = message.message_type
    if kind == "text":
        return make(text=strip_mention(message.text.content or "", robot_name))
    if kind == "richText":
        parts = [p for p in (message.get_text_list() or []) if p]
        return make(text=strip_mention("\n".join(parts), robot_name))
    if kind == "file":
        content = message.extensions.get("content") or {}
        code = content.get("downloadCode") if isinstance(content, dict) else None
        name = content.get("fileName") if isinstance(content, dict) else None
        if not code or not name:
            return "a file message without downloadCode or fileName"
        file = InboundFile(name=str(name), size=None, download=download(str(code), str(name)))
        return make(file=file)
    # a picture, voice or video has nothing the bot reads, but the user hears what it takes instead of nothing (a
    # screenshot of a watchlist got silence; Feishu's image got the commands: a trial, S22 jb). DingTalk delivers a
    # group's message only when it @-mentions the robot, so a group's is for the bot too.
    return make()
