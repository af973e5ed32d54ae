"""The decrypted callback XML as a typed record.

WeCom documents these message types for a self-built app's callback: text, image, voice, video, location,
link (plus events). A file a user sends to the app is not among them; ``file`` is parsed anyway (MediaId,
and FileName / FileSize when present) so a deployment where WeCom delivers it still works.
"""

from __future__ import annotations

from dataclasses import dataclass

import defusedxml.ElementTree as SafeET

from bot.wecom.crypto import WeComCryptoError


@dataclass(frozen=True)
class WeComMessage:
    to_user: str  # the CorpID
    from_user: str  # the member's UserID
    create_time: int
    msg_type: str
    msg_id: str | None = None
    agent_id: str | None = None
    content: str | None = None
    media_id: str | None = None
    file_name: str | None = None
    file_size: int | None = None
    event: str | None = None


def parse_message(xml: str) -> WeComMessage:
    try:
        root = SafeET.fromstring(xml)
    except Exception as exc:
        raise WeComCryptoError(f"the decrypted message is not acceptable XML ({type(exc).__name__})") from None

    def text(tag: str) -> str | None:
        node = root.find(tag)
        return None if node is None or node.text is None else node.text.strip()

    to_user, from_user = text("ToUserName"), text("FromUserName")
    msg_type, created = text("MsgType"), text("CreateTime")
    if not to_user or not from_user or not msg_type or not created or not created.isdigit():
        raise WeComCryptoError("the message lacks ToUserName, FromUserName, MsgType or CreateTime")
    size = text("FileSize")
    return WeComMessage(
        to_user=to_user, from_user=from_user, create_time=int(created), msg_type=msg_type,
        msg_id=text("MsgId"), agent_id=text("AgentID"), content=text("Content"), media_id=text("MediaId"),
        file_name=text("FileName"), file_size=int(size) if size and size.isdigit() else None, event=text("Event"),
    )
