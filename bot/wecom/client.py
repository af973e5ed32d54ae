"""WeCom (企业微信) self-built app: the callback URL in, the app's send API out.

WeCom has no vendor Python SDK for this, so the protocol is written here from its documentation:
crypto.py (signature and AES), callback.py (the aiohttp handler that checks everything and acknowledges
within WeCom's 5-second window), api.py (token, send, media, cards). This module joins them and speaks
the core's neutral shapes: every accepted message becomes an ``Inbound`` for ``on_message``.

Chats: the app callback carries one-to-one messages only (a member writing to the app), so an Inbound's
chat is ``ChatRef("wecom", <UserID>, "private")``. A ``group`` ChatRef is an app chat (appchat, created by
the app through appchat/create), which the app can push to but not receive from.

Progress "cards": WeCom lets an app replace a sent template card only once per response_code, so a card
cannot be edited step after step. ``send_card`` / ``update_card`` therefore send a markdown message and,
on each update, withdraw it (message/recall) and send the new state: the chat shows one progress message,
always the latest. The template-card calls themselves are here as well (``send_template_card``,
``update_template_card``) for a one-time replacement such as "done".
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from bot.core.guard import ChatGuard
from bot.core.inbound import ChatRef, Inbound, InboundFile
from bot.wecom.api import (
    DEFAULT_API_BASE,
    FILE_MAX_BYTES,
    MARKDOWN_MAX_BYTES,
    TEXT_MAX_BYTES,
    SentMessage,
    WeComApi,
)
from bot.wecom.callback import WeComCallback
from bot.wecom.errors import WeComApiError, WeComError
from bot.wecom.messages import WeComMessage
from bot.wecom.settings import WeComSettings
from screening.output.text import split_numbered

log = logging.getLogger(__name__)
# what a member may send the app that has no text or file for the bot: answered with the commands, as every front
# answers (an image got silence; Feishu's got the pointer: a trial, S22 jb); events (entering the app) are not
WORDLESS_TYPES = frozenset({"image", "voice", "video", "location", "link"})

MessageCallback = Callable[[Inbound], Awaitable[None]]
DEFAULT_CALLBACK_PATH = "/wecom/callback"


@dataclass
class WeComCard:
    """A progress message; ``msgid`` changes with each update (the old message is withdrawn)."""

    chat: ChatRef
    title: str
    msgid: str


class WeComClient:
    def __init__(
        self,
        settings: WeComSettings,
        on_message: MessageCallback,
        guard: ChatGuard,
        *,
        api_base: str = DEFAULT_API_BASE,
        callback_path: str = DEFAULT_CALLBACK_PATH,
        window_s: float = 300.0,
        max_download_bytes: int = FILE_MAX_BYTES,
        http_timeout_s: float = 15.0,
        clock: Callable[[], float] = time.time,
        may_fetch: Callable[[str], bool] | None = None,
    ) -> None:
        """``may_fetch(user_id)``: whether a member's file may be fetched before the core has seen the message
        (the core's allow-list; a file with no name is fetched here for its name). None: every member's."""
        self._settings = settings
        self._on_message = on_message
        self._path = callback_path
        self._max_download = max_download_bytes
        self._may_fetch = may_fetch
        self.api = WeComApi(settings.corp_id, settings.agent_id, settings.secret, api_base=api_base,
                            timeout_s=http_timeout_s, clock=clock)
        self.callback = WeComCallback(settings.crypto(), settings.agent_id, self._on_callback_message,
                                      guard, window_s=window_s, clock=clock)
        self._card_locks: dict[int, asyncio.Lock] = {}

    # ---- wiring -----------------------------------------------------------------------------------------
    def routes(self) -> list[web.RouteDef]:
        """GET (URL verification) and POST (messages) on the callback path, to add to any aiohttp app."""
        return self.callback.routes(self._path)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=1024 * 1024)
        app.add_routes(self.routes())
        return app

    async def check_credentials(self) -> None:
        """Fetch a token now, so a wrong corp id or secret is reported at start, not at the first reply."""
        await self.api.token()

    async def close(self) -> None:
        await self.callback.close()
        await self.api.close()

    # ---- receiving --------------------------------------------------------------------------------------
    async def _on_callback_message(self, message: WeComMessage) -> None:
        inbound = await self._to_inbound(message)
        if inbound is not None:
            await self._on_message(inbound)

    async def _to_inbound(self, message: WeComMessage) -> Inbound | None:
        chat = ChatRef("wecom", message.from_user, "private")
        context: dict[str, object] = {"msgtype": message.msg_type, "agent_id": message.agent_id,
                                      "create_time": message.create_time}
        message_id = message.msg_id or f"{message.from_user}:{message.create_time}"
        if message.msg_type == "text":
            return Inbound(chat=chat, user_id=message.from_user, message_id=message_id,
                           text=(message.content or "").strip(), context=context)
        if message.msg_type == "file" and message.media_id:
            file = await self._inbound_file(message.from_user, message.media_id, message.file_name,
                                            message.file_size)
            return Inbound(chat=chat, user_id=message.from_user, message_id=message_id, file=file, context=context)
        if message.msg_type in WORDLESS_TYPES:  # nothing to read, but the user hears what the bot takes
            return Inbound(chat=chat, user_id=message.from_user, message_id=message_id, context=context)
        log.info("WeCom message %s of type %s (event %s) not handed on: text and file are handled",
                 message_id, message.msg_type, message.event)
        return None

    async def _inbound_file(self, user_id: str, media_id: str, name: str | None, size: int | None) -> InboundFile:
        if name:
            async def download(dest: Path) -> None:
                await self.api.download_media(media_id, dest, self._max_download)
            return InboundFile(name=name, size=size, download=download)
        if self._may_fetch is not None and not self._may_fetch(user_id):
            # a stranger's file: the core refuses it without reading it, so nothing is fetched (it used to be
            # downloaded before the allow-list check, a trial, S22 jg)
            return InboundFile(name="", size=size, download=_not_fetched)
        # no FileName in the message: the name is what media/get says, so fetch it before handing on. The bytes
        # are kept, not the folder: the core may never call download (a .pdf, a refusal), and a folder left to
        # it was never removed (a trial, S22 jg)
        with tempfile.TemporaryDirectory(prefix="wecom-media-") as folder:
            fetched = Path(folder) / "media"
            given = await self.api.download_media(media_id, fetched, self._max_download)
            content = await asyncio.to_thread(fetched.read_bytes)
        if not given:
            raise WeComApiError(f"media/get gave no file name for media {media_id}")

        async def write(dest: Path) -> None:
            await asyncio.to_thread(dest.write_bytes, content)
        return InboundFile(name=given, size=len(content), download=write)

    # ---- sending ----------------------------------------------------------------------------------------
    async def send_text(self, chat: ChatRef, text: str) -> list[SentMessage]:
        """Plain text, split into messages of at most 2,048 UTF-8 bytes (WeCom would cut the rest)."""
        _check_chat(chat)
        parts = _split(text, TEXT_MAX_BYTES)
        return [await self.api.send(chat, "text", {"content": part}) for part in parts]

    async def send_markdown(self, chat: ChatRef, title: str, text: str) -> list[SentMessage]:
        """Markdown (WeCom's subset), ``title`` as a bold first line; split like send_text."""
        _check_chat(chat)
        body = f"**{title}**\n{text}" if title else text
        parts = _split(body, MARKDOWN_MAX_BYTES)
        return [await self.api.send(chat, "markdown", {"content": part}) for part in parts]

    async def send_file(self, chat: ChatRef, path: Path, name: str | None = None) -> SentMessage:
        _check_chat(chat)
        name = name or path.name
        content = await asyncio.to_thread(path.read_bytes)
        media_id = await self.api.upload_file(name, content)
        return await self.api.send(chat, "file", {"media_id": media_id})

    async def send_card(self, chat: ChatRef, title: str, markdown: str) -> WeComCard:
        """A progress message (markdown, one message: longer content is refused, not split)."""
        _check_chat(chat)
        sent = await self.api.send(chat, "markdown", {"content": _card_body(title, markdown)})
        return WeComCard(chat=chat, title=title, msgid=sent.msgid)

    async def update_card(self, card: WeComCard, markdown: str, title: str | None = None) -> None:
        """Withdraw the card's message and send its new state (see the module docstring for why)."""
        lock = self._card_locks.setdefault(id(card), asyncio.Lock())
        async with lock:
            if title is not None:
                card.title = title
            sent = await self.api.send(card.chat, "markdown", {"content": _card_body(card.title, markdown)})
            old, card.msgid = card.msgid, sent.msgid
            try:
                await self.api.recall(old)
            except WeComApiError as exc:  # older than 24 h, or already withdrawn: the new state is sent anyway
                log.warning("could not withdraw WeCom progress message %s: %s", old, exc)

    async def send_template_card(self, chat: ChatRef, card: Mapping[str, object]) -> SentMessage:
        """A template_card message; ``response_code`` is set when WeCom lets it be replaced (once)."""
        _check_chat(chat)
        if chat.chat_type != "private":
            raise WeComError("template cards go to members (message/send), not to app chats")
        return await self.api.send(chat, "template_card", card)

    async def update_template_card(self, chat: ChatRef, sent: SentMessage, card: Mapping[str, object]) -> None:
        """Replace a sent template card, consuming its response_code (WeCom allows one use, within 72 h)."""
        if not sent.response_code:
            raise WeComError("this template card has no response_code: WeCom does not allow replacing it")
        await self.api.update_template_card([chat.chat_id], sent.response_code, card)


async def _not_fetched(dest: Path) -> None:
    raise WeComError("a file from a member the allow-list refuses is not fetched")


def _check_chat(chat: ChatRef) -> None:
    if chat.platform != "wecom":
        raise ValueError(f"a {chat.platform} chat handed to the WeCom client")


def _split(text: str, limit: int) -> list[str]:
    if not text.strip():
        raise ValueError("refusing to send an empty WeCom message")
    # numbered ("（续 2/17）"): a big summary came as ~17 messages that did not say they belonged together
    return split_numbered(text, lambda part: len(part.encode("utf-8")) <= limit)


def _card_body(title: str, markdown: str) -> str:
    body = f"**{title}**\n{markdown}" if title else markdown
    if len(body.encode("utf-8")) > MARKDOWN_MAX_BYTES:
        raise WeComError(f"a progress message is limited to {MARKDOWN_MAX_BYTES} bytes; this one is "
                         f"{len(body.encode('utf-8'))}")
    return body
