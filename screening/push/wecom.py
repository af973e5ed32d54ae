"""WeCom (企业微信) group robot: ``{"msgtype": "markdown", "markdown": {"content": ...}}``.

``content`` is limited to 4,096 UTF-8 bytes, so a long digest goes out as several messages
("（续 i/n）"). The answer is ``{"errcode": 0, "errmsg": "ok"}``; 45009 (rate limit, 20
messages a minute per robot) and -1 (busy) are retried, any other code is permanent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from screening.digest.render import render_markdown_parts
from screening.push.base import MarkdownRobotChannel

if TYPE_CHECKING:
    from screening.digest.model import Digest

WECOM_LIMIT_BYTES = 4096  # markdown.content, UTF-8 bytes
RETRY_CODES = frozenset({45009, -1})


class WeComChannel(MarkdownRobotChannel):
    kind = "wecom"
    limit_default = WECOM_LIMIT_BYTES
    retry_codes = RETRY_CODES

    def payloads(self, digest: Digest) -> list[dict[str, Any]]:
        return [{"msgtype": "markdown", "markdown": {"content": part}}
                for part in render_markdown_parts(digest, self.limit_bytes, self.ds)]
