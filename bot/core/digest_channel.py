"""The digest to a chat on an enterprise-IM front: the same Markdown as the webhook robots, then the files.

A chat that subscribed with /subscribe on DingTalk, Feishu or WeCom gets the morning digest through
the bot it talks to (the app's own send API), not through a group robot webhook: Markdown parts
split under the front's byte limit (``render_markdown_parts``), the XLSX, the chart.
"""

from __future__ import annotations

import time

from bot.core.front import Front
from bot.core.inbound import ChatRef
from bot.core.text import line
from screening.config import DigestSettings
from screening.digest.model import Digest
from screening.digest.render import render_markdown_parts
from screening.push.base import Channel, SendOutcome, log_outcome


class FrontChannel(Channel):
    def __init__(self, front: Front, chat: ChatRef, *, ds: DigestSettings | None = None,
                 send_files: bool = True) -> None:
        self.front, self.chat, self.ds, self.send_files = front, chat, ds, send_files
        self.name, self.kind = chat.chat_id, chat.platform

    async def send(self, digest: Digest) -> SendOutcome:
        t0 = time.perf_counter()
        parts = render_markdown_parts(digest, self.front.markdown_limit, self.ds, hard_breaks=self.front.hard_breaks)
        files = []
        if self.send_files:
            if digest.xlsx_path and digest.xlsx_path.exists():
                files.append(("document", digest.xlsx_path))
            if digest.chart_path and digest.chart_path.exists():
                files.append(("image", digest.chart_path))
        total, sent, error = 1 + len(files), 0, None
        try:
            await self.front.send_markdown(self.chat, f"盘前摘要 {digest.date.isoformat()}", parts)
            sent += 1
            self.accepted()
            for kind, path in files:
                await self.front.send_file(self.chat, path, path.name, line(f"盘前摘要 {digest.date.isoformat()}"),
                                           kind="image" if kind == "image" else "document")
                sent += 1
                self.accepted()
        except Exception as exc:  # reported in the outcome; the other recipients go on
            error = f"{type(exc).__name__}: {exc}"
        outcome = SendOutcome(self.name, self.kind, total, sent, total, error, time.perf_counter() - t0)
        log_outcome(outcome, digest)
        return outcome
