"""Button presses, once for every front: the high-risk list, the failed rows, refresh, cancel.

A front turns its vendor's button event (a Telegram callback query, a card action) into
``(chat, user, action, message handle)``; the answer returned is the short toast a front may show.
"""

from __future__ import annotations

import asyncio

from bot.core import jobs, replies
from bot.core.access import is_allowed
from bot.core.commands import cancel_job, may_see
from bot.core.front import Front, Sent
from bot.core.inbound import ChatRef
from bot.core.service import ChatCore

ACTIONS = frozenset({"hi", "fail", "ref", "can"})


# the button's short answer for what the cancel's message says (commands.cancel_job), first match wins: the toast
# said 无法取消 for a job another user had cancelled while the message beside it said 已被取消 (a helper, 2026-12-07)
CANCEL_TOASTS = (("已取消", "已取消"), ("已被取消", "已取消"), ("已经完成", "已完成, 无需取消"), ("已过期", "已过期"))


def cancel_toast(message: str) -> str:
    """The button's answer to a cancel whose message is ``message``: the same outcome, in a few words."""
    return next((toast for phrase, toast in CANCEL_TOASTS if phrase in message), "无法取消")


async def handle_action(core: ChatCore, front: Front, chat: ChatRef, user_id: str, action_data: str,
                        handle: object | None) -> str:
    """Run one button press; returns the short answer for the user (the lists go as messages)."""
    if not is_allowed(core.settings, chat, user_id):
        return "Not allowed / 无权限"
    action, _, job_id = action_data.partition(":")
    if action not in ACTIONS or len(job_id) != 32:
        return "未知按钮"
    try:
        st = await asyncio.to_thread(core.queue.status, job_id)
    except KeyError:
        return "任务已过期"
    if not may_see(core, chat, user_id, st.owner):
        return "这不是你的任务"
    if action == "can":
        text = await cancel_job(core, chat.platform, user_id, job_id)
        await front.send(chat, [text], for_user=user_id)
        return cancel_toast("".join(r.text for r in text))
    if action == "ref":
        if handle is not None:
            await front.edit_card(Sent(chat, handle), replies.progress_lines(st, st.source), jobs.buttons_for(st),
                                  title="筛选进度")
        return "已刷新"
    rows = await asyncio.to_thread(core.queue.results, job_id)
    if action == "hi":
        lines = replies.list_lines(replies.high_risk(rows), "高风险列表", "没有高风险股票。")
    else:
        lines = replies.list_lines(replies.failed_rows(rows), "失败明细", "没有失败的股票。")
    await front.send(chat, lines, for_user=user_id)
    return ""
