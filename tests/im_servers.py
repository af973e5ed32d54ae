"""Local stand-ins for the WeCom, Feishu and DingTalk robot webhooks, strict where the vendors are.

Each server checks what the vendor checks and answers the way the vendor answers:

* WeCom  ``POST /cgi-bin/webhook/send?key=K``: known key; ``{"msgtype": "markdown",
  "markdown": {"content"}}``; content <= 4,096 UTF-8 bytes (else errcode 40058).
* Feishu ``POST /open-apis/bot/v2/hook/T``: known token; ``timestamp`` (seconds, within an
  hour) and ``sign == base64(HMAC-SHA256(key=f"{timestamp}\\n{secret}", msg=b""))`` (else code
  19021); body <= 20 KB (else 9499); ``msg_type`` post (``content.post.zh_cn``) or interactive
  (``card`` with a header and elements).
* DingTalk ``POST /robot/send?access_token=T&timestamp=MS&sign=S``: ``sign`` (URL-decoded) ==
  base64(HMAC-SHA256(key=secret, msg=f"{timestamp}\\n{secret}")) and the timestamp within an
  hour (else errcode 310000); ``{"msgtype": "markdown", "markdown": {"title", "text"}}``;
  body <= 20,000 bytes.

``fail_next(n, status)`` makes the next n requests fail (HTTP 5xx, or the vendor's rate-limit
answer with status 200), ``down = True`` fails every request with 500. Accepted messages are
kept in ``received``; every request, accepted or not, in ``requests``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

WECOM_MAX_BYTES = 4096
FEISHU_MAX_BODY = 20 * 1024
DINGTALK_MAX_BODY = 20000


@dataclass
class Req:
    vendor: str
    status: int
    answer: dict[str, Any]
    body: dict[str, Any] | None
    size: int


@dataclass
class IMServers:
    wecom_key: str = "wecom-key-0123456789abcdef"
    feishu_token: str = "feishu-hook-0123456789abcdef"
    feishu_secret: str = "feishu-secret-XYZ"
    dingtalk_token: str = "dingtalk-token-0123456789abcdef"
    dingtalk_secret: str = "SECdingtalk-secret-XYZ"
    clock: Any = time.time
    received: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {"wecom": [], "feishu": [],
                                                                               "dingtalk": []})
    requests: list[Req] = field(default_factory=list)
    down: set[str] = field(default_factory=set)
    _fail: dict[str, list[int]] = field(default_factory=dict)
    port: int = 0

    async def start(self) -> IMServers:
        app = web.Application(client_max_size=1024 * 1024)
        app.router.add_post("/cgi-bin/webhook/send", self._wecom)
        app.router.add_post("/open-apis/bot/v2/hook/{token}", self._feishu)
        app.router.add_post("/robot/send", self._dingtalk)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        await self._runner.cleanup()

    # -- URLs as each vendor hands them out ------------------------------------------------
    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def wecom_url(self) -> str:
        return f"{self.base}/cgi-bin/webhook/send?key={self.wecom_key}"

    @property
    def feishu_url(self) -> str:
        return f"{self.base}/open-apis/bot/v2/hook/{self.feishu_token}"

    @property
    def dingtalk_url(self) -> str:
        return f"{self.base}/robot/send?access_token={self.dingtalk_token}"

    def fail_next(self, vendor: str, n: int, status: int = 503) -> None:
        """The next n requests to ``vendor`` fail: HTTP ``status``, or 200 with the rate-limit code."""
        self._fail.setdefault(vendor, []).extend([status] * n)

    # -- helpers ---------------------------------------------------------------------------
    async def _read(self, vendor: str, request: web.Request) -> tuple[bytes, dict[str, Any] | None]:
        raw = await request.read()
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            body = None
        return raw, body

    def _answer(self, vendor: str, raw: bytes, body: Any, answer: dict[str, Any], status: int = 200) -> web.Response:
        self.requests.append(Req(vendor, status, answer, body, len(raw)))
        return web.json_response(answer, status=status)

    def _injected(self, vendor: str, raw: bytes, body: Any) -> web.Response | None:
        if vendor in self.down:
            return self._answer(vendor, raw, body, {"error": "down"}, 500)
        queue = self._fail.get(vendor)
        if queue:
            status = queue.pop(0)
            if status == 200:
                limited = {"wecom": {"errcode": 45009, "errmsg": "api freq out of limit"},
                           "feishu": {"code": 11232, "msg": "frequency limited", "data": {}},
                           "dingtalk": {"errcode": 130101, "errmsg": "send too fast"}}[vendor]
                return self._answer(vendor, raw, body, limited)
            return self._answer(vendor, raw, body, {"error": "injected"}, status)
        return None

    # -- WeCom -----------------------------------------------------------------------------
    async def _wecom(self, request: web.Request) -> web.Response:
        raw, body = await self._read("wecom", request)
        if (resp := self._injected("wecom", raw, body)) is not None:
            return resp
        if request.query.get("key") != self.wecom_key:
            return self._answer("wecom", raw, body, {"errcode": 93000, "errmsg": "invalid webhook url"})
        if not isinstance(body, dict) or body.get("msgtype") != "markdown" or not isinstance(
                body.get("markdown", {}).get("content"), str):
            return self._answer("wecom", raw, body, {"errcode": 40008, "errmsg": "invalid message type"})
        content = body["markdown"]["content"]
        if not content.strip():
            return self._answer("wecom", raw, body, {"errcode": 44004, "errmsg": "empty content"})
        if len(content.encode("utf-8")) > WECOM_MAX_BYTES:
            return self._answer("wecom", raw, body, {"errcode": 40058, "errmsg": "content exceed max length"})
        self.received["wecom"].append(body)
        return self._answer("wecom", raw, body, {"errcode": 0, "errmsg": "ok"})

    # -- Feishu ----------------------------------------------------------------------------
    async def _feishu(self, request: web.Request) -> web.Response:
        raw, body = await self._read("feishu", request)
        if (resp := self._injected("feishu", raw, body)) is not None:
            return resp
        if request.match_info["token"] != self.feishu_token:
            return self._answer("feishu", raw, body, {"code": 19001, "msg": "param invalid: incoming webhook access token invalid", "data": {}})  # noqa: E501
        if len(raw) > FEISHU_MAX_BODY or not isinstance(body, dict):
            return self._answer("feishu", raw, body, {"code": 9499, "msg": "Bad Request", "data": {}}, 400)
        ts, sign = body.get("timestamp"), body.get("sign")
        ok_sign = False
        if isinstance(ts, str) and ts.isdigit() and abs(int(ts) - self.clock()) <= 3600:
            expected = base64.b64encode(hmac.new(f"{ts}\n{self.feishu_secret}".encode(), b"",
                                                 hashlib.sha256).digest()).decode()
            ok_sign = hmac.compare_digest(expected, str(sign))
        if not ok_sign:
            return self._answer("feishu", raw, body, {"code": 19021, "msg": "sign match fail or timestamp is not "
                                                      "within one hour from current time", "data": {}})
        mt = body.get("msg_type")
        good = (mt == "post" and isinstance(body.get("content", {}).get("post", {}).get("zh_cn", {}).get("content"),
                                             list)) or \
               (mt == "interactive" and isinstance(body.get("card"), dict) and "elements" in body["card"])
        if not good:
            return self._answer("feishu", raw, body, {"code": 9499, "msg": "Bad Request", "data": {}}, 400)
        self.received["feishu"].append(body)
        return self._answer("feishu", raw, body, {"code": 0, "msg": "success", "data": {}})

    # -- DingTalk --------------------------------------------------------------------------
    async def _dingtalk(self, request: web.Request) -> web.Response:
        raw, body = await self._read("dingtalk", request)
        if (resp := self._injected("dingtalk", raw, body)) is not None:
            return resp
        q = request.query  # aiohttp URL-decodes the query: sign arrives as plain base64
        if q.get("access_token") != self.dingtalk_token:
            return self._answer("dingtalk", raw, body, {"errcode": 300001, "errmsg": "token is not exist"})
        ts, sign = q.get("timestamp", ""), q.get("sign", "")
        ok_sign = False
        if ts.isdigit() and abs(int(ts) / 1000 - self.clock()) <= 3600:
            msg = f"{ts}\n{self.dingtalk_secret}".encode()
            expected = base64.b64encode(hmac.new(self.dingtalk_secret.encode(), msg, hashlib.sha256).digest()).decode()
            ok_sign = hmac.compare_digest(expected, sign)
        if not ok_sign:
            return self._answer("dingtalk", raw, body, {"errcode": 310000, "errmsg": "sign not match"})
        if len(raw) > DINGTALK_MAX_BODY:
            return self._answer("dingtalk", raw, body, {"errcode": 460101, "errmsg": "message too long"})
        md = body.get("markdown") if isinstance(body, dict) else None
        if body.get("msgtype") != "markdown" or not isinstance(md, dict) or not md.get("title") or not md.get("text"):
            return self._answer("dingtalk", raw, body, {"errcode": 40035, "errmsg": "missing parameter"})
        self.received["dingtalk"].append(body)
        return self._answer("dingtalk", raw, body, {"errcode": 0, "errmsg": "ok"})
