"""The three IM vendors get correctly signed payloads within their size limits; one failing stops none.

The servers in tests/im_servers.py check signatures, payload shape and sizes the way the
vendors do. Telegram delivery goes through the real python-telegram-bot ``Bot`` against the
fake Bot API server (tests/fake_bot_api.py), which rejects HTML it cannot parse.
"""

from __future__ import annotations

import datetime as dt
import logging

import httpx
import pytest

from screening.config import DigestSettings, PushTarget
from screening.digest.build import build_digest
from screening.digest.model import RiskChange
from screening.digest.render import render_telegram
from screening.models import PoolItem, ResultRow, StockInput
from screening.output.text import utf8_len, utf16_len
from screening.push import SendOutcome, TelegramChannel, make_channels, send_each
from screening.push.dingtalk import dingtalk_sign
from screening.push.feishu import feishu_sign
from tests.im_servers import IMServers

SH = dt.timezone(dt.timedelta(hours=8))
NASTY = "*ST<b>测试</b>&<at id=all></at>"


def big_digest(n: int = 300, *, ds: DigestSettings | None = None):
    """A digest with n stocks, n/2 risk changes and a name that would break naive Markdown/HTML."""
    ds = ds or DigestSettings(top_n=10, max_change_lines=200, max_failed_lines=50)
    rows, items = [], []
    for i in range(n):
        code = f"{600000 + i:06d}.SH"
        name = NASTY if i == 1 else f"测试股份{i:03d}有限公司"
        failed = i % 37 == 5
        rows.append(ResultRow(index=i, code=code, name=name, industry="银行", status="failed" if failed else "ok",
                              risk_level=None if failed else "低中高"[i % 3], score=None if failed else 40 + i % 60,
                              reason=None if failed else f"ROE {i % 30}% 理由<i>{i}</i>",
                              error="缺少数据: roe" if failed else None))
        items.append(PoolItem(index=i, raw_code=code, stock=StockInput(code=code, name=name)))
    d = build_digest(dt.date(2026, 10, 9), rows, items, ds=ds, source="全市场", scope="universe", history=None,
                     now=dt.datetime(2026, 10, 9, 8, 45, tzinfo=SH), as_of=("2026-10-08", "2026-09-30"))
    d.changes = [RiskChange(r.code, r.name, "低", r.risk_level or "高", 90, r.score) for r in rows[: n // 2]
                 if r.status == "ok" and r.risk_level != "低"]
    d.warnings = []
    d.previous_date = dt.date(2026, 10, 8)
    return d


@pytest.fixture
async def im():
    servers = await IMServers().start()
    yield servers
    await servers.stop()


def settings_for(im: IMServers, **kw) -> DigestSettings:
    targets = [
        PushTarget(name="ops-wecom", kind="wecom", url_env="T_WECOM_URL"),
        PushTarget(name="ops-feishu", kind="feishu", url_env="T_FEISHU_URL", secret_env="T_FEISHU_SECRET",
                   msg_type="interactive"),
        PushTarget(name="ops-feishu-post", kind="feishu", url_env="T_FEISHU_URL", secret_env="T_FEISHU_SECRET",
                   msg_type="post"),
        PushTarget(name="ops-dingtalk", kind="dingtalk", url_env="T_DING_URL", secret_env="T_DING_SECRET"),
    ]
    return DigestSettings(targets=targets, push_backoff_s=0.01, push_attempts=3, max_change_lines=200,
                          max_failed_lines=50, **kw)


def env_for(im: IMServers) -> dict[str, str]:
    return {"T_WECOM_URL": im.wecom_url, "T_FEISHU_URL": im.feishu_url, "T_FEISHU_SECRET": im.feishu_secret,
            "T_DING_URL": im.dingtalk_url, "T_DING_SECRET": im.dingtalk_secret}


def test_signatures_match_the_vendors_documented_examples() -> None:
    """Feishu: HMAC key = "ts\\nsecret" over an empty message; DingTalk: key = secret over "ts\\nsecret"."""
    import base64
    import hashlib
    import hmac
    from urllib.parse import unquote_plus

    assert feishu_sign("abc", 1599360473) == base64.b64encode(
        hmac.new(b"1599360473\nabc", b"", hashlib.sha256).digest()).decode()
    s = dingtalk_sign("SECabc", 1599360473000)
    assert unquote_plus(s) == base64.b64encode(
        hmac.new(b"SECabc", b"1599360473000\nSECabc", hashlib.sha256).digest()).decode()
    assert "+" not in s and "/" not in s and "=" not in s  # URL-encoded


async def test_all_vendors_receive_signed_payloads_within_limits(im: IMServers, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    ds = settings_for(im)
    d = big_digest(300, ds=ds)
    async with httpx.AsyncClient() as client:
        outcomes = await send_each([(ch, d) for ch in make_channels(ds, env_for(im), client)])
    assert all(o.ok for o in outcomes), [o.describe() for o in outcomes]
    by = {o.target: o for o in outcomes}
    # WeCom: several markdown messages, each <= 4,096 bytes, together carrying every change line
    wecom = [m["markdown"]["content"] for m in im.received["wecom"]]
    assert len(wecom) == by["ops-wecom"].messages > 1
    assert all(utf8_len(c) <= 4096 for c in wecom)
    joined = "\n".join(wecom)
    for ch in d.changes:
        assert ch.code in joined
    # the nasty name is inert: no tag, no markup star, no @all
    assert "<at" not in joined and "<b>" not in joined and "*ST" not in joined and "＊ST＜b＞测试" in joined
    # Feishu: both message types, signed (the server verified), each request <= 20 KB
    fs = im.received["feishu"]
    assert {m["msg_type"] for m in fs} == {"post", "interactive"}
    assert all(r.size <= 20 * 1024 for r in im.requests if r.vendor == "feishu")
    assert len(fs) == by["ops-feishu"].messages + by["ops-feishu-post"].messages
    # DingTalk: signed via the query string, markdown with title and text
    dd = im.received["dingtalk"]
    assert len(dd) == by["ops-dingtalk"].messages >= 1
    assert all(r.size <= 20000 for r in im.requests if r.vendor == "dingtalk")
    assert all(r.status == 200 and r.answer.get("errcode", r.answer.get("code")) == 0 for r in im.requests)
    # every send logged with its outcome; never a token or a secret
    logged = caplog.text
    assert "ops-wecom ok" in logged and "ops-dingtalk ok" in logged
    for secret in (im.wecom_key, im.feishu_token, im.feishu_secret, im.dingtalk_token, im.dingtalk_secret):
        assert secret not in logged


async def test_one_vendor_down_does_not_stop_the_others(im: IMServers, caplog) -> None:
    ds = settings_for(im)
    d = big_digest(40, ds=ds)
    im.down.add("feishu")
    im.fail_next("wecom", 1, 503)  # transient: retried
    im.fail_next("dingtalk", 1, 200)  # DingTalk's "send too fast": retried
    outcomes = await send_each([(ch, d) for ch in make_channels(ds, env_for(im))])
    by = {o.target: o for o in outcomes}
    assert by["ops-wecom"].ok and by["ops-wecom"].attempts == by["ops-wecom"].messages + 1
    assert by["ops-dingtalk"].ok and by["ops-dingtalk"].attempts == by["ops-dingtalk"].messages + 1
    for name in ("ops-feishu", "ops-feishu-post"):
        o = by[name]
        assert not o.ok and o.nothing_sent and o.attempts == ds.push_attempts and "HTTP 500" in (o.error or "")
    assert im.received["wecom"] and im.received["dingtalk"] and not im.received["feishu"]
    assert "ops-feishu failed" in caplog.text and im.feishu_token not in caplog.text


async def test_bad_secret_or_missing_env_fails_without_retries(im: IMServers) -> None:
    ds = settings_for(im)
    d = big_digest(10, ds=ds)
    env = env_for(im) | {"T_FEISHU_SECRET": "wrong", "T_DING_SECRET": "SECwrong"}
    env.pop("T_WECOM_URL")
    outcomes = {o.target: o for o in await send_each([(ch, d) for ch in make_channels(ds, env)])}
    assert "19021" in (outcomes["ops-feishu"].error or "") and outcomes["ops-feishu"].attempts == 1
    assert "310000" in (outcomes["ops-dingtalk"].error or "") and outcomes["ops-dingtalk"].attempts == 1
    assert "no webhook URL" in (outcomes["ops-wecom"].error or "") and outcomes["ops-wecom"].attempts == 0
    assert not any(im.received.values())


def test_telegram_html_is_escaped_and_split() -> None:
    d = big_digest(600, ds=DigestSettings(max_change_lines=600, max_failed_lines=100))
    parts = render_telegram(d, DigestSettings(max_change_lines=600, max_failed_lines=100))
    assert len(parts) > 1 and all(utf16_len(p) <= 4096 for p in parts)
    from tests.fake_bot_api import parse_html

    for p in parts:
        parse_html(p)  # Telegram-strict: raises on a bad tag or a bare < > &
    assert "*ST&lt;b&gt;测试&lt;/b&gt;&amp;&lt;at id=" in parts[0]  # names are cut to 24 characters
    assert "<at" not in "".join(parts)


async def test_telegram_channel_delivers_text_xlsx_and_chart(tmp_path) -> None:
    """Through the real PTB Bot against the fake Bot API server (HTML checked, 429 waited out)."""
    from telegram import Bot

    from screening.digest.files import write_files
    from tests.fake_bot_api import FakeBotAPI

    fake = await FakeBotAPI().start()
    try:
        d = big_digest(300)
        write_files(d, tmp_path)
        fake.fail_next(1, retry_after=1, methods={"sendMessage"})
        async with Bot(fake.token, base_url=fake.base_url, base_file_url=fake.base_file_url) as bot:
            out: SendOutcome = await TelegramChannel(bot, 4242, ds=DigestSettings(max_change_lines=200),
                                                     backoff_s=0.01).send(d)
        assert out.ok, out.describe()
        texts = fake.texts(4242)
        assert len(texts) == out.messages - 2 >= 2
        assert texts[0].startswith("A股盘前摘要 · 2026-10-09") and "*ST<b>测试</b>&<at id=" in texts[0]
        assert len(fake.ok_calls("sendDocument", 4242)) == 1 and len(fake.ok_calls("sendPhoto", 4242)) == 1
    finally:
        await fake.stop()


async def test_a_webhook_answering_after_the_timeout_is_not_posted_twice() -> None:
    """The vendor accepted the message but answered after the client's timeout: a retry would post it twice
    (review s15/u3 A3); a connection refused is still retried."""
    import asyncio

    from aiohttp import web

    from screening.push.wecom import WeComChannel

    class Slow(IMServers):
        late = 1

        async def _wecom(self, request: web.Request) -> web.Response:
            resp = await super()._wecom(request)
            if self.late:
                self.late -= 1
                await asyncio.sleep(1.0)
            return resp

    im = await Slow().start()
    try:
        ch = WeComChannel("team", im.wecom_url, attempts=4, backoff_s=0.01, timeout_s=0.3)
        served: list[str] = []
        ch.on_accepted = lambda: served.append("team")
        out = await ch.send(big_digest(5))
        assert len(im.received["wecom"]) == 1 and out.sent == 0 and "after sending" in (out.error or "")
        assert served == ["team"]  # it may have arrived: the digest guard counts the group served (no resend later)
    finally:
        await im.stop()
    refused = WeComChannel("team", "http://127.0.0.1:1/cgi-bin/webhook/send?key=k", attempts=3, backoff_s=0.01)
    refused.on_accepted = lambda: served.append("refused")
    out = await refused.send(big_digest(5))
    assert out.attempts == 3 and out.sent == 0 and served == ["team"]  # never reached it: not served
