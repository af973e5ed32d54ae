"""Replies through a chat's session webhook, @-mentioning the user the message is for.

The SDK's ``reply_markdown`` / ``reply_text`` post ``{"msgtype", "markdown"|"text", "at": {"atUserIds":
[<sender>]}}`` to the session webhook of an incoming message and mention that message's sender. The client
keeps one webhook per chat, the latest message's, so a job's results (sent minutes later) went through the
webhook of whoever spoke last in the group and @-mentioned them, not the user who asked (a trial, B2). Here the
body is the SDK's, posted the way the SDK posts it (``requests``, ``json.dumps`` defaults), with ``atUserIds``
naming the user the message is for: the asker of a reply, the owner of a job (kept in its tracking record, so
also after a restart). A message for nobody in particular (the digest) mentions nobody.

DingTalk's ``atUserIds`` take staff ids; a sender without one (outside the organisation: the client then names
them by their ``$:LWCP_v1:$…`` senderId) cannot be mentioned, and is not.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import requests

log = logging.getLogger(__name__)


def at_ids(user_id: str | None) -> list[str]:
    """The ``atUserIds`` for a message meant for ``user_id``: its staff id, or none."""
    if not user_id or user_id.startswith("$:"):
        return []
    return [user_id]


def webhook_body(msg_key: str, param: dict[str, str], at: list[str]) -> dict[str, object]:
    """What the SDK's reply_markdown / reply_text post, with ``at`` as the mentioned staff ids."""
    if msg_key == "sampleMarkdown":
        return {"msgtype": "markdown", "markdown": {"title": param["title"], "text": param["text"]},
                "at": {"atUserIds": at}}
    return {"msgtype": "text", "text": {"content": param.get("content", "")}, "at": {"atUserIds": at}}


def body_bytes(body: dict[str, object]) -> int:
    """The size DingTalk measures: the body as posted (``json.dumps`` defaults, so non-ASCII as \\uXXXX)."""
    return len(json.dumps(body).encode("ascii"))


def post(url: str, body: dict[str, object], timeout_s: float) -> dict[str, Any] | None:
    """POST ``body`` to a session webhook; DingTalk's JSON answer, or None when none came (it may have arrived,
    so the caller must not send it again another way). The URL carries the session: never logged."""
    try:
        response = requests.post(url, headers={"Content-Type": "application/json", "Accept": "*/*"},
                                 data=json.dumps(body), timeout=timeout_s)
        response.raise_for_status()
        answer = response.json()
    except (requests.RequestException, ValueError) as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        log.error("DingTalk session webhook post failed: %s%s", type(exc).__name__,
                  f" (HTTP {status})" if status else "")
        return None
    return answer if isinstance(answer, dict) else None
