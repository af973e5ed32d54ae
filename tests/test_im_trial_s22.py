"""A demanding user on Feishu and DingTalk (session 22, trial jb): what used to get silence now gets one line.

Real Redis, the real lark-oapi and dingtalk-stream SDKs against the local fakes; no worker (every answer
checked here comes before a job would run).

* A pool file the front cannot fetch (DingTalk: a downloadCode DingTalk no longer honours; Feishu: a file
  key the message does not hold, Feishu's 234003) was logged as a handler failure and the user heard
  nothing; now one line names the file and says to send it again.
* ``@bot ／screen 600519`` (a full-width slash, what a Chinese IME in full-width mode types) and ``@bot 你好``
  in a group got silence (a group took only half-width commands); the first now runs /screen, the second
  gets the pointer to the commands. A group's text reaches the core only when the bot was @-mentioned
  (Feishu filters the rest, DingTalk delivers only @ messages, Telegram only registered commands).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.service import ChatCore
from screening.config import DingTalkSettings, FeishuSettings, Settings, UniverseSettings
from screening.data.load import EXAMPLES, ensure_demo_universe
from screening.queue.client import JobQueue
from tests.fakes.dingtalk import FakeDingTalk
from tests.waiting import until

pytestmark = pytest.mark.slow
# GBK, as Excel on a Chinese Windows saves CSV; the second row's PE is a word, so that row fails, not the file
POOL_CSV = "代码,名称,市盈率(TTM)\n600519,贵州茅台,25.1\n000858,五粮液,约15\n".encode("gbk")
# a 通达信 export: GBK, tab-separated, its own column names and a source line at the end
TDX_TXT = ("代码\t名称\t涨幅%\t现价\t市盈(动)\n600519\t贵州茅台\t1.20\t1500.00\t25.1\n"
           "000858\t五粮液\t-0.5\t130.00\t15.0\n12345\t坏代码\t0\t1\t1\n数据来源:通达信\n").encode("gbk")


def _core(queue_settings: Settings, tmp_path: Path, **fronts: Any) -> ChatCore:
    universe = tmp_path / "universe.sqlite"
    ensure_demo_universe(universe, EXAMPLES)
    settings = queue_settings.model_copy(update={"universe": UniverseSettings(path=str(universe)), **fronts})
    return ChatCore(settings=settings, queue=JobQueue(settings.redis.url, settings.redis), poll_s=0.2,
                    progress_interval_s=0.2)


# ------------------------------------------------------------------------------------------ Feishu


@pytest.fixture
async def feishu(queue_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                 ) -> AsyncIterator[tuple[Any, ChatCore, str, str, str]]:
    from bot.feishu.front import FeishuFront
    from tests.fakes.feishu import FakeFeishu

    with FakeFeishu() as fake:
        for key, value in {"SCREENER_FEISHU__APP_ID": fake.app_id, "SCREENER_FEISHU__APP_SECRET": fake.app_secret,
                           "SCREENER_FEISHU__VERIFICATION_TOKEN": fake.verification_token,
                           "SCREENER_FEISHU__ENCRYPT_KEY": fake.encrypt_key}.items():
            monkeypatch.setenv(key, value)
        alice = fake.user()
        dm, group = fake.chat("p2p", alice), fake.chat("group")
        core = _core(queue_settings, tmp_path, feishu=FeishuSettings(enabled=True, domain=fake.url,
                                                                      allowed_chats=[dm, group]))
        front = FeishuFront(core, core.settings.feishu)
        task = asyncio.create_task(front.run())
        await fake.wait_for(lambda: bool(fake.live_connections) or task.done(), 20, what="the SDK to connect")
        try:
            yield fake, core, alice, dm, group
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def _said(fake: Any, chat: str) -> list[str]:
    return [str(m.content) for m in fake.in_chat(chat)]


async def test_feishu_a_file_that_cannot_be_fetched_and_group_text_each_get_one_line(feishu) -> None:
    fake, core, alice, dm, group = feishu
    # a file message whose key Feishu will not serve (234003 File not in msg.)
    gone = fake.message_event(dm, alice, "file", {"file_key": "file_v3_" + "0" * 32, "file_name": "自选.csv"}, [])
    await fake.deliver(gone)
    await until(lambda: _said(fake, dm), 20, "a word about the file")
    assert len(_said(fake, dm)) == 1 and "自选.csv" in _said(fake, dm)[0] and "重新发送" in _said(fake, dm)[0]

    await fake.deliver(fake.file_message(dm, alice, "年报.pdf", b"%PDF-1.4"))  # a type it does not read: one line
    await until(lambda: len(_said(fake, dm)) >= 2, 20, "the refusal of a .pdf")
    assert "无法识别的文件类型" in _said(fake, dm)[1] and ".pdf" in _said(fake, dm)[1]

    await fake.deliver(fake.file_message(dm, alice, "通达信.txt", TDX_TXT))
    await until(lambda: len(_said(fake, dm)) >= 3, 20, "the 通达信 file's ack")
    assert "2 只可筛选, 1 行被拒" in _said(fake, dm)[2] and "第 4 行" in _said(fake, dm)[2], _said(fake, dm)[2]
    assert "数据来源:通达信" in _said(fake, dm)[2]  # the source line is said to be a note, not a stock

    await fake.deliver(fake.text_message(group, alice, "你好"))  # @bot 你好: the pointer, not silence
    await until(lambda: _said(fake, group), 20, "the pointer to the commands in the group")
    assert "/screen" in _said(fake, group)[0] and "/help" in _said(fake, group)[0]

    await fake.deliver(fake.text_message(group, alice, "／ｓｃｒｅｅｎ　６００５１９"))  # full-width, IME style
    await until(lambda: len(_said(fake, group)) >= 2, 20, "the full-width /screen answered")
    await until(lambda: any("已排队" in x for x in _said(fake, group)), 20, "the job queued")
    assert len(await asyncio.to_thread(core.queue.jobs_of, f"feishu:{alice}")) == 2  # the .txt's and this one
    bob = fake.user()  # another member, the very same words: answered too (a delivery id, not the text, is kept)
    await fake.deliver(fake.text_message(group, bob, "／ｓｃｒｅｅｎ　６００５１９"))
    await until(lambda: len(core.queue.jobs_of(f"feishu:{bob}")) == 1, 20, "bob's job")
    await until(lambda: sum("已排队" in x for x in _said(fake, group)) == 2, 20, "bob's ack")

    n = len(_said(fake, group))
    await fake.deliver(fake.text_message(group, alice, "闲聊", mention_bot=False))  # not for the bot: nothing
    await fake.deliver(fake.message_event(group, alice, "sticker", {"file_key": "file_v3_" + "1" * 32}, []))
    await asyncio.sleep(1.0)
    assert len(_said(fake, group)) == n


# ------------------------------------------------------------------------------------------ DingTalk


@pytest.fixture
async def dingtalk(queue_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                   ) -> AsyncIterator[tuple[FakeDingTalk, ChatCore]]:
    from bot.dingtalk.front import DingTalkFront

    fake = FakeDingTalk(tmp_path / "pki").start()
    for key, value in fake.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("SCREENER_DINGTALK__CLIENT_ID", fake.client_id)
    monkeypatch.setenv("SCREENER_DINGTALK__CLIENT_SECRET", fake.client_secret)
    core = _core(queue_settings, tmp_path, dingtalk=DingTalkSettings(
        enabled=True, allowed_chats=["manager001", "cidGroupResearch0001=="]))
    front = DingTalkFront(core, core.settings.dingtalk)
    task = asyncio.create_task(front.run())
    await front.client.wait_connected(20)
    try:
        yield fake, core
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await front.client.stop()
        fake.stop()


def _texts(fake: FakeDingTalk, chat: str) -> list[str]:
    return fake.texts(chat)


async def test_dingtalk_an_expired_download_code_and_group_text_each_get_one_line(dingtalk) -> None:
    fake, _core = dingtalk
    me, group = "user:manager001", "group:cidGroupResearch0001=="
    body = {"downloadCode": "expired-code", "fileId": "1", "fileName": "通达信自选.txt", "spaceId": "1"}
    await fake.deliver(fake.robot_message("manager001", msgtype="file", content=body))
    await until(lambda: _texts(fake, me), 20, "a word about the file")
    assert len(_texts(fake, me)) == 1 and "通达信自选.txt" in _texts(fake, me)[0] and "重新发送" in _texts(fake, me)[0]

    picture = fake.robot_message("manager001", msgtype="picture", content={"downloadCode": "pic-code"})
    await fake.deliver(picture)  # a screenshot of a watchlist: what the bot takes, not silence
    await until(lambda: len(_texts(fake, me)) >= 2, 20, "a word about the picture")
    assert "/screen" in _texts(fake, me)[1] and "CSV/XLSX" in _texts(fake, me)[1]

    await fake.send_file("manager001", "自选.csv", POOL_CSV)  # the same user, a file that can be fetched
    ack = await until(lambda: next((x for x in _texts(fake, me) if "1 只可筛选" in x), None), 20, "the upload's ack")
    assert "1 行被拒" in ack and "第 3 行" in ack and "约15" in ack, ack  # the row, the column and the cell's value
    assert "市盈率(TTM)→PE-TTM" in ack and "pe＿ttm" not in ack  # the field as the results name it

    await fake.send_text("manager001", "帮我看看", group="cidGroupResearch0001==")
    await until(lambda: _texts(fake, group), 20, "the pointer in the group")
    assert "/screen" in _texts(fake, group)[0]


def test_a_command_typed_in_full_width_or_with_an_ime_slash_is_the_command() -> None:
    """Pure: what a Chinese keyboard types for "/screen" is /screen; an unknown name keeps its pointer or line."""
    from bot.core.dispatch import parse_command

    assert parse_command("／ｓｃｒｅｅｎ　６００５１９") == ("screen", ["６００５１９"])
    assert parse_command("、screen 600519") == ("screen", ["600519"])
    assert parse_command("/Screen@ScreenerBot 600519") == ("screen", ["600519"])
    assert parse_command("、、 随便说说") == (None, ["、、", "随便说说"])
    assert parse_command("@张三 ＠李四 /screen 600519") == ("screen", ["600519"])  # others mentioned before it
    assert parse_command("@张三") == (None, ["@张三"])
    assert parse_command("／foo") == ("foo", [])  # an unknown command: "未知命令 /foo", not the pointer


# ------------------------------------------------------------------------------------------ WeCom


@pytest.fixture
async def wecom(queue_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                ) -> AsyncIterator[tuple[Any, Any]]:
    from bot.wecom.front import WeComFront
    from screening.config import WeComSettings
    from screening.runtime.local_redis import free_port
    from tests.fakes.wecom import FakeWeCom

    async with FakeWeCom() as fake:
        for key, value in fake.env().items():
            monkeypatch.setenv(key, value)
        core = _core(queue_settings, tmp_path, wecom=WeComSettings(enabled=True, allowed_chats=["zhangsan"],
                                                                    port=free_port(), api_base=fake.base_url))
        settings = core.settings.wecom
        task = asyncio.create_task(WeComFront(core, settings).run())
        sender = fake.sender(f"http://127.0.0.1:{settings.port}{settings.path}")
        await until(lambda: _port_open(settings.port), 20, "the callback server")
        try:
            yield fake, sender
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


async def test_wecom_an_image_and_a_file_wecom_no_longer_has_each_get_one_line(wecom) -> None:
    fake, sender = wecom

    def said() -> list[str]:
        return [str(m.payload) for m in fake.messages("user:zhangsan")]

    inner, _ = sender.inner_text("zhangsan", "x")  # the same envelope, an image instead of text
    image = inner.replace("<MsgType><![CDATA[text]]></MsgType>", "<MsgType><![CDATA[image]]></MsgType>").replace(
        "<Content><![CDATA[x]]></Content>", "<PicUrl><![CDATA[https://p.qpic.cn/x]]></PicUrl>"
        "<MediaId><![CDATA[img-media]]></MediaId>")
    assert (await sender.post(*sender.envelope(image))).status == 200
    await until(said, 20, "a word about the image")
    assert len(said()) == 1 and "/screen" in said()[0] and "CSV/XLSX" in said()[0]

    gone, _ = sender.inner_file("zhangsan", "media-that-expired", "自选.xlsx", 2048)  # media ids last 3 days
    assert (await sender.post(*sender.envelope(gone))).status == 200
    await until(lambda: len(said()) >= 2, 20, "a word about the file")
    assert "自选.xlsx" in said()[1] and "重新发送" in said()[1]


# ------------------------------------------------------------------------------------------ follow-ups (S22 jg)


async def test_wecom_a_nameless_file_is_fetched_only_for_an_allowed_member_and_leaves_no_folder(
        wecom, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file message without FileName was fetched (for its name) before the allow-list check, and the folder it
    went to was left behind when the core never took it: a stranger's file, a .pdf, a fetch that failed."""
    import tempfile

    fake, sender = wecom
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the client's temporary folders go

    def said(user: str) -> list[str]:
        return [str(m.payload) for m in fake.messages(f"user:{user}")]

    assert (await sender.send_file("lisi", "名单.csv", POOL_CSV, with_name=False)).status == 200  # a stranger
    await until(lambda: said("lisi"), 20, "the refusal")
    assert "允许名单" in said("lisi")[0] and "media/get" not in fake.calls  # refused, and nothing fetched

    gone, _ = sender.inner_file("zhangsan", "media-that-expired", None, 2048)
    assert (await sender.post(*sender.envelope(gone))).status == 200
    assert (await sender.send_file("zhangsan", "年报.pdf", b"%PDF-1.4 ...", with_name=False)).status == 200
    await until(lambda: said("zhangsan"), 20, "the refusal of a .pdf")
    assert "无法识别的文件类型" in said("zhangsan")[0] and ".pdf" in said("zhangsan")[0]
    await asyncio.sleep(0.5)
    assert fake.calls.count("media/get") == 2 and list(scratch.iterdir()) == []  # both fetched, no folder left


@pytest.mark.parametrize("words", ["abc", "abc 12345 沪深300"])
async def test_dingtalk_a_screen_with_no_code_at_all_answers_now_and_queues_nothing(dingtalk, words: str) -> None:
    """``/screen abc`` queued a job whose only row was a failed one; the user waited for a result that said
    nothing new. Now one answer names each token's problem and how a code is written; a valid code keeps its job."""
    fake, core = dingtalk
    me = "user:manager001"
    await fake.send_text("manager001", f"/screen {words}")
    await until(lambda: _texts(fake, me), 20, "the answer to /screen")
    await asyncio.sleep(0.5)
    [answer] = _texts(fake, me)
    assert all(w in answer for w in words.split()) and "600519.SH" in answer and "未排队任务" in answer, answer
    assert "指数" in answer or words == "abc"  # each token's own reason
    assert await asyncio.to_thread(core.queue.jobs_of, "dingtalk:manager001") == []

    await fake.send_text("manager001", "/screen 600519 abc")  # some valid codes: a job, the bad token in the ack
    ack = await until(lambda: next((x for x in _texts(fake, me) if "已排队" in x), None), 20, "the ack")
    assert "1 只可筛选, 1 个无法筛选" in ack and "abc" in ack
    assert len(await asyncio.to_thread(core.queue.jobs_of, "dingtalk:manager001")) == 1


async def test_feishu_and_wecom_a_screen_with_no_code_queues_nothing(feishu, wecom) -> None:
    """The same answer on every front (bot/core): a valid code no data covers has its own advice, no code hint."""
    fake, core, alice, dm, _group = feishu
    await fake.deliver(fake.text_message(dm, alice, "/screen abc 601988"))
    await until(lambda: _said(fake, dm), 20, "the answer to /screen")
    [answer] = _said(fake, dm)
    assert "abc" in answer and "601988" in answer and "未排队任务" in answer and "600519.SH" in answer, answer
    await fake.deliver(fake.text_message(dm, alice, "/screen 601988"))
    await until(lambda: len(_said(fake, dm)) >= 2, 20, "the answer to /screen 601988")
    assert "未排队任务" in _said(fake, dm)[1] and "600519.SH" not in _said(fake, dm)[1], _said(fake, dm)[1]
    assert await asyncio.to_thread(core.queue.jobs_of, f"feishu:{alice}") == []

    wfake, sender = wecom
    assert (await sender.send_text("zhangsan", "/screen ，，abc")).status == 200
    await until(lambda: wfake.messages("user:zhangsan"), 20, "the WeCom answer")
    assert "未排队任务" in str(wfake.messages("user:zhangsan")[0].payload)


async def test_dingtalk_a_table_pasted_after_screen_screens_its_stocks(dingtalk) -> None:
    """An Excel block after /screen: the two stocks queued; the header and the prices named once, no failed rows,
    and no advice to write 000001 (平安银行) for the ``1`` of ``1,500.00`` (a trial, S22 jg)."""
    fake, _core = dingtalk
    me = "user:manager001"
    await fake.send_text("manager001", "/screen\n代码\t名称\t现价\n600519\t贵州茅台\t1,500.00\n000858\t五粮液\t130.00")
    ack = await until(lambda: next((x for x in _texts(fake, me) if "已排队" in x), None), 20, "the ack")
    assert "已收到 2 个代码: 2 只可筛选" in ack and "无法筛选" not in ack and "000001" not in ack, ack
    assert "表头 代码 名称 现价" in ack and "1,500.00" in ack, ack
