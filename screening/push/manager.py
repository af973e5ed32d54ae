"""The push manager: builds the configured channels from ``[[digest.targets]]`` and fans a digest out.

freqtrade's rpc_manager shape: the vendor modules each own their format and limits; this module
only knows which vendor a target names, where its URL and secret come from (the environment),
and that one failing channel must never stop the others.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

from screening.config import DigestSettings, PushTarget
from screening.digest.model import Digest
from screening.push.base import Channel, SendOutcome, WebhookChannel, log_outcome
from screening.push.dingtalk import DingTalkChannel
from screening.push.feishu import FeishuChannel
from screening.push.wecom import WeComChannel

log = logging.getLogger("screening.push")


def target_url(target: PushTarget, env: Mapping[str, str]) -> str:
    return (env.get(target.url_env, "") if target.url_env else "") or target.url


def make_channel(target: PushTarget, ds: DigestSettings, env: Mapping[str, str] | None = None,
                 client: httpx.AsyncClient | None = None, clock: Callable[[], float] = time.time) -> WebhookChannel:
    """One webhook channel; a missing URL or secret becomes a channel that reports the problem on send."""
    env = os.environ if env is None else env
    url = target_url(target, env)
    secret = env.get(target.secret_env) if target.secret_env else None
    problem = None
    if not url:
        problem = f"no webhook URL (set {target.url_env or 'url'} for target {target.name!r})"
    elif target.secret_env and not secret:
        problem = f"signing secret missing: environment variable {target.secret_env} is not set"
    kwargs: dict[str, Any] = {"attempts": ds.push_attempts, "backoff_s": ds.push_backoff_s,
                              "timeout_s": ds.push_timeout_s, "client": client, "clock": clock,
                              "config_error": problem}
    if target.kind == "wecom":
        return WeComChannel(target.name, url, None, ds=ds, **kwargs)
    if target.kind == "feishu":
        return FeishuChannel(target.name, url, secret, ds=ds, msg_type=target.msg_type, **kwargs)
    return DingTalkChannel(target.name, url, secret, ds=ds, **kwargs)


def make_channels(ds: DigestSettings, env: Mapping[str, str] | None = None, client: httpx.AsyncClient | None = None,
                  clock: Callable[[], float] = time.time) -> list[WebhookChannel]:
    """The enabled ``[[digest.targets]]`` as channels."""
    quiet_httpx()
    return [make_channel(t, ds, env, client, clock) for t in ds.targets if t.enabled]


def quiet_httpx() -> None:
    """httpx logs each request URL at INFO, and webhook URLs carry access tokens."""
    for name in ("httpx", "httpcore"):
        logger = logging.getLogger(name)
        if logger.level < logging.WARNING:
            logger.setLevel(logging.WARNING)


async def send_each(pairs: Sequence[tuple[Channel, Digest]]) -> list[SendOutcome]:
    """Send concurrently; a channel that raises anyway becomes a failed outcome, the others go on."""
    results = await asyncio.gather(*(ch.send(d) for ch, d in pairs), return_exceptions=True)
    out = []
    for (ch, d), res in zip(pairs, results, strict=True):
        if isinstance(res, BaseException):
            res = SendOutcome(getattr(ch, "name", "?"), getattr(ch, "kind", "?"), 0, 0, 0,
                              f"{type(res).__name__}: {res}")
            log_outcome(res, d)
        out.append(res)
    return out
