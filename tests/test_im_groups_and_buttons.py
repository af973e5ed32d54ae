"""Group chats and card buttons on the enterprise-IM fronts, end to end through the chat core.

Real Redis, the real SDKs (dingtalk-stream, lark-oapi) against the local fakes; no worker is needed
(/help and /status answer from Redis). Checked: in a group on the allow-list every member may command; in
another group only the admins may, the others get one refusal for the chat; on Feishu a group remark not
addressed to the bot is ignored. A Feishu card button (HTTP callback) is acted on when signed, once
(its replay is refused, Feishu's retry dropped), and refused to a stranger.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core.service import ChatCore, scoped
from screening.config import DingTalkSettings, FeishuSettings, Settings
from screening.queue.client import JobQueue
from screening.runtime.local_redis import free_port
from tests.fakes.dingtalk import FakeDingTalk
from tests.fakes.feishu import FakeFeishu
from tests.fixtures_redis import make_items
from tests.waiting import until

ALLOWED_GROUP, OTHER_GROUP = "cidGroupResearch0001==", "cidGroupTrading0002=="
REFUSAL = "不在允许名单"


def _core(settings: Settings) -> ChatCore:
    return ChatCore(settings=settings, queue=JobQueue(settings.redis.url, settings.redis), poll_s=0.2)


# ------------------------------------------------------------------------------------------ DingTalk


@pytest.fixture
async def dingtalk(queue_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                   ) -> AsyncIterator[FakeDingTalk]:
    from bot.dingtalk.front import DingTalkFront

    fake = FakeDingTalk(tmp_path / "pki", groups={ALLOWED_GROUP: "研究部", OTHER_GROUP: "交易部"},
                        staff={"manager001": "张三", "analyst002": "李四", "trader003": "王五"}).start()
    for key, value in {**fake.env(), "SCREENER_DINGTALK__CLIENT_ID": fake.client_id,
                       "SCREENER_DINGTALK__CLIENT_SECRET": fake.client_secret}.items():
        monkeypatch.setenv(key, value)
    settings = queue_settings.model_copy(update={"dingtalk": DingTalkSettings(
        enabled=True, allowed_chats=[ALLOWED_GROUP], admin_users=["manager001"])})
    front = DingTalkFront(_core(settings), settings.dingtalk)
    task = asyncio.create_task(front.run())
    await front.client.wait_connected(20)
    try:
        yield fake
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await front.client.stop()
        fake.stop()


def _dt_texts(fake: FakeDingTalk, group: str) -> list[str]:
    return [str(m.param.get("text") or m.param.get("content") or "") for m in fake.messages(f"group:{group}")]


async def test_dingtalk_group_members_and_admins(dingtalk: FakeDingTalk) -> None:
    fake = dingtalk
    await fake.send_text("analyst002", "/help", group=ALLOWED_GROUP)  # any member of an allowed group
    await until(lambda: any("/screen" in x for x in _dt_texts(fake, ALLOWED_GROUP)), what="help in the group")

    await fake.send_text("analyst002", "/help", group=OTHER_GROUP)
    await fake.send_text("trader003", "/status", group=OTHER_GROUP)
    await until(lambda: _dt_texts(fake, OTHER_GROUP), what="the refusal")
    await fake.send_text("manager001", "/help", group=OTHER_GROUP)  # an admin, in any group
    await until(lambda: any("/screen" in x for x in _dt_texts(fake, OTHER_GROUP)), what="help for the admin")
    texts = _dt_texts(fake, OTHER_GROUP)
    assert sum(REFUSAL in x for x in texts) == 1 and len(texts) == 2  # one refusal for the chat, then the help


# ------------------------------------------------------------------------------------------ Feishu


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
async def feishu(queue_settings: Settings, monkeypatch: pytest.MonkeyPatch
                 ) -> AsyncIterator[tuple[FakeFeishu, ChatCore, str, dict[str, str]]]:
    """The front in HTTP-callback mode: allowed group, another group, an admin and two members."""
    from bot.feishu.front import FeishuFront

    with FakeFeishu() as fake:
        for key, value in {"SCREENER_FEISHU__APP_ID": fake.app_id, "SCREENER_FEISHU__APP_SECRET": fake.app_secret,
                           "SCREENER_FEISHU__VERIFICATION_TOKEN": fake.verification_token,
                           "SCREENER_FEISHU__ENCRYPT_KEY": fake.encrypt_key}.items():
            monkeypatch.setenv(key, value)
        people = {"admin": fake.user(), "alice": fake.user(), "bob": fake.user()}
        chats = {"allowed": fake.chat("group"), "other": fake.chat("group")}
        port = free_port()
        settings = queue_settings.model_copy(update={"feishu": FeishuSettings(
            enabled=True, mode="http", domain=fake.url, port=port, allowed_chats=[chats["allowed"]],
            admin_users=[people["admin"]])})
        core = _core(settings)
        front = FeishuFront(core, settings.feishu)
        task = asyncio.create_task(front.run())
        await until(lambda: _port_open(port) or task.done(), what="the callback server")
        try:
            yield fake, core, f"http://127.0.0.1:{port}{settings.feishu.path}", {**people, **chats}
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def _fs_texts(fake: FakeFeishu, chat: str) -> list[str]:
    return [str(m.content) + str(m.card) for m in fake.in_chat(chat)]


async def test_feishu_group_mentions_members_and_admins(feishu) -> None:
    fake, _, url, ids = feishu
    allowed, other = ids["allowed"], ids["other"]
    remark = await fake.push(url, fake.text_message(allowed, ids["alice"], "/help", mention_bot=False))
    assert remark.status == 200  # not addressed to the bot: acknowledged, ignored
    assert (await fake.push(url, fake.text_message(allowed, ids["alice"], "/help"))).status == 200
    await until(lambda: any("/screen" in x for x in _fs_texts(fake, allowed)), what="help in the group")
    assert len(fake.in_chat(allowed)) == 1

    for who in ("alice", "bob"):
        assert (await fake.push(url, fake.text_message(other, ids[who], "/status"))).status == 200
    await until(lambda: fake.in_chat(other), what="the refusal")
    assert (await fake.push(url, fake.text_message(other, ids["admin"], "/help"))).status == 200
    await until(lambda: any("/screen" in x for x in _fs_texts(fake, other)), what="help for the admin")
    texts = _fs_texts(fake, other)
    assert sum(REFUSAL in x for x in texts) == 1 and len(texts) == 2


async def test_feishu_card_button_signed_replayed_retried_and_from_a_stranger(feishu) -> None:
    fake, core, url, ids = feishu
    allowed, other = ids["allowed"], ids["other"]
    owner = {"user": scoped("feishu", ids["alice"]), "chat": scoped("feishu", allowed)}
    job_id = await asyncio.to_thread(core.queue.submit, make_items(2), lane="fast", source="test", owner=owner)
    card = await fake_card(fake, core, allowed, job_id)
    press = fake.card_action(fake.bot_message(card), ids["bob"], f"hi:{job_id}")  # any member of the group
    first = await fake.send(fake.push_request(url, press.envelope))
    assert first.status == 200
    # the job has no rows yet (no worker): the answer is the list's empty form
    await until(lambda: any("没有高风险股票" in x for x in _fs_texts(fake, allowed)), what="the high-risk list")
    n = len(fake.in_chat(allowed))
    assert (await fake.send(first)).status == 401  # the same bytes again
    assert (await fake.push(url, press)).status == 200  # Feishu's retry: signed anew, the same event_id
    await asyncio.sleep(0.5)
    assert len(fake.in_chat(allowed)) == n

    stranger_card = await fake_card(fake, core, other, job_id)
    pressed = await fake.push(url, fake.card_action(fake.bot_message(stranger_card), ids["bob"], f"hi:{job_id}"))
    assert pressed.status == 200
    await until(lambda: fake.in_chat(other)[1:], what="the stranger's answer")
    texts = _fs_texts(fake, other)[1:]
    assert texts and all("无权限" in x and "没有高风险股票" not in x for x in texts)


async def fake_card(fake: FakeFeishu, core: ChatCore, chat: str, job_id: str) -> str:
    """A result card with the job's buttons, as the bot sends it (through the Feishu client)."""
    from bot.feishu import Action, FeishuClient, FeishuCredentials, markdown_card

    client = FeishuClient(FeishuCredentials(fake.app_id, fake.app_secret), domain=fake.url)
    sent = await client.send_card(chat, markdown_card("结果", "2 只", [Action("高风险", f"hi:{job_id}")]))
    return sent.message_id


async def test_a_feishu_reply_over_the_30_kb_post_limit_goes_in_several_posts(feishu) -> None:
    """A trial (2026-12-07): a summary with ~100 failed rows or /high of a few hundred rows (42-125 KB) was refused
    whole by Feishu (230025), and /high answered nothing. It is split at line breaks by the SDK's own body size."""
    from bot.core.inbound import ChatRef
    from bot.core.text import line
    from bot.feishu.front import FeishuFront

    fake, core, _, ids = feishu
    front = FeishuFront(core, core.settings.feishu)
    why = "缺少数据: ROE (文件和本地基本面库中均没有; 运行 universe refresh)"
    rows = [line(f"⚠️ {600000 + n:06d}.SH 样本{n} — 失败: {why}") for n in range(600)]
    await front.send(ChatRef("feishu", ids["allowed"], "group"), rows, title="失败明细")
    posts = [str(m.content) for m in fake.in_chat(ids["allowed"])]
    assert len(posts) >= 2
    assert all(f"{600000 + n:06d}.SH" in "".join(posts) for n in range(600))
    # numbered as every front's split reply is (the same mark as WeCom's, DingTalk's, Telegram's and the digest's)
    texts = [m.content["zh_cn"]["content"][0][0]["text"] for m in fake.in_chat(ids["allowed"])]
    assert "（续" not in texts[0]
    assert all(t.startswith(f"（续 {i}/{len(texts)}）\n") for i, t in enumerate(texts[1:], 2)), [t[:20] for t in texts]
