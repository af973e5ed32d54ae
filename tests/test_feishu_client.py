"""The Feishu transport (bot/feishu) with the real lark-oapi SDK against the local fake of Feishu.

Both receiving modes run the SDK's own code: the long connection (``lark.ws.Client``: endpoint call,
protobuf frames, pings, answers, reconnect) and the HTTP callback (``EventDispatcherHandler.do``:
decryption, token, challenge, signature) behind the checks bot/feishu adds in front of it. Sending
goes through ``lark.Client`` (tenant token, im/v1 messages, reply, patch, files, images, resources).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiohttp import web

from bot.core.guard import ChatGuard
from bot.core.inbound import Inbound
from bot.feishu import (
    BODY_LIMITS,
    ENV_APP_ID,
    ENV_APP_SECRET,
    Action,
    CardAction,
    FeishuApiError,
    FeishuCallback,
    FeishuClient,
    FeishuConfigError,
    FeishuCredentials,
    FeishuError,
    FeishuEventRouter,
    FeishuLongConnection,
    FeishuTooLarge,
    markdown_card,
    message_body_bytes,
)
from screening.config import Settings
from screening.runtime.local_redis import free_port
from tests.fakes.feishu import FakeFeishu

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


class Inbox:
    """The core's side: what reached the async callbacks."""

    def __init__(self) -> None:
        self.messages: list[Inbound] = []
        self.actions: list[CardAction] = []

    async def on_message(self, inbound: Inbound) -> None:
        self.messages.append(inbound)

    async def on_action(self, action: CardAction) -> None:
        self.actions.append(action)

    async def settle(self) -> None:
        """Let callbacks scheduled by an event the SDK already answered run (or, rightly, not)."""
        for _ in range(5):
            await asyncio.sleep(0.01)


@pytest.fixture
def fake() -> Iterator[FakeFeishu]:
    with FakeFeishu() as f:
        yield f


@pytest.fixture
def creds(fake: FakeFeishu) -> FeishuCredentials:
    return FeishuCredentials(app_id=fake.app_id, app_secret=fake.app_secret,
                             verification_token=fake.verification_token, encrypt_key=fake.encrypt_key)


@pytest.fixture
def client(fake: FakeFeishu, creds: FeishuCredentials) -> FeishuClient:
    return FeishuClient(creds, domain=fake.url)


@pytest.fixture
def guard(queue_settings: Settings) -> ChatGuard:
    """The durable guard on the session's real redis-server, under this test's own prefix."""
    return ChatGuard.connect(queue_settings.redis.url, queue_settings.redis.prefix, "feishu")


async def _router(fake: FakeFeishu, client: FeishuClient, guard: ChatGuard) -> tuple[FeishuEventRouter, Inbox]:
    """One bot process's router (a restarted or second process makes its own, on the same Redis)."""
    inbox = Inbox()
    r = FeishuEventRouter(on_message=inbox.on_message, on_action=inbox.on_action, downloader=client,
                          bot_open_id=await client.bot_open_id(), app_id=fake.app_id, guard=guard)
    return r, inbox


@pytest.fixture
async def router(fake: FakeFeishu, client: FeishuClient, guard: ChatGuard) -> tuple[FeishuEventRouter, Inbox]:
    return await _router(fake, client, guard)


@pytest.fixture
async def long_connection(fake: FakeFeishu, creds: FeishuCredentials,
                          router: tuple[FeishuEventRouter, Inbox]) -> AsyncIterator[Inbox]:
    conn = FeishuLongConnection(creds, router[0], domain=fake.url)
    task = asyncio.create_task(conn.run())
    await fake.wait_for(lambda: bool(fake.live_connections) or task.done(), what="the SDK to connect")
    yield router[1]
    await conn.stop()
    await asyncio.wait_for(task, 5)
    assert not fake.live_connections
    assert not fake.protocol_errors


async def _serve_callback(creds: FeishuCredentials, router: FeishuEventRouter,
                          guard: ChatGuard) -> tuple[str, web.AppRunner]:
    runner = web.AppRunner(FeishuCallback(creds, router, guard).app("/feishu/events"), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return f"http://127.0.0.1:{runner.addresses[0][1]}/feishu/events", runner


@pytest.fixture
async def callback_url(creds: FeishuCredentials, router: tuple[FeishuEventRouter, Inbox],
                       guard: ChatGuard) -> AsyncIterator[str]:
    url, runner = await _serve_callback(creds, router[0], guard)
    yield url
    await runner.cleanup()


# ---- credentials ----------------------------------------------------------------------------------------
def test_credentials_come_from_the_environment_and_never_show() -> None:
    with pytest.raises(FeishuConfigError, match=ENV_APP_SECRET):
        FeishuCredentials.from_env({ENV_APP_ID: "cli_x"})
    c = FeishuCredentials.from_env({ENV_APP_ID: "cli_x", ENV_APP_SECRET: "s3cr3t-value",
                                    "SCREENER_FEISHU__ENCRYPT_KEY": "k3y-value"})
    assert c.app_id == "cli_x" and c.encrypt_key == "k3y-value"
    assert "s3cr3t" not in repr(c) and "k3y" not in repr(c)
    with pytest.raises(FeishuConfigError, match="VERIFICATION_TOKEN"):
        c.require_callback_secrets()


# ---- sending --------------------------------------------------------------------------------------------
async def test_text_reply_card_patched_in_order_file_and_image(fake: FakeFeishu, client: FeishuClient,
                                                               tmp_path: Path) -> None:
    group = fake.chat("group")
    sent = await client.send_text(group, "筛选开始")
    assert fake.in_chat(group)[0].content == {"text": "筛选开始"} and sent.chat_id == group

    question = fake.text_message(group, fake.user(), "/screen 600519")
    assert question.message_id is not None
    reply = await client.reply_markdown(question.message_id, "**收到** 1 只")
    recorded = fake.bot_message(reply.message_id)
    assert recorded.parent_id == question.message_id and recorded.msg_type == "post"
    assert recorded.content["zh_cn"]["content"] == [[{"tag": "md", "text": "**收到** 1 只"}]]

    card = await client.send_card(group, markdown_card("进度", "0 / 3", [Action("刷新", "rf:job1")]))
    for done in (1, 2, 3):  # faster than 5 a second: the client spaces them, the fake would refuse
        await client.update_card(card.message_id, markdown_card("进度", f"{done} / 3"))
    patches = fake.bot_message(card.message_id).patches
    assert [p["elements"][0]["content"] for p in patches] == ["1 / 3", "2 / 3", "3 / 3"]

    xlsx = tmp_path / "result.xlsx"
    xlsx.write_bytes(b"PK\x03\x04 an xlsx")
    file_msg = await client.send_file(group, xlsx, file_name="筛选结果.xlsx")
    key = fake.bot_message(file_msg.message_id).content["file_key"]
    assert (fake.uploads[key].name, fake.uploads[key].file_type, fake.uploads[key].data) == (
        "筛选结果.xlsx", "xls", b"PK\x03\x04 an xlsx")
    chart = tmp_path / "chart.png"
    chart.write_bytes(PNG)
    image_msg = await client.send_image(group, chart)
    assert fake.uploads[fake.bot_message(image_msg.message_id).content["image_key"]].data == PNG
    assert [m.msg_type for m in fake.in_chat(group)] == ["text", "post", "interactive", "file", "image"]
    assert fake.token_requests == 1  # the SDK cached the tenant token
    assert not fake.refusals


async def test_limits_are_enforced_before_sending_and_feishu_refusals_name_the_code(
        fake: FakeFeishu, client: FeishuClient, tmp_path: Path) -> None:
    group = fake.chat("group")
    with pytest.raises(FeishuTooLarge, match="153600"):
        await client.send_text(group, "股" * 60_000)  # 180 KB of UTF-8
    with pytest.raises(FeishuTooLarge):
        await client.send_card(group, markdown_card("大", "行" * 11_000))
    assert fake.sent == [] and fake.refusals == []  # nothing half-sent

    card = await client.send_card(group, markdown_card("进度", "0"))
    with pytest.raises(FeishuError, match="update_multi"):
        await client.update_card(card.message_id, {"elements": [{"tag": "markdown", "content": "x"}]})
    with pytest.raises(FeishuApiError) as not_in_chat:
        await client.send_text("oc_not_a_chat_of_the_bot", "hi")
    assert not_in_chat.value.code == 230002
    fake.age_message(card.message_id, 15 * 86400)
    with pytest.raises(FeishuApiError) as too_old:
        await client.update_card(card.message_id, markdown_card("进度", "1"))
    assert too_old.value.code == 230031

    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    with pytest.raises(FeishuError, match="empty"):
        await client.send_file(group, empty)
    with pytest.raises(FeishuApiError) as not_image:
        bogus = tmp_path / "chart.png"
        bogus.write_bytes(b"not an image at all")
        await client.send_image(group, bogus)
    assert not_image.value.code == 234011


async def test_the_client_measures_a_body_as_feishu_does(fake: FakeFeishu, client: FeishuClient) -> None:
    group = fake.chat("group")
    limit = BODY_LIMITS["text"]
    text = "a" * (limit - message_body_bytes(group, "text", {"text": ""}))
    assert message_body_bytes(group, "text", {"text": text}) == limit
    await client.send_text(group, text)  # exactly at the limit: Feishu takes it
    with pytest.raises(FeishuTooLarge):
        await client.send_text(group, text + "a")
    assert len(fake.sent) == 1 and not fake.refusals


async def test_wrong_secret_is_refused_by_the_token_endpoint(fake: FakeFeishu) -> None:
    wrong = FeishuClient(FeishuCredentials(app_id=fake.app_id, app_secret="not-the-secret"), domain=fake.url)
    with pytest.raises(FeishuError, match="10014"):
        await wrong.send_text(fake.chat(), "hi")
    assert fake.sent == []


async def test_a_file_the_user_sent_is_downloaded(fake: FakeFeishu, client: FeishuClient, tmp_path: Path) -> None:
    data = "代码,名称\n600519,贵州茅台\n".encode("gbk")
    event = fake.file_message(fake.chat("p2p"), fake.user(), "自选股.csv", data)
    key = json.loads(event.envelope["event"]["message"]["content"])["file_key"]
    assert event.message_id is not None
    assert await client.download_resource(event.message_id, key, tmp_path / "pool.csv") == len(data)
    assert (tmp_path / "pool.csv").read_bytes() == data
    with pytest.raises(FeishuApiError) as wrong_key:
        await client.download_resource(event.message_id, "file_v3_other", tmp_path / "x.csv")
    assert wrong_key.value.code == 234003 and not (tmp_path / "x.csv").exists()
    with pytest.raises(FeishuTooLarge):
        await client.download_resource(event.message_id, key, tmp_path / "y.csv", max_bytes=10)
    assert not (tmp_path / "y.csv").exists()


# ---- long connection ------------------------------------------------------------------------------------
async def test_long_connection_text_and_file_messages(fake: FakeFeishu, long_connection: Inbox,
                                                      tmp_path: Path) -> None:
    inbox = long_connection
    group, alice, bob = fake.chat("group"), fake.user(), fake.user()
    ack = await fake.deliver(fake.text_message(group, alice, "/screen  600519.SH 300750", others=((bob, "Bob"),)))
    assert ack.code == 200
    await fake.wait_for(lambda: len(inbox.messages) == 1, what="the group message")
    first = inbox.messages[0]
    assert (first.chat.platform, first.chat.chat_type, first.chat.chat_id) == ("feishu", "group", group)
    assert first.user_id == alice and first.text == "/screen 600519.SH 300750 @Bob"

    dm = fake.chat("p2p", alice)
    await fake.deliver(fake.text_message(dm, alice, "/help", mention_bot=False), parts=3)  # split frames
    await fake.wait_for(lambda: len(inbox.messages) == 2, what="the p2p message")
    assert inbox.messages[1].chat.chat_type == "private" and inbox.messages[1].text == "/help"

    chatter = await fake.deliver(fake.text_message(group, bob, "lunch?", mention_bot=False))
    assert chatter.code == 200
    await inbox.settle()
    assert len(inbox.messages) == 2  # a group remark not addressed to the bot

    data = b"\xb4\xfa\xc2\xeb\n600519\n"
    await fake.deliver(fake.file_message(dm, alice, "Table.xls", data))
    await fake.wait_for(lambda: len(inbox.messages) == 3, what="the file message")
    upload = inbox.messages[2].file
    assert upload is not None and upload.name == "Table.xls"
    await upload.download(tmp_path / "Table.xls")
    assert (tmp_path / "Table.xls").read_bytes() == data
    assert fake.live_connections[-1].pings >= 1  # the SDK pinged, the fake answered with its config


async def test_long_connection_posts_and_other_message_types(fake: FakeFeishu, long_connection: Inbox) -> None:
    inbox = long_connection
    group, alice = fake.chat("group"), fake.user()
    await fake.deliver(fake.post_message(group, alice, [" /screen 600519", "300750 "]))
    await fake.deliver(fake.post_message(group, alice, ["not for the bot"], mention_bot=False))
    # an image cannot @-mention the bot: in a group it is not for the bot (the core answers every group message
    # it is handed, S22 jb); in a private chat it is handed on, and the core answers with the commands
    await fake.deliver(fake.message_event(group, alice, "image", {"image_key": "img_v3_x"}, []))
    await fake.deliver(fake.message_event(fake.chat("p2p", alice), alice, "image", {"image_key": "img_v3_y"}, []))
    await fake.wait_for(lambda: len(inbox.messages) == 2)
    await inbox.settle()
    assert inbox.messages[0].text == "/screen 600519\n300750"
    assert (inbox.messages[1].text, inbox.messages[1].file, inbox.messages[1].context["feishu_message_type"],
            inbox.messages[1].chat.chat_type) == ("", None, "image", "private")


async def test_long_connection_redelivery_is_handled_once(fake: FakeFeishu, long_connection: Inbox) -> None:
    inbox = long_connection
    event = fake.text_message(fake.chat("group"), fake.user(), "/status")
    assert (await fake.deliver(event)).code == 200
    assert (await fake.deliver(event)).code == 200  # Feishu did not see the first answer: sent again
    await fake.wait_for(lambda: len(inbox.messages) == 1)
    await inbox.settle()
    assert [m.text for m in inbox.messages] == ["/status"]


async def test_long_connection_reconnects_after_the_gateway_drops_it(fake: FakeFeishu,
                                                                     long_connection: Inbox) -> None:
    await fake.drop_connections()
    event = fake.text_message(fake.chat("p2p", fake.user()), fake.user(), "/whoami", mention_bot=False)
    assert (await fake.deliver(event)).code == 200  # over a new connection, from a new endpoint call
    await fake.wait_for(lambda: len(long_connection.messages) == 1)
    assert fake.endpoint_requests == 2 and len(fake.connections) == 2


async def test_long_connection_card_button_press(fake: FakeFeishu, client: FeishuClient,
                                                 long_connection: Inbox) -> None:
    group, alice = fake.chat("group"), fake.user()
    await fake.deliver(fake.text_message(group, alice, "/screen 600519"))
    card = await client.send_card(group, markdown_card("结果", "1 只", [Action("高风险", "hi:job1")]))
    ack = await fake.deliver(fake.card_action(fake.bot_message(card.message_id), alice, "hi:job1"))
    assert ack.code == 200
    await fake.wait_for(lambda: len(long_connection.actions) == 1)
    press = long_connection.actions[0]
    assert (press.action, press.user_id, press.chat_id, press.chat_type, press.message_id) == (
        "hi:job1", alice, group, "group", card.message_id)


async def test_long_connection_with_a_wrong_secret_fails_at_once(
        fake: FakeFeishu, router: tuple[FeishuEventRouter, Inbox]) -> None:
    conn = FeishuLongConnection(FeishuCredentials(fake.app_id, "not-the-secret"), router[0], domain=fake.url)
    started = time.monotonic()
    with pytest.raises(FeishuError, match="app_secret is invalid"):
        await asyncio.wait_for(conn.run(), 10)
    assert time.monotonic() - started < 5 and not fake.connections


# ---- HTTP callback --------------------------------------------------------------------------------------
async def test_callback_delivers_signed_encrypted_messages(fake: FakeFeishu, callback_url: str,
                                                           router: tuple[FeishuEventRouter, Inbox],
                                                           tmp_path: Path) -> None:
    inbox = router[1]
    group, alice = fake.chat("group"), fake.user()
    pushed = await fake.push(callback_url, fake.text_message(group, alice, "/screen 贵州茅台"))
    assert pushed.status == 200, pushed.response
    event = fake.file_message(group, alice, "pool.csv", b"600519\n")
    assert (await fake.push(callback_url, event)).status == 200
    await fake.wait_for(lambda: len(inbox.messages) == 2)
    assert inbox.messages[0].text == "/screen 贵州茅台" and inbox.messages[0].chat.chat_type == "group"
    upload = inbox.messages[1].file
    assert upload is not None
    await upload.download(tmp_path / "pool.csv")
    assert (tmp_path / "pool.csv").read_bytes() == b"600519\n"


async def test_callback_answers_url_verification(fake: FakeFeishu, callback_url: str) -> None:
    challenge, answer = await fake.url_verification(callback_url)
    assert answer.status == 200 and answer.json() == {"challenge": challenge}
    _, wrong = await fake.url_verification(callback_url, token="not-this-apps-token")
    assert wrong.status == 401


async def test_callback_refuses_forged_stale_replayed_and_unsigned_pushes(
        fake: FakeFeishu, callback_url: str, router: tuple[FeishuEventRouter, Inbox]) -> None:
    inbox = router[1]
    group, alice = fake.chat("group"), fake.user()

    def msg(text: str) -> dict[str, object]:
        return fake.text_message(group, alice, text).envelope

    forged = await fake.send(fake.push_request(callback_url, msg("/forged"), forge=True))
    stale = await fake.send(fake.push_request(callback_url, msg("/stale"), timestamp=time.time() - 600))
    future = await fake.send(fake.push_request(callback_url, msg("/future"), timestamp=time.time() + 600))
    unsigned = await fake.send(fake.push_request(callback_url, msg("/unsigned"), signed=False))
    assert [p.status for p in (forged, stale, future, unsigned)] == [401, 401, 401, 401]

    first = await fake.send(fake.push_request(callback_url, msg("/once")))
    replayed = await fake.send(first)  # the same bytes and headers again
    assert (first.status, replayed.status) == (200, 401)
    await inbox.settle()
    assert [m.text for m in inbox.messages] == ["/once"]

    event = fake.text_message(group, alice, "/retried")
    assert (await fake.push(callback_url, event)).status == 200
    assert (await fake.push(callback_url, event)).status == 200  # Feishu's retry: signed anew, same event_id
    await inbox.settle()
    assert [m.text for m in inbox.messages] == ["/once", "/retried"]


async def test_callback_replay_after_a_restart_or_to_a_second_process_is_refused(
        fake: FakeFeishu, creds: FeishuCredentials, client: FeishuClient, guard: ChatGuard) -> None:
    (first_router, first_inbox), (second_router, second_inbox) = (await _router(fake, client, guard),
                                                                   await _router(fake, client, guard))
    first_url, first_runner = await _serve_callback(creds, first_router, guard)
    second_url, second_runner = await _serve_callback(creds, second_router, guard)  # a second bot process
    try:
        event = fake.text_message(fake.chat("group"), fake.user(), "/screen 600519")
        pushed = await fake.send(fake.push_request(first_url, event.envelope))
        assert pushed.status == 200
        await fake.wait_for(lambda: len(first_inbox.messages) == 1)
        replayed = await fake.send(fake.push_request(second_url, event.envelope))  # Feishu's retry, signed anew
        assert replayed.status == 200
        pushed.url = second_url
        assert (await fake.send(pushed)).status == 401  # the same bytes and headers, to the other process
        await first_runner.cleanup()
        restarted_router, restarted_inbox = await _router(fake, client, guard)
        restarted_url, restarted_runner = await _serve_callback(creds, restarted_router, guard)
        try:
            pushed.url = restarted_url
            assert (await fake.send(pushed)).status == 401
            assert (await fake.push(restarted_url, event)).status == 200
            await second_inbox.settle()
            assert second_inbox.messages == [] and restarted_inbox.messages == []
        finally:
            await restarted_runner.cleanup()
    finally:
        await second_runner.cleanup()


async def test_callback_refusals_are_4xx_with_one_warning_and_no_traceback(
        fake: FakeFeishu, callback_url: str, router: tuple[FeishuEventRouter, Inbox],
        caplog: pytest.LogCaptureFixture) -> None:
    group, alice = fake.chat("group"), fake.user()
    wrong_token = fake.text_message(group, alice, "/screen 600519").envelope
    wrong_token["header"]["token"] = "not-this-apps-token"  # type: ignore[index]
    other = fake.text_message(group, alice, "x").envelope
    other["header"]["event_type"] = "im.chat.member.bot.added_v1"  # type: ignore[index]
    garbage = fake.push_request(callback_url, {"schema": "2.0"})
    garbage.body = b'{"encrypt": "bm90IGNpcGhlcnRleHQgYXQgYWxsIQ=="}'
    garbage.headers["X-Lark-Signature"] = fake.sign(garbage.headers["X-Lark-Request-Timestamp"],
                                                    garbage.headers["X-Lark-Request-Nonce"], garbage.body)
    big = fake.push_request(callback_url, other)
    big.body = b" " * (1024 * 1024 + 1)
    first = await fake.send(fake.push_request(callback_url, fake.text_message(group, alice, "/once").envelope))
    await router[1].settle()
    caplog.set_level(logging.INFO)
    caplog.clear()
    statuses = {
        "wrong token": (await fake.send(fake.push_request(callback_url, wrong_token))).status,
        "undecryptable": (await fake.send(garbage)).status,
        "forged": (await fake.send(fake.push_request(callback_url, other, forge=True))).status,
        "stale": (await fake.send(fake.push_request(callback_url, other, timestamp=time.time() - 600))).status,
        "unsigned": (await fake.send(fake.push_request(callback_url, other, signed=False))).status,
        "replayed": (await fake.send(first)).status,
        "too large": (await fake.send(big)).status,
        "unsubscribed event": (await fake.send(fake.push_request(callback_url, other))).status,
    }
    assert statuses == {"wrong token": 401, "undecryptable": 401, "forged": 401, "stale": 401, "unsigned": 401,
                        "replayed": 401, "too large": 413, "unsubscribed event": 200}
    await router[1].settle()
    assert [m.text for m in router[1].messages] == ["/once"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 7 and "wrong Verification Token" in warnings[0], warnings
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize("down", ["both", "router"])  # the signature's claim fails, or only the event id's
async def test_callback_without_redis_answers_503_and_acts_on_nothing(
        fake: FakeFeishu, creds: FeishuCredentials, client: FeishuClient, guard: ChatGuard, down: str,
        caplog: pytest.LogCaptureFixture) -> None:
    nowhere = ChatGuard.connect(f"redis://127.0.0.1:{free_port()}/0", guard.prefix, "feishu")
    router, inbox = await _router(fake, client, nowhere)
    url, runner = await _serve_callback(creds, router, nowhere if down == "both" else guard)
    try:
        with caplog.at_level(logging.WARNING):
            pushed = await fake.push(url, fake.text_message(fake.chat("group"), fake.user(), "/screen 600519"))
        await inbox.settle()
        assert pushed.status == 503 and inbox.messages == []  # Feishu redelivers a non-200 push
    finally:
        await runner.cleanup()
    [line] = [r for r in caplog.records if r.name == "bot.feishu.callback"]
    assert "Redis unavailable" in line.getMessage() and not any(r.exc_info for r in caplog.records)


def test_callback_mode_needs_the_encrypt_key_and_token(fake: FakeFeishu, guard: ChatGuard) -> None:
    router = FeishuEventRouter(on_message=Inbox().on_message, downloader=FeishuClient(
        FeishuCredentials(fake.app_id, fake.app_secret), domain=fake.url), bot_open_id=fake.bot_open_id,
        app_id=fake.app_id, guard=guard)
    with pytest.raises(FeishuConfigError, match="ENCRYPT_KEY"):
        FeishuCallback(FeishuCredentials(fake.app_id, fake.app_secret, verification_token="t"), router, guard)


CHILD = """
import asyncio, os

async def main():
    # imported lazily inside the running loop, as bot/fronts.py builds a front
    from bot.core.guard import ChatGuard
    from bot.feishu import FeishuClient, FeishuCredentials, FeishuEventRouter, FeishuLongConnection
    import lark_oapi.ws.client as sdk
    assert sdk.loop is not asyncio.get_running_loop()
    creds = FeishuCredentials(os.environ["APP_ID"], os.environ["APP_SECRET"])
    client = FeishuClient(creds, domain=os.environ["DOMAIN"])
    got = asyncio.Event()

    async def on_message(inbound):
        print("GOT", inbound.text, flush=True)
        got.set()

    guard = ChatGuard.connect(os.environ["REDIS_URL"], os.environ["PREFIX"], "feishu")
    router = FeishuEventRouter(on_message=on_message, downloader=client, bot_open_id=await client.bot_open_id(),
                               app_id=creds.app_id, guard=guard)
    conn = FeishuLongConnection(creds, router, domain=os.environ["DOMAIN"])
    task = asyncio.create_task(conn.run())
    await asyncio.wait_for(got.wait(), 20)
    await conn.stop()
    await task

asyncio.run(main())
"""


async def _child_bot(fake: FakeFeishu, settings: Settings, *events: object) -> str:
    """A second bot process (CHILD) on the same Redis: deliver ``events`` to it; what it printed."""
    env = {**os.environ, "APP_ID": fake.app_id, "APP_SECRET": fake.app_secret, "DOMAIN": fake.url,
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent), "PREFIX": settings.redis.prefix,
           "REDIS_URL": settings.redis.url}
    before = len(fake.connections)
    child = await asyncio.create_subprocess_exec(sys.executable, "-c", CHILD, env=env,
                                                 stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        await fake.wait_for(lambda: (len(fake.connections) > before and bool(fake.live_connections))
                            or child.returncode is not None, timeout_s=30, what="the child's long connection")
        for event in events:
            assert (await fake.deliver(event)).code == 200  # type: ignore[arg-type]
        out, _ = await asyncio.wait_for(child.communicate(), 30)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    assert child.returncode == 0, out.decode()
    return out.decode()


async def test_long_connection_works_when_the_sdk_is_first_imported_inside_the_running_loop(
        fake: FakeFeishu, queue_settings: Settings) -> None:
    out = await _child_bot(fake, queue_settings, fake.text_message(fake.chat("group"), fake.user(), "/help"))
    assert "GOT /help" in out


async def test_long_connection_redelivery_after_a_restart_or_to_a_second_process_is_not_acted_on(
        fake: FakeFeishu, creds: FeishuCredentials, client: FeishuClient, guard: ChatGuard,
        queue_settings: Settings) -> None:
    event = fake.text_message(fake.chat("group"), fake.user(), "/screen 600519")
    for attempt in ("first", "restarted"):
        router, inbox = await _router(fake, client, guard)
        conn = FeishuLongConnection(creds, router, domain=fake.url)
        task = asyncio.create_task(conn.run())
        await fake.wait_for(lambda t=task: bool(fake.live_connections) or t.done(),  # type: ignore[misc]
                            what="the SDK to connect")
        assert (await fake.deliver(event)).code == 200
        await inbox.settle()
        assert [m.text for m in inbox.messages] == (["/screen 600519"] if attempt == "first" else [])
        await conn.stop()
        await asyncio.wait_for(task, 5)
    fresh = fake.text_message(fake.chat("group"), fake.user(), "/help")
    out = await _child_bot(fake, queue_settings, event, fresh)  # the old event is dropped, the new one taken
    assert "GOT /help" in out and "GOT /screen" not in out


async def test_long_connection_without_redis_answers_500_so_feishu_redelivers(
        fake: FakeFeishu, creds: FeishuCredentials, client: FeishuClient, caplog: pytest.LogCaptureFixture) -> None:
    nowhere = ChatGuard.connect(f"redis://127.0.0.1:{free_port()}/0", "t", "feishu")
    router, inbox = await _router(fake, client, nowhere)
    conn = FeishuLongConnection(creds, router, domain=fake.url)
    task = asyncio.create_task(conn.run())
    try:
        await fake.wait_for(lambda: bool(fake.live_connections) or task.done(), what="the SDK to connect")
        with caplog.at_level(logging.WARNING):
            ack = await fake.deliver(fake.text_message(fake.chat("group"), fake.user(), "/screen 600519"))
        await inbox.settle()
        assert ack.code == 500 and inbox.messages == []
    finally:
        await conn.stop()
        await asyncio.wait_for(task, 5)
    ours = [r for r in caplog.records if r.name == "bot.feishu.events"]
    assert ours and "Redis unavailable" in ours[0].getMessage() and not any(r.exc_info for r in caplog.records)


@pytest.mark.parametrize(("mention_bot", "addressed"), [(True, True), (False, False)])
def test_group_chatter_handed_on_without_the_mention_rule_is_not_addressed(mention_bot: bool, addressed: bool) -> None:
    """With require_mention_in_groups off every group message reaches the core; only one that @-mentions the bot is
    addressed to it, so the core's pointer to the commands answers that one and not every colleague's chatter (the
    pointer for group text came in session 22)."""
    import json

    import lark_oapi as lark
    from lark_oapi.api.im.v1 import P2ImMessageReceiveV1

    from bot.feishu.events import inbound_from_event

    fake = FakeFeishu()
    event = fake.text_message(fake.chat("group"), "ou_" + "a" * 32, "今天开会吗", mention_bot=mention_bot)
    data = lark.JSON.unmarshal(json.dumps(event.envelope, ensure_ascii=False), P2ImMessageReceiveV1)
    msg = inbound_from_event(data, bot_open_id=fake.bot_open_id, downloader=None,  # type: ignore[arg-type]
                             require_mention_in_groups=False)
    assert msg is not None and msg.text == "今天开会吗" and msg.addressed is addressed
