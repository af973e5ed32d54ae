"""A file that cannot be delivered is said in the chat and sent again on /status, without a restart.

Real Redis, a real worker process (the rules engine: the model's answer is not what is tested), the WeCom
front against the fake WeCom, whose media/upload answers WeCom's "system busy" (errcode -1) on demand.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.core import jobs
from bot.core.service import ChatCore
from screening.config import Settings, UniverseSettings, WeComSettings
from screening.data.load import EXAMPLES, ensure_demo_universe
from screening.queue.client import JobQueue
from screening.runtime.local_redis import free_port
from tests.fakes.wecom import CallbackSender, FakeWeCom

pytestmark = pytest.mark.slow


async def until(predicate: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
async def wecom_bot(queue_settings: Settings, tmp_path: Path, spawn_worker, monkeypatch: pytest.MonkeyPatch
                    ) -> AsyncIterator[tuple[FakeWeCom, ChatCore, CallbackSender, Any]]:
    from bot.wecom.front import WeComFront

    universe = tmp_path / "universe.sqlite"
    ensure_demo_universe(universe, EXAMPLES)
    spawn_worker("tests.engine_factories:slow_rules", env={"SCREENER_TEST_SLEEP_S": "0.01"})
    async with FakeWeCom() as fake:
        for key, value in fake.env().items():
            monkeypatch.setenv(key, value)
        settings = queue_settings.model_copy(update={
            "universe": UniverseSettings(path=str(universe)),
            "wecom": WeComSettings(enabled=True, allowed_chats=["zhangsan"], port=free_port(), api_base=fake.base_url),
        })
        core = ChatCore(settings=settings, queue=JobQueue(settings.redis.url, settings.redis), poll_s=0.2,
                        progress_interval_s=0.2)
        front = WeComFront(core, settings.wecom)
        task = asyncio.create_task(front.run())
        url = f"http://127.0.0.1:{settings.wecom.port}{settings.wecom.path}"
        sender = fake.sender(url)
        await until(lambda: _port_open(settings.wecom.port), 20, "the callback server")
        try:
            yield fake, core, sender, front
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await jobs.stop_followers(core)


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _texts(fake: FakeWeCom) -> list[str]:
    return [str(m.payload.get("content", "")) for m in fake.messages("user:zhangsan")]


def _files(fake: FakeWeCom) -> list[str]:
    return [m.file_name or "" for m in fake.messages("user:zhangsan") if m.file is not None]


async def test_a_file_that_fails_is_said_in_the_chat_and_resent_by_status(wecom_bot, monkeypatch) -> None:
    fake, core, sender, front = wecom_bot
    monkeypatch.setattr(jobs, "FILE_RETRY_S", 0.05)  # our own pause between tries, not the SDK or the vendor
    fake.fail_uploads = jobs.FILE_ATTEMPTS  # every try of the XLSX is refused; the chart's first try passes
    await sender.send_text("zhangsan", "/screen 600519.SH 000001")
    notice = await until(lambda: [x for x in _texts(fake) if "未能发送" in x], 60, "the missing-file notice")
    job_prefix = notice[0].split("/status ")[1][:12]
    assert notice[0].startswith("XLSX 未能发送: ") and "errcode -1" in notice[0] and "重试" in notice[0]
    assert any("筛选结果" in x for x in _texts(fake))  # the summary came
    await until(lambda: any(n.endswith(".png") for n in _files(fake)), 20, "the chart")
    assert not any(n.endswith(".xlsx") for n in _files(fake))
    [(job_id, record)] = (await asyncio.to_thread(core.all_tracks, "wecom")).items()
    assert job_id.startswith(job_prefix) and list(record["missing"]) == ["xlsx"]
    assert record["sent"] == ["summary", "chart"]

    # a restart while WeCom still refuses: the XLSX is retried quietly, the chat is not told a second time
    await jobs.stop_followers(core)
    fake.fail_uploads = jobs.FILE_ATTEMPTS
    assert await jobs.resume_followers(core, front) == 1
    await until(lambda: fake.fail_uploads == 0 and not core.followers, 30, "the restart's quiet retry")
    assert sum("未能发送" in x for x in _texts(fake)) == 1
    assert list((await asyncio.to_thread(core.load_track, job_id))["missing"]) == ["xlsx"]

    # the user asks: a failure now is answered (they asked), and the next try delivers
    fake.fail_uploads = jobs.FILE_ATTEMPTS
    await sender.send_text("zhangsan", f"/status {job_prefix}")
    await until(lambda: sum("未能发送" in x for x in _texts(fake)) == 2, 30, "the answer to /status")
    await until(lambda: not core.followers, 30, "the follower ended")
    assert "asked" not in (await asyncio.to_thread(core.load_track, job_id))

    await sender.send_text("zhangsan", f"/status {job_prefix}")  # no restart: the same bot process
    await until(lambda: any(n.endswith(".xlsx") for n in _files(fake)), 30, "the XLSX resent")
    await until(lambda: not core.all_tracks("wecom"), 10, "the tracking record dropped")
    assert sum(n.endswith(".png") for n in _files(fake)) == 1  # the chart is not sent twice
    assert sum("筛选结果" in x for x in _texts(fake)) == 1  # nor the summary
