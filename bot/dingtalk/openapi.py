"""The DingTalk OpenAPI calls the SDK lacks (robot send APIs) or makes unsafely (card update, media upload),
plus the SDK calls it has (token, file download URL) wrapped so a refusal raises instead of logging.

All functions here are synchronous (``requests``, like the SDK) and run in a worker thread. The OpenAPI base
is the SDK's own ``DINGTALK_OPENAPI_ENDPOINT`` (read from the environment when the SDK is imported), so
our calls and the SDK's always go to the same place. The old-style oapi call (media/upload) goes to
``oapi_base()``: DingTalk's oapi host when that endpoint is DingTalk's own, else the configured endpoint
(a proxy or private gateway serves both). The access token is the SDK's cached one; a 401 (DingTalk's
answer to an expired or revoked token) resets the SDK's cache and the call is retried once.
"""

from __future__ import annotations

import json
import logging
import mimetypes
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from dingtalk_stream import utils as sdk_utils

from bot.core.inbound import ChatRef
from bot.dingtalk.errors import DingTalkApiError, DingTalkAuthError

log = logging.getLogger(__name__)

# The custom-robot and session-webhook body limit DingTalk documents is 20,000 bytes; we hold the robot
# API to the same bound (it documents none) and measure the exact body we send.
MAX_BODY_BYTES = 20_000
# media/upload: "普通文件(file) 20MB"; file messages (sampleFile) take these types only.
MAX_FILE_BYTES = 20 * 1024 * 1024
FILE_TYPES = frozenset({"xlsx", "pdf", "zip", "rar", "doc", "docx"})
USER_AGENT = "ashare-screener (+dingtalk-stream)"


DINGTALK_OPENAPI = "https://api.dingtalk.com"  # the SDK's default DINGTALK_OPENAPI_ENDPOINT
DINGTALK_OAPI = "https://oapi.dingtalk.com"  # where DingTalk documents media/upload


def openapi_base() -> str:
    return str(sdk_utils.DINGTALK_OPENAPI_ENDPOINT).rstrip("/")


def oapi_base() -> str:
    """Where oapi calls go: DingTalk's oapi host beside its own OpenAPI host, else the configured endpoint."""
    base = openapi_base()
    return DINGTALK_OAPI if base == DINGTALK_OPENAPI else base


def robot_message_body(robot_code: str, chat: ChatRef, msg_key: str, param: Mapping[str, object]) -> dict[str, Any]:
    """The body of oToMessages/batchSend (private chat: the user's staff id) or groupMessages/send."""
    body: dict[str, Any] = {
        "robotCode": robot_code,
        "msgKey": msg_key,
        "msgParam": json.dumps(param, ensure_ascii=False),
    }
    if chat.chat_type == "private":
        body["userIds"] = [chat.chat_id]
    else:
        body["openConversationId"] = chat.chat_id
    return body


def encode(body: Mapping[str, object]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@dataclass(frozen=True)
class _Answer:
    status: int
    body: dict[str, Any]


class RobotApi:
    """Synchronous DingTalk OpenAPI calls on behalf of one app (``sdk`` is its DingTalkStreamClient)."""

    def __init__(self, sdk: Any, robot_code: str, *, timeout_s: float = 15.0) -> None:
        self._sdk = sdk
        self._robot_code = robot_code
        self._timeout = timeout_s

    # ---- token ------------------------------------------------------------------------------------------
    def token(self) -> str:
        token = self._sdk.get_access_token()
        if not token:
            raise DingTalkAuthError(
                "DingTalk refused the app credentials (POST /v1.0/oauth2/accessToken failed; "
                "check the client id and client secret; the dingtalk_stream.client log has DingTalk's answer)"
            )
        return str(token)

    def current_token(self) -> str | None:
        cached = getattr(self._sdk, "_access_token", None) or {}
        value = cached.get("accessToken") if isinstance(cached, dict) else None
        return str(value) if value else None

    # ---- generic call -----------------------------------------------------------------------------------
    def call(self, method: str, path: str, body: Mapping[str, object]) -> dict[str, Any]:
        data = encode(body)
        if len(data) > MAX_BODY_BYTES:
            raise DingTalkApiError(f"{method} {path}: body is {len(data)} bytes, over {MAX_BODY_BYTES}")
        answer = self._send(method, path, data)
        if answer.status == 401:
            log.info("DingTalk answered 401 to %s %s; refreshing the access token and retrying once", method, path)
            self._sdk.reset_access_token()
            answer = self._send(method, path, data)
        if not 200 <= answer.status < 300:
            code = answer.body.get("code", "?")
            message = answer.body.get("message", "")
            raise DingTalkApiError(f"{method} {path} refused: HTTP {answer.status}, code {code}: {message}")
        return answer.body

    def _send(self, method: str, path: str, data: bytes) -> _Answer:
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "Accept": "application/json",
            "x-acs-dingtalk-access-token": self.token(),
            "User-Agent": USER_AGENT,
        }
        try:
            response = requests.request(method, openapi_base() + path, data=data, headers=headers,
                                        timeout=self._timeout)
        except requests.RequestException as exc:
            raise DingTalkApiError(f"{method} {path} failed: {type(exc).__name__}") from None
        try:
            parsed = response.json() if response.content else {}
        except ValueError:
            parsed = {"message": response.text[:200]}
        return _Answer(response.status_code, parsed if isinstance(parsed, dict) else {"result": parsed})

    # ---- robot messages ---------------------------------------------------------------------------------
    def message_fits(self, chat: ChatRef, msg_key: str, param: Mapping[str, object]) -> bool:
        return len(encode(robot_message_body(self._robot_code, chat, msg_key, param))) <= MAX_BODY_BYTES

    def send(self, chat: ChatRef, msg_key: str, param: Mapping[str, object]) -> str:
        """Send one robot message; returns DingTalk's processQueryKey (for recall / read status)."""
        body = robot_message_body(self._robot_code, chat, msg_key, param)
        if chat.chat_type == "private":
            path = "/v1.0/robot/oToMessages/batchSend"
            answer = self.call("POST", path, body)
            for key in ("invalidStaffIdList", "flowControlledStaffIdList"):
                if chat.chat_id in (answer.get(key) or []):
                    raise DingTalkApiError(f"POST {path}: user {chat.chat_id} is in {key}; the message was not sent")
        else:
            path = "/v1.0/robot/groupMessages/send"
            answer = self.call("POST", path, body)
        query_key = answer.get("processQueryKey")
        if not query_key:
            raise DingTalkApiError(f"POST {path}: no processQueryKey in DingTalk's answer, so it was not sent")
        return str(query_key)

    # ---- media ------------------------------------------------------------------------------------------
    def upload_file(self, content: bytes, name: str) -> str:
        """Upload as a file (oapi media/upload, type=file); returns the media id."""
        mimetype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        self.token()  # a credentials failure is reported as such, not as an upload failure
        try:
            return self._upload(content, name, mimetype)
        except DingTalkApiError as first:
            # oapi answers a stale token with errcode 40014 in a 200: reset the SDK's token cache, try once more
            log.info("media/upload of %s refused (%s); retrying once with a fresh token", name, first)
            self._sdk.reset_access_token()
            return self._upload(content, name, mimetype)

    def _upload(self, content: bytes, name: str, mimetype: str) -> str:
        """DingTalk's documented media upload (POST <oapi>/media/upload?access_token=..., multipart ``type``
        and ``media``; answer ``{errcode, errmsg, media_id}``), called here and not through the SDK's
        upload_to_dingtalk, which hard-codes https://oapi.dingtalk.com (dingtalk-stream 0.24.3, stream.py)
        and so would ignore the configured endpoint behind a proxy or a private gateway."""
        try:
            response = requests.post(oapi_base() + "/media/upload", params={"access_token": self.token()},
                                     data={"type": "file"}, files={"media": (name, content, mimetype)},
                                     headers={"User-Agent": USER_AGENT}, timeout=self._timeout)
        except requests.RequestException as exc:  # its message would carry the token in the URL
            raise DingTalkApiError(f"media/upload of {name} failed: {type(exc).__name__}") from None
        try:
            body = response.json()
        except ValueError:
            body = {"errmsg": response.text[:200]}
        body = body if isinstance(body, dict) else {}
        media_id = body.get("media_id")
        if response.status_code != 200 or body.get("errcode", 0) != 0 or not media_id:
            raise DingTalkApiError(f"media/upload of {name} refused: HTTP {response.status_code}, "
                                   f"errcode {body.get('errcode', '?')}: {body.get('errmsg', '')}")
        return str(media_id)

    def download_message_file(self, handler: Any, download_code: str, name: str, dest: Path,
                              max_bytes: int = MAX_FILE_BYTES) -> int:
        """robot/messageFiles/download (through the SDK) for the URL, then the bytes; returns the size."""
        self.token()
        url = handler.get_image_download_url(download_code)
        if not url:  # the SDK logs and returns "" on a refusal; one retry with a fresh token
            self._sdk.reset_access_token()
            url = handler.get_image_download_url(download_code)
        if not url:
            raise DingTalkApiError(
                f"robot/messageFiles/download refused the downloadCode of {name!r} "
                "(the dingtalk_stream.handler log has DingTalk's answer)"
            )
        size = 0
        try:
            with requests.get(url, stream=True, timeout=self._timeout) as response:
                if response.status_code != 200:
                    raise DingTalkApiError(f"download of {name!r} refused: HTTP {response.status_code}")
                with dest.open("wb") as out:
                    for chunk in response.iter_content(64 * 1024):
                        size += len(chunk)
                        if size > max_bytes:
                            raise DingTalkApiError(f"{name!r} is larger than {max_bytes} bytes; not downloaded")
                        out.write(chunk)
        except requests.RequestException as exc:  # the message would carry the signed URL: name the type only
            raise DingTalkApiError(f"download of {name!r} failed: {type(exc).__name__}") from None
        return size

    # ---- cards ------------------------------------------------------------------------------------------
    def put_card(self, out_track_id: str, params: Mapping[str, str]) -> None:
        """PUT /v1.0/card/instances, the call the SDK's put_card_data makes, but a refusal raises.

        The SDK's put_card_data logs a failure and returns None, so a progress card that stopped updating
        would look fine to the caller; the body and headers here are the SDK's (CardReplier).
        """
        body = {"outTrackId": out_track_id, "cardData": {"cardParamMap": dict(params)}}
        answer = self.call("PUT", "/v1.0/card/instances", body)
        if answer.get("success") is False:
            raise DingTalkApiError(f"PUT /v1.0/card/instances: DingTalk answered success=false for {out_track_id}")

