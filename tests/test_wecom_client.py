"""The WeCom app client against the local fake of WeCom's API and callback sender (tests/fakes/wecom.py)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from aiohttp import web

from bot.core.guard import ChatGuard
from bot.core.inbound import ChatRef, Inbound
from bot.wecom import (
    SignatureError,
    WeComApiError,
    WeComAuthError,
    WeComClient,
    WeComConfigError,
    WeComCrypto,
    WeComCryptoError,
    WeComSettings,
)
from screening.config import Settings
from screening.runtime.local_redis import free_port
from tests.fakes.wecom import CallbackSender, FakeWeCom, wecom_encrypt, wecom_sign

USER = ChatRef("wecom", "zhangsan", "private")

# WeCom's published sample (WXBizMsgCrypt): Token, EncodingAESKey, CorpID, a URL check and a message
SAMPLE = ("QDG6eK", "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C", "wx5823bf96d3bd56c7")
SAMPLE_ENCRYPT = (
    "RypEvHKD8QQKFhvQ6QleEB4J58tiPdvo+rtK1I9qca6aM/wvqnLSV5zEPeusUiX5L5X/0lWfrf0QADHHhGd3QczcdCUpj911L3vg3W/sYYvuJTs3"
    "TUUkSUXxaccAS0qhxchrRYt66wiSpGLYL42aM6A8dTT+6k4aSknmPj48kzJs8qLjvd4Xgpue06DOdnLxAUHzM6+kDZ+HMZfJYuR+LtwGc2hgf5gs"
    "ijff0ekUNXZiqATP7PF5mZxZ3Izoun1s4zG4LUMnvw2r+KqCKIw+3IQH03v+BCA9nMELNqbSf6tiWSrXJB3LAVGUcallcrw8V2t9EL4EhzJWrQUa"
    "x5wLVMNS0+rUPA3k22Ncx4XXZS9o0MBH27Bo6BpNelZpS+/uh9KsNlY6bHCmJU9p8g7m3fVKn28H3KDYA5Pl/T8Z1ptDAVe0lXdQ2YoyyH2uyPIG"
    "HBZZIs2pDBS8R07+qN+E7Q=="
)


@dataclass
class Bot:
    client: WeComClient
    received: list[Inbound]
    sender: CallbackSender
    gate: asyncio.Event


@pytest.fixture
async def wecom() -> AsyncIterator[FakeWeCom]:
    async with FakeWeCom() as fake:
        yield fake


@pytest.fixture
def guard(queue_settings: Settings) -> ChatGuard:
    """The durable guard on the session's real redis-server, under this test's own prefix."""
    return ChatGuard.connect(queue_settings.redis.url, queue_settings.redis.prefix, "wecom")


async def _serve(wecom: FakeWeCom, guard: ChatGuard) -> tuple[Bot, web.AppRunner]:
    """One bot process's callback server (a restart or a second process is another call)."""
    received: list[Inbound] = []
    gate = asyncio.Event()
    gate.set()

    async def on_message(inbound: Inbound) -> None:
        await gate.wait()
        received.append(inbound)

    client = WeComClient(WeComSettings.from_env(wecom.env()), on_message, guard, api_base=wecom.base_url)
    runner = web.AppRunner(client.app(), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/wecom/callback"
    return Bot(client, received, wecom.sender(url), gate), runner


async def _stop(bot: Bot, runner: web.AppRunner) -> None:
    await bot.client.close()
    await runner.cleanup()


@pytest.fixture
async def bot(wecom: FakeWeCom, guard: ChatGuard) -> AsyncIterator[Bot]:
    served = await _serve(wecom, guard)
    yield served[0]
    await _stop(*served)


async def _settle() -> None:
    await asyncio.sleep(0.05)


# ---- crypto -------------------------------------------------------------------------------------------------
def test_wecoms_published_sample_verifies_and_decrypts() -> None:
    crypto = WeComCrypto(*SAMPLE)
    echo = crypto.verify_url("5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3", "1409659589", "263014780",
                             "P9nAzCzyDtyTWESHep1vC5X9xho/qYX3Zpb4yKa9SKld1DsH3Iyt3tP3zNdtp+4RPcs8TgAE7OaBO+FZXvnaqQ==")
    assert echo == "1616140317555161061"
    body = f"<xml><ToUserName><![CDATA[{SAMPLE[2]}]]></ToUserName><Encrypt><![CDATA[{SAMPLE_ENCRYPT}]]></Encrypt></xml>"
    inner = crypto.decrypt_callback("477715d11cdb4164915debcba66cb864d751f3e6", "1409659813", "1372623149",
                                    body.encode())
    assert "<Content><![CDATA[hello]]></Content>" in inner and "<FromUserName><![CDATA[mycreate]]>" in inner
    with pytest.raises(SignatureError):
        crypto.decrypt_callback("477715d11cdb4164915debcba66cb864d751f3e7", "1409659813", "1372623149", body.encode())
    with pytest.raises(WeComCryptoError, match="ReceiveId"):
        WeComCrypto(SAMPLE[0], SAMPLE[1], "wwsomeoneelse").decrypt(SAMPLE_ENCRYPT)


def test_the_bots_crypto_and_the_fakes_agree_both_ways() -> None:
    fake = FakeWeCom()
    crypto = WeComCrypto(fake.token, fake.encoding_aes_key, fake.corp_id)
    message = "<xml><Content><![CDATA[筛选 600519]]></Content></xml>" * 5
    assert crypto.decrypt(wecom_encrypt(fake.encoding_aes_key, fake.corp_id, message)) == message
    ours = crypto.encrypt(message)
    assert crypto.decrypt(ours) == message
    assert crypto.sign("1", "2", ours) == wecom_sign(fake.token, "1", "2", ours)
    with pytest.raises(WeComCryptoError, match="43 characters"):
        WeComCrypto("t", "short", "corp")


def test_settings_come_from_the_environment() -> None:
    env = FakeWeCom().env()
    settings = WeComSettings.from_env(env)
    assert (settings.corp_id, settings.agent_id) == ("ww0fakecorp00000001", 1000002)
    assert env["SCREENER_WECOM__SECRET"] not in repr(settings)
    del env["SCREENER_WECOM__TOKEN"]
    with pytest.raises(WeComConfigError, match="SCREENER_WECOM__TOKEN"):
        WeComSettings.from_env(env)


# ---- the callback -------------------------------------------------------------------------------------------
async def test_url_verification_handshake(bot: Bot) -> None:
    status, answer, expected = await bot.sender.verify_url()
    assert (status, answer) == (200, expected)
    assert (await bot.sender.verify_url(forge=True))[0] == 403
    assert (await bot.sender.verify_url(timestamp=int(time.time()) - 3600))[0] == 403


async def test_a_text_message_is_received(bot: Bot) -> None:
    delivery = await bot.sender.send_text("zhangsan", " /screen 600519.SH \n")
    assert (delivery.status, delivery.text) == (200, "")
    await _settle()
    [inbound] = bot.received
    assert inbound.chat == USER and inbound.user_id == "zhangsan" and inbound.text == "/screen 600519.SH"
    assert inbound.file is None and inbound.message_id.isdigit()


async def test_a_file_message_is_received_and_downloaded(bot: Bot, tmp_path: Path) -> None:
    content = "代码,名称\n600519,贵州茅台\n".encode("gbk")
    assert (await bot.sender.send_file("lisi", "自选股.csv", content)).status == 200
    assert (await bot.sender.send_file("lisi", "无名.csv", content, with_name=False)).status == 200
    await _settle()
    named, unnamed = bot.received
    for inbound, name in ((named, "自选股.csv"), (unnamed, "无名.csv")):
        assert inbound.file is not None and inbound.file.name == name and inbound.chat.chat_id == "lisi"
        dest = tmp_path / f"{name}.got"
        await inbound.file.download(dest)
        assert dest.read_bytes() == content


async def test_a_forged_signature_is_refused_and_reaches_nothing(bot: Bot, wecom: FakeWeCom) -> None:
    delivery = await bot.sender.send_text("zhangsan", "/screen 600519", forge=True)
    assert delivery.status == 403
    wrong_token = await bot.sender.send_text("zhangsan", "/screen 600519", token="not-the-token")
    assert wrong_token.status == 403
    other_corp = await bot.sender.send_text("zhangsan", "/screen 600519", corp_id="wwanothercorp")
    assert other_corp.status == 403  # signed right, but encrypted for another CorpID
    await _settle()
    assert bot.received == []


async def test_a_replayed_request_is_refused(bot: Bot) -> None:
    first = await bot.sender.send_text("zhangsan", "/status")
    again = await bot.sender.replay(first)
    assert (first.status, again.status) == (200, 403)
    await _settle()
    assert len(bot.received) == 1


async def test_wecoms_retry_of_a_msg_id_is_answered_but_processed_once(bot: Bot) -> None:
    inner, _ = bot.sender.inner_text("zhangsan", "/digest")
    first = await bot.sender.post(*bot.sender.envelope(inner))
    retry = await bot.sender.post(*bot.sender.envelope(inner))  # new nonce and signature, same MsgId
    assert (first.status, retry.status) == (200, 200)
    await _settle()
    assert [i.text for i in bot.received] == ["/digest"]


async def test_a_request_replayed_after_a_restart_or_to_a_second_process_is_refused(
        wecom: FakeWeCom, guard: ChatGuard, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    first, first_runner = await _serve(wecom, guard)
    second, second_runner = await _serve(wecom, guard)  # another bot process behind the same URL
    try:
        delivery = await first.sender.send_text("zhangsan", "/screen 600519")
        inner, _ = first.sender.inner_text("zhangsan", "/digest")
        retried = await first.sender.post(*first.sender.envelope(inner))
        await _settle()
        assert (delivery.status, retried.status) == (200, 200) and len(first.received) == 2
        assert (await second.sender.replay(delivery)).status == 403  # the same bytes, to the other process
        again = await second.sender.post(*second.sender.envelope(inner))  # WeCom's retry of the MsgId
        assert again.status == 200
        await _stop(first, first_runner)
        restarted, restarted_runner = await _serve(wecom, guard)  # the first process, restarted
        try:
            assert (await restarted.sender.replay(delivery)).status == 403
            await _settle()
            assert restarted.received == [] and second.received == []
        finally:
            await _stop(restarted, restarted_runner)
    finally:
        await _stop(second, second_runner)
    assert "already seen" in caplog.text and "already taken" in caplog.text
    assert not [r for r in caplog.records if r.exc_info]


async def test_without_redis_the_callback_answers_503_and_acts_on_nothing(
        wecom: FakeWeCom, caplog: pytest.LogCaptureFixture) -> None:
    nowhere = ChatGuard.connect(f"redis://127.0.0.1:{free_port()}/0", "t", "wecom")  # no server listens there
    bot, runner = await _serve(wecom, nowhere)
    try:
        with caplog.at_level(logging.WARNING):
            delivery = await bot.sender.send_text("zhangsan", "/screen 600519")
        await _settle()
        assert delivery.status == 503 and bot.received == []  # WeCom retries a callback it got no 200 for
    finally:
        await _stop(bot, runner)
    [line] = [r for r in caplog.records if r.name == "bot.wecom.callback"]
    assert line.levelno == logging.WARNING and "Redis unavailable" in line.getMessage() and not line.exc_info


async def test_every_refusal_is_its_4xx_with_one_warning_and_no_traceback(
        bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    import aiohttp

    sender = bot.sender
    inner, _ = sender.inner_text("zhangsan", "/help")
    other_agent = inner.replace(f"<AgentID>{sender.wecom.agent_id}</AgentID>", "<AgentID>1000099</AgentID>")
    bomb = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
            b"<xml><Encrypt>&b;</Encrypt></xml>")
    params, _ = sender.envelope(inner)
    first = await sender.send_text("zhangsan", "/status")
    caplog.set_level(logging.INFO)
    caplog.clear()
    async with aiohttp.ClientSession() as session:
        async def get(query: dict[str, str]) -> int:
            async with session.get(sender.url, params=query) as resp:
                return resp.status
        statuses = {
            "no signature": (await sender.post({"timestamp": "1", "nonce": "2"}, b"<xml/>")).status,
            "stale": (await sender.send_text("zhangsan", "/help", timestamp=int(time.time()) - 3600)).status,
            "forged": (await sender.send_text("zhangsan", "/help", forge=True)).status,
            "not xml": (await sender.post(params, b"not xml at all")).status,
            "entity bomb": (await sender.post(params, bomb)).status,
            "replayed": (await sender.replay(first)).status,
            "another corp": (await sender.send_text("zhangsan", "/help", corp_id="wwanothercorp")).status,
            "another agent": (await sender.post(*sender.envelope(other_agent))).status,
            "get without echostr": await get({"msg_signature": "x", "timestamp": "1", "nonce": "2"}),
        }
    statuses["get forged"] = (await sender.verify_url(forge=True))[0]
    assert statuses == {"no signature": 400, "stale": 403, "forged": 403, "not xml": 400, "entity bomb": 400,
                        "replayed": 403, "another corp": 403, "another agent": 403, "get without echostr": 400,
                        "get forged": 403}
    ours = [r for r in caplog.records if r.name == "bot.wecom.callback"]
    assert len(ours) == len(statuses) and all(r.levelno == logging.WARNING for r in ours)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    await _settle()
    assert [i.text for i in bot.received] == ["/status"]


async def test_a_stale_timestamp_is_refused(bot: Bot) -> None:
    old = await bot.sender.send_text("zhangsan", "/screen 600519", timestamp=int(time.time()) - 3600)
    future = await bot.sender.send_text("zhangsan", "/screen 600519", timestamp=int(time.time()) + 3600)
    assert (old.status, future.status) == (403, 403)
    await _settle()
    assert bot.received == []


async def test_the_answer_comes_at_once_and_the_work_afterwards(bot: Bot) -> None:
    bot.gate.clear()  # the core's handler is busy (a /screen that takes minutes)
    delivery = await bot.sender.send_text("zhangsan", "/screen 600519")
    assert delivery.status == 200 and delivery.elapsed_s < 1.0  # WeCom's window is 5 s
    assert bot.received == []
    bot.gate.set()
    await _settle()
    assert len(bot.received) == 1


# ---- the send side ------------------------------------------------------------------------------------------
async def test_a_reply_is_sent_as_markdown_split_to_wecoms_limit(bot: Bot, wecom: FakeWeCom) -> None:
    await bot.client.send_markdown(USER, "筛选结果", "**600519.SH 贵州茅台** 低风险")
    [reply] = wecom.messages("user:zhangsan")
    assert reply.msgtype == "markdown" and reply.payload["content"] == "**筛选结果**\n**600519.SH 贵州茅台** 低风险"

    table = "\n".join(f"- 60{i:04d}.SH 名称{i} 中风险 理由：市盈率偏高" for i in range(200))
    sent = await bot.client.send_markdown(USER, "全部", table)
    parts = wecom.messages("user:zhangsan")[1:]
    assert len(sent) == len(parts) > 1 and not wecom.refusals
    assert all(len(p.payload["content"].encode()) <= 2048 for p in parts)
    # numbered as every front's split reply is (a big summary came as ~17 messages that did not say so)
    assert "\n".join(_unnumbered([p.payload["content"] for p in parts])) == "**全部**\n" + table

    await bot.client.send_text(USER, "字" * 1500)
    texts = [m for m in wecom.messages("user:zhangsan") if m.msgtype == "text"]
    assert len(texts) == 3 and not any(m.truncated for m in texts)
    assert "".join(_unnumbered([m.payload["content"] for m in texts])) == "字" * 1500


def _unnumbered(parts: list[str]) -> list[str]:
    """The parts without their marks, after checking them: none on the first, "（续 i/n）" on each later one."""
    n = len(parts)
    assert "（续" not in parts[0]
    assert all(p.startswith(f"（续 {i}/{n}）\n") for i, p in enumerate(parts[1:], 2)), [p[:12] for p in parts]
    return [parts[0]] + [p.split("\n", 1)[1] for p in parts[1:]]


async def test_a_file_is_uploaded_and_sent(bot: Bot, wecom: FakeWeCom, tmp_path: Path) -> None:
    xlsx = tmp_path / "result.xlsx"
    xlsx.write_bytes(b"PK\x03\x04 xlsx bytes here")
    await bot.client.send_file(USER, xlsx, "筛选结果.xlsx")
    [sent] = wecom.messages("user:zhangsan")
    assert (sent.msgtype, sent.file, sent.file_name) == ("file", xlsx.read_bytes(), "筛选结果.xlsx")
    tiny = tmp_path / "tiny.xlsx"
    tiny.write_bytes(b"PK")
    with pytest.raises(WeComApiError, match="bytes"):
        await bot.client.send_file(USER, tiny)


async def test_app_chat_push(bot: Bot, wecom: FakeWeCom) -> None:
    await bot.client.send_markdown(ChatRef("wecom", "wrchat0001", "group"), "盘前摘要", "今日 3 只高风险")
    [sent] = wecom.messages("chat:wrchat0001")
    assert sent.msgtype == "markdown"
    with pytest.raises(WeComApiError, match="86003"):
        await bot.client.send_text(ChatRef("wecom", "wrnochat", "group"), "x")


async def test_the_token_is_cached_and_refreshed_when_wecom_says_it_expired(bot: Bot, wecom: FakeWeCom) -> None:
    await bot.client.send_text(USER, "one")
    await bot.client.send_text(USER, "two")
    assert wecom.token_requests == 1
    wecom.expire_tokens()
    await bot.client.send_text(USER, "three")
    assert wecom.token_requests == 2
    assert [m.payload["content"] for m in wecom.messages("user:zhangsan")] == ["one", "two", "three"]
    assert [r[1] for r in wecom.refusals] == [42001]


async def test_wrong_credentials_are_refused(wecom: FakeWeCom) -> None:
    env = wecom.env()
    for key, value, code in (("SECRET", "not-the-secret", "40001"), ("CORP_ID", "wwnotthecorp", "40013")):
        settings = WeComSettings.from_env({**env, f"SCREENER_WECOM__{key}": value})
        client = WeComClient(settings, _ignore, _NO_GUARD, api_base=wecom.base_url)
        with pytest.raises(WeComAuthError, match=code):
            await client.check_credentials()
        await client.close()


async def test_progress_is_shown_as_one_message_always_the_latest(bot: Bot, wecom: FakeWeCom) -> None:
    card = await bot.client.send_card(USER, "筛选进度", "0/10")
    for done in (5, 10):
        await bot.client.update_card(card, f"{done}/10")
    messages = wecom.messages("user:zhangsan")
    assert [m.payload["content"] for m in messages] == [f"**筛选进度**\n{n}/10" for n in (0, 5, 10)]
    assert [m.recalled for m in messages] == [True, True, False]
    assert card.msgid == messages[-1].msgid


async def test_a_template_card_is_replaced_once(bot: Bot, wecom: FakeWeCom) -> None:
    card = {"card_type": "button_interaction", "main_title": {"title": "筛选进行中", "desc": "0/10"},
            "task_id": "job-1", "button_list": [{"text": "取消", "key": "cancel-job-1"}]}
    sent = await bot.client.send_template_card(USER, card)
    assert sent.response_code
    done = {"card_type": "text_notice", "main_title": {"title": "筛选完成", "desc": "10/10"},
            "card_action": {"type": 1, "url": "https://work.weixin.qq.com"}}
    await bot.client.update_template_card(USER, sent, done)
    assert wecom.card_updates[0]["template_card"]["main_title"]["title"] == "筛选完成"
    with pytest.raises(WeComApiError, match="response_code"):
        await bot.client.update_template_card(USER, sent, done)


async def _ignore(_: Inbound) -> None:
    return None


_NO_GUARD = ChatGuard(redis.Redis(port=1), "unused", "wecom")  # for clients that only send
