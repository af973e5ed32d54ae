"""Feishu's HTTP event callback (deployments with a public URL) as an aiohttp handler.

The raw request goes to the SDK's own ``EventDispatcherHandler.do`` (lark-oapi 1.7.5), which decrypts
``encrypt`` with the Encrypt Key, checks the Verification Token, answers ``url_verification`` and
checks X-Lark-Signature. Read in that version's source, it leaves gaps this handler closes *before*
the SDK (and so before any bot code) runs:
* it decrypts and parses before checking the signature, and checks no signature at all when no
  Encrypt Key is configured; here the Encrypt Key and the token are required, and the signature is
  checked first, in constant time (the SDK compares with ``!=``);
* it has no timestamp window: a push older or newer than ``max_skew_s`` is refused;
* it has no replay memory: a signature seen before is refused, claimed in the shared Redis for twice
  the window (bot/core/guard.py), so a replay after a restart or to a second bot process is refused
  too (``FeishuEventRouter`` also drops a redelivered event_id / message_id, which is how Feishu's own
  retries are absorbed with a 200);
* it answers a wrong Verification Token, an event it has no handler for, or any other failure with
  500 and an ERROR traceback (and Feishu retries a 500): the token is checked here first (401), an
  event type nobody subscribed to is acknowledged (200) without the SDK, and a Redis outage of the
  guard answers 503 so Feishu redelivers later;
* it looks headers up case-sensitively in a plain dict: the three X-Lark headers are handed over
  under their canonical names, whatever case a proxy used.
A push without signature headers is accepted only if it decrypts to a ``url_verification`` carrying
this app's token (Feishu's URL check); every refusal answers 401 (413 for an oversized body) with
one WARNING line saying why, without the secrets and without a traceback.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Callable

from aiohttp import web
from lark_oapi.core.const import LARK_REQUEST_NONCE, LARK_REQUEST_SIGNATURE, LARK_REQUEST_TIMESTAMP
from lark_oapi.core.model import RawRequest

from bot.core.guard import ChatGuard, GuardUnavailable, skew_problem, ttl_for
from bot.feishu.config import FeishuCredentials
from bot.feishu.crypto import decrypt_json, signature_ok
from bot.feishu.events import FeishuEventRouter

log = logging.getLogger(__name__)

MAX_SKEW_S = 300.0
MAX_BODY_BYTES = 1024 * 1024
# the events the router registers with the SDK (schema 2.0 header.event_type); others are acknowledged
HANDLED_EVENTS = frozenset({"im.message.receive_v1", "card.action.trigger", "url_verification"})


class _Refused(Exception):
    """A push this callback does not pass on: ``status`` and why."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status


class FeishuCallback:
    """``handle`` is the aiohttp handler; ``app(path)`` wraps it in an Application of its own."""

    def __init__(self, credentials: FeishuCredentials, router: FeishuEventRouter, guard: ChatGuard, *,
                 max_skew_s: float = MAX_SKEW_S, max_body_bytes: int = MAX_BODY_BYTES,
                 clock: Callable[[], float] = time.time) -> None:
        credentials.require_callback_secrets()
        self._encrypt_key = credentials.encrypt_key
        self._token = credentials.verification_token
        self._router = router
        self._dispatcher = router.dispatcher(encrypt_key=credentials.encrypt_key,
                                             verification_token=credentials.verification_token)
        self._max_skew_s = max_skew_s
        self._max_body_bytes = max_body_bytes
        self._clock = clock
        self._guard = guard

    def app(self, path: str = "/feishu/events") -> web.Application:
        app = web.Application(client_max_size=self._max_body_bytes)
        app.router.add_post(path, self.handle)
        return app

    async def handle(self, request: web.Request) -> web.Response:
        self._router.attach(asyncio.get_running_loop())
        if request.content_length is not None and request.content_length > self._max_body_bytes:
            return self._refuse(413, "body too large")
        body = await request.read()
        ts = request.headers.get(LARK_REQUEST_TIMESTAMP)
        nonce = request.headers.get(LARK_REQUEST_NONCE)
        sig = request.headers.get(LARK_REQUEST_SIGNATURE)
        headers: dict[str, str] = {k: v for k, v in request.headers.items()
                                   if k.lower() not in {h.lower() for h in (LARK_REQUEST_TIMESTAMP,
                                                                          LARK_REQUEST_NONCE, LARK_REQUEST_SIGNATURE)}}
        try:
            if ts is None or nonce is None or sig is None:
                if not self._is_url_verification(body):
                    raise _Refused(401, "unsigned request that is not this app's url_verification")
            else:
                await asyncio.to_thread(self._check_signed, ts, nonce, sig, body)
                headers.update({LARK_REQUEST_TIMESTAMP: ts, LARK_REQUEST_NONCE: nonce, LARK_REQUEST_SIGNATURE: sig})
                event_type = self._check_event(body)
                if event_type not in HANDLED_EVENTS:
                    log.info("Feishu event %s acknowledged, not handled (no handler subscribed)", event_type)
                    return web.json_response({"msg": "success"})
        except _Refused as refused:
            return self._refuse(refused.status, str(refused))
        except GuardUnavailable as exc:
            return self._refuse(503, f"{exc}; Feishu will redeliver", body="temporarily unavailable, retry")
        raw = RawRequest()
        raw.uri = request.path
        raw.body = body
        raw.headers = headers
        status, content, failure = await asyncio.to_thread(self._dispatch, raw)
        if failure is not None:
            return self._refuse(503, f"{failure}; Feishu will redeliver", body="temporarily unavailable, retry")
        if status != 200:
            log.warning("Feishu callback: the SDK answered %s", status)
        return web.Response(status=status or 500, body=content, content_type="application/json", charset="utf-8")

    def _dispatch(self, raw: RawRequest) -> tuple[int, bytes, GuardUnavailable | None]:
        """The SDK's handler, in a worker thread (it is synchronous and the router's guard calls Redis)."""
        with self._router.capture_guard_failures() as failures:
            resp = self._dispatcher.do(raw)
        return resp.status_code, resp.content or b"", failures[0] if failures else None

    def _check_signed(self, ts: str, nonce: str, sig: str, body: bytes) -> None:
        """Raise why the signed request is refused; the order matters: nothing unauthenticated may
        claim a key in the replay memory."""
        if not signature_ok(ts, nonce, self._encrypt_key, body, sig):
            raise _Refused(401, "signature mismatch")
        try:
            sent_at = float(ts)
        except ValueError:
            raise _Refused(401, "timestamp is not a number") from None
        if sent_at > 1e11:  # Feishu sends seconds; milliseconds are read as such rather than refused
            sent_at /= 1000.0
        if (problem := skew_problem(sent_at, self._clock(), self._max_skew_s)) is not None:
            raise _Refused(401, f"timestamp {ts}: {problem}")
        if not self._guard.first("request", f"signature:{sig}", ttl_for(self._max_skew_s)):
            raise _Refused(401, "replayed request (signature seen before)")

    def _check_event(self, body: bytes) -> str:
        """The signed event's type, once it decrypts and carries this app's Verification Token."""
        try:
            event = decrypt_json(body, self._encrypt_key)
        except ValueError as e:
            raise _Refused(401, f"signed body does not decrypt with the Encrypt Key ({e})") from None
        header = event.get("header")
        if not isinstance(header, dict):
            header = {}
        token = header.get("token", event.get("token"))
        if not (isinstance(token, str) and hmac.compare_digest(token.encode(), self._token.encode())):
            raise _Refused(401, "wrong Verification Token")
        v1 = event.get("event")
        event_type = header.get("event_type") or (v1.get("type") if isinstance(v1, dict) else None) or event.get("type")
        return str(event_type or "")

    def _is_url_verification(self, body: bytes) -> bool:
        try:
            event = decrypt_json(body, self._encrypt_key)
        except ValueError:
            return False
        token = event.get("token")
        return (event.get("type") == "url_verification" and isinstance(token, str)
                and hmac.compare_digest(token.encode(), self._token.encode()))

    @staticmethod
    def _refuse(status: int, why: str, body: str | None = None) -> web.Response:
        log.warning("Feishu callback refused (%s): %s", status, why)
        return web.json_response({"msg": body or why}, status=status)
