"""Feishu message cards (JSON 1.0) the way this bot uses them: a title, Markdown, a row of buttons.

Every card says ``update_multi: true``: Feishu patches a card in place only when both the card as sent
and the new card declare it (a "shared card"), and a progress card has to be patched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TEMPLATES = frozenset({"blue", "wathet", "turquoise", "green", "yellow", "orange", "red", "carmine",
                       "violet", "purple", "indigo", "grey", "default"})
ACTION_KEY = "action"  # the key of a button's ``value`` that carries the core's action string


@dataclass(frozen=True)
class Action:
    """A button: ``action`` comes back in the card.action.trigger callback (``value.action``)."""

    label: str
    action: str


def markdown_card(title: str, markdown: str, actions: Sequence[Action] = (), *,
                  template: str = "blue") -> dict[str, Any]:
    """A shared card with an optional header, one lark_md block and the buttons below it."""
    if template not in TEMPLATES:
        raise ValueError(f"unknown Feishu card header template {template!r}")
    if not markdown.strip():
        raise ValueError("a Feishu card needs some Markdown to show")
    card: dict[str, Any] = {"config": {"wide_screen_mode": True, "update_multi": True},
                            "elements": [{"tag": "markdown", "content": markdown}]}
    if title:
        card["header"] = {"title": {"tag": "plain_text", "content": title}, "template": template}
    if actions:
        card["elements"].append({"tag": "action", "actions": [
            {"tag": "button", "text": {"tag": "plain_text", "content": a.label}, "type": "default",
             "value": {ACTION_KEY: a.action}} for a in actions]})
    return card


def is_shared(card: Mapping[str, Any]) -> bool:
    """Whether Feishu will let this card be patched for everyone (``config.update_multi`` is true)."""
    config = card.get("config")
    return isinstance(config, Mapping) and config.get("update_multi") is True
