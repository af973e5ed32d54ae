"""A front over a vendor that speaks Markdown and can update a card: DingTalk, WeCom (and Feishu's lark_md).

The vendor clients (bot/dingtalk, bot/wecom, bot/feishu) each offer send_markdown, send_card,
update_card and send_file; this base renders the core's lines as escaped Markdown and turns the
buttons Telegram shows into the equivalent commands to type, since these cards have no callback
buttons here ("/status 1a2b3c4d5e6f" refreshes, "/cancel …" cancels, "/high …" and "/failed …" list).
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from pathlib import Path
from typing import Any, Literal

from bot.core.front import Button, Front, Sent
from bot.core.inbound import ChatRef
from bot.core.text import Line, to_markdown, to_plain

log = logging.getLogger("bot.fronts")
ACTION_COMMANDS = {"ref": "/status", "can": "/cancel", "hi": "/high", "fail": "/failed"}


def hints(buttons: list[Button] | None) -> str:
    """The buttons as commands a user can type: ``刷新: /status 1a2b…``."""
    out = []
    for b in buttons or []:
        action, _, job = b.action.partition(":")
        if action in ACTION_COMMANDS:
            out.append(f"{b.label.split(' ', 1)[-1]}: {ACTION_COMMANDS[action]} {job[:12]}")
    return " · ".join(out)


class MarkdownFront(Front):
    images_as_files = True  # the chart goes as a file attachment; False: the vendor takes no image files

    def markdown(self, lines: list[Line], buttons: list[Button] | None = None) -> str:
        text = [to_markdown(ln) for ln in lines]
        hint = hints(buttons)
        if hint:
            text.append(hint)
        sep = "  \n" if self.hard_breaks else "\n"
        return sep.join(text)

    @abstractmethod
    async def _send_markdown(self, chat: ChatRef, title: str, text: str, *, for_user: str | None = None) -> None:
        """``text`` as one or more messages (numbered when split); ``for_user`` as in ``Front.send``."""

    @abstractmethod
    async def _send_card(self, chat: ChatRef, title: str, text: str) -> Any: ...

    @abstractmethod
    async def _update_card(self, chat: ChatRef, handle: object, title: str, text: str) -> object | None:
        """Update the card; returns its new handle when the vendor gave it a new one (WeCom)."""

    @abstractmethod
    async def _send_file(self, chat: ChatRef, path: Path, name: str) -> None: ...

    async def send(self, chat: ChatRef, lines: list[Line], *, reply_to: str | None = None,
                   buttons: list[Button] | None = None, title: str = "", for_user: str | None = None) -> Sent | None:
        head = title or (to_plain(lines[0])[:20] if lines else "选股机器人")
        await self._send_markdown(chat, head, self.markdown(lines, buttons), for_user=for_user)
        return None

    async def send_markdown(self, chat: ChatRef, title: str, parts: list[str]) -> None:
        for part in parts:
            await self._send_markdown(chat, title, part)

    async def open_card(self, chat: ChatRef, lines: list[Line], buttons: list[Button] | None = None,
                        title: str = "") -> Sent:
        handle = await self._send_card(chat, title or "选股机器人", self.markdown(lines, buttons))
        return Sent(chat, handle, lines)

    async def edit_card(self, sent: Sent, lines: list[Line], buttons: list[Button] | None = None,
                        title: str = "") -> None:
        new = await self._update_card(sent.chat, sent.handle, title or "选股机器人", self.markdown(lines, buttons))
        if new is not None:
            sent.handle = new

    async def send_file(self, chat: ChatRef, path: Path, name: str, caption: Line,
                        kind: Literal["document", "image"] = "document") -> None:
        if kind == "image" and not self.images_as_files:
            log.info("%s: the chart is not sent (this vendor's file messages take no images); the XLSX has "
                     "every row", self.platform)
            return
        await self._send_file(chat, path, name)
