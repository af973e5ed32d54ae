"""Feishu / Lark transport: the lark-oapi SDK's long connection and HTTP event callback in, its OpenAPI out.

The command core never imports this package; the Feishu front wires ``FeishuClient`` (sending),
``FeishuLongConnection`` or ``FeishuCallback`` (receiving) and ``FeishuEventRouter`` (vendor events
to ``bot.core.inbound.Inbound``) together.
"""

from bot.feishu import _sdk  # noqa: F401  (first: the SDK must be imported off the running loop)
from bot.feishu.callback import FeishuCallback
from bot.feishu.cards import Action, markdown_card
from bot.feishu.client import (
    BODY_LIMITS,
    FEISHU_DOMAIN,
    LARK_DOMAIN,
    FeishuClient,
    SentMessage,
    message_body_bytes,
)
from bot.feishu.config import ENV_APP_ID, ENV_APP_SECRET, ENV_ENCRYPT_KEY, ENV_VERIFICATION_TOKEN, FeishuCredentials
from bot.feishu.errors import FeishuApiError, FeishuConfigError, FeishuError, FeishuTooLarge
from bot.feishu.events import CardAction, FeishuEventRouter
from bot.feishu.longconn import FeishuLongConnection

__all__ = [
    "BODY_LIMITS",
    "ENV_APP_ID",
    "ENV_APP_SECRET",
    "ENV_ENCRYPT_KEY",
    "ENV_VERIFICATION_TOKEN",
    "FEISHU_DOMAIN",
    "LARK_DOMAIN",
    "Action",
    "CardAction",
    "FeishuApiError",
    "FeishuCallback",
    "FeishuClient",
    "FeishuConfigError",
    "FeishuCredentials",
    "FeishuError",
    "FeishuEventRouter",
    "FeishuLongConnection",
    "FeishuTooLarge",
    "SentMessage",
    "markdown_card",
    "message_body_bytes",
]
