"""WeCom self-built app settings, read from the environment only (never from config files, never logged)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.wecom.crypto import WeComCrypto, WeComCryptoError
from bot.wecom.errors import WeComConfigError

ENV_PREFIX = "SCREENER_WECOM__"
_KEYS = ("CORP_ID", "AGENT_ID", "SECRET", "TOKEN", "ENCODING_AES_KEY")


@dataclass(frozen=True)
class WeComSettings:
    """CorpID, the app's AgentId and Secret, and the callback's Token and EncodingAESKey."""

    corp_id: str
    agent_id: int
    secret: str = field(repr=False)
    token: str = field(repr=False)
    encoding_aes_key: str = field(repr=False)

    def __post_init__(self) -> None:
        for name in ("corp_id", "secret", "token", "encoding_aes_key"):
            if not str(getattr(self, name)).strip():
                raise WeComConfigError(f"WeCom {name} is empty")
        try:
            self.crypto()
        except WeComCryptoError as exc:
            raise WeComConfigError(f"WeCom callback settings: {exc}") from None

    def crypto(self) -> WeComCrypto:
        return WeComCrypto(token=self.token, encoding_aes_key=self.encoding_aes_key, receive_id=self.corp_id)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, prefix: str = ENV_PREFIX) -> WeComSettings:
        """Read ``{prefix}CORP_ID``, ``AGENT_ID``, ``SECRET``, ``TOKEN``, ``ENCODING_AES_KEY``."""
        env = os.environ if environ is None else environ
        values: dict[str, str] = {}
        for key in _KEYS:
            value = env.get(prefix + key, "").strip()
            if not value:
                raise WeComConfigError(f"environment variable {prefix + key} is not set (WeCom app settings)")
            values[key] = value
        try:
            agent_id = int(values["AGENT_ID"])
        except ValueError:
            raise WeComConfigError(f"environment variable {prefix}AGENT_ID is not an integer") from None
        return cls(corp_id=values["CORP_ID"], agent_id=agent_id, secret=values["SECRET"], token=values["TOKEN"],
                   encoding_aes_key=values["ENCODING_AES_KEY"])
