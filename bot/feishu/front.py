"""The Feishu / Lark front: the chat core over lark-oapi (bot/feishu/): long connection or HTTP callback.

Progress and results go in interactive cards (lark_md), updated in place, with the same buttons as
Telegram (high-risk list, failed rows, refresh, cancel): a button press comes back as a
``card.action.trigger`` event and runs the core's action. Files the user sends are downloaded from
the message's resources; the XLSX and the chart go back as a file and an image.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from aiohttp import web

from bot.core import dispatch
from bot.core.actions import handle_action
from bot.core.front import Button, Sent
from bot.core.guard import ChatGuard
from bot.core.inbound import ChatRef, Inbound
from bot.core.markdown_front import MarkdownFront
from bot.core.service import ChatCore
from bot.core.text import Line
from bot.feishu import (
    BODY_LIMITS,
    Action,
    CardAction,
    FeishuCallback,
    FeishuClient,
    FeishuCredentials,
    FeishuEventRouter,
    FeishuLongConnection,
    markdown_card,
    message_body_bytes,
)
from bot.feishu.client import post_content
from screening.config import FeishuSettings
from screening.output.text import split_numbered

log = logging.getLogger("bot.feishu")
CARD_LIMIT = 28 * 1024  # a card body is at most 30 KB; leave room for the JSON around the Markdown


class FeishuFront(MarkdownFront):
    platform = "feishu"
    markdown_limit = CARD_LIMIT
    edit_interval_s = 1.0  # Feishu allows 5 patches a second per message; one a second is plenty

    def __init__(self, core: ChatCore, settings: FeishuSettings, env: Mapping[str, str] | None = None) -> None:
        self.core, self.settings = core, settings
        self.credentials = FeishuCredentials.from_env(env)
        self.client = FeishuClient(self.credentials, domain=settings.domain)
        self.guard = ChatGuard.connect(core.settings.redis.url, core.queue.prefix, "feishu")

    async def on_message(self, msg: Inbound) -> None:
        await dispatch.handle(self.core, self, msg)

    async def on_action(self, press: CardAction) -> None:
        chat = ChatRef("feishu", press.chat_id, press.chat_type or "group")
        answer = await handle_action(self.core, self, chat, press.user_id, press.action, press.message_id)
        if answer and answer not in ("已刷新",):
            await self.client.send_text(press.chat_id, answer)

    async def router(self) -> FeishuEventRouter:
        return FeishuEventRouter(on_message=self.on_message, downloader=self.client,
                                 bot_open_id=await self.client.bot_open_id(), app_id=self.credentials.app_id,
                                 guard=self.guard, on_action=self.on_action)

    async def run(self) -> None:
        router = await self.router()
        if self.settings.mode == "http":
            self.credentials.require_callback_secrets()
            runner = web.AppRunner(FeishuCallback(self.credentials, router, self.guard).app(self.settings.path))
            await runner.setup()
            await web.TCPSite(runner, self.settings.listen, self.settings.port).start()
            try:
                await asyncio.Event().wait()
            finally:
                await runner.cleanup()
                await router.drain()
            return
        conn = FeishuLongConnection(self.credentials, router, domain=self.settings.domain)
        try:
            await conn.run()
        finally:
            await conn.stop()
            await router.drain()

    def card(self, title: str, lines: list[Line], buttons: list[Button] | None) -> dict[str, object]:
        markdown = "\n".join(self.markdown(lines)[: self.markdown_limit].splitlines())
        return markdown_card(title, markdown or " ", [Action(b.label, b.action) for b in buttons or []])

    async def open_card(self, chat: ChatRef, lines: list[Line], buttons: list[Button] | None = None,
                        title: str = "") -> Sent:
        sent = await self.client.send_card(chat.chat_id, self.card(title or "选股机器人", lines, buttons))
        return Sent(chat, sent.message_id, lines)

    async def edit_card(self, sent: Sent, lines: list[Line], buttons: list[Button] | None = None,
                        title: str = "") -> None:
        await self.client.update_card(str(sent.handle), self.card(title or "选股机器人", lines, buttons))

    async def send(self, chat: ChatRef, lines: list[Line], *, reply_to: str | None = None,
                   buttons: list[Button] | None = None, title: str = "", for_user: str | None = None) -> Sent | None:
        if buttons:  # buttons only live in cards
            return await self.open_card(chat, lines, buttons, title)
        return await super().send(chat, lines, reply_to=reply_to, title=title, for_user=for_user)

    async def _send_markdown(self, chat: ChatRef, title: str, text: str, *, for_user: str | None = None) -> None:
        """As many posts as Feishu's 30 KB request body needs, measured as the SDK sends it (a job's summary with
        many failed rows, or /high of a few hundred rows, was refused whole: 230025; a trial, 2026-12-07); the posts
        after the first are numbered like every front's ("（续 2/3）")."""
        def fits(part: str) -> bool:
            return message_body_bytes(chat.chat_id, "post", post_content(part, title)) <= BODY_LIMITS["post"]

        for part in split_numbered(text, fits):
            await self.client.send_markdown(chat.chat_id, part, title=title)

    async def _send_card(self, chat: ChatRef, title: str, text: str) -> object:  # open_card is overridden
        raise NotImplementedError

    async def _update_card(self, chat: ChatRef, handle: object, title: str, text: str) -> object | None:
        raise NotImplementedError

    async def _send_file(self, chat: ChatRef, path: Path, name: str) -> None:
        await self.client.send_file(chat.chat_id, path, file_name=name)

    async def send_file(self, chat: ChatRef, path: Path, name: str, caption: Line,
                        kind: Literal["document", "image"] = "document") -> None:
        if kind == "image":
            await self.client.send_image(chat.chat_id, path)
        else:
            await self.client.send_file(chat.chat_id, path, file_name=name)
