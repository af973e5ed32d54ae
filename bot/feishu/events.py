"""Feishu events to the core's neutral shapes, delivered once, on the bot's own event loop.

The SDK's EventDispatcherHandler calls the registered handlers synchronously: from the long
connection's own thread (its private event loop, see longconn.py) or from the aiohttp handler of the
HTTP callback. A handler here only parses, dedupes and *schedules* the async callback on the bot's
loop with ``asyncio.run_coroutine_threadsafe``, then returns at once, so the SDK answers Feishu
within its 3-second window however long the command takes, and the SDK's loop never runs bot code.

What becomes an ``Inbound``: ``im.message.receive_v1`` from a user, with
* text: ``content.text`` with the @bot mention placeholder removed and other mentions as ``@name``;
* post (rich text): its text, link and mention elements, one line per paragraph;
* file: the file's name and a ``download`` that fetches it through message_resource;
* anything else (image, sticker, ...): empty text, ``context["feishu_message_type"]`` says what it was.
In a group, text and posts that do not mention the bot are ignored (an app granted "read all group
messages" would otherwise answer every remark); files always pass, a group cannot @ a file.
A card button press (``card.action.trigger``) becomes a ``CardAction``.

Each event_id (and a message's message_id) is claimed once in the shared Redis (bot/core/guard.py) for
twice Feishu's redelivery window: Feishu redelivers an event whose push it thinks failed (no answer
within 3 s, or a non-200) after 15 s, 5 min, 1 h and 6 h with the same event_id, and a reconnecting long
connection may hand the same message again, to this process or, after a restart, to another. When Redis
does not answer, the handler raises ``GuardUnavailable`` (the SDK answers the frame 500, so Feishu
redelivers); under ``capture_guard_failures`` (the HTTP callback) it is recorded instead, for the
callback to answer 503.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import lark_oapi as lark
from lark_oapi.api.im.v1 import P2ImMessageReceiveV1
from lark_oapi.event.callback.model.p2_card_action_trigger import P2CardActionTrigger, P2CardActionTriggerResponse
from pydantic import BaseModel, ConfigDict, ValidationError

from bot.core.guard import ChatGuard, GuardUnavailable, ttl_for
from bot.core.inbound import ChatRef, ChatType, Inbound, InboundFile
from bot.feishu.cards import ACTION_KEY

log = logging.getLogger(__name__)

REDELIVERY_WINDOW_S = 8 * 3600.0  # Feishu's last retry comes about 6 h 20 min after the first push


class ResourceDownloader(Protocol):
    async def download_resource(self, message_id: str, file_key: str, dest: Path, *,
                                kind: Literal["file", "image"] = "file", max_bytes: int = ...) -> int: ...


@dataclass(frozen=True)
class CardAction:
    """A button press on one of the bot's cards. ``chat_type`` is None when this process has not seen a
    message from that chat (the callback does not say), so nobody guesses it."""

    chat_id: str
    chat_type: ChatType | None
    user_id: str
    message_id: str
    action: str
    event_id: str


class _TextContent(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str


class _FileContent(BaseModel):
    model_config = ConfigDict(extra="ignore")
    file_key: str
    file_name: str


class _PostBody(BaseModel):
    model_config = ConfigDict(extra="ignore")
    title: str = ""
    content: list[list[dict[str, Any]]] = []


_SPACES = re.compile(r"[ \t\u00a0\u3000]+")
_CHAT_TYPES: dict[str, ChatType] = {"p2p": "private", "group": "group", "topic_group": "group"}


def _tidy(text: str) -> str:
    return "\n".join(_SPACES.sub(" ", ln).strip() for ln in text.strip().splitlines()).strip()


@dataclass(frozen=True)
class _Mention:
    key: str
    open_id: str
    name: str


def _mentions(message: Any) -> list[_Mention]:
    out = []
    for m in message.mentions or []:
        open_id = (m.id.open_id if m.id is not None else None) or ""
        out.append(_Mention(key=m.key or "", open_id=open_id, name=m.name or ""))
    return out


def _strip_mentions(text: str, mentions: Sequence[_Mention], bot_open_id: str) -> tuple[str, bool]:
    """Remove the bot's placeholder(s), spell out the others; say whether the bot was mentioned."""
    mentioned = False
    for m in sorted(mentions, key=lambda x: len(x.key), reverse=True):  # @_user_10 before @_user_1
        if not m.key:
            continue
        if m.open_id == bot_open_id:
            mentioned = mentioned or m.key in text
            text = text.replace(m.key, " ")
        else:
            text = text.replace(m.key, f"@{m.name}" if m.name else " ")
    return _tidy(text), mentioned


def _post_text(raw: dict[str, Any], mentions: Sequence[_Mention], bot_open_id: str) -> tuple[str, bool]:
    """The receive-side post is ``{title, content}``, or the same under a locale key (zh_cn, en_us)."""
    body = raw if "content" in raw else next((v for v in raw.values() if isinstance(v, dict)), {})
    post = _PostBody.model_validate(body)
    by_key = {m.key: m for m in mentions}
    mentioned = False
    paragraphs = []
    for para in post.content:
        parts = []
        for el in para:
            tag = el.get("tag")
            if tag in ("text", "a", "md", "code_block"):
                parts.append(str(el.get("text", "")))
            elif tag == "at":
                m = by_key.get(str(el.get("user_id", "")))
                if m is not None and m.open_id == bot_open_id:
                    mentioned = True
                else:
                    name = (m.name if m else "") or str(el.get("user_name", ""))
                    parts.append(f"@{name}" if name else "")
        paragraphs.append("".join(parts))
    return _tidy("\n".join(paragraphs)), mentioned


def inbound_from_event(data: P2ImMessageReceiveV1, *, bot_open_id: str, downloader: ResourceDownloader,
                       require_mention_in_groups: bool = True) -> Inbound | None:
    """The neutral message, or None for what the core should not see (not from a user, not for the bot)."""
    event = data.event
    if event is None or event.message is None or event.sender is None:
        raise ValueError("im.message.receive_v1 without message or sender")
    msg, sender = event.message, event.sender
    if sender.sender_type != "user":
        return None
    user_id = sender.sender_id.open_id if sender.sender_id is not None else None
    if not user_id or not msg.chat_id or not msg.message_id:
        raise ValueError("message without sender open_id, chat_id or message_id")
    chat_type = _CHAT_TYPES.get(msg.chat_type or "")
    if chat_type is None:
        raise ValueError(f"unknown chat_type {msg.chat_type!r}")
    message_type = msg.message_type or ""
    context: dict[str, object] = {"feishu_message_type": message_type, "feishu_chat_type": msg.chat_type,
                                  "feishu_event_id": data.header.event_id if data.header else None}
    chat = ChatRef(platform="feishu", chat_id=msg.chat_id, chat_type=chat_type)
    content = msg.content or "{}"
    mentions = _mentions(msg)
    if message_type in ("text", "post"):
        if message_type == "text":
            text, mentioned = _strip_mentions(_TextContent.model_validate_json(content).text, mentions, bot_open_id)
        else:
            text, mentioned = _post_text(_loads_object(content), mentions, bot_open_id)
        if chat_type == "group" and require_mention_in_groups and not mentioned:
            return None
        return Inbound(chat=chat, user_id=user_id, message_id=msg.message_id, text=text, context=context,
                       addressed=chat_type != "group" or mentioned)
    if message_type == "file":
        fc = _FileContent.model_validate_json(content)
        message_id, file_key = msg.message_id, fc.file_key

        async def download(dest: Path) -> None:
            await downloader.download_resource(message_id, file_key, dest, kind="file")

        context["feishu_file_key"] = file_key
        return Inbound(chat=chat, user_id=user_id, message_id=message_id, context=context,
                       file=InboundFile(name=fc.file_name, size=None, download=download))
    if chat_type == "group" and require_mention_in_groups:  # a sticker or image carries no @-mention: in a group
        return None  # it is not for the bot (the core answers every group message it is handed)
    return Inbound(chat=chat, user_id=user_id, message_id=msg.message_id, context=context)


def _loads_object(content: str) -> dict[str, Any]:
    value = json.loads(content)
    if not isinstance(value, dict):
        raise ValueError("message content is not a JSON object")
    return value


class FeishuEventRouter:
    """Registers the handlers on an SDK EventDispatcherHandler and bridges them to the bot's loop.

    ``bot_open_id`` (``await FeishuClient.bot_open_id()``) must be known before the first event; the
    receivers call ``attach(loop)`` with the loop the callbacks run on.
    """

    def __init__(self, *, on_message: Callable[[Inbound], Awaitable[None]], downloader: ResourceDownloader,
                 bot_open_id: str, app_id: str, guard: ChatGuard,
                 on_action: Callable[[CardAction], Awaitable[None]] | None = None,
                 require_mention_in_groups: bool = True) -> None:
        if not bot_open_id:
            raise ValueError("the bot's open_id is needed to recognise @bot mentions")
        self._on_message = on_message
        self._on_action = on_action
        self._downloader = downloader
        self.bot_open_id = bot_open_id
        self.app_id = app_id
        self._guard = guard
        self._captured = threading.local()  # per thread: a list while a callback collects guard failures
        self._require_mention = require_mention_in_groups
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[concurrent.futures.Future[None]] = set()
        self._pending_lock = threading.Lock()
        self._chat_types: OrderedDict[str, ChatType] = OrderedDict()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def dispatcher(self, *, encrypt_key: str = "", verification_token: str = "") -> lark.EventDispatcherHandler:
        """The SDK's handler with this router's callbacks; the HTTP callback passes its keys, the long
        connection none (its frames are neither encrypted nor signed: the socket is authenticated)."""
        builder = lark.EventDispatcherHandler.builder(encrypt_key, verification_token)
        builder = builder.register_p2_im_message_receive_v1(self._handle_message)
        if self._on_action is not None:
            builder = builder.register_p2_card_action_trigger(self._handle_action)
        return builder.build()

    # -- SDK side (any thread) --------------------------------------------------------------------------
    def _foreign_app(self, header: Any) -> bool:
        app_id = getattr(header, "app_id", None)
        if app_id and app_id != self.app_id:
            log.warning("Feishu event for app %s ignored (this bot is %s)", app_id, self.app_id)
            return True
        return False

    @contextlib.contextmanager
    def capture_guard_failures(self) -> Iterator[list[GuardUnavailable]]:
        """While open (in this thread), a Redis failure of the guard is recorded instead of raised."""
        captured: list[GuardUnavailable] = []
        self._captured.failures = captured
        try:
            yield captured
        finally:
            self._captured.failures = None

    def _fresh(self, *keys: str) -> bool | None:
        """True for a first delivery, False for a repeat, None when Redis failed under capture."""
        try:
            return self._guard.first_all("delivery", keys, ttl_for(REDELIVERY_WINDOW_S))
        except GuardUnavailable as exc:
            captured = getattr(self._captured, "failures", None)
            if captured is None:
                log.warning("Feishu event not taken, answered 500 for a redelivery: %s", exc)
                raise
            captured.append(exc)
            return None

    def _handle_message(self, data: P2ImMessageReceiveV1) -> None:
        header = data.header
        event_id = (header.event_id if header else None) or ""
        msg = data.event.message if data.event else None
        message_id = (msg.message_id if msg else None) or ""
        if self._foreign_app(header):
            return
        if not event_id or not message_id:
            log.warning("Feishu message event without event_id or message_id ignored")
            return
        fresh = self._fresh(f"event:{event_id}", f"message:{message_id}")
        if not fresh:
            if fresh is False:
                log.info("Feishu event %s (message %s) redelivered: already handled", event_id, message_id)
            return
        try:
            inbound = inbound_from_event(data, bot_open_id=self.bot_open_id, downloader=self._downloader,
                                         require_mention_in_groups=self._require_mention)
        except (ValidationError, ValueError) as e:
            log.warning("Feishu message %s not understood: %s", message_id, e)
            return
        if msg is not None and msg.chat_id and inbound is not None:
            self._remember_chat(msg.chat_id, inbound.chat.chat_type)
        if inbound is not None:
            self._schedule(self._on_message(inbound), f"message {message_id}")

    def _handle_action(self, data: P2CardActionTrigger) -> P2CardActionTriggerResponse:
        header = data.header
        event_id = (header.event_id if header else None) or ""
        ev = data.event
        if self._foreign_app(header) or ev is None or self._on_action is None:
            return P2CardActionTriggerResponse({})
        value = ev.action.value if ev.action is not None else None
        action = value.get(ACTION_KEY) if isinstance(value, dict) else None
        user_id = ev.operator.open_id if ev.operator is not None else None
        chat_id = ev.context.open_chat_id if ev.context is not None else None
        message_id = ev.context.open_message_id if ev.context is not None else None
        if not (event_id and isinstance(action, str) and user_id and chat_id and message_id):
            log.warning("Feishu card action %s without action, operator, chat or message ignored", event_id)
            return P2CardActionTriggerResponse({})
        fresh = self._fresh(f"event:{event_id}")
        if not fresh:
            if fresh is False:
                log.info("Feishu card action %s redelivered: already handled", event_id)
            return P2CardActionTriggerResponse({})
        press = CardAction(chat_id=chat_id, chat_type=self._chat_types.get(chat_id), user_id=user_id,
                           message_id=message_id, action=action, event_id=event_id)
        self._schedule(self._on_action(press), f"card action {event_id}")
        return P2CardActionTriggerResponse({})

    def _remember_chat(self, chat_id: str, chat_type: ChatType) -> None:
        with self._pending_lock:
            self._chat_types[chat_id] = chat_type
            self._chat_types.move_to_end(chat_id)
            while len(self._chat_types) > 10_000:
                self._chat_types.popitem(last=False)

    def _schedule(self, coro: Awaitable[None], what: str) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            if asyncio.iscoroutine(coro):
                coro.close()
            raise RuntimeError("FeishuEventRouter is not attached to a running loop")
        fut = asyncio.run_coroutine_threadsafe(self._guarded(coro, what), loop)
        with self._pending_lock:
            self._pending.add(fut)
        fut.add_done_callback(self._done)

    def _done(self, fut: concurrent.futures.Future[None]) -> None:
        with self._pending_lock:
            self._pending.discard(fut)

    @staticmethod
    async def _guarded(coro: Awaitable[None], what: str) -> None:
        try:
            await coro
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("Feishu %s: the handler failed", what)

    # -- bot side ---------------------------------------------------------------------------------------
    async def drain(self, timeout_s: float = 10.0) -> None:
        """Wait for the callbacks already scheduled (on shutdown, so no accepted message is dropped)."""
        with self._pending_lock:
            pending = [asyncio.wrap_future(f) for f in self._pending]
        if pending:
            await asyncio.wait(pending, timeout=timeout_s)
