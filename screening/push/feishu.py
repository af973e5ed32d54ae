"""Feishu (飞书) custom bot: ``post`` (rich text) or ``interactive`` (card), signed.

Signing (Feishu's documented algorithm, which differs from DingTalk's): ``timestamp`` in
seconds, ``string_to_sign = f"{timestamp}\\n{secret}"`` is the HMAC-SHA256 *key* over an empty
message, base64-encoded; ``timestamp`` (as a string) and ``sign`` go into the JSON body. The
request body may not exceed 20 KB, so a long digest becomes several posts/cards. The answer is
``{"code": 0, "msg": "success", ...}`` (older hooks answer ``StatusCode``); 11232 (rate limit)
is retried; 19021 (bad signature or stale timestamp), 9499 (bad request) and the rest are permanent.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import TYPE_CHECKING, Any, Literal

from ..digest import feishu_cards, feishu_post_contents
from .base import PermanentError, TransientError, WebhookChannel

if TYPE_CHECKING:
    from ..digest import Digest, DigestSettings

RETRY_CODES = {11232}


def feishu_sign(secret: str, timestamp_s: int) -> str:
    string_to_sign = f"{timestamp_s}\n{secret}".encode()
    return base64.b64encode(hmac.new(string_to_sign, b"", hashlib.sha256).digest()).decode("ascii")


class FeishuChannel(WebhookChannel):
    kind = "feishu"

    def __init__(self, name: str, url: str, secret: str | None = None, *, ds: DigestSettings | None = None,
                 msg_type: Literal["post", "interactive"] = "interactive", **kwargs: Any) -> None:
        super().__init__(name, url, secret, **kwargs)
        self.ds, self.msg_type = ds, msg_type

    def payloads(self, digest: Digest) -> list[dict[str, Any]]:
        if self.msg_type == "post":
            return [{"msg_type": "post", "content": c} for c in feishu_post_contents(digest, self.ds)]
        return [{"msg_type": "interactive", "card": c} for c in feishu_cards(digest, self.ds)]

    def prepare(self, payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if not self.secret:
            return self.url, payload
        ts = int(self.clock())
        return self.url, {"timestamp": str(ts), "sign": feishu_sign(self.secret, ts), **payload}

    def check(self, status: int, answer: Any) -> None:
        if not isinstance(answer, dict):
            raise PermanentError(f"HTTP {status}, unexpected answer")
        code = answer.get("code", answer.get("StatusCode"))
        if status == 200 and code == 0:
            return
        error = f"feishu code {code}: {str(answer.get('msg', answer.get('StatusMessage', '')))[:200]}"
        raise (TransientError if code in RETRY_CODES else PermanentError)(error)
