"""The WeCom front: the chat core over a self-built app's callback and send API (bot/wecom/client.py).

WeCom cannot edit a message in place more than once, so the progress "card" is a Markdown message
replaced by the next state (sent, then the old one withdrawn): the chat shows one progress message,
the latest. Its handle (the message id) changes with each update and is kept in the tracking record.
The callback server is aiohttp, behind the operator's TLS proxy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from aiohttp import web

from bot.core import dispatch
from bot.core.access import is_allowed
from bot.core.guard import ChatGuard
from bot.core.inbound import ChatRef, Inbound
from bot.core.markdown_front import MarkdownFront
from bot.core.service import ChatCore
from bot.wecom.client import WeComCard, WeComClient
from bot.wecom.settings import WeComSettings as WeComCredentials
from screening.config import WeComSettings

MARKDOWN_LIMIT = 2048  # an app's markdown message (UTF-8 bytes); longer text is split by the client


class WeComFront(MarkdownFront):
    platform = "wecom"
    markdown_limit = MARKDOWN_LIMIT
    edit_interval_s = 5.0  # each update is a new message and a recall: keep them rare

    def __init__(self, core: ChatCore, settings: WeComSettings, env: Mapping[str, str] | None = None) -> None:
        self.core, self.settings = core, settings
        guard = ChatGuard.connect(core.settings.redis.url, core.queue.prefix, "wecom")
        self.client = WeComClient(WeComCredentials.from_env(env), self.on_message, guard,
                                  api_base=settings.api_base, callback_path=settings.path,
                                  may_fetch=lambda user: is_allowed(core.settings, ChatRef("wecom", user), user))

    async def on_message(self, msg: Inbound) -> None:
        await dispatch.handle(self.core, self, msg)

    async def run(self) -> None:
        """Serve the callback URL until cancelled."""
        runner = web.AppRunner(self.client.app())
        await runner.setup()
        site = web.TCPSite(runner, self.settings.listen, self.settings.port)
        await site.start()
        try:
            await self.client.check_credentials()
            while True:
                await asyncio.sleep(3600)
        finally:
            await runner.cleanup()
            await self.client.close()

    async def _send_markdown(self, chat: ChatRef, title: str, text: str, *, for_user: str | None = None) -> None:
        # WeCom shows no title of its own: the client would add it as a bold line the text already has
        await self.client.send_markdown(chat, "", text)

    async def _send_card(self, chat: ChatRef, title: str, text: str) -> object:
        card = await self.client.send_card(chat, title, text)
        return card.msgid

    async def _update_card(self, chat: ChatRef, handle: object, title: str, text: str) -> object | None:
        card = WeComCard(chat, title, str(handle))
        await self.client.update_card(card, text, title)
        return card.msgid

    async def _send_file(self, chat: ChatRef, path: Path, name: str) -> None:
        await self.client.send_file(chat, path, name)
