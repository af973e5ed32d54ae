"""A local fake of DingTalk's remote end for the Stream-mode robot, strict where DingTalk is strict.

Built from the dingtalk-stream SDK's source (0.24.3) and DingTalk's Stream protocol description
(open-dingtalk/developerpedia docs/learn/stream/protocol.md), plus the robot API shapes.

How the real SDK reaches it, without patching: the SDK calls ``https://api.dingtalk.com`` (its
DINGTALK_OPENAPI_ENDPOINT default, frozen when the SDK is imported) and ``https://oapi.dingtalk.com``
(media upload, hard-coded; session webhooks) with ``requests``, which honours HTTPS_PROXY and
REQUESTS_CA_BUNDLE. ``env()`` points both at this fake: a CONNECT proxy that accepts only DingTalk's hosts
and tunnels to a local TLS server whose certificate (signed by a CA made at test time) names them. The
websocket endpoint the fake hands out is a plain ``ws://127.0.0.1`` URL (NO_PROXY keeps it direct).

The fake runs in its own thread with its own event loop, like a remote server: the SDK makes blocking
``requests`` calls from inside the event loop (token, open connection), which would deadlock a fake
served by that same loop.

What it checks, as DingTalk does:
* POST /v1.0/oauth2/accessToken: JSON body, appKey/appSecret of the app (else 400); tokens expire.
* POST /v1.0/gateway/connections/open: clientId/clientSecret (else 401), subscriptions; returns
  ``endpoint`` + ``ticket``; a ticket is valid 90 s and for one connection (else the handshake gets 401).
* The gateway delivers robot messages as CALLBACK frames only on connections subscribed to the topic,
  records every ACK (code, headers.messageId of a frame it sent, contentType, data a JSON string; a ping's
  ACK must echo its opaque), sends SYSTEM ping / disconnect on demand, and closes a connection 10 s
  (``disconnect_grace_s``) after a disconnect if the client does not. DingTalk documents robot messages as
  fire-and-forget; ``redeliver_unacked=True`` makes it push a frame again when no ACK came within
  ``ack_timeout_s`` (as it does for events) or the ACK's code was a 5xx (the client failed, asks for a
  retry), and ``lose_acks`` drops ACKs as a network would.
* Every OpenAPI call checks ``x-acs-dingtalk-access-token`` (401 InvalidAuthentication otherwise, which
  is what the SDK treats as "reset the token").
* oToMessages/batchSend and groupMessages/send: robotCode, msgKey known, msgParam a JSON *string* with that
  msgKey's fields, at most 20 userIds (unknown ones come back in invalidStaffIdList), a known
  openConversationId, body <= 20,000 bytes, sampleFile's mediaId uploaded and fileType one of DingTalk's.
* robot/messageFiles/download: robotCode and a downloadCode it issued -> a short-lived downloadUrl.
* oapi media/upload (multipart, ``access_token`` query): type, non-empty, size limits; old-style errcode.
* Card instances: create (known template, new outTrackId, cardParamMap of strings), deliver (IM_GROUP of a
  group the robot is in with its robotCode, or IM_ROBOT of a known user), update (a delivered card);
  every version of a card is kept in order.
* Session webhooks: the session issued with a message, until its sessionWebhookExpiredTime; ``at.atUserIds``
  (whom the message @-mentions) a list of staff ids, recorded with the message.

The error codes and messages of refusals are this fake's own wording where DingTalk's are not documented;
the HTTP statuses are what the SDK reacts to. Everything the bot sent is recorded per chat
(``user:<staffId>`` / ``group:<openConversationId>``) and every refusal in ``refusals``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import secrets
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self, TypeVar
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from tests.fakes.loop_thread import LoopThread
from tests.fakes.tls_ca import make_test_pki

HOSTS = ("api.dingtalk.com", "oapi.dingtalk.com", "down.dingtalk.com")
BOT_TOPIC = "/v1.0/im/bot/messages/get"
MARKDOWN_CARD_TEMPLATE = "589420e2-c1e2-46ef-a5ed-b8728e654da9.schema"  # the SDK's MarkdownCardInstance
MAX_BODY_BYTES = 20_000
MAX_USER_IDS = 20
TICKET_TTL_S = 90.0
FILE_TYPES = frozenset({"xlsx", "pdf", "zip", "rar", "doc", "docx"})
MEDIA_LIMITS = {"image": 20 * 1024 * 1024, "voice": 2 * 1024 * 1024, "video": 20 * 1024 * 1024,
                "file": 20 * 1024 * 1024}
MSG_PARAMS: dict[str, tuple[str, ...]] = {
    "sampleText": ("content",),
    "sampleMarkdown": ("title", "text"),
    "sampleFile": ("mediaId", "fileName", "fileType"),
    "sampleImageMsg": ("photoURL",),
    "sampleLink": ("text", "title", "picUrl", "messageUrl"),
    "sampleActionCard": ("title", "text", "singleTitle", "singleURL"),
}
WEBHOOK_TYPES = {"text": ("content",), "markdown": ("title", "text")}

T = TypeVar("T")


@dataclass
class Sent:
    """One message the bot sent: where, through which API, and what (``file`` holds an uploaded file's bytes)."""

    chat: str
    via: str
    msg_key: str
    param: dict[str, Any]
    file: bytes | None = None
    at: list[str] | None = None  # the staff ids a session-webhook message @-mentions (the robot APIs have no at)


@dataclass
class Card:
    out_track_id: str
    template_id: str
    versions: list[dict[str, str]]
    chat: str | None = None

    @property
    def current(self) -> dict[str, str]:
        return self.versions[-1]


@dataclass
class Refusal:
    endpoint: str
    status: int
    reason: str


@dataclass
class Frame:
    frame_id: str
    kind: str
    topic: str
    payload: dict[str, Any]
    deliveries: int = 0
    acks: list[dict[str, Any]] = field(default_factory=list)
    acked: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Connection:
    connection_id: str
    client_id: str
    subscriptions: list[dict[str, str]]
    ws: web.WebSocketResponse | None = None
    closed: bool = False

    def subscribed(self, kind: str, topic: str) -> bool:
        return any(s.get("type") == kind and s.get("topic") in (topic, "*") for s in self.subscriptions)


def _json_error(status: int, code: str, message: str) -> web.Response:
    return web.json_response({"code": code, "message": message, "requestid": secrets.token_hex(8)}, status=status)


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while data := await src.read(65536):
            dst.write(data)
            await dst.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            dst.close()


def _sender_id(staff_id: str) -> str:
    return "$:LWCP_v1:$" + base64.b64encode(staff_id.encode()).decode()


class FakeDingTalk(LoopThread):
    """DingTalk's OpenAPI, oapi, file host and Stream gateway for one enterprise internal app."""

    label = "fake DingTalk"

    def __init__(
        self,
        workdir: Path,
        *,
        client_id: str = "dingfakeapp0123456789",
        client_secret: str = "fake-dingtalk-secret-0123456789abcdef",
        corp_id: str = "dingfakecorp",
        staff: dict[str, str] | None = None,
        groups: dict[str, str] | None = None,
        token_ttl_s: int = 7200,
        session_ttl_s: float = 5400.0,
        ack_timeout_s: float = 1.0,
        redeliver_unacked: bool = False,
        max_redeliveries: int = 3,
        disconnect_grace_s: float = 10.0,
        card_templates: tuple[str, ...] = (MARKDOWN_CARD_TEMPLATE,),
        upstream_proxy: str | None = None,
        gateway_host: str | None = None,
    ) -> None:
        self.workdir = workdir
        # a private gateway (DINGTALK_OPENAPI_ENDPOINT=https://<gateway_host>) serving every route of both hosts
        self.gateway_host = gateway_host
        self.hosts = HOSTS + ((gateway_host,) if gateway_host else ())
        self.client_id = client_id
        self.client_secret = client_secret
        self.corp_id = corp_id
        self.staff = dict(staff if staff is not None else {"manager001": "张三", "analyst002": "李四"})
        self.groups = dict(groups if groups is not None else {"cidGroupResearch0001==": "研究部"})
        self.token_ttl_s = token_ttl_s
        self.session_ttl_s = session_ttl_s
        self.ack_timeout_s = ack_timeout_s
        self.redeliver_unacked = redeliver_unacked
        self.max_redeliveries = max_redeliveries
        self.disconnect_grace_s = disconnect_grace_s
        self.card_templates = set(card_templates)
        self.upstream_proxy = upstream_proxy
        self.lose_acks = 0
        # records
        self.sent: dict[str, list[Sent]] = {}
        self.cards: dict[str, Card] = {}
        self.refusals: list[Refusal] = []
        self.token_requests = 0
        self.open_requests: list[dict[str, Any]] = []
        self.connections: list[Connection] = []
        self.frames: dict[str, Frame] = {}
        self.proxy_hosts: list[str] = []
        self.proxy_refused: list[str] = []
        self.uploads: dict[str, tuple[str, bytes]] = {}
        # state
        self._tokens: dict[str, float] = {}
        self._tickets: dict[str, tuple[float, bool]] = {}
        self._pending_subscriptions: dict[str, list[dict[str, str]]] = {}
        self._sessions: dict[str, tuple[str, int]] = {}
        self._download_codes: dict[str, tuple[str, bytes]] = {}
        self._download_urls: dict[str, tuple[float, bytes]] = {}
        self._ids = itertools.count(1)
        self._tunnels: set[asyncio.Task[Any]] = set()
        super().__init__()
        self._runners: list[web.AppRunner] = []
        self._proxy: asyncio.Server | None = None
        self.tls_port = 0
        self.ws_port = 0
        self.proxy_port = 0

    # ---- lifecycle (called from the test's thread) --------------------------------------------------------
    def start(self) -> Self:
        self.pki = make_test_pki(self.workdir, list(self.hosts))
        return super().start()

    def env(self, extra_ca_files: tuple[Path, ...] = ()) -> dict[str, str]:
        """Variables that send the SDK's requests (and only DingTalk's hosts) to this fake.

        With another fake's proxy as ``upstream_proxy`` (e.g. the market-data fake's), CONNECTs for other
        hosts are passed on to it, and ``extra_ca_files`` (its CA) join this CA in one bundle, so both
        fakes serve one process (it can have only one HTTPS_PROXY).
        """
        proxy = f"http://127.0.0.1:{self.proxy_port}"
        bundle = self.pki.ca_file
        if extra_ca_files:
            bundle = self.workdir / "ca-bundle.pem"
            bundle.write_bytes(b"".join(p.read_bytes() for p in (self.pki.ca_file, *extra_ca_files)))
        return {
            "HTTPS_PROXY": proxy, "https_proxy": proxy,
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
            "REQUESTS_CA_BUNDLE": str(bundle), "CURL_CA_BUNDLE": str(bundle),
        }

    async def _start_servers(self) -> None:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(self.pki.cert_file, self.pki.key_file)
        api = web.AppRunner(self._api_app(), access_log=None)
        await api.setup()
        await web.TCPSite(api, "127.0.0.1", 0, ssl_context=tls).start()
        self._runners.append(api)
        self.tls_port = api.addresses[0][1]
        gateway = web.AppRunner(self._gateway_app(), access_log=None)
        await gateway.setup()
        await web.TCPSite(gateway, "127.0.0.1", 0).start()
        self._runners.append(gateway)
        self.ws_port = gateway.addresses[0][1]
        self._proxy = await asyncio.start_server(self._proxy_conn, "127.0.0.1", 0)
        self.proxy_port = self._proxy.sockets[0].getsockname()[1]

    async def _stop_servers(self) -> None:
        for conn in self.connections:
            if conn.ws is not None and not conn.ws.closed:
                await conn.ws.close()
        if self._proxy is not None:
            self._proxy.close()
        for tunnel in list(self._tunnels):
            tunnel.cancel()
        await asyncio.gather(*self._tunnels, return_exceptions=True)
        for runner in reversed(self._runners):
            await runner.cleanup()
        self._runners.clear()

    # ---- helpers for the test's loop ------------------------------------------------------------------------

    @staticmethod
    async def wait_for(predicate: Callable[[], bool], timeout_s: float = 5.0, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout_s
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
            await asyncio.sleep(0.01)

    def messages(self, chat: str) -> list[Sent]:
        return list(self.sent.get(chat, []))

    def texts(self, chat: str) -> list[str]:
        """The text of each message sent to ``chat`` (a card's or a file's is empty)."""
        return [str(m.param.get("text") or m.param.get("content") or "") for m in self.messages(chat)]

    def revoke_tokens(self) -> None:
        """Invalidate every issued access token (as DingTalk does when the secret is reset or a token expires)."""
        self._tokens.clear()

    def _refuse(self, endpoint: str, status: int, reason: str) -> None:
        self.refusals.append(Refusal(endpoint, status, reason))

    def _next(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}{secrets.token_hex(4)}"

    # ---- proxy ------------------------------------------------------------------------------------------------
    async def _proxy_conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tunnels.add(task)
            task.add_done_callback(self._tunnels.discard)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            writer.close()
            return
        method, _, rest = head.decode("latin-1").partition(" ")
        target = rest.split(" ", 1)[0]
        host, _, port = target.rpartition(":")
        if method == "CONNECT" and host not in self.hosts and self.upstream_proxy:
            await self._chain(head, reader, writer, target)
            return
        if method != "CONNECT" or host not in self.hosts or port != "443":
            self.proxy_refused.append(f"{method} {target}")
            writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
            writer.close()
            return
        self.proxy_hosts.append(host)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.tls_port)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    async def _chain(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                     target: str) -> None:
        """Hand a CONNECT for a host that is not DingTalk's to the upstream proxy, bytes as they are."""
        assert self.upstream_proxy is not None
        up = urlsplit(self.upstream_proxy)
        self.proxy_hosts.append(f"upstream:{target}")
        up_reader, up_writer = await asyncio.open_connection(up.hostname, up.port)
        up_writer.write(head)
        await up_writer.drain()
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    # ---- the HTTPS side ---------------------------------------------------------------------------------------
    def _api_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        api = [
            ("POST", "/v1.0/oauth2/accessToken", self._access_token),
            ("POST", "/v1.0/gateway/connections/open", self._open_connection),
            ("POST", "/v1.0/robot/oToMessages/batchSend", self._batch_send),
            ("POST", "/v1.0/robot/groupMessages/send", self._group_send),
            ("POST", "/v1.0/robot/messageFiles/download", self._message_file_download),
            ("POST", "/v1.0/card/instances", self._card_create),
            ("POST", "/v1.0/card/instances/deliver", self._card_deliver),
            ("PUT", "/v1.0/card/instances", self._card_update),
        ]
        for method, path, handler in api:
            app.router.add_route(method, path, self._on_host("api.dingtalk.com", handler))
        app.router.add_post("/media/upload", self._on_host("oapi.dingtalk.com", self._media_upload))
        app.router.add_post("/robot/sendBySession", self._on_host("oapi.dingtalk.com", self._session_webhook))
        app.router.add_get("/file/{key}", self._on_host("down.dingtalk.com", self._file_get))
        return app

    def _on_host(self, host: str, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                 ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def routed(request: web.Request) -> web.StreamResponse:
            if request.host.split(":")[0] not in (host, self.gateway_host):
                self._refuse(request.path, 404, f"{request.path} is not served on {request.host}")
                return web.Response(status=404)
            return await handler(request)
        return routed

    async def _json_body(self, request: web.Request) -> dict[str, Any] | web.Response:
        raw = await request.read()
        if not request.content_type.startswith("application/json"):
            self._refuse(request.path, 400, f"content type {request.content_type}")
            return _json_error(400, "Missingbody", "body is mandatory for this action (JSON)")
        try:
            body = json.loads(raw)
        except ValueError:
            self._refuse(request.path, 400, "body is not JSON")
            return _json_error(400, "InvalidParameter", "body is not JSON")
        if not isinstance(body, dict):
            return _json_error(400, "InvalidParameter", "body is not a JSON object")
        if len(raw) > MAX_BODY_BYTES and request.path.startswith("/v1.0/robot/"):
            self._refuse(request.path, 400, f"body of {len(raw)} bytes")
            return _json_error(400, "InvalidParameter.Length", f"body of {len(raw)} bytes exceeds {MAX_BODY_BYTES}")
        return body

    def _token_ok(self, token: str | None) -> bool:
        expires = self._tokens.get(token or "")
        return expires is not None and expires > time.time()

    def _check_token(self, request: web.Request) -> web.Response | None:
        if not self._token_ok(request.headers.get("x-acs-dingtalk-access-token")):
            self._refuse(request.path, 401, "access token missing, unknown or expired")
            return _json_error(401, "InvalidAuthentication", "不合法的access_token")
        return None

    async def _access_token(self, request: web.Request) -> web.Response:
        body = await self._json_body(request)
        if isinstance(body, web.Response):
            return body
        self.token_requests += 1
        if body.get("appKey") != self.client_id or body.get("appSecret") != self.client_secret:
            self._refuse(request.path, 400, "appKey/appSecret do not match the app")
            return _json_error(400, "invalidClientIdOrSecret", "无效的clientId或clientSecret")
        token = self._next("tok")
        self._tokens[token] = time.time() + self.token_ttl_s
        return web.json_response({"accessToken": token, "expireIn": self.token_ttl_s})

    async def _open_connection(self, request: web.Request) -> web.Response:
        body = await self._json_body(request)
        if isinstance(body, web.Response):
            return body
        self.open_requests.append({k: v for k, v in body.items() if k != "clientSecret"})
        if body.get("clientId") != self.client_id or body.get("clientSecret") != self.client_secret:
            self._refuse(request.path, 401, "clientId/clientSecret do not match the app")
            return _json_error(401, "InvalidAuthentication", "clientId或clientSecret不正确")
        subs = body.get("subscriptions")
        if not isinstance(subs, list) or not subs or not all(
                isinstance(s, dict) and s.get("type") in ("EVENT", "CALLBACK") and s.get("topic") for s in subs):
            self._refuse(request.path, 400, "subscriptions missing or malformed")
            return _json_error(400, "InvalidParameter", "subscriptions 缺失或格式错误")
        ticket = secrets.token_hex(16)
        self._tickets[ticket] = (time.time() + TICKET_TTL_S, False)
        self._pending_subscriptions[ticket] = subs
        return web.json_response({"endpoint": f"ws://127.0.0.1:{self.ws_port}/connect", "ticket": ticket})

    # ---- robot messages ---------------------------------------------------------------------------------------
    def _check_message(self, request: web.Request, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | web.Response:
        if body.get("robotCode") != self.client_id:
            self._refuse(request.path, 400, f"robotCode {body.get('robotCode')!r}")
            return _json_error(400, "resource.not.found", "robotCode 对应的机器人不存在")
        msg_key = body.get("msgKey")
        if msg_key not in MSG_PARAMS:
            self._refuse(request.path, 400, f"msgKey {msg_key!r}")
            return _json_error(400, "InvalidParameter.MsgKey", f"不支持的 msgKey: {msg_key}")
        raw = body.get("msgParam")
        if not isinstance(raw, str):
            self._refuse(request.path, 400, "msgParam is not a JSON string")
            return _json_error(400, "InvalidParameter.MsgParam", "msgParam 必须是 JSON 字符串")
        try:
            param = json.loads(raw)
        except ValueError:
            param = None
        if not isinstance(param, dict):
            self._refuse(request.path, 400, "msgParam is not a JSON object")
            return _json_error(400, "InvalidParameter.MsgParam", "msgParam 不是 JSON 对象")
        missing = [k for k in MSG_PARAMS[msg_key] if not isinstance(param.get(k), str) or not param[k]]
        if missing:
            self._refuse(request.path, 400, f"{msg_key} lacks {missing}")
            return _json_error(400, "InvalidParameter.MsgParam", f"{msg_key} 缺少 {', '.join(missing)}")
        if msg_key == "sampleFile":
            if param["mediaId"] not in self.uploads:
                self._refuse(request.path, 400, f"unknown mediaId {param['mediaId']}")
                return _json_error(400, "InvalidParameter.MediaId", "mediaId 不存在")
            ext = Path(param["fileName"]).suffix.lower().lstrip(".")
            if param["fileType"] not in FILE_TYPES or param["fileType"] != ext:
                self._refuse(request.path, 400, f"fileType {param['fileType']!r} for {param['fileName']!r}")
                return _json_error(400, "InvalidParameter.FileType", f"不支持的 fileType: {param['fileType']}")
        return str(msg_key), param

    def _record(self, chat: str, via: str, msg_key: str, param: dict[str, Any]) -> None:
        file = self.uploads[param["mediaId"]][1] if msg_key == "sampleFile" else None
        self.sent.setdefault(chat, []).append(Sent(chat, via, msg_key, param, file))

    async def _batch_send(self, request: web.Request) -> web.Response:
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json_body(request)
        if isinstance(body, web.Response):
            return body
        checked = self._check_message(request, body)
        if isinstance(checked, web.Response):
            return checked
        users = body.get("userIds")
        if not isinstance(users, list) or not users or len(users) > MAX_USER_IDS:
            self._refuse(request.path, 400, f"userIds {users!r}")
            return _json_error(400, "InvalidParameter.UserIds", f"userIds 需为 1 到 {MAX_USER_IDS} 个")
        msg_key, param = checked
        invalid = [u for u in users if u not in self.staff]
        for user in users:
            if user in self.staff:
                self._record(f"user:{user}", "batchSend", msg_key, param)
        return web.json_response({"processQueryKey": self._next("pqk"), "invalidStaffIdList": invalid,
                                  "flowControlledStaffIdList": []})

    async def _group_send(self, request: web.Request) -> web.Response:
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json_body(request)
        if isinstance(body, web.Response):
            return body
        checked = self._check_message(request, body)
        if isinstance(checked, web.Response):
            return checked
        group = body.get("openConversationId")
        if group not in self.groups:
            self._refuse(request.path, 400, f"openConversationId {group!r}")
            return _json_error(400, "InvalidParameter.OpenConversationId", "机器人不在该群或群不存在")
        msg_key, param = checked
        self._record(f"group:{group}", "groupMessages", msg_key, param)
        return web.json_response({"processQueryKey": self._next("pqk")})

    async def _session_webhook(self, request: web.Request) -> web.Response:
        session = request.query.get("session", "")
        known = self._sessions.get(session)
        if known is None or known[1] <= int(time.time() * 1000):
            self._refuse(request.path, 200, "session unknown or expired")
            return web.json_response({"errcode": 300001, "errmsg": "session 不存在或已过期"})
        raw = await request.read()
        if len(raw) > MAX_BODY_BYTES:
            self._refuse(request.path, 200, f"body of {len(raw)} bytes")
            return web.json_response({"errcode": 460101, "errmsg": f"消息体超过 {MAX_BODY_BYTES} 字节"})
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        kind = body.get("msgtype") if isinstance(body, dict) else None
        fields = WEBHOOK_TYPES.get(str(kind))
        part = body.get(str(kind)) if isinstance(body, dict) else None
        if fields is None or not isinstance(part, dict) or any(not isinstance(part.get(f), str) or not part[f]
                                                               for f in fields):
            self._refuse(request.path, 200, f"session webhook body {str(body)[:80]}")
            return web.json_response({"errcode": 40035, "errmsg": "缺少参数或消息类型不支持"})
        at = (body.get("at") or {}).get("atUserIds", [])
        if not isinstance(at, list) or not all(isinstance(u, str) and u for u in at):
            self._refuse(request.path, 200, f"atUserIds {at!r}")
            return web.json_response({"errcode": 40035, "errmsg": "atUserIds 格式错误"})
        msg_key = "sampleText" if kind == "text" else "sampleMarkdown"
        self.sent.setdefault(known[0], []).append(Sent(known[0], "sessionWebhook", msg_key, dict(part), at=at))
        return web.json_response({"errcode": 0, "errmsg": "ok"})

    # ---- files ------------------------------------------------------------------------------------------------
    async def _message_file_download(self, request: web.Request) -> web.Response:
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json_body(request)
        if isinstance(body, web.Response):
            return body
        if body.get("robotCode") != self.client_id:
            self._refuse(request.path, 400, f"robotCode {body.get('robotCode')!r}")
            return _json_error(400, "resource.not.found", "robotCode 对应的机器人不存在")
        known = self._download_codes.get(str(body.get("downloadCode")))
        if known is None:
            self._refuse(request.path, 400, "unknown downloadCode")
            return _json_error(400, "InvalidParameter.DownloadCode", "downloadCode 无效")
        key = secrets.token_urlsafe(16)
        self._download_urls[key] = (time.time() + 3600, known[1])
        return web.json_response({"downloadUrl": f"https://down.dingtalk.com/file/{key}?Expires=3600&Signature=x"})

    async def _file_get(self, request: web.Request) -> web.Response:
        known = self._download_urls.get(request.match_info["key"])
        if known is None or known[0] < time.time():
            self._refuse(request.path, 403, "download URL unknown or expired")
            return web.Response(status=403, text="AccessDenied")
        return web.Response(body=known[1], content_type="application/octet-stream")

    async def _media_upload(self, request: web.Request) -> web.Response:
        if not self._token_ok(request.query.get("access_token")):
            self._refuse(request.path, 200, "access_token missing, unknown or expired")
            return web.json_response({"errcode": 40014, "errmsg": "不合法的access_token"})
        if not request.content_type.startswith("multipart/form-data"):
            self._refuse(request.path, 200, "not multipart")
            return web.json_response({"errcode": 40004, "errmsg": "不合法的媒体文件类型"})
        form = await request.post()
        kind = str(form.get("type", ""))
        media = form.get("media")
        if kind not in MEDIA_LIMITS or not isinstance(media, web.FileField):
            self._refuse(request.path, 200, f"type {kind!r} or media missing")
            return web.json_response({"errcode": 40004, "errmsg": "不合法的媒体文件类型"})
        content = media.file.read()
        if not content or len(content) > MEDIA_LIMITS[kind]:
            self._refuse(request.path, 200, f"{len(content)} bytes for {kind}")
            return web.json_response({"errcode": 40006, "errmsg": "不合法的文件大小"})
        media_id = "@lA" + secrets.token_urlsafe(18)
        self.uploads[media_id] = (media.filename, content)
        return web.json_response({"errcode": 0, "errmsg": "ok", "media_id": media_id,
                                  "created_at": int(time.time() * 1000), "type": kind})

    # ---- cards ------------------------------------------------------------------------------------------------
    def _card_params(self, request: web.Request, body: dict[str, Any]) -> dict[str, str] | web.Response:
        data = body.get("cardData")
        params = data.get("cardParamMap") if isinstance(data, dict) else None
        if not isinstance(params, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in params.items()):
            self._refuse(request.path, 400, "cardParamMap missing or not all strings")
            return _json_error(400, "InvalidParameter.CardData", "cardData.cardParamMap 的值必须是字符串")
        return dict(params)

    async def _card_create(self, request: web.Request) -> web.Response:
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json_body(request)
        if isinstance(body, web.Response):
            return body
        template, track = body.get("cardTemplateId"), body.get("outTrackId")
        if template not in self.card_templates:
            self._refuse(request.path, 400, f"cardTemplateId {template!r}")
            return _json_error(400, "InvalidParameter.CardTemplateId", "卡片模板不存在")
        if not isinstance(track, str) or not track or track in self.cards:
            self._refuse(request.path, 400, f"outTrackId {track!r} missing or already used")
            return _json_error(400, "InvalidParameter.OutTrackId", "outTrackId 为空或已存在")
        if body.get("callbackType", "STREAM") not in ("STREAM", "HTTP"):
            return _json_error(400, "InvalidParameter.CallbackType", "callbackType 无效")
        params = self._card_params(request, body)
        if isinstance(params, web.Response):
            return params
        self.cards[track] = Card(track, str(template), [params])
        return web.json_response({"success": True, "result": track})

    async def _card_deliver(self, request: web.Request) -> web.Response:
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json_body(request)
        if isinstance(body, web.Response):
            return body
        card = self.cards.get(str(body.get("outTrackId")))
        if card is None:
            self._refuse(request.path, 400, "unknown outTrackId")
            return _json_error(400, "InvalidParameter.OutTrackId", "卡片实例不存在")
        space = str(body.get("openSpaceId", ""))
        space_type, _, space_id = space.removeprefix("dtv1.card//").partition(".")
        chat: str | None = None
        if space.startswith("dtv1.card//") and space_type == "IM_GROUP":
            model = body.get("imGroupOpenDeliverModel")
            if space_id in self.groups and isinstance(model, dict) and model.get("robotCode") == self.client_id:
                chat = f"group:{space_id}"
        elif space.startswith("dtv1.card//") and space_type == "IM_ROBOT":
            model = body.get("imRobotOpenDeliverModel")
            if space_id in self.staff and isinstance(model, dict) and model.get("spaceType") == "IM_ROBOT":
                chat = f"user:{space_id}"
        if chat is None:
            self._refuse(request.path, 400, f"openSpaceId {space!r} or its deliver model")
            return _json_error(400, "InvalidParameter.OpenSpaceId", "openSpaceId 或投放参数无效")
        card.chat = chat
        return web.json_response({"success": True, "result": [{"spaceType": space_type,
                                                               "spaceId": space_id, "success": True}]})

    async def _card_update(self, request: web.Request) -> web.Response:
        if (refused := self._check_token(request)) is not None:
            return refused
        body = await self._json_body(request)
        if isinstance(body, web.Response):
            return body
        card = self.cards.get(str(body.get("outTrackId")))
        if card is None or card.chat is None:
            self._refuse(request.path, 400, "unknown or undelivered outTrackId")
            return _json_error(400, "InvalidParameter.OutTrackId", "卡片实例不存在或未投放")
        params = self._card_params(request, body)
        if isinstance(params, web.Response):
            return params
        card.versions.append({**card.current, **params})
        return web.json_response({"success": True, "result": True})

    def cards_in(self, chat: str) -> list[Card]:
        return [c for c in self.cards.values() if c.chat == chat]

    # ---- gateway ----------------------------------------------------------------------------------------------
    def _gateway_app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/connect", self._connect)
        return app

    async def _connect(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        known = self._tickets.get(ticket)
        if known is None or known[1] or known[0] < time.time():
            self._refuse("/connect", 401, "ticket unknown, used or expired")
            return web.Response(status=401, text="invalid ticket")
        self._tickets[ticket] = (known[0], True)
        conn = Connection(self._next("conn"), self.client_id, self._pending_subscriptions.pop(ticket, []))
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        conn.ws = ws
        self.connections.append(conn)
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    self._on_ack(msg.data)
        finally:
            conn.closed = True
        return ws

    def _on_ack(self, raw: str) -> None:
        try:
            ack = json.loads(raw)
            frame = self.frames[ack["headers"]["messageId"]]
            assert isinstance(ack["code"], int)
            assert ack["headers"].get("contentType") == "application/json"
            data = json.loads(ack["data"]) if isinstance(ack.get("data"), str) else None
            assert data is None or isinstance(data, dict)
        except (ValueError, KeyError, TypeError, AssertionError):
            self._refuse("/connect", 0, f"malformed ACK {raw[:120]}")
            return
        if self.lose_acks > 0:
            self.lose_acks -= 1
            return
        if frame.topic == "ping" and (data or {}).get("opaque") != json.loads(frame.payload["data"])["opaque"]:
            self._refuse("/connect", 0, "ping ACK without the ping's opaque")
            return
        frame.acks.append(ack)
        if ack["code"] < 500:  # a 5xx ACK says "failed here, try again": redelivered like a missing one
            frame.acked.set()

    def _live(self, kind: str, topic: str) -> Connection:
        for conn in reversed(self.connections):
            if not conn.closed and conn.ws is not None and (kind == "SYSTEM" or conn.subscribed(kind, topic)):
                return conn
        raise AssertionError(f"no open stream connection subscribed to {kind} {topic}")

    async def _push(self, frame: Frame) -> None:
        conn = self._live(frame.kind, frame.topic)
        assert conn.ws is not None
        frame.payload["headers"]["connectionId"] = conn.connection_id
        frame.deliveries += 1
        await conn.ws.send_str(json.dumps(frame.payload, ensure_ascii=False))
        if self.redeliver_unacked and frame.kind != "SYSTEM":
            asyncio.get_running_loop().call_later(self.ack_timeout_s, self._watch, frame)

    def _watch(self, frame: Frame) -> None:
        if not frame.acked.is_set() and frame.deliveries <= self.max_redeliveries:
            asyncio.get_running_loop().create_task(self._push(frame))

    def _frame(self, kind: str, topic: str, data: dict[str, Any]) -> Frame:
        frame_id = self._next("frm_")
        headers: dict[str, Any] = {"contentType": "application/json", "messageId": frame_id,
                                   "time": str(int(time.time() * 1000)), "topic": topic}
        if kind != "SYSTEM":
            headers["appId"] = "fake-app-" + self.client_id[-6:]
        payload = {"specVersion": "1.0", "type": kind, "headers": headers,
                   "data": json.dumps(data, ensure_ascii=False)}
        frame = Frame(frame_id, kind, topic, payload)
        self.frames[frame_id] = frame
        return frame

    # ---- what tests do (from the test's loop) ----------------------------------------------------------------
    async def deliver(self, data: dict[str, Any], topic: str = BOT_TOPIC) -> Frame:
        """Push one CALLBACK frame with ``data`` (a robot message) to the open connection."""
        async def go() -> Frame:
            frame = self._frame("CALLBACK", topic, data)
            await self._push(frame)
            return frame
        return await self._on_fake(go())

    async def redeliver(self, frame: Frame) -> None:
        """Push the same frame again (what DingTalk does after a lost ACK or a reconnect)."""
        await self._on_fake(self._push(frame))

    async def wait_acked(self, frame: Frame, timeout_s: float = 5.0, count: int = 1) -> None:
        await self.wait_for(lambda: len(frame.acks) >= count, timeout_s, f"{count} ACK(s) of {frame.frame_id}")

    async def ping(self) -> Frame:
        async def go() -> Frame:
            frame = self._frame("SYSTEM", "ping", {"opaque": secrets.token_hex(8)})
            await self._push(frame)
            return frame
        return await self._on_fake(go())

    async def disconnect(self, reason: str = "connection is expired") -> Connection:
        """SYSTEM disconnect; the fake closes the socket itself ``disconnect_grace_s`` later if need be."""
        async def go() -> Connection:
            conn = self._live("SYSTEM", "disconnect")
            frame = self._frame("SYSTEM", "disconnect", {"reason": reason})
            await self._push(frame)

            async def close_later() -> None:
                await asyncio.sleep(self.disconnect_grace_s)
                if conn.ws is not None and not conn.ws.closed:
                    await conn.ws.close()
            asyncio.get_running_loop().create_task(close_later())
            return conn
        return await self._on_fake(go())

    def robot_message(self, staff_id: str, *, group: str | None = None, msgtype: str = "text",
                      content: dict[str, Any] | None = None, text: str | None = None, msg_id: str | None = None,
                      create_at_ms: int | None = None) -> dict[str, Any]:
        """A robot message as DingTalk pushes it (fields of the protocol's sample and the SDK's ChatbotMessage)."""
        if staff_id not in self.staff:
            raise KeyError(f"{staff_id} is not a member of the fake organisation")
        if group is not None and group not in self.groups:
            raise KeyError(f"{group} is not a group the fake robot is in")
        now_ms = int(time.time() * 1000)
        session = secrets.token_hex(16)
        expires = now_ms + int(self.session_ttl_s * 1000)
        chat = f"group:{group}" if group else f"user:{staff_id}"
        self._sessions[session] = (chat, expires)
        data: dict[str, Any] = {
            "conversationId": group or "cid" + base64.b64encode(f"p2p-{staff_id}".encode()).decode(),
            "chatbotCorpId": self.corp_id,
            "chatbotUserId": "$:LWCP_v1:$fakeRobot",
            "msgId": msg_id or "msg" + secrets.token_urlsafe(12),
            "senderNick": self.staff[staff_id],
            "isAdmin": False,
            "senderStaffId": staff_id,
            "sessionWebhookExpiredTime": expires,
            "createAt": now_ms if create_at_ms is None else create_at_ms,
            "senderCorpId": self.corp_id,
            "conversationType": "2" if group else "1",
            "senderId": _sender_id(staff_id),
            "sessionWebhook": f"https://oapi.dingtalk.com/robot/sendBySession?session={session}",
            "robotCode": self.client_id,
            "msgtype": msgtype,
        }
        if group:
            data.update(conversationTitle=self.groups[group], isInAtList=True,
                        atUsers=[{"dingtalkId": "$:LWCP_v1:$fakeRobot"}])
        if msgtype == "text":
            # in a group DingTalk removes the robot's @name and leaves the space before the text
            data["text"] = {"content": (" " if group else "") + (text or "")}
        elif content is not None:
            data["content"] = content
        return data

    async def send_text(self, staff_id: str, text: str, *, group: str | None = None, **kw: Any) -> Frame:
        return await self.deliver(self.robot_message(staff_id, group=group, text=text, **kw))

    async def send_file(self, staff_id: str, name: str, content: bytes, *, group: str | None = None,
                        **kw: Any) -> Frame:
        code = secrets.token_urlsafe(24)
        self._download_codes[code] = (name, content)
        body = {"downloadCode": code, "fileId": str(next(self._ids)), "fileName": name, "spaceId": "28455378906"}
        return await self.deliver(self.robot_message(staff_id, group=group, msgtype="file", content=body, **kw))
