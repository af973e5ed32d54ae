"""WeCom's server API for a self-built app: gettoken, message/send, appchat/send, media, template cards.

The access token is cached until shortly before WeCom's ``expires_in`` and fetched again when WeCom
answers 40014 (invalid) or 42001 (expired), once per call. The token travels in the query string, so no
URL is ever put into an error message or a log line.

What an app may send (message/send): text, image, voice, video, file, textcard, news, mpnews, markdown,
miniprogram_notice, template_card. text and markdown content: at most 2,048 UTF-8 bytes (WeCom cuts text
longer than that, so we split before). markdown renders only in the WeCom client. Files: media/upload
with type=file, more than 5 bytes and at most 20 MB, then a ``file`` message. A template card can be
replaced once per response_code (message/update_template_card, 72 h; the code comes with the send, and
again with each user click on the card); ``recall`` withdraws an app message sent in the last 24 h.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import aiohttp

from bot.core.inbound import ChatRef
from bot.wecom.errors import WeComApiError, WeComAuthError

log = logging.getLogger(__name__)

DEFAULT_API_BASE = "https://qyapi.weixin.qq.com"
TEXT_MAX_BYTES = 2048
MARKDOWN_MAX_BYTES = 2048
FILE_MIN_BYTES = 6
FILE_MAX_BYTES = 20 * 1024 * 1024
TOKEN_ERRCODES = frozenset({40014, 42001})
APP_MSGTYPES = frozenset({"text", "image", "voice", "video", "file", "textcard", "news", "mpnews", "markdown",
                          "miniprogram_notice", "template_card"})
APPCHAT_MSGTYPES = frozenset({"text", "image", "voice", "video", "file", "textcard", "news", "mpnews", "markdown"})
_FILENAME = re.compile(r"""filename\*?=(?:UTF-8'')?"?([^";]+)"?""", re.IGNORECASE)


@dataclass(frozen=True)
class SentMessage:
    """What message/send answered: the msgid (for recall) and, for a callable template card, its response_code."""

    msgid: str
    response_code: str | None = None


class WeComApi:
    def __init__(self, corp_id: str, agent_id: int, secret: str, *, api_base: str = DEFAULT_API_BASE,
                 timeout_s: float = 15.0, clock: Callable[[], float] = time.time) -> None:
        self._corp_id = corp_id
        self._agent_id = agent_id
        self._secret = secret
        self._base = api_base.rstrip("/")
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._clock = clock
        self._session: aiohttp.ClientSession | None = None
        self._token: str | None = None
        self._token_expires = 0.0
        self._token_lock = asyncio.Lock()

    @property
    def agent_id(self) -> int:
        return self._agent_id

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        return self._session

    def current_token(self) -> str | None:
        return self._token

    # ---- token ------------------------------------------------------------------------------------------
    async def token(self) -> str:
        async with self._token_lock:
            if self._token and self._clock() < self._token_expires:
                return self._token
            body = await self._request("GET", "/cgi-bin/gettoken",
                                       params={"corpid": self._corp_id, "corpsecret": self._secret})
            if body.get("errcode", 0) != 0 or not body.get("access_token"):
                raise WeComAuthError(f"gettoken refused the corp id / app secret: errcode {body.get('errcode')}: "
                                     f"{body.get('errmsg', '')}")
            self._token = str(body["access_token"])
            expires_in = int(body.get("expires_in", 7200))
            self._token_expires = self._clock() + max(expires_in - 300, expires_in // 2)
            return self._token

    def _forget_token(self, stale: str) -> None:
        if self._token == stale:
            self._token = None

    # ---- transport --------------------------------------------------------------------------------------
    async def _request(self, method: str, path: str, *, params: Mapping[str, str],
                       json: Any = None, data: Any = None) -> dict[str, Any]:
        try:
            async with self._http().request(method, self._base + path, params=params, json=json,
                                            data=data) as response:
                if response.status != 200:
                    raise WeComApiError(f"{path}: HTTP {response.status}")
                payload = await response.json(content_type=None)
        except aiohttp.ClientError as exc:
            raise WeComApiError(f"{path} failed: {type(exc).__name__}") from None
        except ValueError:
            raise WeComApiError(f"{path}: the answer is not JSON") from None
        if not isinstance(payload, dict):
            raise WeComApiError(f"{path}: the answer is not a JSON object")
        return payload

    async def call(self, path: str, *, json: Any = None, data: Any = None, params: Mapping[str, str] | None = None,
                   method: str = "POST") -> dict[str, Any]:
        """Call ``path`` with the access token; one retry with a new token on 40014/42001."""
        for attempt in (1, 2):
            token = await self.token()
            body = await self._request(method, path, params={**(params or {}), "access_token": token},
                                       json=json, data=data() if callable(data) else data)
            code = int(body.get("errcode", 0))
            if code in TOKEN_ERRCODES and attempt == 1:
                log.info("WeCom answered errcode %s to %s; fetching a new access token", code, path)
                self._forget_token(token)
                continue
            if code != 0:
                raise WeComApiError(f"{path} refused: errcode {code}: {body.get('errmsg', '')}", code)
            return body
        raise AssertionError("unreachable")

    # ---- messages ---------------------------------------------------------------------------------------
    async def send(self, chat: ChatRef, msgtype: str, payload: Mapping[str, object]) -> SentMessage:
        if chat.chat_type == "group":
            if msgtype not in APPCHAT_MSGTYPES:
                raise WeComApiError(f"appchat/send does not take msgtype {msgtype}")
            body: dict[str, object] = {"chatid": chat.chat_id, "msgtype": msgtype, msgtype: dict(payload), "safe": 0}
            answer = await self.call("/cgi-bin/appchat/send", json=body)
            return SentMessage(msgid=str(answer.get("msgid", "")))
        if msgtype not in APP_MSGTYPES:
            raise WeComApiError(f"message/send does not take msgtype {msgtype}")
        body = {"touser": chat.chat_id, "msgtype": msgtype, "agentid": self._agent_id, msgtype: dict(payload),
                "safe": 0, "enable_duplicate_check": 0}
        answer = await self.call("/cgi-bin/message/send", json=body)
        invalid = [u for u in str(answer.get("invaliduser", "")).split("|") if u]
        if chat.chat_id in invalid:
            raise WeComApiError(f"message/send: user {chat.chat_id} is invalid or outside the app's visible range")
        msgid = answer.get("msgid")
        if not msgid:
            raise WeComApiError("message/send: no msgid in WeCom's answer, so it was not sent")
        code = answer.get("response_code")
        return SentMessage(msgid=str(msgid), response_code=str(code) if code else None)

    async def recall(self, msgid: str) -> None:
        await self.call("/cgi-bin/message/recall", json={"msgid": msgid})

    async def update_template_card(self, user_ids: list[str], response_code: str,
                                   card: Mapping[str, object]) -> None:
        body = {"userids": user_ids, "agentid": self._agent_id, "response_code": response_code,
                "template_card": dict(card)}
        await self.call("/cgi-bin/message/update_template_card", json=body)

    # ---- media ------------------------------------------------------------------------------------------
    async def upload_file(self, name: str, content: bytes) -> str:
        if not FILE_MIN_BYTES <= len(content) <= FILE_MAX_BYTES:
            raise WeComApiError(f"{name!r} is {len(content)} bytes; WeCom takes files of "
                                f"{FILE_MIN_BYTES} to {FILE_MAX_BYTES} bytes")

        def form() -> aiohttp.FormData:
            # WeCom shows the filename as sent: raw UTF-8, not aiohttp's default percent-encoding
            data = aiohttp.FormData(quote_fields=False)
            data.add_field("media", content, filename=name, content_type="application/octet-stream")
            return data

        answer = await self.call("/cgi-bin/media/upload", data=form, params={"type": "file"})
        media_id = answer.get("media_id")
        if not media_id:
            raise WeComApiError(f"media/upload of {name!r}: no media_id in WeCom's answer")
        return str(media_id)

    async def download_media(self, media_id: str, dest: Path, max_bytes: int = FILE_MAX_BYTES) -> str | None:
        """media/get into ``dest``; returns the file name WeCom gives in Content-Disposition, if any."""
        for attempt in (1, 2):
            token = await self.token()
            try:
                async with self._http().get(self._base + "/cgi-bin/media/get",
                                            params={"access_token": token, "media_id": media_id}) as response:
                    if response.status != 200:
                        raise WeComApiError(f"media/get: HTTP {response.status}")
                    if response.content_type in ("application/json", "text/plain"):
                        body = await response.json(content_type=None)
                        code = int(body.get("errcode", 0)) if isinstance(body, dict) else -1
                        if code in TOKEN_ERRCODES and attempt == 1:
                            self._forget_token(token)
                            continue
                        raise WeComApiError(f"media/get refused: errcode {code}: "
                                            f"{body.get('errmsg', '') if isinstance(body, dict) else ''}", code)
                    size = 0
                    with dest.open("wb") as out:
                        async for chunk in response.content.iter_chunked(64 * 1024):
                            size += len(chunk)
                            if size > max_bytes:
                                raise WeComApiError(f"media {media_id} is larger than {max_bytes} bytes")
                            out.write(chunk)
                    match = _FILENAME.search(response.headers.get("Content-Disposition", ""))
                    if match is None:
                        return None
                    return unquote(match.group(1))
            except aiohttp.ClientError as exc:
                raise WeComApiError(f"media/get failed: {type(exc).__name__}") from None
        raise AssertionError("unreachable")
