"""The DingTalk front: the chat core over the Stream-mode robot (bot/dingtalk/client.py).

Progress is an interactive card updated in place; a card's handle is its ``out_track_id``, which
survives a restart in the job's tracking record. DingTalk joins single newlines, so lines end in
two spaces. A message through a group's session webhook @-mentions the user it is for (``for_user``:
the asker, or a job's owner from its tracking record), not the sender of the group's latest message.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bot.core import dispatch
from bot.core.guard import ChatGuard
from bot.core.inbound import ChatRef, Inbound
from bot.core.markdown_front import MarkdownFront
from bot.core.service import ChatCore
from bot.dingtalk.client import DingTalkCard, DingTalkClient
from bot.dingtalk.settings import DingTalkCredentials
from screening.config import DingTalkSettings

MARKDOWN_LIMIT = 18_000  # markdown.text; DingTalk's request cap is about 20,000 bytes


class DingTalkFront(MarkdownFront):
    platform = "dingtalk"
    markdown_limit = MARKDOWN_LIMIT
    hard_breaks = True
    edit_interval_s = 2.0
    images_as_files = False  # robot file messages take doc/docx/pdf/rar/xlsx/zip only: results are card + XLSX

    def __init__(self, core: ChatCore, settings: DingTalkSettings, env: Mapping[str, str] | None = None) -> None:
        self.core = core
        guard = ChatGuard.connect(core.settings.redis.url, core.queue.prefix, "dingtalk")
        self.client = DingTalkClient(DingTalkCredentials.from_env(env), self.on_message, guard,
                                     stale_after_s=settings.stale_after_s)

    async def on_message(self, msg: Inbound) -> None:
        await dispatch.handle(self.core, self, msg)

    async def run(self) -> None:
        await self.client.run()

    async def _send_markdown(self, chat: ChatRef, title: str, text: str, *, for_user: str | None = None) -> None:
        await self.client.send_markdown(chat, title, text, at_user=for_user)  # the asker / the job's owner, not
        # whoever spoke last in the group (whose session webhook the client holds)

    async def _send_card(self, chat: ChatRef, title: str, text: str) -> object:
        card = await self.client.send_card(chat, title, text)
        return card.out_track_id

    async def _update_card(self, chat: ChatRef, handle: object, title: str, text: str) -> object | None:
        await self.client.update_card(DingTalkCard(chat, str(handle), title), text, title)
        return None

    async def _send_file(self, chat: ChatRef, path: Path, name: str) -> None:
        await self.client.send_file(chat, path, name)
