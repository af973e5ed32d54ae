"""WeCom transport: a self-built app's callback URL (crypto, checks, 5-second ack) and its send API."""

from bot.wecom.api import SentMessage, WeComApi
from bot.wecom.client import DEFAULT_CALLBACK_PATH, MessageCallback, WeComCard, WeComClient
from bot.wecom.crypto import SignatureError, WeComCrypto, WeComCryptoError
from bot.wecom.errors import WeComApiError, WeComAuthError, WeComConfigError, WeComError
from bot.wecom.settings import ENV_PREFIX, WeComSettings

__all__ = [
    "DEFAULT_CALLBACK_PATH",
    "ENV_PREFIX",
    "MessageCallback",
    "SentMessage",
    "SignatureError",
    "WeComApi",
    "WeComApiError",
    "WeComAuthError",
    "WeComCard",
    "WeComClient",
    "WeComConfigError",
    "WeComCrypto",
    "WeComCryptoError",
    "WeComError",
    "WeComSettings",
]
