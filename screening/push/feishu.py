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
import json
from typing import Any, Literal

from screening.config import DigestSettings
from screening.digest.model import Digest
from screening.digest.render import markdown_lines, plain_lines
from screening.output.text import plain, split_with_parts, utf8_len
from screening.push.base import PermanentError, TransientError, WebhookChannel

RETRY_CODES = {11232}
FEISHU_LIMIT_BYTES = 20 * 1024  # whole request body (documented: 20 KB)


def feishu_post_contents(d: Digest, ds: DigestSettings | None = None,
                         limit_bytes: int = FEISHU_LIMIT_BYTES - 1024) -> list[dict[str, Any]]:
    """Feishu ``post`` contents (``{"post": {"zh_cn": ...}}``); text tags are literal, so plain text."""
    lines = plain_lines(d, ds)
    title, body = lines[0], lines[1:]
    out = []
    # a JSON text element costs ~30 bytes of markup per line beyond the text itself
    chunks = split_with_parts(body, limit_bytes - utf8_len(title) - 200,
                              lambda s: utf8_len(json.dumps(s, ensure_ascii=False)) + 30 * (s.count("\n") + 1))
    for i, chunk in enumerate(chunks):
        t = title if len(chunks) == 1 else f"{title} ({i + 1}/{len(chunks)})"
        content = [[{"tag": "text", "text": line}] for line in chunk.split("\n")]
        out.append({"post": {"zh_cn": {"title": t, "content": content}}})
    return out


def feishu_cards(d: Digest, ds: DigestSettings | None = None,
                 limit_bytes: int = FEISHU_LIMIT_BYTES - 2048) -> list[dict[str, Any]]:
    """Feishu ``interactive`` cards: a header, the body as lark_md (escaped), the footer as a note."""
    lines = markdown_lines(d, ds)
    title = plain(d.title)
    body = [ln.replace("## ", "", 1) if ln.startswith("## ") else ln for ln in lines[1:]]
    warn = [ln for ln in body if ln.startswith("⚠️ ")]
    body = [ln for ln in body if not ln.startswith("⚠️ ")]
    chunks = split_with_parts(body, limit_bytes - utf8_len(title) - sum(utf8_len(w) for w in warn) - 400,
                              lambda s: utf8_len(json.dumps(s, ensure_ascii=False)))
    cards = []
    for i, chunk in enumerate(chunks):
        t = title if len(chunks) == 1 else f"{title} ({i + 1}/{len(chunks)})"
        elements: list[dict[str, Any]] = [{"tag": "div", "text": {"tag": "lark_md", "content": chunk}}]
        if warn and i == len(chunks) - 1:
            elements += [{"tag": "hr"},
                         {"tag": "note", "elements": [{"tag": "plain_text", "content": "\n".join(warn)}]}]
        cards.append({"config": {"wide_screen_mode": True},
                      "header": {"title": {"tag": "plain_text", "content": t},
                                 "template": "orange" if d.warnings else "blue"},
                      "elements": elements})
    return cards



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
