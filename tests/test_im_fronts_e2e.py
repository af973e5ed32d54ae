"""DingTalk and WeCom users do what a Telegram user does, through the same chat core, end to end.

Real Redis, a real worker process (rules engine), the real dingtalk-stream SDK against the local fake
of DingTalk's gateway and APIs, and the WeCom app callback driven by the fake WeCom, which encrypts
and signs like WeCom. Checked per platform: /screen answered with a progress card updated in place,
the summary and the XLSX; an uploaded file screened; a stranger refused once and given no job; a
forged or replayed callback refused; /subscribe, then the morning digest pushed through the front.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.service import ChatCore
from bot.digest_scheduler import DigestService
from screening.config import DingTalkSettings, Settings, UniverseSettings, WeComSettings
from screening.data.load import EXAMPLES, ensure_demo_universe
from screening.queue.client import JobQueue
from screening.runtime.local_redis import free_port
from tests.fakes.dingtalk import FakeDingTalk
from tests.fakes.wecom import FakeWeCom
from tests.waiting import until

pytestmark = pytest.mark.slow
TRADING_DAY = dt.datetime(2026, 10, 9, 8, 45)  # a Friday the SSE traded
POOL_CSV = "代码,名称,市盈率(TTM),ROE(%)\n600519,贵州茅台,25.1,30.2\n000858,五粮液,15.0,22.0\n".encode("gbk")


@pytest.fixture
def core_settings(queue_settings: Settings, tmp_path: Path, spawn_worker) -> Settings:
    universe = tmp_path / "universe.sqlite"
    ensure_demo_universe(universe, EXAMPLES)
    spawn_worker("tests.engine_factories:slow_rules", env={"SCREENER_TEST_SLEEP_S": "0.01"})
    return queue_settings.model_copy(update={
        "universe": UniverseSettings(path=str(universe)),
        "dingtalk": DingTalkSettings(enabled=True, allowed_chats=["manager001"]),
        "wecom": WeComSettings(enabled=True, allowed_chats=["zhangsan"], port=free_port()),
    })


def _core(settings: Settings) -> tuple[ChatCore, DigestService]:
    # the universe here is the demo one: the operator allows pushing demo digests (labelled 演示数据)
    settings = settings.model_copy(update={"digest": settings.digest.model_copy(update={"allow_demo": True})})
    queue = JobQueue(settings.redis.url, settings.redis)
    core = ChatCore(settings=settings, queue=queue, poll_s=0.2, progress_interval_s=0.2)
    service = DigestService(settings, queue, None, engine="rules", clock=lambda: TRADING_DAY.replace(
        tzinfo=settings.digest.tz), out_dir=Path(settings.universe.path).parent / "digests")
    core.services["digest"] = service
    return core, service


# ------------------------------------------------------------------------------------------ DingTalk


@pytest.fixture
async def dingtalk(core_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                   ) -> AsyncIterator[tuple[FakeDingTalk, ChatCore, DigestService, Any]]:
    from bot.dingtalk.front import DingTalkFront

    fake = FakeDingTalk(tmp_path / "pki").start()
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("SCREENER_DINGTALK__CLIENT_ID", fake.client_id)
    monkeypatch.setenv("SCREENER_DINGTALK__CLIENT_SECRET", fake.client_secret)
    core, service = _core(core_settings)
    front = DingTalkFront(core, core_settings.dingtalk)
    service.register_front(front)
    task = asyncio.create_task(front.run())
    await front.client.wait_connected(20)
    try:
        yield fake, core, service, front
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await front.client.stop()
        fake.stop()


def _texts(fake: FakeDingTalk, chat: str) -> list[str]:
    return fake.texts(chat)


async def test_dingtalk_screen_upload_refusal_and_digest(dingtalk) -> None:
    fake, core, service, _front = dingtalk
    me = "user:manager001"
    await fake.send_text("manager001", "/screen 600519.SH 000001")
    await until(lambda: any("筛选结果" in x for x in _texts(fake, me)), 60, "the summary")
    await until(lambda: any(m.file for m in fake.messages(me)), 30, "the XLSX")
    cards = fake.cards_in(me)
    assert cards and len(cards[0].versions) >= 2, "the progress card was updated in place"
    assert "完成" in str(cards[0].current)
    summary = next(x for x in _texts(fake, me) if "筛选结果" in x)
    assert "贵州茅台" in summary and "演示数据" in summary  # the demo universe says so in every row

    await fake.send_file("manager001", "自选.csv", POOL_CSV)
    await until(lambda: any("自选.csv" in x and "2 只可筛选" in x for x in _texts(fake, me)), 30, "the upload ack")
    await until(lambda: sum(bool(m.file) for m in fake.messages(me)) >= 2, 60, "the upload's XLSX")

    before = len(await asyncio.to_thread(core.queue.jobs_of, "dingtalk:analyst002"))
    await fake.send_text("analyst002", "/screen 600519.SH")
    await fake.send_text("analyst002", "/screen 000858.SZ")
    await until(lambda: _texts(fake, "user:analyst002"), 20, "the refusal")
    await asyncio.sleep(1.0)
    assert len(_texts(fake, "user:analyst002")) == 1 and "不在允许名单" in _texts(fake, "user:analyst002")[0]
    assert len(await asyncio.to_thread(core.queue.jobs_of, "dingtalk:analyst002")) == before == 0

    stale = int((time.time() - 3600) * 1000)  # a replayed message from an hour ago is never processed
    n = len(_texts(fake, me))
    await fake.send_text("manager001", "/help", create_at_ms=stale)
    await asyncio.sleep(1.0)
    assert len(_texts(fake, me)) == n

    await fake.send_text("manager001", "/subscribe 08:45")
    await until(lambda: any("已订阅盘前摘要" in x for x in _texts(fake, me)), 20, "the subscription")
    outcomes = await service.run_slot("08:45", now=TRADING_DAY.replace(tzinfo=core.settings.digest.tz))
    assert [o.ok for o in outcomes] == [True], [o.describe() for o in outcomes]
    assert any("盘前摘要" in x for x in _texts(fake, me))


# ------------------------------------------------------------------------------------------ WeCom


@pytest.fixture
async def wecom(core_settings: Settings, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[tuple[FakeWeCom, ChatCore, DigestService, Any]]:
    from bot.wecom.front import WeComFront

    async with FakeWeCom() as fake:
        for key, value in fake.env().items():
            monkeypatch.setenv(key, value)
        settings = core_settings.model_copy(update={"wecom": core_settings.wecom.model_copy(
            update={"api_base": fake.base_url})})
        core, service = _core(settings)
        front = WeComFront(core, settings.wecom)
        service.register_front(front)
        task = asyncio.create_task(front.run())
        url = f"http://127.0.0.1:{settings.wecom.port}{settings.wecom.path}"
        await until(lambda: _port_open(settings.wecom.port), 20, "the callback server")
        try:
            yield fake, core, service, fake.sender(url)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _wecom_texts(fake: FakeWeCom, to: str) -> list[str]:
    return [str(m.payload) for m in fake.messages(f"user:{to}")]


async def test_wecom_screen_upload_forgery_replay_and_digest(wecom) -> None:
    fake, core, service, sender = wecom
    status, answer, expected = await sender.verify_url()
    assert status == 200 and answer == expected
    delivery = await sender.send_text("zhangsan", "/screen 600519.SH 000001")
    assert delivery.status == 200 and delivery.elapsed_s < 5  # acknowledged at once, answered later
    await until(lambda: any("筛选结果" in x for x in _wecom_texts(fake, "zhangsan")), 60, "the summary")
    await until(lambda: any(m.file for m in fake.messages("user:zhangsan")), 30, "the XLSX")
    assert any(m.recalled for m in fake.messages("user:zhangsan")), "the progress message was replaced"

    await sender.send_file("zhangsan", "自选.csv", POOL_CSV)
    await until(lambda: any("2 只可筛选" in x for x in _wecom_texts(fake, "zhangsan")), 30, "the upload ack")
    await until(lambda: sum(m.file is not None and (m.file_name or "").endswith(".xlsx")
                            for m in fake.messages("user:zhangsan")) >= 2, 60, "the upload's XLSX")
    await asyncio.sleep(1.5)  # the chart follows the XLSX

    n = len(fake.messages("user:zhangsan"))
    forged = await sender.send_text("zhangsan", "/help", forge=True)
    assert forged.status >= 400
    replayed = await sender.replay(delivery)
    assert replayed.status in (200, 403)  # WeCom retries get 200; nothing is processed twice
    await asyncio.sleep(1.0)
    assert len(fake.messages("user:zhangsan")) == n

    await sender.send_text("lisi", "/screen 600519.SH")
    await until(lambda: _wecom_texts(fake, "lisi"), 20, "the refusal")
    assert "不在允许名单" in _wecom_texts(fake, "lisi")[0]
    assert await asyncio.to_thread(core.queue.jobs_of, "wecom:lisi") == []

    await sender.send_text("zhangsan", "/subscribe")
    await until(lambda: any("已订阅盘前摘要" in x for x in _wecom_texts(fake, "zhangsan")), 20, "the subscription")
    outcomes = await service.run_slot("08:45", now=TRADING_DAY.replace(tzinfo=core.settings.digest.tz))
    assert [o.ok for o in outcomes] == [True], [o.describe() for o in outcomes]


# ------------------------------------------------------------------------------------------ Feishu


@pytest.fixture
async def feishu(core_settings: Settings, monkeypatch: pytest.MonkeyPatch
                 ) -> AsyncIterator[tuple[Any, ChatCore, DigestService, Any]]:
    from bot.feishu.front import FeishuFront
    from screening.config import FeishuSettings
    from tests.fakes.feishu import FakeFeishu

    with FakeFeishu() as fake:
        for key, value in {"SCREENER_FEISHU__APP_ID": fake.app_id, "SCREENER_FEISHU__APP_SECRET": fake.app_secret,
                           "SCREENER_FEISHU__VERIFICATION_TOKEN": fake.verification_token,
                           "SCREENER_FEISHU__ENCRYPT_KEY": fake.encrypt_key}.items():
            monkeypatch.setenv(key, value)
        alice = fake.user()
        dm = fake.chat("p2p", alice)
        settings = core_settings.model_copy(update={"feishu": FeishuSettings(
            enabled=True, domain=fake.url, allowed_chats=[dm])})
        core, service = _core(settings)
        front = FeishuFront(core, settings.feishu)
        service.register_front(front)
        task = asyncio.create_task(front.run())
        await fake.wait_for(lambda: bool(fake.live_connections) or task.done(), 20, what="the SDK to connect")
        try:
            yield fake, core, service, (alice, dm)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def _cards(fake: Any, chat: str) -> list[str]:
    return [str(m.card) for m in fake.in_chat(chat)]


async def test_feishu_screen_buttons_upload_refusal_and_digest(feishu) -> None:
    fake, core, service, (alice, dm) = feishu
    await fake.deliver(fake.text_message(dm, alice, "/screen 600519.SH 000001", mention_bot=False))
    await until(lambda: any("筛选结果" in x for x in _cards(fake, dm)), 60, "the summary")
    await until(lambda: any(m.msg_type == "file" for m in fake.in_chat(dm)), 30, "the XLSX")
    progress = next(m for m in fake.in_chat(dm) if m.msg_type == "interactive" and m.patches)
    assert "完成" in str(progress.card) and "hi:" in str(progress.card)  # updated in place, with its buttons
    n = len(fake.in_chat(dm))
    await fake.deliver(fake.card_action(fake.bot_message(progress.message_id), alice,
                                        next(a for a in _actions(progress.card) if a.startswith("hi:"))))
    await until(lambda: len(fake.in_chat(dm)) > n, 20, "the high-risk list")
    assert any("高风险" in str(m.content) for m in fake.in_chat(dm)[n:])

    await fake.deliver(fake.file_message(dm, alice, "自选.csv", POOL_CSV))
    await until(lambda: any("2 只可筛选" in str(m.content) for m in fake.in_chat(dm)), 30, "the upload ack")

    bob = fake.user()
    stranger = fake.chat("p2p", bob)
    await fake.deliver(fake.text_message(stranger, bob, "/screen 600519.SH", mention_bot=False))
    await until(lambda: fake.in_chat(stranger), 20, "the refusal")
    assert "不在允许名单" in str(fake.in_chat(stranger)[0].content)
    assert await asyncio.to_thread(core.queue.jobs_of, f"feishu:{bob}") == []

    await fake.deliver(fake.text_message(dm, alice, "/subscribe", mention_bot=False))
    await until(lambda: any("已订阅盘前摘要" in str(m.content) for m in fake.in_chat(dm)), 20, "the subscription")
    outcomes = await service.run_slot("08:45", now=TRADING_DAY.replace(tzinfo=core.settings.digest.tz))
    assert [o.ok for o in outcomes] == [True], [o.describe() for o in outcomes]


def _actions(card: dict[str, Any]) -> list[str]:
    import json

    return [m for m in __import__("re").findall(r'"action": "([a-z]+:[0-9a-f]{32})"', json.dumps(card))]
