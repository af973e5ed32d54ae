"""In a DingTalk group a job's results @-mention the user who asked, not whoever spoke to the bot last.

The client keeps one session webhook per chat, the latest message's, and the SDK's reply_* mention that
message's sender; a job's summary, sent minutes later, notified whoever had spoken since (a trial, B2). Real
Redis, the real dingtalk-stream SDK against the local fake (which records each webhook message's
``at.atUserIds``); no worker: an admin's /cancel ends the job, which delivers what it has. The bot is restarted
between the request and the results, so the owner comes from the job's tracking record, not from memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core import jobs
from bot.core.service import ChatCore
from screening.config import DingTalkSettings, Settings, UniverseSettings
from screening.data.load import EXAMPLES, ensure_demo_universe
from screening.queue.client import JobQueue
from tests.fakes.dingtalk import FakeDingTalk, Sent
from tests.waiting import until

pytestmark = pytest.mark.slow  # two bot starts on the SDK's stream (about 8 s)
GROUP = "cidGroupResearch0001=="
ASKER, TALKER, ADMIN = "analyst002", "trader003", "manager001"


class Bot:
    """One bot process: a chat core and the DingTalk front on the shared Redis."""

    def __init__(self, settings: Settings) -> None:
        from bot.dingtalk.front import DingTalkFront

        self.core = ChatCore(settings=settings, queue=JobQueue(settings.redis.url, settings.redis), poll_s=0.2,
                             progress_interval_s=0.2)
        self.front = DingTalkFront(self.core, settings.dingtalk)
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> Bot:
        self.task = asyncio.create_task(self.front.run())
        await self.front.client.wait_connected(20)
        return self

    async def stop(self) -> None:
        """The front first (its handlers may still start a follower), then the followers."""
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        await self.front.client.stop()
        await jobs.stop_followers(self.core)


@pytest.fixture
async def group(queue_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[tuple[FakeDingTalk, Settings]]:
    universe = tmp_path / "universe.sqlite"
    ensure_demo_universe(universe, EXAMPLES)
    fake = FakeDingTalk(tmp_path / "pki", groups={GROUP: "研究部"},
                        staff={ADMIN: "张三", ASKER: "李四", TALKER: "王五"}).start()
    for key, value in {**fake.env(), "SCREENER_DINGTALK__CLIENT_ID": fake.client_id,
                       "SCREENER_DINGTALK__CLIENT_SECRET": fake.client_secret}.items():
        monkeypatch.setenv(key, value)
    settings = queue_settings.model_copy(update={
        "universe": UniverseSettings(path=str(universe)),
        "dingtalk": DingTalkSettings(enabled=True, allowed_chats=[GROUP], admin_users=[ADMIN])})
    try:
        yield fake, settings
    finally:
        fake.stop()


def _said(fake: FakeDingTalk, needle: str) -> list[Sent]:
    return [m for m in fake.messages(f"group:{GROUP}") if needle in str(m.param.get("text") or "")]


async def test_a_jobs_results_mention_its_owner_after_others_spoke_and_a_restart(group) -> None:
    fake, settings = group
    first = await Bot(settings).start()
    try:
        await fake.send_text(ASKER, "/screen 600519.SH 000001.SZ", group=GROUP)
        [ack] = await until(lambda: _said(fake, "已排队"), what="the acknowledgement")
        [(job_id, record)] = (await asyncio.to_thread(first.core.all_tracks, "dingtalk")).items()
        assert record["user"] == f"dingtalk:{ASKER}"
        await until(lambda: job_id in first.core.followers, what="the follower")
        await fake.send_text(TALKER, "/help", group=GROUP)  # someone else speaks while the job waits
        [help_reply] = await until(lambda: _said(fake, "/screen"), what="the help")
    finally:
        await first.stop()
    assert (ack.via, ack.at) == ("sessionWebhook", [ASKER])  # a reply mentions the one it answers
    assert help_reply.at == [TALKER]

    second = await Bot(settings).start()  # the restarted bot knows the owner only from the tracking record
    try:
        assert await jobs.resume_followers(second.core, second.front) == 1
        await fake.send_text(ADMIN, f"/cancel {job_id}", group=GROUP)  # the latest message: the admin's
        [cancelled] = await until(lambda: _said(fake, "已取消"), what="the cancel's answer")
        [summary] = await until(lambda: [m for m in fake.messages(f"group:{GROUP}")
                                         if m.param.get("title") == "筛选结果"], what="the results")
        await until(lambda: not second.core.followers, what="the delivery's end")
    finally:
        await second.stop()
    assert cancelled.at == [ADMIN]
    assert summary.via == "sessionWebhook"  # the admin's session webhook, as the only one the bot holds
    print([(m.via, m.at, str(m.param)[:60]) for m in fake.messages(f"group:{GROUP}")])
    assert summary.at == [ASKER]  # was [ADMIN]: whoever spoke last
    assert not fake.refusals
