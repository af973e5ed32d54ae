"""The aiohttp handler of a WeCom self-built app's callback URL.

Order of checks on a POST, each before the next runs: the query has msg_signature/timestamp/nonce; the
timestamp is within the window; the body's Encrypt verifies against msg_signature; the (timestamp, nonce)
was not seen; then decryption (which checks the ReceiveId = CorpID); then the AgentID and ToUserName.
Only then is anything parsed into a message. WeCom waits 5 s for the answer and retries otherwise, so the
answer (an empty 200, WeCom's "no passive reply") goes back at once and the message is handed to
``on_message`` in a task afterwards. A retry of a MsgId already taken is answered the same way and dropped.

The (timestamp, nonce) pairs and MsgIds are claimed in the shared Redis (bot/core/guard.py), so a replay
after a restart, or to a second bot process, is refused too. When Redis does not answer, the callback
answers 503 and WeCom retries later: nothing is acted on without the guard.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.core.guard import ChatGuard, GuardUnavailable, skew_problem, ttl_for
from bot.wecom.crypto import SignatureError, WeComCrypto, WeComCryptoError, outer_encrypt
from bot.wecom.messages import WeComMessage, parse_message

log = logging.getLogger(__name__)

MessageHandler = Callable[[WeComMessage], Awaitable[None]]


def _refuse(status: int, reason: str) -> web.Response:
    log.warning("WeCom callback refused (%s): %s", status, reason)
    return web.Response(status=status, text=reason)


def _retry_later(exc: GuardUnavailable) -> web.Response:
    """503: WeCom retries; the reason (Redis's address) goes to the log, not to the caller."""
    log.warning("WeCom callback refused (503): %s; WeCom will retry", exc)
    return web.Response(status=503, text="temporarily unavailable, retry")


class WeComCallback:
    def __init__(self, crypto: WeComCrypto, agent_id: int, on_message: MessageHandler, guard: ChatGuard, *,
                 window_s: float = 300.0, clock: Callable[[], float] = time.time) -> None:
        self._crypto = crypto
        self._agent_id = str(agent_id)
        self._on_message = on_message
        self._guard = guard
        self._window_s = window_s
        self._ttl_s = ttl_for(window_s)
        self._clock = clock
        self._tasks: set[asyncio.Task[None]] = set()

    def routes(self, path: str) -> list[web.RouteDef]:
        return [web.get(path, self.handle_get), web.post(path, self.handle_post)]

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    @staticmethod
    def _params(request: web.Request, names: tuple[str, ...]) -> list[str] | None:
        values = [request.query.get(n, "") for n in names]
        return values if all(values) else None

    async def handle_get(self, request: web.Request) -> web.Response:
        """URL verification: answer echostr's plaintext, nothing else (no quotes, no newline)."""
        params = self._params(request, ("msg_signature", "timestamp", "nonce", "echostr"))
        if params is None:
            return _refuse(400, "msg_signature, timestamp, nonce and echostr are required")
        signature, timestamp, nonce, echostr = params
        if (stale := self._stale(timestamp)) is not None:
            return _refuse(403, stale)
        try:
            plain = self._crypto.verify_url(signature, timestamp, nonce, echostr)
        except SignatureError as exc:
            return _refuse(403, str(exc))
        except WeComCryptoError as exc:
            return _refuse(400, str(exc))
        log.info("WeCom callback URL verified")
        return web.Response(text=plain, content_type="text/plain")

    async def handle_post(self, request: web.Request) -> web.Response:
        params = self._params(request, ("msg_signature", "timestamp", "nonce"))
        if params is None:
            return _refuse(400, "msg_signature, timestamp and nonce are required")
        signature, timestamp, nonce = params
        if (stale := self._stale(timestamp)) is not None:
            return _refuse(403, stale)
        body = await request.read()
        try:
            encrypt = outer_encrypt(body)
            self._crypto.check_signature(signature, timestamp, nonce, encrypt)
        except SignatureError as exc:
            return _refuse(403, str(exc))
        except WeComCryptoError as exc:
            return _refuse(400, str(exc))
        try:
            first = await asyncio.to_thread(self._guard.first, "request", f"{timestamp}:{nonce}", self._ttl_s)
        except GuardUnavailable as exc:
            return _retry_later(exc)
        if not first:
            return _refuse(403, f"replayed request (timestamp {timestamp}, nonce {nonce} already seen)")
        try:
            message = parse_message(self._crypto.decrypt(encrypt))
        except WeComCryptoError as exc:
            return _refuse(403 if "ReceiveId" in str(exc) else 400, str(exc))
        if message.to_user != self._crypto.receive_id:
            return _refuse(403, f"ToUserName {message.to_user!r} is not our CorpID")
        if message.agent_id is not None and message.agent_id != self._agent_id:
            return _refuse(403, f"AgentID {message.agent_id} is not this app's")
        if message.msg_id is not None:
            try:
                first = await asyncio.to_thread(self._guard.first, "delivery", f"msgid:{message.msg_id}",
                                                self._ttl_s)
            except GuardUnavailable as exc:
                return _retry_later(exc)
            if not first:
                log.info("WeCom retried MsgId %s, already taken; answered, not processed again", message.msg_id)
                return web.Response(text="")
        task = asyncio.get_running_loop().create_task(self._deliver(message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return web.Response(text="")

    def _stale(self, timestamp: str) -> str | None:
        if not timestamp.isdigit():
            return f"timestamp {timestamp[:20]!r} is not a number"
        return skew_problem(int(timestamp), self._clock(), self._window_s)

    async def _deliver(self, message: WeComMessage) -> None:
        try:
            await self._on_message(message)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the handler of WeCom message %s failed", message.msg_id)
