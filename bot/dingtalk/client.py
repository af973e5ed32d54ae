"""DingTalk enterprise internal robot over Stream mode, on the vendor's ``dingtalk-stream`` SDK.

Receiving: the SDK's DingTalkStreamClient gets the token, opens the connection (POST
/v1.0/gateway/connections/open -> endpoint + ticket), keeps the websocket and ACKs every frame; our
ChatbotHandler turns each robot message into an ``Inbound``. The ACK goes back at once and the core's
callback runs afterwards in its own task, so a slow /screen never holds the stream. A redelivered msgId
or a message older than the staleness window is acknowledged (so DingTalk stops) but not processed, and
a log line says which. msgIds are claimed in the shared Redis (bot/core/guard.py) for twice the window, so
a redelivery after a restart, or to a second bot process on the same app, is not processed either; when
Redis does not answer, the frame is answered 500 (not acknowledged as done) and nothing runs.

Sending: markdown and text go through the chat's sessionWebhook while DingTalk says it is valid (the body of
the SDK's reply_markdown / reply_text, @-mentioning the user the message is for: bot/dingtalk/webhook.py), else
through the robot APIs (oToMessages/batchSend for a private chat, groupMessages/send for a group, which
mention nobody). Files are uploaded with the SDK's upload_to_dingtalk and sent as a
sampleFile message. Progress cards are the SDK's MarkdownCardInstance (card instance create + deliver),
updated in place with PUT /v1.0/card/instances.

All blocking SDK calls (it uses ``requests``) run in worker threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dingtalk_stream

from bot.core.guard import ChatGuard, GuardUnavailable, skew_problem, ttl_for
from bot.core.inbound import ChatRef, Inbound
from bot.dingtalk import redact, webhook
from bot.dingtalk.errors import DingTalkApiError, DingTalkError
from bot.dingtalk.inbound import to_inbound
from bot.dingtalk.openapi import FILE_TYPES, MAX_BODY_BYTES, MAX_FILE_BYTES, RobotApi
from bot.dingtalk.settings import DingTalkCredentials
from screening.output.text import split_numbered

log = logging.getLogger(__name__)

MessageCallback = Callable[[Inbound], Awaitable[None]]


@dataclass(frozen=True)
class DingTalkCard:
    """A card sent with ``send_card``; hand it back to ``update_card`` to edit it in place."""

    chat: ChatRef
    out_track_id: str
    title: str


@dataclass(frozen=True)
class _SessionWebhook:
    url: str  # the chat's latest one: whom a reply mentions is the caller's (``at_user``), not its sender's
    expires_ms: int


class _ChatbotHandler(dingtalk_stream.ChatbotHandler):
    """The SDK's handler: its reply_* and get_image_download_url are used as they are."""

    def __init__(self, owner: DingTalkClient) -> None:
        super().__init__()
        self._owner = owner

    async def process(self, callback: Any) -> tuple[int, str]:
        return await self._owner._on_callback(callback)


class _StopNoise(logging.Filter):
    """While we stop the stream, the SDK logs its own cancellation as "[start] network exception" at ERROR;
    that line is expected then, so it is lowered to INFO (at any other time it stays an error)."""

    def __init__(self) -> None:
        super().__init__("dingtalk-stop-noise")
        self.stopping = False

    def filter(self, record: logging.LogRecord) -> bool:
        if self.stopping and record.levelno >= logging.ERROR and str(record.msg).startswith("[start] network"):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg = "DingTalk stream stopped on request (" + str(record.msg) + ")"
        return True


class DingTalkClient:
    """One DingTalk robot: receives chatbot messages as ``Inbound`` and sends markdown, files and cards."""

    def __init__(
        self,
        credentials: DingTalkCredentials,
        on_message: MessageCallback,
        guard: ChatGuard,
        *,
        stale_after_s: float = 300.0,
        webhook_margin_s: float = 120.0,
        robot_name: str | None = None,
        max_download_bytes: int = MAX_FILE_BYTES,
        http_timeout_s: float = 15.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._credentials = credentials
        self._on_message = on_message
        self._robot_name = robot_name
        self._webhook_margin_ms = int(webhook_margin_s * 1000)
        self._max_download = max_download_bytes
        self._http_timeout_s = http_timeout_s
        self._clock = clock
        if stale_after_s <= 0:
            raise ValueError("stale_after_s must be positive")
        self._guard = guard
        self._stale_after_s = stale_after_s
        self._sdk = dingtalk_stream.DingTalkStreamClient(
            dingtalk_stream.Credential(credentials.client_id, credentials.client_secret),
            logger=logging.getLogger("dingtalk_stream.client"),
        )
        self._handler = _ChatbotHandler(self)
        self._sdk.register_callback_handler(dingtalk_stream.ChatbotMessage.TOPIC, self._handler)
        self._api = RobotApi(self._sdk, credentials.robot_code, timeout_s=http_timeout_s)
        self._redactor = redact.SecretRedactor(self._secrets)
        self._stop_noise = _StopNoise()
        self._webhooks: dict[ChatRef, _SessionWebhook] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._card_locks: dict[str, asyncio.Lock] = {}
        self._stream: asyncio.Task[None] | None = None

    # ---- lifecycle --------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Check the credentials (a token), then run the SDK's stream loop in a task.

        The SDK's own loop only logs a refused connection and retries every 10 s forever, so a wrong
        secret is caught here first and raised as DingTalkAuthError.
        """
        if self._stream is not None:
            raise DingTalkError("DingTalkClient.start() called twice")
        redact.install(self._redactor)
        logging.getLogger("dingtalk_stream.client").addFilter(self._stop_noise)
        try:
            await asyncio.to_thread(self._api.token)
        except BaseException:
            redact.uninstall(self._redactor)
            logging.getLogger("dingtalk_stream.client").removeFilter(self._stop_noise)
            raise
        self._stream = asyncio.create_task(self._sdk.start(), name="dingtalk-stream")
        log.info("DingTalk stream starting for robot %s", self._credentials.robot_code)

    async def run(self) -> None:
        """start() and then run until cancelled or stop()ped (what a front's task awaits)."""
        await self.start()
        assert self._stream is not None
        try:
            await asyncio.shield(self._stream)
        except asyncio.CancelledError:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Stop the stream and cancel callbacks still running.

        The SDK's loop catches CancelledError once (it treats it as a network error and sleeps before
        reconnecting), so it is cancelled until it is really done.
        """
        stream, self._stream = self._stream, None
        self._stop_noise.stopping = True
        if stream is not None:
            while not stream.done():
                stream.cancel()
                await asyncio.wait([stream], timeout=0.2)
            with contextlib.suppress(BaseException):
                stream.result()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        redact.uninstall(self._redactor)
        logging.getLogger("dingtalk_stream.client").removeFilter(self._stop_noise)

    @property
    def connected(self) -> bool:
        """True while the SDK holds an open websocket to the gateway."""
        ws = getattr(self._sdk, "websocket", None)
        return ws is not None and getattr(getattr(ws, "state", None), "name", "") == "OPEN"

    async def wait_connected(self, timeout_s: float = 10.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not self.connected:
            if self._stream is not None and self._stream.done():
                raise DingTalkError("the DingTalk stream task ended before it connected")
            if time.monotonic() > deadline:
                raise DingTalkError(f"no DingTalk stream connection after {timeout_s:.0f} s")
            await asyncio.sleep(0.02)

    # ---- receiving --------------------------------------------------------------------------------------
    async def _on_callback(self, callback: Any) -> tuple[int, str]:
        """Runs inside the SDK's frame handling: decide quickly, ACK, process later."""
        try:
            message = dingtalk_stream.ChatbotMessage.from_dict(callback.data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            log.warning("DingTalk robot message not understood (%s: %s); acknowledged, not processed",
                        type(exc).__name__, exc)
            return dingtalk_stream.AckMessage.STATUS_BAD_REQUEST, "malformed robot message"
        try:
            refusal = await self._admit(message.message_id, message.create_at)
        except GuardUnavailable as exc:
            log.warning("DingTalk message %s not taken, answered 500 for a redelivery: %s", message.message_id, exc)
            return dingtalk_stream.AckMessage.STATUS_SYSTEM_EXCEPTION, "duplicate guard unavailable, retry"
        if refusal is not None:
            log.warning("DingTalk message refused, not processed: %s", refusal)
            return dingtalk_stream.AckMessage.STATUS_OK, "OK"
        inbound = to_inbound(message, self._downloader, self._robot_name)
        if isinstance(inbound, str):
            log.info("DingTalk message %s not handed on: %s", message.message_id, inbound)
            return dingtalk_stream.AckMessage.STATUS_OK, "OK"
        self._remember_webhook(inbound.chat, message)
        task = asyncio.get_running_loop().create_task(self._deliver(inbound), name=f"dingtalk-{inbound.message_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return dingtalk_stream.AckMessage.STATUS_OK, "OK"

    async def _admit(self, msg_id: str | None, create_at_ms: int | None) -> str | None:
        """None when the message may be processed (its msgId is then claimed), else why it may not."""
        if not msg_id:
            return "it has no msgId, so a redelivery could not be recognised"
        if create_at_ms is None:
            return f"msgId {msg_id} has no createAt, so its age is unknown"
        problem = skew_problem(create_at_ms / 1000.0, self._clock(), self._stale_after_s)
        if problem is not None:
            return f"msgId {msg_id} is stale: createAt {problem}"
        ttl = ttl_for(self._stale_after_s)  # past that, createAt refuses it
        if not await asyncio.to_thread(self._guard.first, "delivery", f"msgid:{msg_id}", ttl):
            return f"msgId {msg_id} was already processed (redelivery)"
        return None

    async def _deliver(self, inbound: Inbound) -> None:
        try:
            await self._on_message(inbound)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the handler of DingTalk message %s failed", inbound.message_id)

    def _downloader(self, download_code: str, name: str) -> Callable[[Path], Awaitable[None]]:
        async def download(dest: Path) -> None:
            await asyncio.to_thread(self._api.download_message_file, self._handler, download_code, name, dest,
                                    self._max_download)
        return download

    def _remember_webhook(self, chat: ChatRef, message: Any) -> None:
        if message.session_webhook and message.session_webhook_expired_time:
            self._webhooks[chat] = _SessionWebhook(str(message.session_webhook),
                                                   int(message.session_webhook_expired_time))

    def _valid_webhook(self, chat: ChatRef) -> _SessionWebhook | None:
        hook = self._webhooks.get(chat)
        if hook is None:
            return None
        if hook.expires_ms - self._webhook_margin_ms <= int(self._clock() * 1000):
            del self._webhooks[chat]
            return None
        return hook

    # ---- sending ----------------------------------------------------------------------------------------
    async def send_markdown(self, chat: ChatRef, title: str, text: str, *, at_user: str | None = None) -> None:
        """Markdown to a chat, split at line breaks into messages that fit DingTalk's size limit, the parts after
        the first numbered ("（续 2/3）").

        ``title`` is what DingTalk shows in the notification and the chat list, not in the message. ``at_user``
        is the user it is for (the asker; a job's results: its owner), @-mentioned when it goes through the
        session webhook; None mentions nobody.
        """
        _check_chat(chat)
        if not text.strip():
            raise ValueError("refusing to send an empty DingTalk message")
        at = webhook.at_ids(at_user)

        def fits(part: str) -> bool:
            return self._fits(chat, "sampleMarkdown", {"title": title, "text": part}, at)

        for part in split_numbered(text, fits, sep="  \n"):  # DingTalk joins single newlines
            await self._send_one(chat, "sampleMarkdown", {"title": title, "text": part}, at)

    async def send_text(self, chat: ChatRef, text: str, *, at_user: str | None = None) -> None:
        """Plain text (no markdown rendering), split and @-mentioning like send_markdown."""
        _check_chat(chat)
        if not text.strip():
            raise ValueError("refusing to send an empty DingTalk message")
        at = webhook.at_ids(at_user)
        for part in split_numbered(text, lambda p: self._fits(chat, "sampleText", {"content": p}, at)):
            await self._send_one(chat, "sampleText", {"content": part}, at)

    def _fits(self, chat: ChatRef, msg_key: str, param: dict[str, str], at: list[str]) -> bool:
        if not self._api.message_fits(chat, msg_key, param):
            return False
        return webhook.body_bytes(webhook.webhook_body(msg_key, param, at)) <= MAX_BODY_BYTES

    async def _send_one(self, chat: ChatRef, msg_key: str, param: dict[str, str], at: list[str]) -> None:
        hook = self._valid_webhook(chat)
        if hook is not None:
            answer = await asyncio.to_thread(webhook.post, hook.url, webhook.webhook_body(msg_key, param, at),
                                             self._http_timeout_s)
            if answer is None:  # no answer at all: it may have arrived, so no second copy through the API
                raise DingTalkApiError(f"the session webhook of {chat.chat_id} failed (no answer; "
                                       "the bot.dingtalk.webhook log has the error)")
            if answer.get("errcode") == 0:
                return
            log.warning("DingTalk session webhook of %s refused the message (errcode %s: %s); "
                        "sending through the robot API", chat.chat_id, answer.get("errcode"), answer.get("errmsg"))
            self._webhooks.pop(chat, None)
        await asyncio.to_thread(self._api.send, chat, msg_key, param)

    async def send_file(self, chat: ChatRef, path: Path, name: str | None = None) -> None:
        """Upload ``path`` (media/upload, type file) and send it as a file message named ``name``."""
        _check_chat(chat)
        name = name or path.name
        ext = Path(name).suffix.lower().lstrip(".")
        if ext not in FILE_TYPES:
            raise DingTalkError(f"DingTalk file messages take {', '.join(sorted(FILE_TYPES))} files; "
                                f"{name!r} is .{ext or '(no extension)'}")
        content = await asyncio.to_thread(path.read_bytes)
        if not content:
            raise DingTalkError(f"{name!r} is empty; DingTalk does not take empty files")
        if len(content) > MAX_FILE_BYTES:
            raise DingTalkError(f"{name!r} is {len(content)} bytes, over DingTalk's {MAX_FILE_BYTES}-byte file limit")
        media_id = await asyncio.to_thread(self._api.upload_file, content, name)
        await asyncio.to_thread(self._api.send, chat, "sampleFile",
                                {"mediaId": media_id, "fileName": name, "fileType": ext})

    async def send_card(self, chat: ChatRef, title: str, markdown: str) -> DingTalkCard:
        """An interactive markdown card (the SDK's MarkdownCardInstance: create + deliver)."""
        _check_chat(chat)
        if chat.chat_type == "private":
            target = dingtalk_stream.reply_specified_single_chat(chat.chat_id)
        else:
            target = dingtalk_stream.reply_specified_group_chat(chat.chat_id)
        instance = dingtalk_stream.MarkdownCardInstance(self._sdk, target)
        instance.set_title_and_logo(title, "")
        await asyncio.to_thread(self._api.token)
        await asyncio.to_thread(instance.reply, markdown)
        if not instance.card_instance_id:
            raise DingTalkApiError(f"DingTalk refused to create or deliver a card to {chat.chat_id} "
                                   "(the dingtalk_stream.card_replier log has DingTalk's answer)")
        return DingTalkCard(chat=chat, out_track_id=str(instance.card_instance_id), title=title)

    async def update_card(self, card: DingTalkCard, markdown: str, title: str | None = None) -> None:
        """Replace the card's content in place; updates of one card are applied in the order they are made."""
        lock = self._card_locks.setdefault(card.out_track_id, asyncio.Lock())
        async with lock:
            params = {"markdown": markdown, "title": title if title is not None else card.title}
            await asyncio.to_thread(self._api.put_card, card.out_track_id, params)

    # ---- secrets ----------------------------------------------------------------------------------------
    def _secrets(self) -> list[str]:
        values = [self._credentials.client_secret]
        token = self._api.current_token()
        if token:
            values.append(token)
        return values


def _check_chat(chat: ChatRef) -> None:
    if chat.platform != "dingtalk":
        raise ValueError(f"a {chat.platform} chat handed to the DingTalk client")
