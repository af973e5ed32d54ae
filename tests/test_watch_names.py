"""``/watch 600519 五粮液`` (a code, then another stock's name) set a watch list of two with no word that the pair
did not agree: the user believed they watched 五粮液 while 600519 is 贵州茅台 (a trial, 2026-12-07). /screen flagged
both rows 名称与代码不符 (``row_checks.typed_name_conflict``); /watch now says the same note, from the same function,
in its reply, on every front (the shared core's ``digest_commands.watch``), and still watches both.

Driven as a user drives it: the real PTB Application against tests/fake_bot_api.py, and the DingTalk front with the
real dingtalk-stream SDK against tests/fakes/dingtalk.py; real Redis keeps the subscription. No worker is needed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.service import ChatCore
from bot.digest_scheduler import SERVICE_KEY, DigestService
from bot.telegram.app import build_application
from screening.config import DingTalkSettings, Settings, UniverseSettings
from screening.data.universe import Record, Universe, UniverseInfo
from screening.models import NOTE_NAME_CONFLICT, StockInput
from screening.queue.client import JobQueue
from tests.fake_bot_api import FakeBotAPI
from tests.fakes.dingtalk import FakeDingTalk
from tests.waiting import until

DAY, CHAT = "2026-12-04", 1001
WATCHED = ["600519.SH", "000858.SZ"]  # both are watched: a list may mix codes and names, only the user knows


def _record(code: str, name: str) -> Record:
    stock = StockInput(code=code, name=name, industry="测试", pe_ttm=20.0, roe=20.0, price=10.0,
                       net_profit_y1=3e10, net_profit_y2=2.8e10, report_date="2026-09-30")
    fields = ("name", "industry", "pe_ttm", "roe", "price", "net_profit_y1", "net_profit_y2", "report_date")
    return Record(stock, dict.fromkeys(fields, "akshare:test"), dict.fromkeys(fields, DAY), DAY)


@pytest.fixture
def settings(queue_settings: Settings, tmp_path: Path) -> Settings:
    path = tmp_path / "universe.sqlite"
    Universe.load(path).replace([_record("600519.SH", "贵州茅台"), _record("000858.SZ", "五粮液")],
                                UniverseInfo(provider="akshare", trade_date=DAY, report_period="2026-09-30"))
    return queue_settings.model_copy(update={"universe": UniverseSettings(path=str(path), refresh_enabled=False)})


@pytest.fixture
async def telegram(settings: Settings) -> AsyncIterator[tuple[FakeBotAPI, Any]]:
    fake = await FakeBotAPI().start()
    settings = settings.model_copy(deep=True)
    settings.telegram = settings.telegram.model_copy(update={
        "base_url": fake.base_url, "base_file_url": fake.base_file_url, "allowed_chats": [CHAT]})
    queue = JobQueue(settings.redis.url, settings.redis)
    app = build_application(settings, queue, token=fake.token, poll_s=0.1)
    await app.initialize()
    await app.post_init(app)
    await app.updater.start_polling(timeout=1, poll_interval=0.0)
    await app.start()
    try:
        yield fake, app.bot_data[SERVICE_KEY]
    finally:
        await app.updater.stop()
        await app.stop()
        await app.post_stop(app)
        await app.shutdown()
        await fake.stop()
        queue.close()


def _said(reply: str) -> None:
    """The note /screen puts on both rows, whole, once; the reply still names what is watched."""
    assert reply.count(NOTE_NAME_CONFLICT) == 1, reply
    assert "输入 600519 五粮液, 但 600519.SH 是 贵州茅台, 五粮液 是 000858.SZ" in reply
    assert "两只都已加入自选股票池" in reply and "两只都已筛选" not in reply  # it watched them, it screened nothing
    assert "自选股票池已设为 2 只: 600519.SH 贵州茅台, 000858.SZ 五粮液" in reply


@pytest.mark.parametrize("typed", ["600519 五粮液", "600519五粮液", "五粮液(600519)"])
async def test_telegram_watch_of_a_code_and_another_stocks_name_says_so(telegram, typed: str) -> None:
    fake, service = telegram
    fake.push_text(CHAT, f"/watch {typed}")
    reply = await fake.wait_for(lambda: next((t for t in fake.texts(CHAT) if "自选股票池" in t), None), 20, "watch")
    _said(reply)
    assert service.subs.get(CHAT).pool == WATCHED

    fake.push_text(CHAT, "/watch 600519 贵州茅台 000858 五粮液")  # each code with its own name: nothing to say
    await fake.wait_for(lambda: len([t for t in fake.texts(CHAT) if "自选股票池" in t]) == 2, 20, "second watch")
    assert NOTE_NAME_CONFLICT not in fake.texts(CHAT)[-1] and service.subs.get(CHAT).pool == WATCHED


@pytest.fixture
async def dingtalk(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                   ) -> AsyncIterator[tuple[FakeDingTalk, DigestService]]:
    from bot.dingtalk.front import DingTalkFront

    fake = FakeDingTalk(tmp_path / "pki").start()
    for key, value in {**fake.env(), "SCREENER_DINGTALK__CLIENT_ID": fake.client_id,
                       "SCREENER_DINGTALK__CLIENT_SECRET": fake.client_secret}.items():
        monkeypatch.setenv(key, value)
    settings = settings.model_copy(update={"dingtalk": DingTalkSettings(enabled=True, allowed_chats=["manager001"])})
    core = ChatCore(settings=settings, queue=JobQueue(settings.redis.url, settings.redis), poll_s=0.2)
    service = core.services["digest"] = DigestService(settings, core.queue, None, engine="rules")
    front = DingTalkFront(core, settings.dingtalk)
    task = asyncio.create_task(front.run())
    await front.client.wait_connected(20)
    try:
        yield fake, service
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await front.client.stop()
        fake.stop()


async def test_dingtalk_watch_says_it_through_the_same_core(dingtalk) -> None:
    fake, service = dingtalk
    await fake.send_text("manager001", "/watch 600519 五粮液")
    texts = lambda: [str(m.param.get("text") or m.param.get("content") or "")  # noqa: E731
                     for m in fake.messages("user:manager001")]
    _said(await until(lambda: next((t for t in texts() if "自选股票池" in t), None), 20, "the watch reply"))
    assert [s.pool for s in service.subs.all(enabled_only=False)] == [WATCHED]


async def test_telegram_watch_says_when_no_digest_comes_and_when_the_pool_stands(telegram) -> None:
    """A watch in an unsubscribed chat was kept with no word that no digest comes; a watch of nothing usable did
    not say whether the pool it had still stands (a trial, 2026-12-07)."""
    fake, service = telegram
    replies = lambda: [t for t in fake.texts(CHAT) if "自选股票池" in t]  # noqa: E731
    for n, (typed, said) in enumerate([
            ("600519", "本聊天尚未订阅盘前摘要: 自选股票池已保存, 发送 /subscribe"),
            ("00750 000300.SH", "没有可用的代码, 自选股票池未改变 (1 只: 600519.SH)")], 1):
        fake.push_text(CHAT, f"/watch {typed}")
        await fake.wait_for(lambda n=n: len(replies()) == n, 20, typed)
        assert said in replies()[-1], replies()[-1]
    assert service.subs.get(CHAT).pool == ["600519.SH"]
    fake.push_text(CHAT, "/subscribe")
    await fake.wait_for(lambda: any("已订阅" in t for t in fake.texts(CHAT)), 20, "subscribe")
    fake.push_text(CHAT, "/watch 000858")
    await fake.wait_for(lambda: len(replies()) == 3, 20, "watch after subscribe")
    assert "尚未订阅" not in replies()[-1] and service.subs.get(CHAT).pool == ["000858.SZ"]
