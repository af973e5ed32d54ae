"""The Feishu app's credentials, read from the environment only (never config.toml, never logged).

``repr`` hides every secret so a credentials object can sit in a dataclass that gets logged.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.feishu.errors import FeishuConfigError

ENV_APP_ID = "SCREENER_FEISHU__APP_ID"
ENV_APP_SECRET = "SCREENER_FEISHU__APP_SECRET"
ENV_VERIFICATION_TOKEN = "SCREENER_FEISHU__VERIFICATION_TOKEN"
ENV_ENCRYPT_KEY = "SCREENER_FEISHU__ENCRYPT_KEY"


@dataclass(frozen=True)
class FeishuCredentials:
    """App id and secret (both modes); verification token and encrypt key (HTTP callback mode only)."""

    app_id: str
    app_secret: str = field(repr=False)
    verification_token: str = field(default="", repr=False)
    encrypt_key: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if not self.app_id.strip():
            raise FeishuConfigError(f"Feishu app id is empty (set {ENV_APP_ID})")
        if not self.app_secret.strip():
            raise FeishuConfigError(f"Feishu app secret is empty (set {ENV_APP_SECRET})")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> FeishuCredentials:
        """Credentials from SCREENER_FEISHU__*; a missing app id or secret is an error naming the variable."""
        env = os.environ if environ is None else environ
        missing = [name for name in (ENV_APP_ID, ENV_APP_SECRET) if not env.get(name, "").strip()]
        if missing:
            raise FeishuConfigError("Feishu front needs " + " and ".join(missing) + " in the environment")
        return cls(app_id=env[ENV_APP_ID].strip(), app_secret=env[ENV_APP_SECRET].strip(),
                   verification_token=env.get(ENV_VERIFICATION_TOKEN, "").strip(),
                   encrypt_key=env.get(ENV_ENCRYPT_KEY, "").strip())

    def require_callback_secrets(self) -> None:
        """The HTTP callback is only safe signed and encrypted: without the encrypt key Feishu sends no
        signature, and without the token nothing ties a challenge to this app."""
        missing = [name for name, value in ((ENV_VERIFICATION_TOKEN, self.verification_token),
                                            (ENV_ENCRYPT_KEY, self.encrypt_key)) if not value]
        if missing:
            raise FeishuConfigError("Feishu HTTP callback needs " + " and ".join(missing)
                                    + " (set an Encrypt Key and copy the Verification Token in the developer console)")
