"""What the core asks of a front: send lines, keep one message updated in place, send a file.

Each front (Telegram, DingTalk, Feishu, WeCom) implements this over its vendor's API and renders
the neutral lines in its own markup; the core never sees a vendor object. A front that cannot edit
a message (or can only replace it) says how often it may be updated, and the core throttles to it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bot.core.inbound import ChatRef, Platform
from bot.core.text import Line


@dataclass(frozen=True)
class Button:
    label: str
    action: str  # e.g. "hi:<job id>"; comes back to the core as a button press


@dataclass
class Sent:
    """A message the front sent and may edit later (its vendor handle is the front's business)."""

    chat: ChatRef
    handle: object
    lines: list[Line] = field(default_factory=list)  # what it shows now


class Front(ABC):
    platform: Platform
    edit_interval_s: float = 2.0  # at most one edit of a progress message per this many seconds
    markdown_limit: int = 4096  # UTF-8 bytes of one Markdown message (the digest is split to it)
    hard_breaks: bool = False  # the vendor joins single newlines (DingTalk): end lines with two spaces

    async def send_markdown(self, chat: ChatRef, title: str, parts: list[str]) -> None:
        """Markdown already escaped and split by the caller (the digest's own renderer), one message a part."""
        raise NotImplementedError(f"{self.platform} has no Markdown messages")

    @abstractmethod
    async def send(self, chat: ChatRef, lines: list[Line], *, reply_to: str | None = None,
                   buttons: list[Button] | None = None, title: str = "", for_user: str | None = None) -> Sent | None:
        """Send ``lines`` (split as the vendor's limits need, the parts numbered); the buttons go on the last message.

        ``for_user`` is the user the message is for: the asker of a reply, the owner of a job for its results
        (sent minutes later, when someone else may have spoken since). A front that notifies one person in a
        group (DingTalk's @-mention) notifies them; None: nobody in particular.
        """

    @abstractmethod
    async def open_card(self, chat: ChatRef, lines: list[Line], buttons: list[Button] | None = None,
                        title: str = "") -> Sent:
        """A message meant to be updated in place (the job's progress)."""

    @abstractmethod
    async def edit_card(self, sent: Sent, lines: list[Line], buttons: list[Button] | None = None,
                        title: str = "") -> None:
        """Show ``lines`` in ``sent``; a front that cannot edit replaces it as its vendor allows."""

    @abstractmethod
    async def send_file(self, chat: ChatRef, path: Path, name: str, caption: Line,
                        kind: Literal["document", "image"] = "document") -> None:
        """Send a file (the XLSX, the chart) with a one-line caption."""
