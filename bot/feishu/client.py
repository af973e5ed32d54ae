"""Sending to Feishu through the lark-oapi SDK's own OpenAPI client: messages, replies, card patches, files.

The SDK caches the tenant_access_token (per app id, refreshed 10 minutes before it expires) and
fetches it with a blocking ``requests`` call even from its ``a*`` coroutines, so every call here runs
the SDK's synchronous method in a worker thread: the bot's event loop never blocks on Feishu.

Limits are Feishu's documented ones and are checked before a request leaves, so a reply that cannot be
delivered fails with the size and the limit instead of Feishu's bare code 230025:
request body of a text message <= 150 KB, of a post or card <= 30 KB; a file <= 30 MB, an image
<= 10 MB, neither empty; a downloaded resource <= 100 MB; a card is patched at most 5 times a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import lark_oapi as lark
from lark_oapi.api.im.v1 import (
    CreateFileRequest,
    CreateFileRequestBody,
    CreateImageRequest,
    CreateImageRequestBody,
    CreateMessageRequest,
    CreateMessageRequestBody,
    GetMessageResourceRequest,
    PatchMessageRequest,
    PatchMessageRequestBody,
    ReplyMessageRequest,
    ReplyMessageRequestBody,
)
from lark_oapi.core.json import JSON

from bot.feishu.cards import is_shared
from bot.feishu.config import FeishuCredentials
from bot.feishu.errors import FeishuApiError, FeishuError, FeishuTooLarge

log = logging.getLogger(__name__)

FEISHU_DOMAIN = "https://open.feishu.cn"
LARK_DOMAIN = "https://open.larksuite.com"
TEXT_BODY_LIMIT = 150 * 1024
CARD_BODY_LIMIT = 30 * 1024  # post and interactive
FILE_LIMIT = 30 * 1024 * 1024
IMAGE_LIMIT = 10 * 1024 * 1024
DOWNLOAD_LIMIT = 100 * 1024 * 1024
PATCH_INTERVAL_S = 0.2  # 5 patches a second per message
BODY_LIMITS = {"text": TEXT_BODY_LIMIT, "post": CARD_BODY_LIMIT, "interactive": CARD_BODY_LIMIT}
RECEIVE_ID_TYPES = frozenset({"chat_id", "open_id", "user_id", "union_id", "email"})
# im/v1/files file_type by extension; anything else is a generic "stream"
FILE_TYPES = {".pdf": "pdf", ".doc": "doc", ".docx": "doc", ".xls": "xls", ".xlsx": "xls", ".csv": "xls",
              ".ppt": "ppt", ".pptx": "ppt", ".mp4": "mp4", ".opus": "opus"}

MsgType = Literal["text", "post", "interactive", "file", "image"]
ReceiveIdType = Literal["chat_id", "open_id", "user_id", "union_id", "email"]
T = TypeVar("T")


@dataclass(frozen=True)
class SentMessage:
    """What Feishu gave back for a message the bot sent: ``message_id`` is what a patch or reply needs."""

    message_id: str
    chat_id: str
    msg_type: str


def body_bytes(body: object) -> int:
    """The request body's size exactly as the SDK will send it (its own JSON encoder, UTF-8)."""
    return len((JSON.marshal(body) or "").encode("utf-8"))


def message_body_bytes(receive_id: str, msg_type: str, content: Mapping[str, Any]) -> int:
    """What a create request for ``content`` weighs against BODY_LIMITS: a front splits a long reply by it."""
    body = (CreateMessageRequestBody.builder().receive_id(receive_id).msg_type(msg_type)
            .content(json.dumps(content, ensure_ascii=False)).build())
    return body_bytes(body)


def file_type_for(name: str) -> str:
    return FILE_TYPES.get(Path(name).suffix.lower(), "stream")


def _check(operation: str, resp: Any) -> None:
    if not resp.success():
        raise FeishuApiError(operation, resp.code, resp.msg, resp.get_log_id())


class FeishuClient:
    """The bot's outgoing side; one per app. ``domain`` is Feishu's (default) or Lark's OpenAPI origin."""

    def __init__(self, credentials: FeishuCredentials, *, domain: str = FEISHU_DOMAIN, timeout_s: float = 15.0) -> None:
        self.credentials = credentials
        self.domain = domain
        self._sdk = (lark.Client.builder().app_id(credentials.app_id).app_secret(credentials.app_secret)
                     .domain(domain).timeout(timeout_s).log_level(lark.LogLevel.WARNING).build())
        self._bot_open_id: str | None = None
        self._last_patch: dict[str, float] = {}
        self._patch_locks: dict[str, asyncio.Lock] = {}

    async def _call(self, operation: str, fn: Callable[[], T]) -> T:
        try:
            return await asyncio.to_thread(fn)
        except FeishuError:
            raise
        except Exception as e:  # the SDK raises bare exceptions (connection errors, non-JSON answers)
            raise FeishuError(f"Feishu {operation} failed: {type(e).__name__}: {e}") from e

    # -- identity ---------------------------------------------------------------------------------------
    async def bot_open_id(self) -> str:
        """The bot's own open_id (bot/v3/info), which is how a group message's @bot mention is recognised."""
        if self._bot_open_id is None:
            req = (lark.BaseRequest.builder().http_method(lark.HttpMethod.GET).uri("/open-apis/bot/v3/info")
                   .token_types({lark.AccessTokenType.TENANT}).build())
            resp = await self._call("bot info", lambda: self._sdk.request(req))
            _check("bot info", resp)
            raw = resp.raw.content if resp.raw is not None else None
            try:
                bot = json.loads(raw or b"{}").get("bot") or {}
            except ValueError as e:
                raise FeishuError(f"Feishu bot info answered non-JSON: {e}") from e
            open_id = bot.get("open_id") if isinstance(bot, dict) else None
            if not isinstance(open_id, str) or not open_id:
                raise FeishuError("Feishu bot info has no open_id: is the app's bot capability enabled?")
            self._bot_open_id = open_id
        return self._bot_open_id

    # -- messages ---------------------------------------------------------------------------------------
    async def send(self, receive_id: str, msg_type: MsgType, content: Mapping[str, Any], *,
                   receive_id_type: ReceiveIdType = "chat_id", uuid: str | None = None) -> SentMessage:
        """im/v1/messages create. ``uuid`` makes a retried send idempotent (Feishu keeps it one hour)."""
        if receive_id_type not in RECEIVE_ID_TYPES:
            raise ValueError(f"unknown receive_id_type {receive_id_type!r}")
        builder = (CreateMessageRequestBody.builder().receive_id(receive_id).msg_type(msg_type)
                   .content(json.dumps(content, ensure_ascii=False)))
        if uuid:
            builder = builder.uuid(uuid[:50])
        body = builder.build()
        self._check_size(msg_type, body)
        req = CreateMessageRequest.builder().receive_id_type(receive_id_type).request_body(body).build()
        resp = await self._call("send message", lambda: self._sdk.im.v1.message.create(req))
        _check("send message", resp)
        return SentMessage(resp.data.message_id, resp.data.chat_id or receive_id, resp.data.msg_type or msg_type)

    async def reply(self, message_id: str, msg_type: MsgType, content: Mapping[str, Any], *,
                    in_thread: bool = False, uuid: str | None = None) -> SentMessage:
        """im/v1/messages/:id/reply: the answer is quoted under the user's message (in groups, too)."""
        builder = (ReplyMessageRequestBody.builder().msg_type(msg_type)
                   .content(json.dumps(content, ensure_ascii=False)).reply_in_thread(in_thread))
        if uuid:
            builder = builder.uuid(uuid[:50])
        body = builder.build()
        self._check_size(msg_type, body)
        req = ReplyMessageRequest.builder().message_id(message_id).request_body(body).build()
        resp = await self._call("reply", lambda: self._sdk.im.v1.message.reply(req))
        _check("reply", resp)
        return SentMessage(resp.data.message_id, resp.data.chat_id or "", resp.data.msg_type or msg_type)

    async def send_text(self, chat_id: str, text: str, *, uuid: str | None = None) -> SentMessage:
        return await self.send(chat_id, "text", {"text": text}, uuid=uuid)

    async def send_markdown(self, chat_id: str, markdown: str, *, title: str = "",
                            uuid: str | None = None) -> SentMessage:
        """A post with one ``md`` element: Feishu renders the Markdown in a plain chat bubble."""
        return await self.send(chat_id, "post", post_content(markdown, title), uuid=uuid)

    async def send_card(self, chat_id: str, card: Mapping[str, Any], *, uuid: str | None = None) -> SentMessage:
        return await self.send(chat_id, "interactive", card, uuid=uuid)

    async def reply_text(self, message_id: str, text: str, *, uuid: str | None = None) -> SentMessage:
        return await self.reply(message_id, "text", {"text": text}, uuid=uuid)

    async def reply_markdown(self, message_id: str, markdown: str, *, title: str = "",
                             uuid: str | None = None) -> SentMessage:
        return await self.reply(message_id, "post", post_content(markdown, title), uuid=uuid)

    async def reply_card(self, message_id: str, card: Mapping[str, Any], *, uuid: str | None = None) -> SentMessage:
        return await self.reply(message_id, "interactive", card, uuid=uuid)

    async def update_card(self, message_id: str, card: Mapping[str, Any]) -> None:
        """Patch a card the bot sent, in place (progress). Feishu allows it for shared cards only, 14 days,
        5 times a second per message: faster updates wait here rather than fail there."""
        if not is_shared(card):
            raise FeishuError("a Feishu card can only be patched with config.update_multi = true in the new card")
        body = PatchMessageRequestBody.builder().content(json.dumps(card, ensure_ascii=False)).build()
        self._check_size("interactive", body)
        lock = self._patch_locks.setdefault(message_id, asyncio.Lock())
        async with lock:
            wait = self._last_patch.get(message_id, 0.0) + PATCH_INTERVAL_S - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            req = PatchMessageRequest.builder().message_id(message_id).request_body(body).build()
            try:
                resp = await self._call("update card", lambda: self._sdk.im.v1.message.patch(req))
            finally:
                self._last_patch[message_id] = time.monotonic()
                self._forget_old_patches()
        _check("update card", resp)

    def _forget_old_patches(self) -> None:
        if len(self._last_patch) < 1024:
            return
        cutoff = time.monotonic() - 60.0
        for mid in [m for m, at in self._last_patch.items() if at < cutoff]:
            self._last_patch.pop(mid, None)
            lock = self._patch_locks.get(mid)
            if lock is not None and not lock.locked():
                del self._patch_locks[mid]

    @staticmethod
    def _check_size(msg_type: str, body: object) -> None:
        limit = BODY_LIMITS.get(msg_type)
        if limit is not None:
            size = body_bytes(body)
            if size > limit:
                raise FeishuTooLarge(f"Feishu {msg_type} message request body", size, limit)

    # -- files ------------------------------------------------------------------------------------------
    async def upload_file(self, path: Path, *, file_name: str | None = None) -> str:
        """im/v1/files: returns the file_key a file message needs."""
        name = file_name or path.name
        size = _checked_size(path, FILE_LIMIT, "file")

        def create() -> Any:
            with path.open("rb") as fh:
                body = CreateFileRequestBody.builder().file_type(file_type_for(name)).file_name(name).file(fh).build()
                return self._sdk.im.v1.file.create(CreateFileRequest.builder().request_body(body).build())

        resp = await self._call("upload file", create)
        _check("upload file", resp)
        log.info("uploaded %s (%d bytes) to Feishu", name, size)
        return str(resp.data.file_key)

    async def upload_image(self, path: Path) -> str:
        """im/v1/images (image_type message): returns the image_key an image message needs."""
        _checked_size(path, IMAGE_LIMIT, "image")

        def create() -> Any:
            with path.open("rb") as fh:
                body = CreateImageRequestBody.builder().image_type("message").image(fh).build()
                return self._sdk.im.v1.image.create(CreateImageRequest.builder().request_body(body).build())

        resp = await self._call("upload image", create)
        _check("upload image", resp)
        return str(resp.data.image_key)

    async def send_file(self, chat_id: str, path: Path, *, file_name: str | None = None,
                        uuid: str | None = None) -> SentMessage:
        key = await self.upload_file(path, file_name=file_name)
        return await self.send(chat_id, "file", {"file_key": key}, uuid=uuid)

    async def send_image(self, chat_id: str, path: Path, *, uuid: str | None = None) -> SentMessage:
        key = await self.upload_image(path)
        return await self.send(chat_id, "image", {"image_key": key}, uuid=uuid)

    async def download_resource(self, message_id: str, file_key: str, dest: Path, *,
                                kind: Literal["file", "image"] = "file", max_bytes: int = DOWNLOAD_LIMIT) -> int:
        """im/v1/messages/:id/resources/:key: a file a user sent, written to ``dest`` whole or not at all."""
        req = GetMessageResourceRequest.builder().message_id(message_id).file_key(file_key).type(kind).build()
        resp = await self._call("download file", lambda: self._sdk.im.v1.message_resource.get(req))
        _check("download file", resp)
        if resp.file is None:
            raise FeishuError(f"Feishu download of {file_key} returned no content")
        data = resp.file.getvalue()
        if len(data) > max_bytes:
            raise FeishuTooLarge(f"file {file_key}", len(data), max_bytes)
        await asyncio.to_thread(_write_atomically, dest, data)
        return len(data)


def post_content(markdown: str, title: str = "") -> dict[str, Any]:
    return {"zh_cn": {"title": title, "content": [[{"tag": "md", "text": markdown}]]}}


def _checked_size(path: Path, limit: int, what: str) -> int:
    size = path.stat().st_size
    if size == 0:
        raise FeishuError(f"{path.name} is empty; Feishu refuses an empty {what}")
    if size > limit:
        raise FeishuTooLarge(f"{what} {path.name}", size, limit)
    return size


def _write_atomically(dest: Path, data: bytes) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
