"""A /cancel that loses the race with the job's end answers with the state after it, not the stale one.

``cancel_job`` reads the job's status, then cancels; a job that ended between the two was answered
"已经结束 (running), 无需取消" (a trial, S3). Real Redis and the real queue; the race is made certain by a
queue whose cancel lands just after the job's end (the worker's last rows, or another user's cancel).
"""

from __future__ import annotations

import pytest

from bot.core.commands import cancel_job
from bot.core.service import ChatCore
from bot.core.text import to_plain
from screening.config import Settings
from screening.models import FailCode, PoolItem, ResultRow, failed_row
from screening.queue.client import JobQueue
from tests.fixtures_redis import make_items

USER = "zhangsan"


def _ok_row(item: PoolItem) -> ResultRow:
    row = failed_row(item, "", FailCode.INPUT)
    row.status, row.error, row.reason = "ok", None, "x"
    return row


class LateCancelQueue(JobQueue):
    """The real queue; just before a cancel lands, the job ends: its worker writes the last rows, or (``by_other``)
    another user's cancel comes first."""

    by_other = False

    def cancel(self, job_id: str) -> bool:
        if self.by_other:
            assert super().cancel(job_id)
        else:
            meta = self.r.hgetall(self.job_keys(job_id).meta)
            rows = [_ok_row(item) for item in self.items(job_id)]
            self.write_rows(job_id, rows, owner_key=meta.get("owner_key") or None, lane=meta["lane"])
        return super().cancel(job_id)


@pytest.mark.parametrize(("by_other", "said"), [(False, "已经完成, 无需取消; 结果已发送或即将发送"),
                                                (True, "已被取消")])
async def test_a_cancel_racing_the_end_answers_the_state_after_it(queue_settings: Settings, by_other: bool,
                                                                   said: str) -> None:
    queue = LateCancelQueue(queue_settings.redis.url, queue_settings.redis)
    queue.by_other = by_other
    core = ChatCore(settings=queue_settings, queue=queue)
    job_id = queue.submit(make_items(3), lane="fast", source="race",
                          owner={"user": f"wecom:{USER}", "chat": f"wecom:{USER}"})
    assert queue.status(job_id).state == "queued"

    answer = to_plain(await cancel_job(core, "wecom", USER, job_id))
    assert answer == f"任务 {job_id[:12]} {said}。"  # was "已经结束 (queued), 无需取消。": the state read before
    assert queue.status(job_id).state == ("cancelled" if by_other else "done")


@pytest.mark.parametrize(("message", "toast"), [
    ("任务 0123456789ab 已取消; 已完成的结果照常发送。", "已取消"),
    ("任务 0123456789ab 已被取消。", "已取消"),  # another user's cancel came first: the toast said 无法取消
    ("任务 0123456789ab 已经完成, 无需取消; 结果已发送或即将发送。", "已完成, 无需取消"),
    ("任务 0123456789ab 已经结束 (已过期), 无需取消。", "已过期"),
    ("任务 0123456789ab 未能取消 (运行中), 请稍后再试。", "无法取消"),
])
def test_the_cancel_buttons_toast_says_what_the_message_beside_it_says(message: str, toast: str) -> None:
    from bot.core.actions import cancel_toast

    assert cancel_toast(message) == toast
