"""A local fake of Feishu's remote end for one self-built app, strict where Feishu is strict.

Built from the lark-oapi SDK's source (1.7.5: ws/client.py, ws/pb/pbbp2_pb2.py, core/token, the im/v1
request models, event/dispatcher_handler.py) and Feishu's open-platform documentation (event
subscription security and encryption, im/v1 message create / reply / patch, files, images,
message resources, bot/v3/info, tenant_access_token/internal).

How the real SDK reaches it, without patching: both ``lark.Client.builder().domain(...)`` and
``lark.ws.Client(domain=...)`` take the OpenAPI origin, and the SDK accepts ``http://127.0.0.1``;
the websocket URL is whatever the endpoint call answers (here ``ws://127.0.0.1:<port>/ws/v2?...``).
The fake runs in its own thread with its own event loop, like a remote server: the SDK makes blocking
``requests`` calls (token, endpoint) that would deadlock a fake served by the caller's loop.

What it checks, as Feishu does:
* POST /open-apis/auth/v3/tenant_access_token/internal: the app's app_id / app_secret (else code
  10003 / 10014); tokens expire after ``token_ttl_s``.
* Every OpenAPI call: ``Authorization: Bearer <tenant_access_token>`` issued here and unexpired (else
  99991661 missing / 99991663 invalid), JSON bodies sent as application/json.
* im/v1/messages (create): receive_id_type one of Feishu's, a chat the bot is in (230002) or a user
  it can reach (230013), msg_type known, ``content`` a JSON *string* whose shape fits msg_type (text,
  post with locale and paragraphs of tagged elements, interactive with elements/body/template, file and
  image keys uploaded here) (230001), request body <= 150 KB for text and <= 30 KB for post and cards
  (230025); a repeated ``uuid`` within one hour returns the first message instead of a second one.
* .../messages/:id/reply: a message in a chat the bot is in; the same content rules.
* PATCH .../messages/:id: a card the bot sent, shared (config.update_multi true) before and after,
  <= 30 KB, at most 5 patches a second (230020), sent within 14 days (230031); patches kept in order.
* im/v1/files: file_type one of opus/mp4/pdf/doc/xls/ppt/stream, a file_name, a file part, not empty
  (234010), <= 30 MB (234006). im/v1/images: image_type message/avatar, a real image format (234011),
  not empty, <= 10 MB.
* .../messages/:id/resources/:key?type=file|image: the key must belong to that message (234003);
  the bytes come with Content-Disposition (RFC 5987 file name), as the SDK parses them.
* POST /callback/ws/endpoint: {AppID, AppSecret} of the app (else code 403, which the SDK treats as a
  client error and gives up); hands out a ws URL with device_id, service_id and a one-use ticket valid
  ``ticket_ttl_s``, and the ClientConfig (ping interval, reconnect count/interval/jitter).
* The gateway (protobuf pbbp2.Frame, the SDK's own module): a handshake with a bad or used ticket is
  refused with handshake-status 514 headers (as the SDK parses them); a ping must be a CONTROL frame
  with type=ping and the connection's service id, answered with a pong carrying the ClientConfig;
  events go out as DATA frames (type=event, message_id, trace_id, sum, seq; split in ``parts`` on
  demand) and each must be answered with a DATA frame of the same message_id whose payload is
  ``{"code": <http status>}``; anything else is a protocol error, recorded.
* The HTTP event pusher encrypts (AES-256-CBC, key SHA-256(encrypt_key), random iv, base64) and signs
  (hex SHA-256 of timestamp + nonce + encrypt_key + body) as Feishu does; it can forge the signature,
  send a stale timestamp, replay a push byte for byte, and run the url_verification challenge.

The error codes are Feishu's documented ones where the docs give them (230001/2/13/20/25/31, 234001/
3/6/10/11, 99991661/3, 10003/10014); messages are this fake's wording. Everything the bot sent is
recorded in order (``sent``), per chat (``in_chat``), card patches in order (``BotMessage.patches``),
and every refusal in ``refusals``.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import itertools
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from urllib.parse import quote, urlencode

import aiohttp
from aiohttp import WSMsgType, web
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from lark_oapi.ws.pb.pbbp2_pb2 import Frame

from tests.fakes.loop_thread import LoopThread

T = TypeVar("T")

TEXT_BODY_LIMIT = 150 * 1024
CARD_BODY_LIMIT = 30 * 1024
FILE_LIMIT = 30 * 1024 * 1024
IMAGE_LIMIT = 10 * 1024 * 1024
PATCH_QPS = 5
EDIT_WINDOW_S = 14 * 86400.0
UUID_WINDOW_S = 3600.0
RECEIVE_ID_TYPES = frozenset({"open_id", "user_id", "union_id", "email", "chat_id"})
MSG_TYPES = frozenset({"text", "post", "image", "file", "audio", "media", "sticker", "interactive",
                       "share_chat", "share_user"})
POST_TAGS = frozenset({"text", "a", "at", "img", "media", "emotion", "hr", "code_block", "md"})
FILE_TYPES = frozenset({"opus", "mp4", "pdf", "doc", "xls", "ppt", "stream"})
IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*",
               b"\x00\x00\x01\x00")
FRAME_CONTROL, FRAME_DATA = 0, 1


@dataclass
class BotMessage:
    """A message the bot sent (create or reply); ``patches`` are the cards it was patched to, in order."""

    message_id: str
    chat_id: str
    msg_type: str
    content: dict[str, Any]
    parent_id: str | None = None
    reply_in_thread: bool = False
    uuid: str | None = None
    created_at: float = field(default_factory=time.time)
    patches: list[dict[str, Any]] = field(default_factory=list)
    patch_times: list[float] = field(default_factory=list)

    @property
    def card(self) -> dict[str, Any]:
        """What the card shows now."""
        return self.patches[-1] if self.patches else self.content


@dataclass
class UserMessage:
    message_id: str
    chat_id: str
    chat_type: str
    sender_open_id: str
    msg_type: str
    content: dict[str, Any]
    resources: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # key -> (name, bytes)


@dataclass
class Uploaded:
    key: str
    kind: Literal["file", "image"]
    name: str
    file_type: str
    data: bytes


@dataclass
class Refusal:
    endpoint: str
    status: int
    code: int
    msg: str


@dataclass
class Event:
    """An event envelope as Feishu pushes it (``im.message.receive_v1`` or ``card.action.trigger``)."""

    envelope: dict[str, Any]

    @property
    def event_id(self) -> str:
        return str(self.envelope["header"]["event_id"])

    @property
    def message_id(self) -> str | None:
        msg = self.envelope.get("event", {}).get("message")
        return msg.get("message_id") if isinstance(msg, dict) else None


@dataclass
class Ack:
    frame_message_id: str
    code: int
    payload: dict[str, Any]
    headers: dict[str, str]


@dataclass
class Connection:
    device_id: str
    service_id: int
    ws: web.WebSocketResponse
    pings: int = 0
    closed: bool = False


@dataclass
class Push:
    """One HTTP push as sent: ``replay`` sends exactly these bytes and headers again."""

    url: str
    body: bytes
    headers: dict[str, str]
    status: int = 0
    response: bytes = b""

    def json(self) -> Any:
        return json.loads(self.response) if self.response else None


def _hex(n: int = 16) -> str:
    return secrets.token_hex(n)


def _now_ms() -> str:
    return str(int(time.time() * 1000))


def _error(status: int, code: int, msg: str) -> web.Response:
    return web.json_response({"code": code, "msg": msg}, status=status)


class ApiRefusal(Exception):
    def __init__(self, code: int, msg: str, status: int = 400) -> None:
        super().__init__(msg)
        self.code = code
        self.msg = msg
        self.status = status


class FakeFeishu(LoopThread):
    """Feishu's OpenAPI, long-connection endpoint and gateway, and event pusher for one self-built app."""

    label = "fake Feishu"

    def __init__(self, *, token_ttl_s: int = 7200, ticket_ttl_s: float = 60.0, ping_interval_s: int = 120,
                 reconnect_count: int = -1, reconnect_interval_s: int = 1, reconnect_nonce_s: int = 0,
                 ack_timeout_s: float = 5.0, bot_name: str = "选股机器人") -> None:
        # a fresh app id per fake: the SDK caches tenant tokens per app id for the whole process
        self.app_id = "cli_" + _hex(8)
        self.app_secret = secrets.token_urlsafe(24)
        self.verification_token = secrets.token_urlsafe(16)
        self.encrypt_key = secrets.token_urlsafe(16)
        self.tenant_key = _hex(8)
        self.bot_open_id = "ou_" + _hex(16)
        self.bot_name = bot_name
        self.token_ttl_s = token_ttl_s
        self.ticket_ttl_s = ticket_ttl_s
        self.client_config = {"ReconnectCount": reconnect_count, "ReconnectInterval": reconnect_interval_s,
                              "ReconnectNonce": reconnect_nonce_s, "PingInterval": ping_interval_s}
        self.ack_timeout_s = ack_timeout_s
        # records
        self.sent: list[BotMessage] = []
        self.uploads: dict[str, Uploaded] = {}
        self.refusals: list[Refusal] = []
        self.token_requests = 0
        self.endpoint_requests = 0
        self.connections: list[Connection] = []
        self.acks: list[Ack] = []
        self.protocol_errors: list[str] = []
        self.handshakes_refused = 0
        # state
        self.chats: dict[str, str] = {}  # chat_id -> "group" | "p2p"
        self.users: dict[str, str] = {}  # open_id -> p2p chat_id
        self.user_messages: dict[str, UserMessage] = {}
        self._bot_messages: dict[str, BotMessage] = {}
        self._uuids: dict[str, tuple[float, str]] = {}
        self._tokens: dict[str, float] = {}
        self._tickets: dict[str, tuple[float, str, int, bool]] = {}  # ticket -> (expiry, device, service, used)
        self._waiting: dict[str, asyncio.Future[Ack]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        super().__init__()
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ---- lifecycle (the test's thread) ----------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _start_servers(self) -> None:
        self._runner = web.AppRunner(self._app(), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = self._runner.addresses[0][1]

    async def _stop_servers(self) -> None:
        for conn in self.connections:
            if not conn.ws.closed:
                await conn.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()


    @staticmethod
    async def wait_for(predicate: Callable[[], bool], timeout_s: float = 5.0, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
            await asyncio.sleep(0.01)

    # ---- records --------------------------------------------------------------------------------------
    def in_chat(self, chat_id: str) -> list[BotMessage]:
        with self._lock:
            return [m for m in self.sent if m.chat_id == chat_id]

    def bot_message(self, message_id: str) -> BotMessage:
        return self._bot_messages[message_id]

    @property
    def live_connections(self) -> list[Connection]:
        return [c for c in self.connections if not c.closed]

    def expire_tokens(self) -> None:
        """Every issued tenant_access_token stops working (as when the app secret is reset)."""
        with self._lock:
            self._tokens.clear()

    def age_message(self, message_id: str, seconds: float) -> None:
        """Pretend a bot message was sent ``seconds`` ago (for the 14-day edit window)."""
        self._bot_messages[message_id].created_at -= seconds

    # ---- the app's routes -----------------------------------------------------------------------------
    def _app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        r = app.router
        r.add_post("/open-apis/auth/v3/tenant_access_token/internal", self._tenant_token)
        r.add_get("/open-apis/bot/v3/info", self._api(self._bot_info))
        r.add_post("/open-apis/im/v1/messages", self._api(self._create_message))
        r.add_post("/open-apis/im/v1/messages/{message_id}/reply", self._api(self._reply_message))
        r.add_patch("/open-apis/im/v1/messages/{message_id}", self._api(self._patch_message))
        r.add_post("/open-apis/im/v1/files", self._api(self._upload_file))
        r.add_post("/open-apis/im/v1/images", self._api(self._upload_image))
        r.add_get("/open-apis/im/v1/messages/{message_id}/resources/{file_key}", self._api(self._resource))
        r.add_post("/callback/ws/endpoint", self._ws_endpoint)
        r.add_get("/ws/v2", self._gateway)
        return app

    def _refuse(self, request: web.Request, status: int, code: int, msg: str) -> web.Response:
        with self._lock:
            self.refusals.append(Refusal(f"{request.method} {request.path}", status, code, msg))
        return _error(status, code, msg)

    def _api(self, handler: Callable[[web.Request], Coroutine[Any, Any, web.StreamResponse]]
             ) -> Callable[[web.Request], Coroutine[Any, Any, web.StreamResponse]]:
        async def checked(request: web.Request) -> web.StreamResponse:
            auth = request.headers.get("Authorization", "")
            if not auth.startswith("Bearer ") or auth == "Bearer " or auth == "Bearer None":
                return self._refuse(request, 400, 99991661, "Missing access token for authorization.")
            expiry = self._tokens.get(auth[len("Bearer "):])
            if expiry is None or expiry < time.time():
                return self._refuse(request, 400, 99991663, "Invalid access token for authorization.")
            try:
                return await handler(request)
            except ApiRefusal as e:
                return self._refuse(request, e.status, e.code, e.msg)

        return checked

    @staticmethod
    async def _json(request: web.Request) -> tuple[dict[str, Any], bytes]:
        if not request.content_type.startswith("application/json"):
            raise ApiRefusal(99992402, f"field validation failed: Content-Type {request.content_type!r} is not JSON")
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError as e:
            raise ApiRefusal(99992402, "field validation failed: body is not JSON") from e
        if not isinstance(body, dict):
            raise ApiRefusal(99992402, "field validation failed: body is not an object")
        return body, raw

    # ---- auth -----------------------------------------------------------------------------------------
    async def _tenant_token(self, request: web.Request) -> web.Response:
        self.token_requests += 1
        try:
            body = await request.json()
        except ValueError:
            return self._refuse(request, 400, 10003, "invalid param: body is not JSON")
        if not isinstance(body, dict) or body.get("app_id") != self.app_id:
            return self._refuse(request, 400, 10003, "invalid param: app_id")
        if body.get("app_secret") != self.app_secret:
            return self._refuse(request, 400, 10014, "app secret invalid")
        token = "t-" + _hex(20)
        with self._lock:
            self._tokens[token] = time.time() + self.token_ttl_s
        return web.json_response({"code": 0, "msg": "ok", "tenant_access_token": token, "expire": self.token_ttl_s})

    async def _bot_info(self, request: web.Request) -> web.Response:
        return web.json_response({"code": 0, "msg": "ok", "bot": {
            "activate_status": 2, "app_name": self.bot_name, "avatar_url": "", "ip_white_list": [],
            "open_id": self.bot_open_id}})

    # ---- messages -------------------------------------------------------------------------------------
    def _check_content(self, msg_type: str, content: Any, raw_size: int) -> dict[str, Any]:
        if msg_type not in MSG_TYPES:
            raise ApiRefusal(230001, f"invalid msg_type {msg_type!r}")
        if not isinstance(content, str):
            raise ApiRefusal(230001, "content must be a JSON string")
        limit = TEXT_BODY_LIMIT if msg_type == "text" else CARD_BODY_LIMIT
        if msg_type in ("text", "post", "interactive") and raw_size > limit:
            raise ApiRefusal(230025, "The length of the message content reaches its limit "
                                     f"({raw_size} > {limit} bytes)")
        try:
            parsed = json.loads(content)
        except ValueError as e:
            raise ApiRefusal(230001, "content is not valid JSON") from e
        if not isinstance(parsed, dict):
            raise ApiRefusal(230001, "content is not a JSON object")
        problem = self._content_problem(msg_type, parsed)
        if problem:
            raise ApiRefusal(230001, f"invalid {msg_type} content: {problem}")
        return parsed

    def _content_problem(self, msg_type: str, c: dict[str, Any]) -> str:
        if msg_type == "text":
            return "" if isinstance(c.get("text"), str) and c["text"].strip() else "text missing or empty"
        if msg_type == "post":
            if not c:
                return "no locale"
            for locale, body in c.items():
                if not isinstance(body, dict) or not isinstance(body.get("content"), list):
                    return f"{locale}.content must be a list of paragraphs"
                for para in body["content"]:
                    if not isinstance(para, list) or not all(isinstance(el, dict) and el.get("tag") in POST_TAGS
                                                             for el in para):
                        return f"{locale}: a paragraph is not a list of known elements"
            return ""
        if msg_type == "interactive":
            if c.get("type") == "template":
                return "" if isinstance(c.get("data"), dict) and c["data"].get("template_id") else "template_id"
            elements = c.get("elements")
            if elements is None and isinstance(c.get("body"), dict):
                elements = c["body"].get("elements")
            if not isinstance(elements, list) or not all(isinstance(e, dict) and e.get("tag") for e in elements):
                return "a card needs elements, each with a tag"
            return ""
        if msg_type in ("file", "image"):
            key_name = "file_key" if msg_type == "file" else "image_key"
            up = self.uploads.get(str(c.get(key_name)))
            return "" if up is not None and up.kind == msg_type else f"{key_name} was not uploaded by this app"
        return f"this fake does not take {msg_type} messages"

    def _record(self, chat_id: str, msg_type: str, content: dict[str, Any], raw_content: str, *,
                parent_id: str | None, in_thread: bool, uuid: str | None) -> BotMessage:
        with self._lock:
            if uuid:
                seen = self._uuids.get(uuid)
                if seen and time.time() - seen[0] < UUID_WINDOW_S:
                    return self._bot_messages[seen[1]]
            msg = BotMessage(message_id="om_" + _hex(16), chat_id=chat_id, msg_type=msg_type, content=content,
                             parent_id=parent_id, reply_in_thread=in_thread, uuid=uuid)
            self.sent.append(msg)
            self._bot_messages[msg.message_id] = msg
            if uuid:
                self._uuids[uuid] = (time.time(), msg.message_id)
        return msg

    def _message_json(self, msg: BotMessage) -> dict[str, Any]:
        created = str(int(msg.created_at * 1000))
        return {"code": 0, "msg": "success", "data": {
            "message_id": msg.message_id, "root_id": msg.parent_id or "", "parent_id": msg.parent_id or "",
            "msg_type": msg.msg_type, "create_time": created, "update_time": created, "deleted": False,
            "updated": bool(msg.patches), "chat_id": msg.chat_id,
            "sender": {"id": self.app_id, "id_type": "app_id", "sender_type": "app", "tenant_key": self.tenant_key},
            "body": {"content": json.dumps(msg.content, ensure_ascii=False)}}}

    async def _create_message(self, request: web.Request) -> web.Response:
        id_type = request.query.get("receive_id_type", "")
        if id_type not in RECEIVE_ID_TYPES:
            raise ApiRefusal(99992402, f"field validation failed: receive_id_type {id_type!r}")
        body, raw = await self._json(request)
        receive_id = body.get("receive_id")
        if not isinstance(receive_id, str) or not receive_id:
            raise ApiRefusal(99992402, "field validation failed: receive_id")
        if id_type == "chat_id":
            if receive_id not in self.chats:
                raise ApiRefusal(230002, "The bot is not in the chat.")
            chat_id = receive_id
        elif id_type == "open_id" and receive_id in self.users:
            chat_id = self.users[receive_id]
        else:
            raise ApiRefusal(230013, "Bot has NO availability to this user.")
        msg_type = str(body.get("msg_type", ""))
        content = self._check_content(msg_type, body.get("content"), len(raw))
        msg = self._record(chat_id, msg_type, content, body["content"], parent_id=None, in_thread=False,
                           uuid=body.get("uuid"))
        return web.json_response(self._message_json(msg))

    async def _reply_message(self, request: web.Request) -> web.Response:
        parent = request.match_info["message_id"]
        chat_id = (self.user_messages[parent].chat_id if parent in self.user_messages
                   else self._bot_messages[parent].chat_id if parent in self._bot_messages else None)
        if chat_id is None:
            raise ApiRefusal(230001, f"message {parent} not found")
        body, raw = await self._json(request)
        msg_type = str(body.get("msg_type", ""))
        content = self._check_content(msg_type, body.get("content"), len(raw))
        msg = self._record(chat_id, msg_type, content, body["content"], parent_id=parent,
                           in_thread=bool(body.get("reply_in_thread")), uuid=body.get("uuid"))
        return web.json_response(self._message_json(msg))

    async def _patch_message(self, request: web.Request) -> web.Response:
        mid = request.match_info["message_id"]
        msg = self._bot_messages.get(mid)
        if msg is None:
            raise ApiRefusal(230001, f"message {mid} not found or not sent by this bot")
        body, raw = await self._json(request)
        if msg.msg_type != "interactive":
            raise ApiRefusal(230001, "only cards (interactive) can be patched")
        if len(raw) > CARD_BODY_LIMIT:
            raise ApiRefusal(230025, f"The length of the message content reaches its limit ({len(raw)} bytes)")
        content = self._check_content("interactive", body.get("content"), len(raw))
        if time.time() - msg.created_at > EDIT_WINDOW_S:
            raise ApiRefusal(230031, "Message can only be modified within 14 days after sending.")
        for label, card in (("sent", msg.card), ("new", content)):
            cfg = card.get("config")
            if not (isinstance(cfg, dict) and cfg.get("update_multi") is True):
                raise ApiRefusal(230001, f"the {label} card is not a shared card (config.update_multi)")
        now = time.monotonic()
        with self._lock:
            recent = [t for t in msg.patch_times if now - t < 1.0]
            if len(recent) >= PATCH_QPS:
                raise ApiRefusal(230020, "This operation triggers the frequency limit.")
            msg.patch_times = [*recent, now]
            msg.patches.append(content)
        return web.json_response({"code": 0, "msg": "success", "data": {}})

    # ---- files ----------------------------------------------------------------------------------------
    @staticmethod
    async def _form(request: web.Request) -> dict[str, tuple[str | None, bytes]]:
        if not request.content_type.startswith("multipart/form-data"):
            raise ApiRefusal(234001, f"Invalid request param: Content-Type {request.content_type!r}")
        out: dict[str, tuple[str | None, bytes]] = {}
        reader = await request.multipart()
        while True:
            part = await reader.next()
            if part is None:
                break
            if isinstance(part, aiohttp.BodyPartReader) and part.name:
                out[part.name] = (part.filename, bytes(await part.read()))
        return out

    async def _upload_file(self, request: web.Request) -> web.Response:
        form = await self._form(request)
        file_type = form.get("file_type", (None, b""))[1].decode()
        name = form.get("file_name", (None, b""))[1].decode()
        if file_type not in FILE_TYPES:
            raise ApiRefusal(234001, f"Invalid request param: file_type {file_type!r}")
        if not name.strip():
            raise ApiRefusal(234001, "Invalid request param: file_name")
        if "file" not in form:
            raise ApiRefusal(234001, "Invalid request param: file")
        data = form["file"][1]
        if not data:
            raise ApiRefusal(234010, "File's size can't be 0.")
        if len(data) > FILE_LIMIT:
            raise ApiRefusal(234006, "The file size exceed the max value.")
        key = "file_v3_" + _hex(16)
        with self._lock:
            self.uploads[key] = Uploaded(key, "file", name, file_type, data)
        return web.json_response({"code": 0, "msg": "success", "data": {"file_key": key}})

    async def _upload_image(self, request: web.Request) -> web.Response:
        form = await self._form(request)
        image_type = form.get("image_type", (None, b""))[1].decode()
        if image_type not in ("message", "avatar"):
            raise ApiRefusal(234001, f"Invalid request param: image_type {image_type!r}")
        if "image" not in form:
            raise ApiRefusal(234001, "Invalid request param: image")
        data = form["image"][1]
        if not data:
            raise ApiRefusal(234010, "File's size can't be 0.")
        if len(data) > IMAGE_LIMIT:
            raise ApiRefusal(234006, "The file size exceed the max value.")
        if not (data.startswith(IMAGE_MAGIC) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")):
            raise ApiRefusal(234011, "Can't recognize image format.")
        key = "img_v3_" + _hex(16)
        with self._lock:
            self.uploads[key] = Uploaded(key, "image", form["image"][0] or key, image_type, data)
        return web.json_response({"code": 0, "msg": "success", "data": {"image_key": key}})

    async def _resource(self, request: web.Request) -> web.Response:
        mid, key = request.match_info["message_id"], request.match_info["file_key"]
        kind = request.query.get("type", "")
        if kind not in ("file", "image"):
            raise ApiRefusal(234001, f"Invalid request param: type {kind!r}")
        msg = self.user_messages.get(mid)
        if msg is None or key not in msg.resources:
            raise ApiRefusal(234003, "File not in msg.")
        name, data = msg.resources[key]
        return web.Response(body=data, content_type="application/octet-stream", headers={
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}"})

    # ---- long connection ------------------------------------------------------------------------------
    async def _ws_endpoint(self, request: web.Request) -> web.Response:
        self.endpoint_requests += 1
        try:
            body = await request.json()
        except ValueError:
            return self._refuse(request, 200, 400, "invalid request body")
        if not isinstance(body, dict) or body.get("AppID") != self.app_id or body.get("AppSecret") != self.app_secret:
            return self._refuse(request, 200, 403, "app_id or app_secret is invalid")
        ticket, device_id, service_id = _hex(16), _hex(8), 30_000_000 + next(self._ids)
        with self._lock:
            self._tickets[ticket] = (time.time() + self.ticket_ttl_s, device_id, service_id, False)
        query = urlencode({"fpid": 493, "aid": 552564, "device_id": device_id, "access_key": _hex(16),
                           "service_id": service_id, "ticket": ticket})
        return web.json_response({"code": 0, "msg": "ok", "data": {
            "URL": f"ws://127.0.0.1:{self.port}/ws/v2?{query}", "ClientConfig": dict(self.client_config)}})

    def _handshake_refused(self, msg: str) -> web.Response:
        self.handshakes_refused += 1
        return web.Response(status=403, text=msg, headers={
            "handshake-status": "514", "handshake-msg": msg, "handshake-autherrcode": "1000040351"})

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        q = request.query
        ticket = q.get("ticket", "")
        with self._lock:
            entry = self._tickets.get(ticket)
            if entry is None or entry[3] or entry[0] < time.time():
                return self._handshake_refused("ticket invalid, used or expired")
            expiry, device_id, service_id, _ = entry
            if q.get("device_id") != device_id or q.get("service_id") != str(service_id):
                return self._handshake_refused("device_id / service_id do not match the ticket")
            self._tickets[ticket] = (expiry, device_id, service_id, True)
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        conn = Connection(device_id=device_id, service_id=service_id, ws=ws)
        self.connections.append(conn)
        try:
            async for msg in ws:
                if msg.type == WSMsgType.BINARY:
                    await self._client_frame(conn, msg.data)
                elif msg.type == WSMsgType.TEXT:
                    self.protocol_errors.append("text message on the gateway (frames are binary protobuf)")
        finally:
            conn.closed = True
        return ws

    async def _client_frame(self, conn: Connection, data: bytes) -> None:
        frame = Frame()
        try:
            frame.ParseFromString(data)
        except Exception as e:
            self.protocol_errors.append(f"undecodable frame: {e}")
            return
        headers = {h.key: h.value for h in frame.headers}
        if frame.method == FRAME_CONTROL:
            if headers.get("type") != "ping":
                self.protocol_errors.append(f"control frame of type {headers.get('type')!r}")
                return
            if frame.service != conn.service_id:
                self.protocol_errors.append(f"ping for service {frame.service}, connection is {conn.service_id}")
                return
            conn.pings += 1
            pong = self._frame(conn, FRAME_CONTROL, {"type": "pong"}, json.dumps(self.client_config).encode())
            await conn.ws.send_bytes(pong.SerializeToString())
            return
        if frame.method != FRAME_DATA:
            self.protocol_errors.append(f"frame method {frame.method}")
            return
        mid = headers.get("message_id", "")
        fut = self._waiting.get(mid)
        if fut is None or fut.done():
            self.protocol_errors.append(f"response for unknown or answered frame {mid!r}")
            return
        try:
            payload = json.loads(frame.payload)
            code = int(payload["code"])
        except (ValueError, KeyError, TypeError):
            self.protocol_errors.append(f"response to {mid} without a JSON code")
            return
        ack = Ack(frame_message_id=mid, code=code, payload=payload, headers=headers)
        self.acks.append(ack)
        fut.set_result(ack)

    def _frame(self, conn: Connection, method: int, headers: dict[str, str], payload: bytes) -> Frame:
        frame = Frame()
        frame.SeqID = next(self._ids)
        frame.LogID = next(self._ids)
        frame.service = conn.service_id
        frame.method = method
        for k, v in headers.items():
            h = frame.headers.add()
            h.key, h.value = k, v
        frame.payload = payload
        return frame

    async def deliver(self, event: Event, *, parts: int = 1, timeout_s: float | None = None) -> Ack:
        """Push an event over the newest live connection and wait for the SDK's answer to it."""
        await self.wait_for(lambda: bool(self.live_connections), what="a long connection")

        async def go() -> asyncio.Future[Ack]:
            conn = self.live_connections[-1]
            payload = json.dumps(event.envelope, ensure_ascii=False).encode()
            frame_id = _hex(16)
            fut: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
            self._waiting[frame_id] = fut
            size = -(-len(payload) // parts)
            chunks = [payload[i * size:(i + 1) * size] for i in range(parts)]
            trace = _hex(8)
            for seq, chunk in enumerate(chunks):
                frame = self._frame(conn, FRAME_DATA, {"type": "event", "message_id": frame_id, "trace_id": trace,
                                                       "sum": str(parts), "seq": str(seq)}, chunk)
                await conn.ws.send_bytes(frame.SerializeToString())
            return fut

        fut = await self._on_fake(go())

        async def wait() -> Ack:
            return await asyncio.wait_for(asyncio.shield(fut), timeout_s or self.ack_timeout_s)

        return await self._on_fake(wait())

    async def drop_connections(self) -> None:
        """Close every live connection from the server side (a gateway restart)."""
        async def go() -> None:
            for conn in self.live_connections:
                await conn.ws.close()

        await self._on_fake(go())

    # ---- what users do --------------------------------------------------------------------------------
    def chat(self, chat_type: Literal["group", "p2p"] = "group", user_open_id: str | None = None) -> str:
        """A chat the bot is in; a p2p chat belongs to one user."""
        chat_id = "oc_" + _hex(16)
        with self._lock:
            self.chats[chat_id] = chat_type
            if chat_type == "p2p" and user_open_id:
                self.users[user_open_id] = chat_id
        return chat_id

    @staticmethod
    def user() -> str:
        return "ou_" + _hex(16)

    def _header(self, event_type: str) -> dict[str, Any]:
        return {"event_id": _hex(16), "token": self.verification_token, "create_time": _now_ms(),
                "event_type": event_type, "tenant_key": self.tenant_key, "app_id": self.app_id}

    def _mention(self, key: str, open_id: str, name: str, *, bot: bool) -> dict[str, Any]:
        ident: dict[str, Any] = {"open_id": open_id, "union_id": "on_" + _hex(16)}
        if not bot:
            ident["user_id"] = _hex(4)
        return {"key": key, "id": ident, "name": name, "tenant_key": self.tenant_key,
                **({"mentioned_type": "bot"} if bot else {})}

    def message_event(self, chat_id: str, sender: str, msg_type: str, content: dict[str, Any],
                       mentions: list[dict[str, Any]], resources: dict[str, tuple[str, bytes]] | None = None) -> Event:
        chat_type = self.chats[chat_id]
        mid = "om_" + _hex(16)
        with self._lock:
            self.user_messages[mid] = UserMessage(mid, chat_id, chat_type, sender, msg_type, content,
                                                  dict(resources or {}))
            if chat_type == "p2p":
                self.users.setdefault(sender, chat_id)
        message: dict[str, Any] = {
            "message_id": mid, "root_id": "", "parent_id": "", "create_time": _now_ms(), "update_time": _now_ms(),
            "chat_id": chat_id, "thread_id": "", "chat_type": chat_type, "message_type": msg_type,
            "content": json.dumps(content, ensure_ascii=False), "user_agent": "Mozilla/5.0 Lark/7.30"}
        if mentions:
            message["mentions"] = mentions
        return Event({"schema": "2.0", "header": self._header("im.message.receive_v1"), "event": {
            "sender": {"sender_id": {"union_id": "on_" + _hex(16), "user_id": _hex(4), "open_id": sender},
                       "sender_type": "user", "tenant_key": self.tenant_key},
            "message": message}})

    def text_message(self, chat_id: str, sender: str, text: str, *, mention_bot: bool = True,
                     others: tuple[tuple[str, str], ...] = ()) -> Event:
        """A text message; ``mention_bot`` puts the @bot placeholder first (as typing "@bot ..." does),
        ``others`` are (open_id, name) of people mentioned after the text."""
        mentions, body = [], text
        if mention_bot:
            mentions.append(self._mention("@_user_1", self.bot_open_id, self.bot_name, bot=True))
            body = "@_user_1 " + body
        for n, (open_id, name) in enumerate(others, start=len(mentions) + 1):
            mentions.append(self._mention(f"@_user_{n}", open_id, name, bot=False))
            body += f" @_user_{n}"
        return self.message_event(chat_id, sender, "text", {"text": body}, mentions)

    def post_message(self, chat_id: str, sender: str, paragraphs: list[str], *, mention_bot: bool = True,
                     title: str = "") -> Event:
        content: list[list[dict[str, Any]]] = [[{"tag": "text", "text": p}] for p in paragraphs]
        mentions = []
        if mention_bot:
            content[0].insert(0, {"tag": "at", "user_id": "@_user_1", "user_name": self.bot_name})
            mentions.append(self._mention("@_user_1", self.bot_open_id, self.bot_name, bot=True))
        return self.message_event(chat_id, sender, "post", {"title": title, "content": content}, mentions)

    def file_message(self, chat_id: str, sender: str, name: str, data: bytes) -> Event:
        key = "file_v3_" + _hex(16)
        return self.message_event(chat_id, sender, "file", {"file_key": key, "file_name": name}, [],
                                   {key: (name, data)})

    def card_action(self, message: BotMessage, user_open_id: str, action: str) -> Event:
        return Event({"schema": "2.0", "header": self._header("card.action.trigger"), "event": {
            "operator": {"tenant_key": self.tenant_key, "user_id": _hex(4), "open_id": user_open_id,
                         "union_id": "on_" + _hex(16)},
            "token": "c-" + _hex(16), "action": {"value": {"action": action}, "tag": "button"},
            "host": "im_message", "delivery_type": "",
            "context": {"open_message_id": message.message_id, "open_chat_id": message.chat_id}}})

    # ---- the HTTP event pusher ------------------------------------------------------------------------
    def encrypt(self, plaintext: bytes) -> str:
        key = hashlib.sha256(self.encrypt_key.encode()).digest()
        iv = os.urandom(16)
        padder = padding.PKCS7(128).padder()
        padded = padder.update(plaintext) + padder.finalize()
        enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
        return base64.b64encode(iv + enc.update(padded) + enc.finalize()).decode()

    def sign(self, timestamp: str, nonce: str, body: bytes) -> str:
        return hashlib.sha256((timestamp + nonce + self.encrypt_key).encode() + body).hexdigest()

    def push_request(self, url: str, envelope: dict[str, Any], *, signed: bool = True, forge: bool = False,
                     timestamp: float | None = None) -> Push:
        """The request Feishu would send (encrypted, signed); ``forge`` signs with a wrong key."""
        plaintext = json.dumps(envelope, ensure_ascii=False).encode()
        body = json.dumps({"encrypt": self.encrypt(plaintext)}).encode()
        headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "Go-http-client/1.1",
                   "X-Request-Id": _hex(8)}
        if signed:
            ts = str(int(time.time() if timestamp is None else timestamp))
            nonce = str(secrets.randbelow(10**10))
            sig = self.sign(ts, nonce, body)
            if forge:
                sig = hashlib.sha256((ts + nonce + "not-the-key").encode() + body).hexdigest()
            headers.update({"X-Lark-Request-Timestamp": ts, "X-Lark-Request-Nonce": nonce, "X-Lark-Signature": sig})
        return Push(url=url, body=body, headers=headers)

    @staticmethod
    async def send(push: Push) -> Push:
        """POST a push (Feishu waits 3 s for the answer)."""
        async with aiohttp.ClientSession() as session, session.post(
                push.url, data=push.body, headers=push.headers, timeout=aiohttp.ClientTimeout(total=3)) as resp:
            return Push(url=push.url, body=push.body, headers=dict(push.headers), status=resp.status,
                        response=await resp.read())

    async def push(self, url: str, event: Event, **kw: Any) -> Push:
        return await self.send(self.push_request(url, event.envelope, **kw))

    async def url_verification(self, url: str, *, token: str | None = None) -> tuple[str, Push]:
        """Feishu's request-URL check: an encrypted challenge; returns (challenge, the answer)."""
        challenge = str(secrets.token_hex(8))
        envelope = {"challenge": challenge, "token": token or self.verification_token, "type": "url_verification"}
        return challenge, await self.send(self.push_request(url, envelope, signed=False))
