"""Each enterprise-IM front, as ``python -m bot`` builds it, keeps its duplicate guard across a restart.

A front object is one bot process's front: the first answers a delivery, is stopped, and a new front
object on the same settings (the same Redis and prefix: a restarted bot, or a second bot process) is
handed the same delivery again, byte for byte where the vendor signs, and must not answer it twice.
Real Redis, the vendors' SDKs against the local fakes; /help needs no worker.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from bot.core.service import ChatCore
from screening.config import DingTalkSettings, FeishuSettings, Settings, WeComSettings
from screening.queue.client import JobQueue
from screening.runtime.local_redis import free_port
from tests.fakes.dingtalk import FakeDingTalk
from tests.fakes.feishu import FakeFeishu
from tests.fakes.wecom import FakeWeCom
from tests.waiting import until


def _core(settings: Settings) -> ChatCore:
    return ChatCore(settings=settings, queue=JobQueue(settings.redis.url, settings.redis), poll_s=0.2)


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


async def _stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_wecom_front_restarted(queue_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.wecom.front import WeComFront

    async with FakeWeCom() as fake:
        for key, value in fake.env().items():
            monkeypatch.setenv(key, value)
        settings = queue_settings.model_copy(update={"wecom": WeComSettings(
            enabled=True, allowed_chats=["zhangsan"], port=free_port(), api_base=fake.base_url)})
        sender = fake.sender(f"http://127.0.0.1:{settings.wecom.port}{settings.wecom.path}")
        inner, _ = sender.inner_text("zhangsan", "/help")
        first = None
        for attempt in ("first", "restarted"):
            task = asyncio.create_task(WeComFront(_core(settings), settings.wecom).run())
            await until(lambda: _port_open(settings.wecom.port), what="the callback server")
            try:
                if first is None:
                    first = await sender.post(*sender.envelope(inner))
                    assert first.status == 200
                    await until(lambda: fake.messages("user:zhangsan"), what="the help")
                else:
                    assert (await sender.replay(first)).status == 403  # byte for byte
                    assert (await sender.post(*sender.envelope(inner))).status == 200  # WeCom's retry, same MsgId
                    await asyncio.sleep(0.5)
            finally:
                await _stop(task)
            await until(lambda: not _port_open(settings.wecom.port), what=f"the {attempt} front to stop")
        assert len(fake.messages("user:zhangsan")) == 1


async def test_dingtalk_front_restarted(queue_settings: Settings, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.dingtalk.front import DingTalkFront

    fake = FakeDingTalk(tmp_path / "pki").start()
    try:
        for key, value in {**fake.env(), "SCREENER_DINGTALK__CLIENT_ID": fake.client_id,
                           "SCREENER_DINGTALK__CLIENT_SECRET": fake.client_secret}.items():
            monkeypatch.setenv(key, value)
        settings = queue_settings.model_copy(update={"dingtalk": DingTalkSettings(
            enabled=True, allowed_chats=["manager001"])})
        data: dict[str, Any] | None = None
        for _ in ("first", "restarted"):
            front = DingTalkFront(_core(settings), settings.dingtalk)
            task = asyncio.create_task(front.run())
            await front.client.wait_connected(20)
            try:
                if data is None:
                    frame = await fake.send_text("manager001", "/help")
                    data = json.loads(frame.payload["data"])
                    await until(lambda: fake.messages("user:manager001"), what="the help")
                else:
                    again = await fake.deliver(data)  # the same msgId, as after a crash that lost the ACK
                    await fake.wait_acked(again)
                    await asyncio.sleep(0.5)
            finally:
                await _stop(task)
                await front.client.stop()
        assert len(fake.messages("user:manager001")) == 1
    finally:
        fake.stop()


async def test_feishu_front_restarted(queue_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.feishu.front import FeishuFront

    with FakeFeishu() as fake:
        for key, value in {"SCREENER_FEISHU__APP_ID": fake.app_id,
                           "SCREENER_FEISHU__APP_SECRET": fake.app_secret}.items():
            monkeypatch.setenv(key, value)
        alice = fake.user()
        dm = fake.chat("p2p", alice)
        settings = queue_settings.model_copy(update={"feishu": FeishuSettings(
            enabled=True, domain=fake.url, allowed_chats=[dm])})  # the default mode: the long connection
        event = fake.text_message(dm, alice, "/help", mention_bot=False)
        for attempt in ("first", "restarted"):
            task = asyncio.create_task(FeishuFront(_core(settings), settings.feishu).run())
            await until(lambda t=task: bool(fake.live_connections) or t.done(),  # type: ignore[misc]
                        what="the SDK to connect")
            try:
                assert (await fake.deliver(event)).code == 200
                if attempt == "first":
                    await until(lambda: fake.in_chat(dm), what="the help")
                await asyncio.sleep(0.5)
            finally:
                await _stop(task)
            await until(lambda: not fake.live_connections, what=f"the {attempt} connection to close")
        assert len(fake.in_chat(dm)) == 1
