"""Digest push channels: one small interface (``Channel.send(digest) -> SendOutcome``), one class per vendor.

* ``WeComChannel``: WeCom (企业微信) group robot, markdown, 4,096 UTF-8 bytes per message (split).
* ``FeishuChannel``: Feishu (飞书) custom bot, ``post`` or ``interactive`` card, signed, 20 KB per request.
* ``DingTalkChannel``: DingTalk (钉钉) robot, markdown, signed (timestamp & sign query parameters).
* ``TelegramChannel``: a chat through a python-telegram-bot ``Bot`` (HTML, XLSX, chart).

``manager.make_channels(digest_settings)`` builds the webhook channels from ``[[digest.targets]]``;
``send_each`` sends several (channel, digest) pairs concurrently, so one failing channel never
stops the others, and logs every outcome (never a URL's token or a secret).
"""

from screening.push.base import Channel, SendOutcome
from screening.push.dingtalk import DingTalkChannel
from screening.push.feishu import FeishuChannel
from screening.push.manager import make_channels, send_each
from screening.push.telegram import TelegramChannel
from screening.push.wecom import WeComChannel

__all__ = ["Channel", "DingTalkChannel", "FeishuChannel", "SendOutcome", "TelegramChannel", "WeComChannel",
           "make_channels", "send_each"]
