"""Feishu's HTTP event callback (deployments with a public URL) as an aiohttp handler.

The raw request goes to the SDK's own ``EventDispatcherHandler.do`` (lark-oapi 1.7.5), which decrypts
``encrypt`` with the Encrypt Key, checks the Verification Token, answers ``url_verification`` and
checks X-Lark-Signature. Read in that version's source, it leaves gaps this handler closes *before*
the SDK (and so before any bot code) runs:
* it decrypts and parses before checking the signature, and checks no signature at all when no
  Encrypt Key is configured; here the Encrypt Key and the token are required, and the signature is
  checked first, in constant time (the SDK compares with ``!=``);
* it has no timestamp window: a push older or newer than ``max_skew_s`` is refused;
* it has no replay memory: a signature seen before is refused (``FeishuEventRouter`` also drops a
  redelivered event_id / message_id, which is how Feishu's own retries are absorbed with a 200);
* it looks headers up case-sensitively in a plain dict: the three X-Lark headers are handed over
  under their canonical names, whatever case a proxy used.
A push without signature headers is accepted only if it decrypts to a ``url_verification`` carrying
this app's token (Feishu's URL check); every refusal answers 401 and logs why, without the secrets.
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

from bot.feishu.config import FeishuCredentials
from bot.feishu.crypto import decrypt_json, signature_ok
from bot.feishu.dedupe import MemoryDeduper
from bot.feishu.events import FeishuEventRouter

log = logging.getLogger(__name__)

MAX_SKEW_S = 300.0
MAX_BODY_BYTES = 1024 * 1024


class FeishuCallback:
    """``handle`` is the aiohttp handler; ``app(path)`` wraps it in an Application of its own."""

    def __init__(self, credentials: FeishuCredentials, router: FeishuEventRouter, *,
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
        self._signatures = MemoryDeduper(ttl_s=2 * max_skew_s + 60.0)

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
        if ts is not None and nonce is not None and sig is not None:
            refusal = self._check_signed(ts, nonce, sig, body)
            if refusal:
                return self._refuse(401, refusal)
            headers.update({LARK_REQUEST_TIMESTAMP: ts, LARK_REQUEST_NONCE: nonce, LARK_REQUEST_SIGNATURE: sig})
        elif not self._is_url_verification(body):
            return self._refuse(401, "unsigned request that is not this app's url_verification")
        raw = RawRequest()
        raw.uri = request.path
        raw.body = body
        raw.headers = headers
        resp = self._dispatcher.do(raw)
        if resp.status_code != 200:
            log.warning("Feishu callback: the SDK answered %s", resp.status_code)
        return web.Response(status=resp.status_code or 500, body=resp.content or b"",
                            content_type="application/json", charset="utf-8")

    def _check_signed(self, ts: str, nonce: str, sig: str, body: bytes) -> str:
        """Why the signed request is refused, or '' when it may go on; the order matters: nothing
        unauthenticated may fill the replay memory."""
        if not signature_ok(ts, nonce, self._encrypt_key, body, sig):
            return "signature mismatch"
        try:
            sent_at = float(ts)
        except ValueError:
            return "timestamp is not a number"
        if sent_at > 1e11:  # Feishu sends seconds; milliseconds are read as such rather than refused
            sent_at /= 1000.0
        if abs(self._clock() - sent_at) > self._max_skew_s:
            return f"timestamp {ts} outside the {self._max_skew_s:.0f} s window"
        if not self._signatures.first_time(sig):
            return "replayed request (signature seen before)"
        return ""

    def _is_url_verification(self, body: bytes) -> bool:
        try:
            event = decrypt_json(body, self._encrypt_key)
        except ValueError:
            return False
        token = event.get("token")
        return (event.get("type") == "url_verification" and isinstance(token, str)
                and hmac.compare_digest(token.encode(), self._token.encode()))

    @staticmethod
    def _refuse(status: int, why: str) -> web.Response:
        log.warning("Feishu callback refused: %s", why)
        return web.json_response({"msg": why}, status=status)
