"""WeCom (企业微信) group robot: ``{"msgtype": "markdown", "markdown": {"content": ...}}``.

``content`` is limited to 4,096 UTF-8 bytes, so a long digest goes out as several messages
("（续 i/n）"). The answer is ``{"errcode": 0, "errmsg": "ok"}``; 45009 (rate limit, 20
messages a minute per robot) and -1 (busy) are retried, any other code is permanent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..digest import WECOM_LIMIT_BYTES, render_markdown_parts
from .base import PermanentError, TransientError, WebhookChannel

if TYPE_CHECKING:
    from ..digest import Digest, DigestSettings

RETRY_CODES = {45009, -1}


class WeComChannel(WebhookChannel):
    kind = "wecom"

    def __init__(self, name: str, url: str, secret: str | None = None, *, ds: DigestSettings | None = None,
                 limit_bytes: int = WECOM_LIMIT_BYTES, **kwargs: Any) -> None:
        super().__init__(name, url, secret, **kwargs)
        self.ds, self.limit_bytes = ds, limit_bytes

    def payloads(self, digest: Digest) -> list[dict[str, Any]]:
        return [{"msgtype": "markdown", "markdown": {"content": part}}
                for part in render_markdown_parts(digest, self.limit_bytes, self.ds)]

    def check(self, status: int, answer: Any) -> None:
        if status != 200 or not isinstance(answer, dict):
            raise PermanentError(f"HTTP {status}, unexpected answer")
        code = answer.get("errcode")
        if code == 0:
            return
        error = f"wecom errcode {code}: {str(answer.get('errmsg', ''))[:200]}"
        raise (TransientError if code in RETRY_CODES else PermanentError)(error)
