"""Who may use the bot, per platform: allow-listed chats and admin users; everyone else is refused once.

* A chat id in ``<platform>.allowed_chats`` opens the bot to everyone in that chat (a team group,
  or one person's private chat).
* A user id in ``<platform>.admin_users`` may use it from any chat and may cancel any job.
* Anyone else gets one polite refusal per chat (remembered in Redis, so a restart does not
  repeat it), is logged, and nothing else happens: no command runs, no job is created.
* An empty allow-list allows nobody: the safe default for a bot anyone can find.
Signatures and timestamps are the fronts' job and come first: a forged or replayed callback never
reaches this check, let alone a command.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.inbound import ChatRef
from screening.config import Settings


@dataclass(frozen=True)
class Access:
    allowed_chats: frozenset[str]
    admin_users: frozenset[str]
    max_jobs_per_user: int
    max_rows_per_user: int


def access_for(settings: Settings, platform: str) -> Access:
    section = getattr(settings, platform)
    return Access(frozenset(str(c) for c in section.allowed_chats), frozenset(str(u) for u in section.admin_users),
                  section.max_jobs_per_user, section.max_rows_per_user)


def is_admin(settings: Settings, platform: str, user_id: str | int | None) -> bool:
    return user_id is not None and str(user_id) in access_for(settings, platform).admin_users


def is_allowed(settings: Settings, chat: ChatRef | None, user_id: str | int | None) -> bool:
    if chat is None:
        return False
    if is_admin(settings, chat.platform, user_id):
        return True
    return chat.chat_id in access_for(settings, chat.platform).allowed_chats
