"""A local fake of the Telegram Bot API, strict where Telegram is strict, for end-to-end bot tests.

It serves ``/bot<TOKEN>/<method>`` and ``/file/bot<TOKEN>/<path>`` on 127.0.0.1 (a free port),
so the real python-telegram-bot ``Application`` talks to it through ``base_url`` /
``base_file_url``. Implemented: getMe, getUpdates (long poll), sendMessage, editMessageText,
sendDocument, sendPhoto (multipart; the bytes are kept), getFile + download, answerCallbackQuery,
setMyCommands, getMyCommands, setWebhook, deleteWebhook, getWebhookInfo.

With a webhook set, updates are not queued for getUpdates (which answers 409 Conflict, as
Telegram does); ``deliver`` posts them to the webhook URL with the registered secret header,
the way Telegram's servers do.

Like Telegram it answers 400 for HTML it cannot parse (unknown tags, unbalanced tags, bare
``<``, ``>`` or ``&``), for text longer than 4,096 characters after parsing (captions: 1,024),
for empty text, and "message is not modified" for an edit that changes nothing. On demand it
answers 429 with ``retry_after`` for the next N calls. Every call is recorded, with its HTTP
status, for assertions.
"""

from __future__ import annotations

import asyncio
import html
import itertools
import json
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

ALLOWED_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a", "code",
                "pre", "blockquote", "tg-emoji"}
MAX_TEXT = 4096
MAX_CAPTION = 1024
_ATTR = r"""\s+[A-Za-z-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?"""
_TAG_RE = re.compile(rf"<(/?)([A-Za-z][A-Za-z0-9-]*)((?:{_ATTR})*)\s*>")
_ENTITY_RE = re.compile(r"&(lt|gt|amp|quot|#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6});")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


class EntityError(ValueError):
    pass


def parse_html(text: str) -> str:
    """Telegram-strict HTML check; returns the plain text Telegram would show, or raises EntityError."""
    out: list[str] = []
    stack: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        offset = len(text[:i].encode("utf-8"))
        if ch == "<":
            m = _TAG_RE.match(text, i)
            if not m:
                raise EntityError(f"Unexpected end of name token at byte offset {offset}")
            closing, name = m.group(1) == "/", m.group(2).lower()
            if name not in ALLOWED_TAGS:
                raise EntityError(f'Unsupported start tag "{name}" at byte offset {offset}')
            if closing:
                if not stack or stack[-1] != name:
                    expected = f'"</{stack[-1]}>"' if stack else "nothing"
                    raise EntityError(f'Unmatched end tag at byte offset {offset}, expected {expected}, '
                                      f'found "</{name}>"')
                stack.pop()
            else:
                if name == "a" and "href" not in m.group(3):
                    raise EntityError(f"Can't find href attribute of tag a at byte offset {offset}")
                stack.append(name)
            i = m.end()
        elif ch == "&":
            m = _ENTITY_RE.match(text, i)
            if not m:
                raise EntityError(f"Unsupported HTML entity or bare & at byte offset {offset}")
            ent = m.group(1)
            if ent in _NAMED:
                out.append(_NAMED[ent])
            else:
                out.append(html.unescape(m.group(0)))
            i = m.end()
        elif ch == ">":
            raise EntityError(f"Unexpected > at byte offset {offset}")
        else:
            out.append(ch)
            i += 1
    if stack:
        raise EntityError(f'Can\'t find end tag corresponding to start tag "{stack[-1]}"')
    return "".join(out)


def tg_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    status: int = 200
    at: float = field(default_factory=time.monotonic)
    result: Any = None

    @property
    def ok(self) -> bool:
        return self.status == 200


class ApiError(Exception):
    def __init__(self, status: int, description: str, parameters: dict[str, Any] | None = None) -> None:
        super().__init__(description)
        self.status, self.description, self.parameters = status, description, parameters


class FakeBotAPI:
    def __init__(self, token: str = "123456:TEST-token_abcdefghijklmnopqrstuvwxyz", bot_id: int = 123456,
                 username: str = "screener_test_bot") -> None:
        self.token = token
        self.bot_user = {"id": bot_id, "is_bot": True, "first_name": "Screener", "username": username,
                         "can_join_groups": True, "can_read_all_group_messages": False,
                         "supports_inline_queries": False}
        self.calls: list[Call] = []
        self.updates: list[dict[str, Any]] = []
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}  # (chat, message id) -> message
        self.files: dict[str, tuple[str, bytes]] = {}  # file id -> (path, bytes)
        self.commands: list[dict[str, Any]] = []
        self.chats: dict[int, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        # Telegram's update ids run on from where the bot's last update left off (a random start after a
        # week without updates): never 1 for every fake, so remembered ids never collide across tests
        self._update_ids = itertools.count(random.randrange(1, 2**31))
        self._new_update = asyncio.Event()
        self._fail: list[tuple[int, set[str] | None, int]] = []  # [remaining, methods, retry_after]
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.webhook: dict[str, Any] | None = None  # setWebhook's url, secret_token, allowed_updates

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self) -> FakeBotAPI:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._api)
        app.router.add_route("GET", "/file/bot{token}/{path:.*}", self._file)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        self._new_update.set()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/file/bot"

    # -- test controls -----------------------------------------------------------------
    def fail_next(self, n: int, retry_after: int = 1, methods: set[str] | None = None) -> None:
        """Answer the next ``n`` calls (of ``methods``, or any but getUpdates) with 429 retry_after."""
        self._fail.append([n, methods, retry_after])  # type: ignore[arg-type]

    def _chat(self, chat_id: int, chat_type: str) -> dict[str, Any]:
        chat = {"id": chat_id, "type": chat_type}
        if chat_type == "private":
            chat["first_name"] = f"user{chat_id}"
        else:
            chat["title"] = f"group {chat_id}"
        self.chats[chat_id] = chat
        return chat

    @staticmethod
    def _user(user_id: int) -> dict[str, Any]:
        return {"id": user_id, "is_bot": False, "first_name": f"user{user_id}", "language_code": "zh-hans"}

    def _push(self, update: dict[str, Any]) -> dict[str, Any]:
        update["update_id"] = next(self._update_ids)
        if self.webhook is None:  # with a webhook the test delivers it (``deliver``)
            self.updates.append(update)
            self._new_update.set()
        return update

    async def deliver(self, update: dict[str, Any], secret: str | None = "registered") -> int:
        """POST ``update`` to the webhook as Telegram does; returns the HTTP status.

        ``secret``: "registered" sends the setWebhook secret_token, None sends no header, any other
        string is sent as is (a forger's guess).
        """
        if self.webhook is None:
            raise RuntimeError("fake Bot API: no webhook set")
        token = self.webhook.get("secret_token") if secret == "registered" else secret
        headers = {"X-Telegram-Bot-Api-Secret-Token": token} if token else {}
        async with aiohttp.ClientSession() as session, session.post(
                self.webhook["url"], json=update, headers=headers, timeout=aiohttp.ClientTimeout(total=10)) as resp:
            return resp.status

    def _incoming(self, chat_id: int, user_id: int, chat_type: str) -> dict[str, Any]:
        mid = next(self._ids)
        msg = {"message_id": mid, "date": int(time.time()), "chat": self._chat(chat_id, chat_type),
               "from": self._user(user_id)}
        self.messages[(chat_id, mid)] = msg
        return msg

    def push_text(self, chat_id: int, text: str, user_id: int | None = None,
                  chat_type: str = "private") -> dict[str, Any]:
        msg = self._incoming(chat_id, user_id if user_id is not None else chat_id, chat_type)
        msg["text"] = text
        if text.startswith("/"):
            cmd = text.split()[0]
            msg["entities"] = [{"type": "bot_command", "offset": 0, "length": tg_len(cmd)}]
        return self._push({"message": msg})

    def add_file(self, content: bytes, name: str) -> str:
        file_id = f"F{next(self._ids)}_{len(self.files)}"
        self.files[file_id] = (f"documents/file_{len(self.files)}_{name.rsplit('.', 1)[-1]}", content)
        return file_id

    def push_document(self, chat_id: int, content: bytes, file_name: str, user_id: int | None = None,
                      chat_type: str = "private", mime_type: str = "text/csv",
                      file_size: int | None = None) -> dict[str, Any]:
        file_id = self.add_file(content, file_name)
        msg = self._incoming(chat_id, user_id if user_id is not None else chat_id, chat_type)
        msg["document"] = {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_name": file_name,
                           "mime_type": mime_type,
                           "file_size": len(content) if file_size is None else file_size}
        return self._push({"message": msg})

    def push_callback(self, chat_id: int, message_id: int, data: str,
                      user_id: int | None = None) -> dict[str, Any]:
        message = self.messages[(chat_id, message_id)]
        query = {"id": str(next(self._ids)), "from": self._user(user_id if user_id is not None else chat_id),
                 "chat_instance": f"ci{chat_id}", "data": data, "message": message}
        return self._push({"callback_query": query})

    # -- views for assertions ----------------------------------------------------------
    def ok_calls(self, method: str, chat_id: int | None = None) -> list[Call]:
        return [c for c in self.calls if c.method == method and c.ok
                and (chat_id is None or int(c.params.get("chat_id", 0)) == chat_id)]

    def texts(self, chat_id: int) -> list[str]:
        """Plain texts of the messages delivered to ``chat_id``, in order."""
        return [c.result["text"] for c in self.ok_calls("sendMessage", chat_id)]

    async def wait_for(self, predicate, timeout: float = 30.0, what: str = "condition") -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"fake Bot API: timed out waiting for {what}; calls: "
                                   f"{[(c.method, c.status) for c in self.calls[-30:]]}")
            await asyncio.sleep(0.05)

    # -- HTTP --------------------------------------------------------------------------
    async def _file(self, request: web.Request) -> web.StreamResponse:
        if request.match_info["token"] != self.token:
            return web.Response(status=401)
        path = request.match_info["path"]
        for stored_path, content in self.files.values():
            if stored_path == path:
                self.calls.append(Call("download", {"path": path}))
                return web.Response(body=content)
        return web.Response(status=404, text="Not Found")

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if request.match_info["token"] != self.token:
            return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"},
                                     status=401)
        params: dict[str, Any] = dict(request.query)
        files: dict[str, tuple[str, bytes]] = {}
        if request.method == "POST" and request.can_read_body:
            ctype = request.content_type
            if ctype == "application/json":
                params.update(await request.json())
            else:
                form = await request.post()
                for key, value in form.items():
                    if isinstance(value, web.FileField):
                        files[key] = (value.filename or key, value.file.read())
                    else:
                        params[key] = value
        call = Call(method, params, files)
        self.calls.append(call)
        try:
            if method != "getUpdates":
                self._maybe_fail(method)
            handler = getattr(self, f"_m_{method}", None)
            if handler is None:
                raise ApiError(404, "Not Found: method not found")
            result = await handler(params, files)
        except ApiError as exc:
            call.status = exc.status
            body: dict[str, Any] = {"ok": False, "error_code": exc.status, "description": exc.description}
            if exc.parameters:
                body["parameters"] = exc.parameters
            return web.json_response(body, status=exc.status)
        call.result = result
        return web.json_response({"ok": True, "result": result})

    def _maybe_fail(self, method: str) -> None:
        for rule in self._fail:
            remaining, methods, retry_after = rule
            if remaining > 0 and (methods is None or method in methods):
                rule[0] -= 1
                raise ApiError(429, f"Too Many Requests: retry after {retry_after}",
                               {"retry_after": retry_after})

    @staticmethod
    def _json(params: dict[str, Any], key: str, default: Any = None) -> Any:
        value = params.get(key, default)
        if isinstance(value, str) and value[:1] in "[{":
            return json.loads(value)
        return value

    def _check_text(self, text: str | None, parse_mode: str | None, limit: int, caption: bool = False) -> str:
        if text is None or text == "":
            if caption:
                return ""
            raise ApiError(400, "Bad Request: message text is empty")
        plain = text
        if parse_mode and parse_mode.upper() == "HTML":
            try:
                plain = parse_html(text)
            except EntityError as exc:
                raise ApiError(400, f"Bad Request: can't parse entities: {exc}") from exc
        elif parse_mode:
            raise ApiError(400, f"Bad Request: unsupported parse_mode {parse_mode!r} in this fake")
        if not plain.strip() and not caption:
            raise ApiError(400, "Bad Request: message text is empty")
        if tg_len(plain) > limit:
            raise ApiError(400, "Bad Request: message caption is too long" if caption
                           else "Bad Request: message is too long")
        return plain

    def _out_message(self, params: dict[str, Any]) -> dict[str, Any]:
        chat_id = int(params["chat_id"])
        chat = self.chats.get(chat_id) or self._chat(chat_id, "private" if chat_id > 0 else "group")
        mid = next(self._ids)
        msg: dict[str, Any] = {"message_id": mid, "date": int(time.time()), "chat": chat,
                               "from": self.bot_user}
        markup = self._json(params, "reply_markup")
        if markup:
            msg["reply_markup"] = markup
        self.messages[(chat_id, mid)] = msg
        return msg

    # -- methods -----------------------------------------------------------------------
    async def _m_getMe(self, params, files):
        return self.bot_user

    async def _m_setWebhook(self, params, files):
        url = params.get("url") or ""
        if not url.startswith(("https://", "http://127.0.0.1", "http://localhost")):
            raise ApiError(400, "Bad Request: bad webhook: HTTPS url must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise ApiError(400, "Bad Request: secret token contains unallowed characters")
        self.webhook = {"url": url, "secret_token": secret,
                        "allowed_updates": self._json(params, "allowed_updates")}
        return True

    async def _m_deleteWebhook(self, params, files):
        self.webhook = None
        return True

    async def _m_getWebhookInfo(self, params, files):
        return {"url": (self.webhook or {}).get("url", ""), "has_custom_certificate": False,
                "pending_update_count": len(self.updates)}

    async def _m_setMyCommands(self, params, files):
        self.commands = self._json(params, "commands", [])
        return True

    async def _m_getMyCommands(self, params, files):
        return self.commands

    async def _m_answerCallbackQuery(self, params, files):
        return True

    async def _m_getUpdates(self, params, files):
        if self.webhook is not None:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                                "use deleteWebhook to delete the webhook first")
        offset = int(params.get("offset", 0) or 0)
        timeout = float(params.get("timeout", 0) or 0)
        limit = int(params.get("limit", 100) or 100)
        deadline = time.monotonic() + timeout
        while True:
            self.updates = [u for u in self.updates if u["update_id"] >= offset]
            if self.updates:
                return self.updates[:limit]
            left = deadline - time.monotonic()
            if left <= 0:
                return []
            self._new_update.clear()
            try:
                await asyncio.wait_for(self._new_update.wait(), timeout=left)
            except TimeoutError:
                return []

    async def _m_sendMessage(self, params, files):
        plain = self._check_text(params.get("text"), params.get("parse_mode"), MAX_TEXT)
        msg = self._out_message(params)
        msg["text"] = plain
        msg["_html"] = params.get("text")
        return {k: v for k, v in msg.items() if not k.startswith("_")}

    async def _m_editMessageText(self, params, files):
        chat_id, mid = int(params["chat_id"]), int(params["message_id"])
        msg = self.messages.get((chat_id, mid))
        if msg is None:
            raise ApiError(400, "Bad Request: message to edit not found")
        plain = self._check_text(params.get("text"), params.get("parse_mode"), MAX_TEXT)
        markup = self._json(params, "reply_markup")
        if msg.get("_html") == params.get("text") and msg.get("reply_markup") == markup:
            raise ApiError(400, "Bad Request: message is not modified: specified new message content "
                                "and reply markup are exactly the same as a current content and reply "
                                "markup of the message")
        msg["text"], msg["_html"], msg["edit_date"] = plain, params.get("text"), int(time.time())
        if markup:
            msg["reply_markup"] = markup
        else:
            msg.pop("reply_markup", None)
        return {k: v for k, v in msg.items() if not k.startswith("_")}

    async def _send_media(self, params, files, kind: str):
        if kind not in files:
            raise ApiError(400, f"Bad Request: there is no {kind} in the request")
        caption = self._check_text(params.get("caption"), params.get("parse_mode"), MAX_CAPTION, caption=True)
        name, content = files[kind]
        if not content:
            raise ApiError(400, "Bad Request: file must be non-empty")
        file_id = self.add_file(content, name)
        msg = self._out_message(params)
        if caption:
            msg["caption"] = caption
        if kind == "document":
            msg["document"] = {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_name": name,
                               "file_size": len(content)}
        else:
            msg["photo"] = [{"file_id": file_id, "file_unique_id": f"u{file_id}", "width": 1210,
                             "height": 495, "file_size": len(content)}]
        return msg

    async def _m_sendDocument(self, params, files):
        return await self._send_media(params, files, "document")

    async def _m_sendPhoto(self, params, files):
        return await self._send_media(params, files, "photo")

    async def _m_getFile(self, params, files):
        file_id = params.get("file_id", "")
        if file_id not in self.files:
            raise ApiError(400, "Bad Request: invalid file_id")
        path, content = self.files[file_id]
        return {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_size": len(content),
                "file_path": path}
