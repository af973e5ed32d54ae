"""The DingTalk client on the real dingtalk-stream SDK against the local fake of DingTalk's remote end.

The SDK runs its own code (token, connection open, websocket, ACKs, reply paths, card replier, upload);
only the network is redirected, through the proxy and CA variables the fake's ``env()`` gives.
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

import dingtalk_stream
import pytest
import redis
import websockets

from bot.core.guard import ChatGuard
from bot.core.inbound import ChatRef, Inbound
from bot.dingtalk import DingTalkAuthError, DingTalkClient, DingTalkConfigError, DingTalkCredentials, DingTalkError
from screening.config import Settings
from screening.runtime.local_redis import free_port
from tests.fakes.dingtalk import MARKDOWN_CARD_TEMPLATE, MAX_BODY_BYTES, FakeDingTalk

USER = "manager001"
GROUP = "cidGroupResearch0001=="


class Bot:
    def __init__(self, fake: FakeDingTalk, guard: ChatGuard, **kw: object) -> None:
        self.received: list[Inbound] = []
        self.client = DingTalkClient(DingTalkCredentials(fake.client_id, fake.client_secret), self._on, guard,
                                     **kw)  # type: ignore[arg-type]

    async def _on(self, inbound: Inbound) -> None:
        self.received.append(inbound)


def _start_fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **kw: object) -> FakeDingTalk:
    fake = FakeDingTalk(tmp_path / "pki", **kw).start()  # type: ignore[arg-type]
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    return fake


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDingTalk]:
    fake = _start_fake(tmp_path, monkeypatch)
    yield fake
    fake.stop()


@pytest.fixture
def guard(queue_settings: Settings) -> ChatGuard:
    """The durable guard on the session's real redis-server, under this test's own prefix."""
    return ChatGuard.connect(queue_settings.redis.url, queue_settings.redis.prefix, "dingtalk")


async def _running(fake: FakeDingTalk, guard: ChatGuard, **kw: object) -> Bot:
    bot = Bot(fake, guard, **kw)
    await bot.client.start()
    await bot.client.wait_connected()
    return bot


@pytest.fixture
async def bot(fake: FakeDingTalk, guard: ChatGuard) -> AsyncIterator[Bot]:
    bot = await _running(fake, guard)
    yield bot
    await bot.client.stop()


def test_the_sdk_talks_to_dingtalks_real_hosts() -> None:
    """Nothing points the SDK elsewhere: the fake is reached through the proxy, not a changed base URL."""
    assert dingtalk_stream.utils.DINGTALK_OPENAPI_ENDPOINT == "https://api.dingtalk.com"


async def test_private_text_received_and_answered_through_the_session_webhook(fake: FakeDingTalk, bot: Bot) -> None:
    frame = await fake.send_text(USER, "/screen 600519.SH")
    await fake.wait_acked(frame)
    await fake.wait_for(lambda: len(bot.received) == 1, what="the message at the callback")
    inbound = bot.received[0]
    assert inbound.chat == ChatRef("dingtalk", USER, "private")
    assert (inbound.user_id, inbound.user_name, inbound.text, inbound.file) == (USER, "张三", "/screen 600519.SH", None)
    assert frame.acks[0]["code"] == 200
    topic = dingtalk_stream.ChatbotMessage.TOPIC
    assert fake.open_requests[0]["subscriptions"] == [{"type": "CALLBACK", "topic": topic}]

    await bot.client.send_markdown(inbound.chat, "筛选结果", "**贵州茅台** 低风险")
    [sent] = fake.messages(f"user:{USER}")
    assert (sent.via, sent.msg_key, sent.param) == ("sessionWebhook", "sampleMarkdown",
                                                    {"title": "筛选结果", "text": "**贵州茅台** 低风险"})
    assert set(fake.proxy_hosts) <= {"api.dingtalk.com", "oapi.dingtalk.com"} and not fake.proxy_refused


async def test_group_mention_is_stripped_and_replies_go_through_the_robot_api(fake: FakeDingTalk,
                                                                              guard: ChatGuard) -> None:
    # every session webhook counts as expired
    bot = await _running(fake, guard, webhook_margin_s=fake.session_ttl_s + 60)
    try:
        await fake.send_text("analyst002", "/help", group=GROUP)
        await fake.wait_for(lambda: len(bot.received) == 1)
        inbound = bot.received[0]
        assert inbound.chat == ChatRef("dingtalk", GROUP, "group")
        assert (inbound.user_id, inbound.text) == ("analyst002", "/help")

        await bot.client.send_markdown(inbound.chat, "帮助", "/screen 代码…")
        await bot.client.send_text(ChatRef("dingtalk", USER, "private"), "私聊推送")
        [group_msg] = fake.messages(f"group:{GROUP}")
        assert (group_msg.via, group_msg.msg_key, group_msg.param["text"]) == ("groupMessages", "sampleMarkdown",
                                                                               "/screen 代码…")
        [private_msg] = fake.messages(f"user:{USER}")
        assert (private_msg.via, private_msg.msg_key, private_msg.param) == ("batchSend", "sampleText",
                                                                             {"content": "私聊推送"})
        assert fake.token_requests == 1  # the SDK's token is cached across calls
    finally:
        await bot.client.stop()


async def test_a_long_markdown_is_split_into_messages_dingtalk_takes(fake: FakeDingTalk, bot: Bot) -> None:
    lines = [f"| 60{i:04d}.SH | 名称{i} | 低 | 理由：净资产收益率稳定 |" for i in range(900)]
    text = "\n".join(lines)
    chat = ChatRef("dingtalk", GROUP, "group")
    await bot.client.send_markdown(chat, "全市场", text)
    parts = fake.messages(f"group:{GROUP}")
    assert len(parts) > 1 and not fake.refusals
    texts, n = [p.param["text"] for p in parts], len(parts)
    # numbered as every front's split reply is; DingTalk joins single newlines, so the mark's line ends in two spaces
    assert "（续" not in texts[0] and all(t.startswith(f"（续 {i}/{n}）  \n") for i, t in enumerate(texts[1:], 2))
    assert "\n".join([texts[0]] + [t.split("  \n", 1)[1] for t in texts[1:]]) == text
    assert all(len(json.dumps(p.param).encode()) < MAX_BODY_BYTES for p in parts)


async def test_file_message_is_downloaded_through_the_robot_file_api(fake: FakeDingTalk, bot: Bot,
                                                                     tmp_path: Path) -> None:
    content = "代码\t名称\n600519\t贵州茅台\n".encode("gbk")
    await fake.send_file(USER, "自选股.txt", content, group=GROUP)
    await fake.wait_for(lambda: len(bot.received) == 1)
    inbound = bot.received[0]
    assert inbound.file is not None and inbound.file.name == "自选股.txt" and inbound.text == ""
    dest = tmp_path / "pool.txt"
    await inbound.file.download(dest)
    assert dest.read_bytes() == content


async def test_a_file_is_uploaded_and_sent_as_a_file_message(fake: FakeDingTalk, bot: Bot, tmp_path: Path) -> None:
    xlsx = tmp_path / "screen.xlsx"
    xlsx.write_bytes(b"PK\x03\x04 fake xlsx bytes")
    chat = ChatRef("dingtalk", USER, "private")
    await bot.client.send_file(chat, xlsx, "筛选结果.xlsx")
    [sent] = fake.messages(f"user:{USER}")
    assert (sent.via, sent.msg_key) == ("batchSend", "sampleFile")
    assert (sent.param["fileName"], sent.param["fileType"], sent.file) == ("筛选结果.xlsx", "xlsx", xlsx.read_bytes())

    csv = tmp_path / "screen.csv"
    csv.write_text("a,b\n")
    with pytest.raises(DingTalkError, match=r"\.csv"):
        await bot.client.send_file(chat, csv)
    assert len(fake.uploads) == 1


async def test_a_card_is_sent_and_updated_in_place(fake: FakeDingTalk, bot: Bot) -> None:
    chat = ChatRef("dingtalk", GROUP, "group")
    card = await bot.client.send_card(chat, "筛选进度", "0/10")
    for done in (4, 10):
        await bot.client.update_card(card, f"{done}/10")
    stored = fake.cards[card.out_track_id]
    assert (stored.template_id, stored.chat) == (MARKDOWN_CARD_TEMPLATE, f"group:{GROUP}")
    assert [v["markdown"] for v in stored.versions] == ["0/10", "4/10", "10/10"]
    assert stored.current["title"] == "筛选进度"

    private = await bot.client.send_card(ChatRef("dingtalk", USER, "private"), "进度", "开始")
    assert fake.cards[private.out_track_id].chat == f"user:{USER}"


async def test_forged_credentials_are_refused(fake: FakeDingTalk) -> None:
    forged = DingTalkClient(DingTalkCredentials(fake.client_id, "not-the-secret"), _ignore, _NO_GUARD)
    with pytest.raises(DingTalkAuthError, match="client id and client secret"):
        await forged.start()
    unknown = DingTalkClient(DingTalkCredentials("dingunknownapp", fake.client_secret), _ignore, _NO_GUARD)
    with pytest.raises(DingTalkAuthError):
        await unknown.start()
    sdk = dingtalk_stream.DingTalkStreamClient(dingtalk_stream.Credential(fake.client_id, "forged"))
    assert await asyncio.to_thread(sdk.open_connection) is None  # the gateway refuses to hand out a ticket
    assert not fake.connections
    assert [r.status for r in fake.refusals] == [400, 400, 401]


def test_credentials_come_from_the_environment() -> None:
    creds = DingTalkCredentials.from_env({"SCREENER_DINGTALK__CLIENT_ID": "id1",
                                          "SCREENER_DINGTALK__CLIENT_SECRET": "s3cret"})
    assert (creds.client_id, creds.robot_code) == ("id1", "id1") and "s3cret" not in repr(creds)
    with pytest.raises(DingTalkConfigError, match="SCREENER_DINGTALK__CLIENT_SECRET"):
        DingTalkCredentials.from_env({"SCREENER_DINGTALK__CLIENT_ID": "id1"})


async def test_a_redelivered_message_is_processed_once(fake: FakeDingTalk, bot: Bot,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="bot.dingtalk.client")
    frame = await fake.send_text(USER, "/status")
    await fake.wait_acked(frame)
    await fake.redeliver(frame)  # the same frame again
    await fake.wait_acked(frame, count=2)
    again = await fake.deliver(json.loads(frame.payload["data"]))  # a new push of the same msgId
    await fake.wait_acked(again)
    await asyncio.sleep(0.05)
    assert len(bot.received) == 1
    assert sum("already processed" in r.getMessage() for r in caplog.records) == 2


async def test_an_unacknowledged_frame_is_pushed_again_and_still_processed_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: ChatGuard) -> None:
    fake = _start_fake(tmp_path, monkeypatch, redeliver_unacked=True, ack_timeout_s=0.2)
    try:
        bot = await _running(fake, guard)
        fake.lose_acks = 1
        frame = await fake.send_text(USER, "/digest")
        await fake.wait_acked(frame)
        assert frame.deliveries == 2
        await asyncio.sleep(0.3)
        assert frame.deliveries == 2 and len(bot.received) == 1
        await bot.client.stop()
    finally:
        fake.stop()


async def test_a_stale_message_is_refused(fake: FakeDingTalk, bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="bot.dingtalk.client")
    old = int((time.time() - 600) * 1000)
    frame = await fake.send_text(USER, "/screen 600519", create_at_ms=old)
    await fake.wait_acked(frame)
    await asyncio.sleep(0.05)
    assert bot.received == []
    assert any("stale" in r.getMessage() for r in caplog.records)


async def test_ping_is_answered_and_a_disconnect_reconnects(fake: FakeDingTalk, bot: Bot) -> None:
    ping = await fake.ping()
    await fake.wait_acked(ping)
    first = fake.connections[0]
    await fake.disconnect()
    await fake.wait_for(lambda: first.closed and len(fake.connections) == 2 and bot.client.connected,
                        what="a new connection after disconnect")
    frame = await fake.send_text(USER, "/whoami")
    await fake.wait_acked(frame)
    await fake.wait_for(lambda: len(bot.received) == 1)


async def test_a_ticket_opens_one_connection_only(fake: FakeDingTalk, bot: Bot) -> None:
    used = next(iter(fake._tickets))
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(f"ws://127.0.0.1:{fake.ws_port}/connect?ticket={used}"):
            pass
    assert refused.value.response.status_code == 401


async def test_a_revoked_token_is_refreshed_once(fake: FakeDingTalk, guard: ChatGuard) -> None:
    bot = await _running(fake, guard, webhook_margin_s=fake.session_ttl_s + 60)
    try:
        fake.revoke_tokens()
        await bot.client.send_text(ChatRef("dingtalk", USER, "private"), "after revoke")
        assert fake.token_requests == 2
        assert [m.param["content"] for m in fake.messages(f"user:{USER}")] == ["after revoke"]
    finally:
        await bot.client.stop()


async def test_no_secret_reaches_the_logs(fake: FakeDingTalk, caplog: pytest.LogCaptureFixture,
                                          tmp_path: Path, guard: ChatGuard) -> None:
    caplog.set_level(logging.DEBUG)
    bot = await _running(fake, guard, webhook_margin_s=fake.session_ttl_s + 60)
    try:
        fake.revoke_tokens()  # the upload is refused once (errcode 40014), then retried with a fresh token
        xlsx = tmp_path / "r.xlsx"
        xlsx.write_bytes(b"PK\x03\x04 data")
        await bot.client.send_file(ChatRef("dingtalk", USER, "private"), xlsx)
        await bot.client.send_text(ChatRef("dingtalk", USER, "private"), "ok")
    finally:
        await bot.client.stop()
    assert [m.msg_key for m in fake.messages(f"user:{USER}")] == ["sampleFile", "sampleText"]
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "open connection" in text and "media/upload" in text  # the SDK and urllib3 did log
    secrets = [fake.client_secret, *fake._tokens, *fake._tickets]
    assert not [s for s in secrets if s in text]


def test_the_redactor_masks_what_the_sdk_would_print() -> None:
    from bot.dingtalk.redact import redact

    line = ("upload to dingtalk failed, error=401 Client Error: for url: "
            "https://oapi.dingtalk.com/media/upload?access_token=tok123456&x=1 "
            "endpoint is {'endpoint': 'wss://x/connect', 'ticket': '7724109a-ea43'}")
    cleaned = redact(line, ["my-client-secret"])
    assert "tok123456" not in cleaned and "7724109a" not in cleaned and "access_token=***" in cleaned
    assert redact("secret my-client-secret here", ["my-client-secret"]) == "secret *** here"


async def _ignore(_: Inbound) -> None:
    return None


_NO_GUARD = ChatGuard(redis.Redis(port=1), "unused", "dingtalk")  # for clients that never receive


async def test_a_redelivery_after_a_restart_or_to_a_second_process_is_processed_once(
        fake: FakeDingTalk, guard: ChatGuard, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="bot.dingtalk.client")
    first = await _running(fake, guard)
    frame = await fake.send_text(USER, "/screen 600519")
    await fake.wait_acked(frame)
    await fake.wait_for(lambda: len(first.received) == 1)
    await first.client.stop()  # the ACK was lost in the crash: DingTalk pushes the msgId again
    restarted = await _running(fake, guard)
    second = await _running(fake, guard)  # and a second bot process on the same app
    try:
        for _ in (restarted, second):
            again = await fake.deliver(json.loads(frame.payload["data"]))
            await fake.wait_acked(again)
        await asyncio.sleep(0.1)
        assert restarted.received == [] and second.received == []
        assert sum("already processed" in r.getMessage() for r in caplog.records) == 2
    finally:
        await restarted.client.stop()
        await second.client.stop()


async def test_without_redis_a_message_is_answered_500_and_redelivered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: ChatGuard,
        caplog: pytest.LogCaptureFixture) -> None:
    fake = _start_fake(tmp_path, monkeypatch)
    caplog.set_level(logging.WARNING, logger="bot.dingtalk.client")
    nowhere = ChatGuard.connect(f"redis://127.0.0.1:{free_port()}/0", guard.prefix, "dingtalk")
    bots: list[Bot] = []
    try:
        bots.append(down := await _running(fake, nowhere))
        frame = await fake.send_text(USER, "/screen 600519")
        await fake.wait_acked(frame)
        assert frame.acks[0]["code"] == 500 and down.received == []  # not taken: DingTalk pushes it again
        await down.client.stop()
        bots.append(up := await _running(fake, guard))  # a bot with Redis: the redelivery is processed once
        await fake.redeliver(frame)
        await fake.wait_for(lambda: len(up.received) == 1, what="the redelivered message")
        assert [a["code"] for a in frame.acks] == [500, 200]
    finally:
        for b in bots:
            await b.client.stop()
        fake.stop()
    lines = [r for r in caplog.records if "Redis unavailable" in r.getMessage()]
    assert lines and all(r.levelno == logging.WARNING and not r.exc_info for r in lines)


async def test_other_hosts_are_passed_to_an_upstream_fake_proxy(tmp_path: Path) -> None:
    """So an end-to-end test can run this fake beside another one (e.g. the market-data fake)."""
    upstream = FakeDingTalk(tmp_path / "up").start()
    front = FakeDingTalk(tmp_path / "front", upstream_proxy=f"http://127.0.0.1:{upstream.proxy_port}").start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", front.proxy_port)
        writer.write(b"CONNECT push2.eastmoney.com:443 HTTP/1.1\r\nHost: push2.eastmoney.com:443\r\n\r\n")
        await writer.drain()
        answer = await reader.readline()
        writer.close()
        assert answer.startswith(b"HTTP/1.1 403")  # the upstream's answer, passed through
        assert front.proxy_hosts == ["upstream:push2.eastmoney.com:443"]
        assert upstream.proxy_refused == ["CONNECT push2.eastmoney.com:443"]
        bundle = Path(front.env(extra_ca_files=(upstream.pki.ca_file,))["REQUESTS_CA_BUNDLE"])
        assert bundle.read_bytes().count(b"BEGIN CERTIFICATE") == 2
    finally:
        front.stop()
        upstream.stop()


GATEWAY_CHILD = """
import os, sys
import dingtalk_stream
from bot.core.inbound import ChatRef
from bot.dingtalk.openapi import RobotApi, oapi_base

sdk = dingtalk_stream.DingTalkStreamClient(dingtalk_stream.Credential(os.environ["ID"], os.environ["SECRET"]))
api = RobotApi(sdk, os.environ["ID"])
media_id = api.upload_file(b"PK\\x03\\x04 xlsx bytes", "result.xlsx")
api.send(ChatRef("dingtalk", "manager001", "private"), "sampleFile",
         {"mediaId": media_id, "fileName": "result.xlsx", "fileType": "xlsx"})
print("BASE", oapi_base())
"""


async def test_uploads_go_to_the_configured_openapi_endpoint(tmp_path: Path) -> None:
    """DINGTALK_OPENAPI_ENDPOINT (the SDK's setting, read when it is imported: hence a child process) names a
    private gateway: the token, the upload and the send all go there, none to DingTalk's own hosts."""
    fake = FakeDingTalk(tmp_path / "pki", gateway_host="dingtalk-gw.corp.test").start()
    try:
        env = {**os.environ, **fake.env(), "DINGTALK_OPENAPI_ENDPOINT": "https://dingtalk-gw.corp.test",
               "ID": fake.client_id, "SECRET": fake.client_secret, "PYTHONPATH": str(Path(__file__).parent.parent)}
        child = await asyncio.create_subprocess_exec(sys.executable, "-c", GATEWAY_CHILD, env=env,
                                                     stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await asyncio.wait_for(child.communicate(), 60)
        assert child.returncode == 0, out.decode()
        assert "BASE https://dingtalk-gw.corp.test" in out.decode()
        [sent] = fake.messages(f"user:{USER}")
        assert sent.msg_key == "sampleFile" and sent.file == b"PK\x03\x04 xlsx bytes"
        assert set(fake.proxy_hosts) == {"dingtalk-gw.corp.test"} and not fake.refusals
    finally:
        fake.stop()
