"""DingTalk (钉钉) custom robot: markdown, signed with the robot's ``SEC…`` secret.

Signing (DingTalk's documented algorithm): ``timestamp`` in milliseconds, ``string_to_sign =
f"{timestamp}\\n{secret}"``, ``sign = urlencode(base64(HMAC-SHA256(key=secret,
msg=string_to_sign)))``, both appended to the webhook URL as query parameters (the timestamp
must be within an hour of DingTalk's clock). Body: ``{"msgtype": "markdown", "markdown":
{"title", "text"}}``. The answer is ``{"errcode": 0, "errmsg": "ok"}``; 130101 (sending too
fast; 20 messages a minute per robot) and -1 are retried; 310000 (signature, keyword or IP
check failed) and the rest are permanent.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus

from screening.digest.render import render_markdown_parts
from screening.push.base import MarkdownRobotChannel

if TYPE_CHECKING:
    from screening.digest.model import Digest

DINGTALK_LIMIT_BYTES = 18000  # markdown.text; DingTalk's request cap is about 20,000 bytes
RETRY_CODES = frozenset({130101, -1})


def dingtalk_sign(secret: str, timestamp_ms: int) -> str:
    """The URL-encoded signature for ``timestamp_ms``."""
    string_to_sign = f"{timestamp_ms}\n{secret}".encode()
    digest = hmac.new(secret.encode("utf-8"), string_to_sign, hashlib.sha256).digest()
    return quote_plus(base64.b64encode(digest).decode("ascii"))


class DingTalkChannel(MarkdownRobotChannel):
    kind = "dingtalk"
    limit_default = DINGTALK_LIMIT_BYTES
    retry_codes = RETRY_CODES

    def payloads(self, digest: Digest) -> list[dict[str, Any]]:
        parts = render_markdown_parts(digest, self.limit_bytes, self.ds, hard_breaks=True)
        title = f"盘前摘要 {digest.date.isoformat()}"
        return [{"msgtype": "markdown",
                 "markdown": {"title": title if len(parts) == 1 else f"{title} ({i}/{len(parts)})", "text": text}}
                for i, text in enumerate(parts, 1)]

    def prepare(self, payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if not self.secret:
            return self.url, payload
        ts = int(self.clock() * 1000)
        sep = "&" if "?" in self.url else "?"
        return f"{self.url}{sep}timestamp={ts}&sign={dingtalk_sign(self.secret, ts)}", payload
