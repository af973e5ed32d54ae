"""A local fake of WeCom (企业微信) for a self-built app: its server API and its callback sender.

Built from WeCom's documentation (gettoken, message/send, appchat/send, media/upload, media/get,
message/update_template_card, message/recall, 回调 加解密方案). The bot reaches it through its
configurable API base URL; the callback sender posts to the bot's callback URL like WeCom's servers do.

The API checks what WeCom checks: gettoken's corpid and corpsecret (40013 / 40001); every call's
access_token (41001 missing, 40014 unknown, 42001 expired); message/send's agentid (40056), touser
(unknown users come back in ``invaliduser``, all unknown is 81013), msgtype among an app's (40008),
text content (empty 44004; longer than 2,048 bytes is cut, as WeCom says, and the record says so),
markdown content (at most 2,048 bytes, else 40058), a file's media_id (40007), a template card's shape and
its response_code (returned for the card types WeCom returns it for; one use, 72 h). media/upload checks
type and size (more than 5 bytes, at most 20 MB, 40006), media/get answers the bytes with
Content-Disposition or errcode 40007. Codes of cases WeCom does not document (a used response_code, an
unknown msgid to recall) are this fake's own, noted where they are made.

The callback sender encrypts and signs exactly as WeCom does, with its own implementation (not the bot's):
msg_signature = SHA1(sort(token, timestamp, nonce, Encrypt)), AES-256-CBC with Base64(EncodingAESKey+"="),
IV = key[:16], plaintext = 16 random bytes + big-endian length + message + CorpID, PKCS#7 to 32 bytes.
It can also forge a signature, send a stale timestamp, or replay a request verbatim.

Everything the bot sent is recorded per recipient (``user:<UserID>`` / ``chat:<chatid>``).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import secrets
import struct
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import quote

import aiohttp
from aiohttp import web
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

TEXT_MAX_BYTES = 2048
MARKDOWN_MAX_BYTES = 2048
FILE_MIN_BYTES = 6
MEDIA_MAX = {"image": 10 * 1024 * 1024, "voice": 2 * 1024 * 1024, "video": 10 * 1024 * 1024,
             "file": 20 * 1024 * 1024}
APP_MSGTYPES = {"text", "image", "voice", "video", "file", "textcard", "news", "mpnews", "markdown",
                "miniprogram_notice", "template_card"}
APPCHAT_MSGTYPES = APP_MSGTYPES - {"miniprogram_notice", "template_card"}
CARD_TYPES = {"text_notice", "news_notice", "button_interaction", "vote_interaction", "multiple_interaction"}
CALLABLE_CARDS = {"button_interaction", "vote_interaction", "multiple_interaction"}
RESPONSE_CODE_TTL_S = 72 * 3600
RECALL_WINDOW_S = 24 * 3600


def wecom_encrypt(encoding_aes_key: str, corp_id: str, message: str) -> str:
    key = base64.b64decode(encoding_aes_key + "=")
    body = message.encode()
    plain = os.urandom(16) + struct.pack(">I", len(body)) + body + corp_id.encode()
    padder = padding.PKCS7(256).padder()
    data = padder.update(plain) + padder.finalize()
    enc = Cipher(algorithms.AES(key), modes.CBC(key[:16])).encryptor()
    return base64.b64encode(enc.update(data) + enc.finalize()).decode()


def wecom_sign(token: str, timestamp: str, nonce: str, encrypt: str) -> str:
    return hashlib.sha1("".join(sorted([token, timestamp, nonce, encrypt])).encode()).hexdigest()


def _cdata(value: str) -> str:
    return f"<![CDATA[{value}]]>"


@dataclass
class Sent:
    to: str
    msgtype: str
    payload: dict[str, Any]
    msgid: str
    sent_at: float
    truncated: bool = False
    recalled: bool = False
    file: bytes | None = None
    file_name: str | None = None


@dataclass
class Delivery:
    """One callback POST as the sender made it, and what the bot answered."""

    status: int
    text: str
    elapsed_s: float
    params: dict[str, str]
    body: bytes


@dataclass
class Media:
    kind: str
    name: str
    content: bytes
    created: float


@dataclass
class ResponseCode:
    msgid: str
    to: str
    issued: float
    used: bool = False


@dataclass
class FakeWeCom:
    corp_id: str = "ww0fakecorp00000001"
    agent_id: int = 1000002
    secret: str = "fake-wecom-app-secret-0123456789abcdefXYZ"
    token: str = "fakeCallbackToken42"
    encoding_aes_key: str = base64.b64encode(b"fake-wecom-aes-key-32-bytes!!!!!").decode().rstrip("=")
    users: set[str] = field(default_factory=lambda: {"zhangsan", "lisi"})
    chats: set[str] = field(default_factory=lambda: {"wrchat0001"})
    token_ttl_s: int = 7200
    sent: dict[str, list[Sent]] = field(default_factory=dict)
    media: dict[str, Media] = field(default_factory=dict)
    card_updates: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[tuple[str, int, str]] = field(default_factory=list)
    token_requests: int = 0
    calls: list[str] = field(default_factory=list)
    fail_uploads: int = 0  # the next n media/upload calls answer errcode -1 (WeCom's "system busy")
    fail_sends: int = 0  # the next n message/send calls whose body holds ``fail_sends_matching`` answer errcode -1
    fail_sends_matching: str = ""
    _tokens: dict[str, float] = field(default_factory=dict)
    _codes: dict[str, ResponseCode] = field(default_factory=dict)
    _by_msgid: dict[str, Sent] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _runner: web.AppRunner | None = None
    port: int = 0

    # ---- lifecycle ----------------------------------------------------------------------------------------
    async def start(self) -> FakeWeCom:
        app = web.Application(client_max_size=32 * 1024 * 1024)
        app.router.add_get("/cgi-bin/gettoken", self._gettoken)
        app.router.add_post("/cgi-bin/message/send", self._message_send)
        app.router.add_post("/cgi-bin/appchat/send", self._appchat_send)
        app.router.add_post("/cgi-bin/media/upload", self._media_upload)
        app.router.add_get("/cgi-bin/media/get", self._media_get)
        app.router.add_post("/cgi-bin/message/update_template_card", self._update_card)
        app.router.add_post("/cgi-bin/message/recall", self._recall)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeWeCom:
        return await self.start()

    async def __aexit__(self, et: type[BaseException] | None, e: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self, prefix: str = "SCREENER_WECOM__") -> dict[str, str]:
        return {prefix + "CORP_ID": self.corp_id, prefix + "AGENT_ID": str(self.agent_id),
                prefix + "SECRET": self.secret, prefix + "TOKEN": self.token,
                prefix + "ENCODING_AES_KEY": self.encoding_aes_key}

    def messages(self, to: str) -> list[Sent]:
        return list(self.sent.get(to, []))

    def expire_tokens(self) -> None:
        """Every issued token is now past its expires_in (calls get 42001)."""
        for token in self._tokens:
            self._tokens[token] = 0.0

    def add_media(self, name: str, content: bytes, kind: str = "file") -> str:
        """Put a file in WeCom's media store (what happens when a member sends one); returns the MediaId."""
        media_id = "1" + secrets.token_urlsafe(24)
        self.media[media_id] = Media(kind, name, content, time.time())
        return media_id

    # ---- API plumbing -------------------------------------------------------------------------------------
    def _err(self, path: str, code: int, msg: str) -> web.Response:
        self.refusals.append((path, code, msg))
        return web.json_response({"errcode": code, "errmsg": msg})

    def _check_token(self, request: web.Request) -> web.Response | None:
        token = request.query.get("access_token")
        if not token:
            return self._err(request.path, 41001, "access_token missing")
        expires = self._tokens.get(token)
        if expires is None:
            return self._err(request.path, 40014, "invalid access_token")
        if expires < time.time():
            return self._err(request.path, 42001, "access_token expired")
        return None

    async def _json(self, request: web.Request) -> dict[str, Any] | web.Response:
        try:
            body = json.loads(await request.read())
        except ValueError:
            return self._err(request.path, 47001, "data format error")
        if not isinstance(body, dict):
            return self._err(request.path, 47001, "data format error")
        return body

    def _msgid(self) -> str:
        return f"msg{next(self._ids):08d}{secrets.token_hex(6)}"

    # ---- endpoints ----------------------------------------------------------------------------------------
    async def _gettoken(self, request: web.Request) -> web.Response:
        self.token_requests += 1
        self.calls.append("gettoken")
        if request.query.get("corpid") != self.corp_id:
            return self._err(request.path, 40013, "invalid corpid")
        if request.query.get("corpsecret") != self.secret:
            return self._err(request.path, 40001, "invalid credential")
        token = secrets.token_urlsafe(48)
        self._tokens[token] = time.time() + self.token_ttl_s
        return web.json_response({"errcode": 0, "errmsg": "ok", "access_token": token, "expires_in": self.token_ttl_s})

    def _check_content(self, path: str, msgtype: str,
                       body: dict[str, Any]) -> tuple[dict[str, Any], bool] | web.Response:
        part = body.get(msgtype)
        if not isinstance(part, dict):
            return self._err(path, 40008, f"missing {msgtype} object")
        truncated = False
        if msgtype == "text":
            content = part.get("content")
            if not isinstance(content, str) or not content:
                return self._err(path, 44004, "empty content")
            raw = content.encode()
            if len(raw) > TEXT_MAX_BYTES:  # documented: longer text is cut
                part = {**part, "content": raw[:TEXT_MAX_BYTES].decode("utf-8", "ignore")}
                truncated = True
        elif msgtype == "markdown":
            content = part.get("content")
            if not isinstance(content, str) or not content:
                return self._err(path, 44004, "empty content")
            if len(content.encode()) > MARKDOWN_MAX_BYTES:
                return self._err(path, 40058, f"markdown content exceeds {MARKDOWN_MAX_BYTES} bytes")
        elif msgtype == "file":
            item = self.media.get(str(part.get("media_id")))
            if item is None or item.kind != "file":
                return self._err(path, 40007, "invalid media_id")
        elif msgtype == "template_card":
            card_type = part.get("card_type")
            title = (part.get("main_title") or {}).get("title") if isinstance(part.get("main_title"), dict) else None
            if card_type not in CARD_TYPES or not title:
                return self._err(path, 40058, "template_card needs a card_type and main_title.title")
            if card_type in CALLABLE_CARDS and not part.get("task_id"):
                return self._err(path, 40058, "task_id is required for an interactive template card")
            if card_type == "button_interaction" and not part.get("button_list"):
                return self._err(path, 40058, "button_list is required for button_interaction")
            if card_type in ("text_notice", "news_notice") and not part.get("card_action"):
                return self._err(path, 40058, "card_action is required for text_notice / news_notice")
        return part, truncated

    def _record(self, to: str, msgtype: str, part: dict[str, Any], truncated: bool) -> Sent:
        sent = Sent(to, msgtype, part, self._msgid(), time.time(), truncated)
        if msgtype == "file":
            item = self.media[str(part["media_id"])]
            sent.file, sent.file_name = item.content, item.name
        self.sent.setdefault(to, []).append(sent)
        self._by_msgid[sent.msgid] = sent
        return sent

    async def _message_send(self, request: web.Request) -> web.Response:
        self.calls.append("message/send")
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json(request)
        if isinstance(body, web.Response):
            return body
        if self.fail_sends > 0 and self.fail_sends_matching in json.dumps(body, ensure_ascii=False):
            self.fail_sends -= 1
            return self._err(request.path, -1, "system busy")
        if body.get("agentid") != self.agent_id:
            return self._err(request.path, 40056, "invalid agentid")
        msgtype = body.get("msgtype")
        if msgtype not in APP_MSGTYPES:
            return self._err(request.path, 40008, f"invalid message type {msgtype}")
        checked = self._check_content(request.path, str(msgtype), body)
        if isinstance(checked, web.Response):
            return checked
        part, truncated = checked
        wanted = [u for u in str(body.get("touser", "")).split("|") if u]
        valid = sorted(self.users) if wanted == ["@all"] else [u for u in wanted if u in self.users]
        invalid = [u for u in wanted if u != "@all" and u not in self.users]
        if not valid:
            return self._err(request.path, 81013, "user & party & tag all invalid")
        records = [self._record(f"user:{u}", str(msgtype), part, truncated) for u in valid]
        answer: dict[str, Any] = {"errcode": 0, "errmsg": "ok", "invaliduser": "|".join(invalid),
                                  "msgid": records[0].msgid}
        if msgtype == "template_card" and (part.get("card_type") in CALLABLE_CARDS or part.get("action_menu")):
            code = secrets.token_urlsafe(18)
            self._codes[code] = ResponseCode(records[0].msgid, records[0].to, time.time())
            answer["response_code"] = code
        return web.json_response(answer)

    async def _appchat_send(self, request: web.Request) -> web.Response:
        self.calls.append("appchat/send")
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json(request)
        if isinstance(body, web.Response):
            return body
        chat = body.get("chatid")
        if chat not in self.chats:
            return self._err(request.path, 86003, "chatid not found")
        msgtype = body.get("msgtype")
        if msgtype not in APPCHAT_MSGTYPES:
            return self._err(request.path, 40008, f"invalid message type {msgtype}")
        checked = self._check_content(request.path, str(msgtype), body)
        if isinstance(checked, web.Response):
            return checked
        record = self._record(f"chat:{chat}", str(msgtype), *checked)
        return web.json_response({"errcode": 0, "errmsg": "ok", "msgid": record.msgid})

    async def _media_upload(self, request: web.Request) -> web.Response:
        self.calls.append("media/upload")
        if (refused := self._check_token(request)) is not None:
            return refused
        if self.fail_uploads > 0:
            self.fail_uploads -= 1
            return self._err(request.path, -1, "system busy")
        kind = request.query.get("type", "")
        if kind not in MEDIA_MAX:
            return self._err(request.path, 40004, "invalid media type")
        if not request.content_type.startswith("multipart/form-data"):
            return self._err(request.path, 44001, "empty media data")
        form = await request.post()
        media = form.get("media")
        if not isinstance(media, web.FileField):
            return self._err(request.path, 44001, "empty media data")
        content = media.file.read()
        if not FILE_MIN_BYTES <= len(content) <= MEDIA_MAX[kind]:
            return self._err(request.path, 40006, "invalid file size")
        media_id = self.add_media(media.filename, content, kind)
        return web.json_response({"errcode": 0, "errmsg": "", "type": kind, "media_id": media_id,
                                  "created_at": str(int(time.time()))})

    async def _media_get(self, request: web.Request) -> web.Response:
        self.calls.append("media/get")
        if (refused := self._check_token(request)) is not None:
            return refused
        item = self.media.get(request.query.get("media_id", ""))
        if item is None or item.created < time.time() - 3 * 86400:  # media ids live three days
            return self._err(request.path, 40007, "invalid media_id")
        disposition = f"attachment; filename=\"{quote(item.name)}\"; filename*=UTF-8''{quote(item.name)}"
        return web.Response(body=item.content, content_type="application/octet-stream",
                            headers={"Content-Disposition": disposition})

    async def _update_card(self, request: web.Request) -> web.Response:
        self.calls.append("message/update_template_card")
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json(request)
        if isinstance(body, web.Response):
            return body
        if body.get("agentid") != self.agent_id:
            return self._err(request.path, 40056, "invalid agentid")
        code = self._codes.get(str(body.get("response_code")))
        if code is None or code.used or code.issued < time.time() - RESPONSE_CODE_TTL_S:
            # fake's own code: WeCom documents the rule (one use, 72 h), not the errcode
            return self._err(request.path, 40058, "response_code invalid, used or expired")
        card = body.get("template_card")
        if not isinstance(card, dict) or card.get("card_type") not in CARD_TYPES:
            return self._err(request.path, 40058, "template_card invalid")
        code.used = True
        self.card_updates.append({"msgid": code.msgid, "userids": body.get("userids"), "template_card": card})
        return web.json_response({"errcode": 0, "errmsg": "ok", "invaliduser": []})

    async def _recall(self, request: web.Request) -> web.Response:
        self.calls.append("message/recall")
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json(request)
        if isinstance(body, web.Response):
            return body
        sent = self._by_msgid.get(str(body.get("msgid")))
        if sent is None or sent.recalled or sent.sent_at < time.time() - RECALL_WINDOW_S:
            return self._err(request.path, 40058, "msgid unknown, already recalled or older than 24 h")  # fake's own
        sent.recalled = True
        return web.json_response({"errcode": 0, "errmsg": "ok"})

    # ---- WeCom's callback sender ----------------------------------------------------------------------------
    def sender(self, callback_url: str) -> CallbackSender:
        return CallbackSender(self, callback_url)


class CallbackSender:
    """Posts to the bot's callback URL exactly as WeCom's servers do."""

    def __init__(self, wecom: FakeWeCom, url: str) -> None:
        self.wecom = wecom
        self.url = url
        self._msg_ids = itertools.count(7_000_000_000_000_000_001)

    def inner_text(self, from_user: str, content: str, msg_id: str | None = None) -> tuple[str, str]:
        msg_id = msg_id or str(next(self._msg_ids))
        xml = (f"<xml><ToUserName>{_cdata(self.wecom.corp_id)}</ToUserName><FromUserName>{_cdata(from_user)}"
               f"</FromUserName><CreateTime>{int(time.time())}</CreateTime><MsgType>{_cdata('text')}</MsgType>"
               f"<Content>{_cdata(content)}</Content><MsgId>{msg_id}</MsgId>"
               f"<AgentID>{self.wecom.agent_id}</AgentID></xml>")
        return xml, msg_id

    def inner_file(self, from_user: str, media_id: str, name: str | None, size: int) -> tuple[str, str]:
        msg_id = str(next(self._msg_ids))
        name_xml = f"<FileName>{_cdata(name)}</FileName>" if name is not None else ""
        xml = (f"<xml><ToUserName>{_cdata(self.wecom.corp_id)}</ToUserName><FromUserName>{_cdata(from_user)}"
               f"</FromUserName><CreateTime>{int(time.time())}</CreateTime><MsgType>{_cdata('file')}</MsgType>"
               f"<MediaId>{_cdata(media_id)}</MediaId>{name_xml}<FileSize>{size}</FileSize>"
               f"<MsgId>{msg_id}</MsgId><AgentID>{self.wecom.agent_id}</AgentID></xml>")
        return xml, msg_id

    def envelope(self, inner: str, *, timestamp: int | None = None, nonce: str | None = None,
                 forge: bool = False, corp_id: str | None = None,
                 token: str | None = None) -> tuple[dict[str, str], bytes]:
        ts = str(int(time.time()) if timestamp is None else timestamp)
        nonce = nonce or str(secrets.randbelow(10**10))
        encrypt = wecom_encrypt(self.wecom.encoding_aes_key, corp_id or self.wecom.corp_id, inner)
        signature = wecom_sign(token or self.wecom.token, ts, nonce, encrypt)
        if forge:
            signature = hashlib.sha1(signature.encode()).hexdigest()
        body = (f"<xml><ToUserName>{_cdata(self.wecom.corp_id)}</ToUserName><AgentID>"
                f"{_cdata(str(self.wecom.agent_id))}</AgentID><Encrypt>{_cdata(encrypt)}</Encrypt></xml>").encode()
        return {"msg_signature": signature, "timestamp": ts, "nonce": nonce}, body

    async def post(self, params: dict[str, str], body: bytes) -> Delivery:
        start = time.monotonic()
        async with aiohttp.ClientSession() as session, \
                session.post(self.url, params=params, data=body, headers={"Content-Type": "text/xml"}) as resp:
            text = await resp.text()
            return Delivery(resp.status, text, time.monotonic() - start, params, body)

    async def send_text(self, from_user: str, content: str, **kw: Any) -> Delivery:
        inner, _ = self.inner_text(from_user, content)
        return await self.post(*self.envelope(inner, **kw))

    async def send_file(self, from_user: str, name: str, content: bytes, *, with_name: bool = True,
                        **kw: Any) -> Delivery:
        media_id = self.wecom.add_media(name, content)
        inner, _ = self.inner_file(from_user, media_id, name if with_name else None, len(content))
        return await self.post(*self.envelope(inner, **kw))

    async def replay(self, delivery: Delivery) -> Delivery:
        return await self.post(dict(delivery.params), delivery.body)

    async def verify_url(self, *, forge: bool = False, timestamp: int | None = None) -> tuple[int, str, str]:
        """The URL-verification GET; returns (status, answer, the plaintext WeCom expects back)."""
        echo = str(secrets.randbelow(10**19))
        ts = str(int(time.time()) if timestamp is None else timestamp)
        nonce = str(secrets.randbelow(10**10))
        echostr = wecom_encrypt(self.wecom.encoding_aes_key, self.wecom.corp_id, echo)
        signature = wecom_sign(self.wecom.token, ts, nonce, echostr)
        if forge:
            signature = "0" * 40
        params = {"msg_signature": signature, "timestamp": ts, "nonce": nonce, "echostr": echostr}
        async with aiohttp.ClientSession() as session, session.get(self.url, params=params) as resp:
            return resp.status, await resp.text(), echo
