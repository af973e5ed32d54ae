"""DingTalk transport: the enterprise internal robot over Stream mode (``dingtalk-stream`` SDK)."""

from bot.dingtalk.client import DingTalkCard, DingTalkClient, MessageCallback
from bot.dingtalk.errors import DingTalkApiError, DingTalkAuthError, DingTalkConfigError, DingTalkError
from bot.dingtalk.settings import ENV_PREFIX, DingTalkCredentials

__all__ = [
    "ENV_PREFIX",
    "DingTalkApiError",
    "DingTalkAuthError",
    "DingTalkCard",
    "DingTalkClient",
    "DingTalkConfigError",
    "DingTalkCredentials",
    "DingTalkError",
    "MessageCallback",
]
