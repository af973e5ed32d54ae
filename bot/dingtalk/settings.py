"""DingTalk credentials, read from the environment only (never from config files, never logged)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.dingtalk.errors import DingTalkConfigError

ENV_PREFIX = "SCREENER_DINGTALK__"


@dataclass(frozen=True)
class DingTalkCredentials:
    """The enterprise internal app's ClientID (old name AppKey, also the robotCode) and ClientSecret."""

    client_id: str
    client_secret: str = field(repr=False)

    def __post_init__(self) -> None:
        if not self.client_id.strip():
            raise DingTalkConfigError("DingTalk client id is empty")
        if not self.client_secret.strip():
            raise DingTalkConfigError("DingTalk client secret is empty")

    @property
    def robot_code(self) -> str:
        """For an enterprise internal app's robot the robotCode is the ClientID (the SDK sends it as such)."""
        return self.client_id

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, prefix: str = ENV_PREFIX) -> DingTalkCredentials:
        """Read ``{prefix}CLIENT_ID`` and ``{prefix}CLIENT_SECRET``; a missing one is named in the error."""
        env = os.environ if environ is None else environ
        values: dict[str, str] = {}
        for key in ("CLIENT_ID", "CLIENT_SECRET"):
            name = prefix + key
            value = env.get(name, "").strip()
            if not value:
                raise DingTalkConfigError(f"environment variable {name} is not set (DingTalk app credentials)")
            values[key] = value
        return cls(client_id=values["CLIENT_ID"], client_secret=values["CLIENT_SECRET"])
