"""The digest fires on exactly the trading days, once per (day, chat), across restarts, with a controlled clock.

Real Redis (guards, subscriptions, history), the real APScheduler AsyncIOScheduler with its
clock replaced (``datetime.now`` in its scheduler and executor modules), the in-process rules
engine for speed (the queue path has its own test in test_digest.py), a recording Telegram bot
and the local WeCom server. Nothing sleeps for real minutes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from collections import Counter
from pathlib import Path
from zoneinfo import ZoneInfo

import apscheduler.executors.base
import apscheduler.schedulers.base
import pytest
from telegram.error import BadRequest

from bot.digest_scheduler import DigestService, build_scheduler, send_digest_now
from bot.subscriptions import Subscriptions
from screening.config import DigestSettings, PushTarget, Settings, UniverseSettings
from screening.data.trading_calendar import trading_days
from screening.queue.client import JobQueue
from tests.im_servers import IMServers
from tests.notice_2027 import NOTICE_2027
from tests.test_digest import write_universe

SH = ZoneInfo("Asia/Shanghai")
TITLE = re.compile(r"A股盘前摘要 · (\d{4}-\d{2}-\d{2})")
HOLIDAYS_2027 = [dt.date(2027, 1, 1)]


class Clock:
    def __init__(self, at: dt.datetime) -> None:
        self.at = at

    def __call__(self) -> dt.datetime:
        return self.at

    def set(self, day: dt.date, hh: int, mm: int) -> None:
        self.at = dt.datetime(day.year, day.month, day.day, hh, mm, tzinfo=SH)


class RecordingBot:
    """The three Bot methods the digest uses; optional failures per method."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int, str]] = []
        self.fail: dict[str, Exception] = {}

    async def _rec(self, method: str, chat_id: int, text: str) -> dict:
        if method in self.fail:
            raise self.fail[method]
        self.sent.append((method, chat_id, text))
        return {"ok": True}

    async def send_message(self, chat_id, text, parse_mode=None, **_):
        return await self._rec("send_message", chat_id, text)

    async def send_document(self, chat_id, document, filename=None, caption=None, **_):
        return await self._rec("send_document", chat_id, caption or "")

    async def send_photo(self, chat_id, photo, caption=None, **_):
        return await self._rec("send_photo", chat_id, caption or "")

    def digests(self) -> Counter:
        """(chat, digest date) -> number of digests (a digest's first message carries the title)."""
        return Counter((chat, m.group(1)) for method, chat, text in self.sent
                       if method == "send_message" and (m := TITLE.search(text.split("\n", 1)[0])))


@pytest.fixture
def env(queue_settings: Settings, tmp_path: Path):
    uni = tmp_path / "universe.sqlite"
    write_universe(uni, 1, "2026-09-25")
    settings = queue_settings.model_copy(update={"universe": UniverseSettings(path=str(uni))})
    q = JobQueue(settings.redis.url, settings.redis)
    subs = Subscriptions(q.r, q.prefix)
    subs.subscribe(101)  # default time, the universe
    subs.set_pool(202, ["600519", "sz300750", "600036.SH"])
    subs.subscribe(202, "7:30")  # own time and pool
    subs.subscribe(303)
    assert subs.unsubscribe(303) and not subs.unsubscribe(404)
    yield settings, q, tmp_path
    q.close()


def service(settings: Settings, q: JobQueue, clock: Clock, bot: RecordingBot, tmp: Path, **ds_kw) -> DigestService:
    env = ds_kw.pop("env", {})
    ds = DigestSettings(**{"holidays": HOLIDAYS_2027, "send_files": False, "push_backoff_s": 0.01,
                           "calendar_dir": str(tmp / "calendar"), **ds_kw})  # no notice unless a test imports one
    return DigestService(settings, q, bot, ds=ds, clock=clock, engine="rules", env=env, out_dir=tmp / "out")


def test_subscriptions_roundtrip(env) -> None:
    _, q, _ = env
    subs = Subscriptions(q.r, q.prefix)
    assert [s.chat_id for s in subs.all()] == [101, 202]
    s202 = subs.get(202)
    assert s202 and s202.time == "07:30" and s202.pool == ["600519.SH", "300750.SZ", "600036.SH"]
    assert subs.slots("08:45") == {"08:45", "07:30"}
    # /subscribe again with no time keeps the chosen one (it reset 07:30 to the default: a chat re-sending it to
    # check it is subscribed lost its time, a trial 2026-12-07); 默认 goes back to the default time
    subs.subscribe(202)
    assert subs.get(202).time == "07:30" and subs.get(202).pool  # type: ignore[union-attr]
    subs.subscribe(202, "默认")
    assert subs.get(202).time is None and subs.get(202).pool  # type: ignore[union-attr]
    subs.set_enabled(202, False)
    assert [s.chat_id for s in subs.all()] == [101]
    with pytest.raises(ValueError):
        subs.subscribe(101, "25:00")
    with pytest.raises(ValueError):
        subs.set_pool(101, ["600519", "hello"])


async def run_days(svc: DigestService, clock: Clock, days: list[dt.date], *,
                   twice: DigestService | None = None) -> None:
    """Every slot of every day at its time, as the scheduler would call it; ``twice``: a second bot process too."""
    for day in days:
        for slot in sorted(svc.slots()):
            hh, mm = (int(x) for x in slot.split(":"))
            clock.set(day, hh, mm)
            await svc.run_slot(slot)
            if twice is not None:
                await twice.run_slot(slot)


async def test_fortnight_around_national_day_fires_on_trading_days_once_per_chat(env) -> None:
    settings, q, tmp = env
    im = await IMServers().start()
    try:
        clock, bot = Clock(dt.datetime(2026, 9, 28, tzinfo=SH)), RecordingBot()
        kw = {"targets": [PushTarget(name="team", kind="wecom", url_env="W")], "env": {"W": im.wecom_url}}
        a = service(settings, q, clock, bot, tmp, **kw)
        b = service(settings, q, clock, bot, tmp, **kw)  # a second bot process on the same Redis
        days = [dt.date(2026, 9, 28) + dt.timedelta(days=i) for i in range(14)]
        await run_days(a, clock, days, twice=b)
        expected = ["2026-09-28", "2026-09-29", "2026-09-30", "2026-10-08", "2026-10-09"]  # not 10-10 (调休 Sat)
        assert [str(d) for d in trading_days(days[0], days[-1])] == expected
        assert bot.digests() == Counter({(chat, d): 1 for chat in (101, 202) for d in expected})
        wecom_days = Counter(TITLE.search(m["markdown"]["content"]).group(1)  # type: ignore[union-attr]
                             for m in im.received["wecom"] if TITLE.search(m["markdown"]["content"]))
        assert wecom_days == Counter(expected)
        # chat 202 got its own pool, chat 101 the universe; no 2026 digest carries the fallback warning
        texts = {chat: [t for m, c, t in bot.sent if c == chat] for chat in (101, 202)}
        assert all("自选 3 只" in t for t in texts[202] if TITLE.search(t))
        assert all("全市场 21 只" in t for t in texts[101] if TITLE.search(t))
        assert not any("交易日历回退" in t for _, _, t in bot.sent)
    finally:
        await im.stop()


async def test_january_2027_uses_the_holiday_list_and_warns(env) -> None:
    settings, q, tmp = env
    clock, bot = Clock(dt.datetime(2026, 12, 28, tzinfo=SH)), RecordingBot()
    svc = service(settings, q, clock, bot, tmp)
    days = [dt.date(2026, 12, 28) + dt.timedelta(days=i) for i in range(14)]
    await run_days(svc, clock, days)
    expected = ["2026-12-28", "2026-12-29", "2026-12-30", "2026-12-31",
                "2027-01-04", "2027-01-05", "2027-01-06", "2027-01-07", "2027-01-08"]  # 01-01 in the list
    assert bot.digests() == Counter({(chat, d): 1 for chat in (101, 202) for d in expected})
    for _, _, text in bot.sent:
        m = TITLE.search(text)
        if m:  # the footer is in the same message for a digest this small
            assert ("交易日历回退" in text) == m.group(1).startswith("2027")


def test_trigger_next_fire_time_is_shanghai_time() -> None:
    svc_tz = ZoneInfo("Asia/Shanghai")
    ds = DigestSettings()
    from apscheduler.triggers.cron import CronTrigger

    trig = CronTrigger(hour=8, minute=45, timezone=ds.tz)
    at = dt.datetime(2026, 10, 9, 8, 44, tzinfo=svc_tz)
    assert trig.get_next_fire_time(None, at) == dt.datetime(2026, 10, 9, 8, 45, tzinfo=svc_tz)
    assert trig.get_next_fire_time(None, at.astimezone(dt.UTC)) == dt.datetime(2026, 10, 9, 8, 45, tzinfo=svc_tz)
    assert trig.get_next_fire_time(None, at + dt.timedelta(minutes=2)) == dt.datetime(2026, 10, 10, 8, 45,
                                                                                       tzinfo=svc_tz)


@pytest.fixture
def fake_now(monkeypatch):
    """Replace APScheduler's clock (its scheduler and executor modules only call ``datetime.now``)."""
    holder: dict[str, dt.datetime] = {}

    class FakeDateTime(dt.datetime):
        @classmethod
        def now(cls, tz=None):  # type: ignore[override]
            return holder["now"].astimezone(tz) if tz else holder["now"].replace(tzinfo=None)

    monkeypatch.setattr(apscheduler.schedulers.base, "datetime", FakeDateTime)
    monkeypatch.setattr(apscheduler.executors.base, "datetime", FakeDateTime)
    return holder


async def settle(bot: RecordingBot, want: Counter, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while bot.digests() != want and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # and nothing more arrives


async def test_restart_before_and_after_the_send_time_yields_one_digest_per_chat(env, fake_now) -> None:
    settings, q, tmp = env
    day = dt.date(2026, 10, 9)
    clock, bot = Clock(dt.datetime(2026, 10, 9, 8, 44, tzinfo=SH)), RecordingBot()

    def start(hh: int, mm: int, on: dt.date = day):
        clock.set(on, hh, mm)
        fake_now["now"] = clock.at
        sched = build_scheduler(service(settings, q, clock, bot, tmp, misfire_grace_hours=2))
        sched.start()
        return sched

    # process 1 starts at 08:44: the 08:45 job is pending; chat 202's 07:30 passed 74 min ago, within
    # the 2 h grace, so it runs at once
    s1 = start(8, 44)
    assert s1.get_job("digest:08:45").next_run_time == dt.datetime(2026, 10, 9, 8, 45, tzinfo=SH)
    await settle(bot, Counter({(202, "2026-10-09"): 1}))
    assert bot.digests() == Counter({(202, "2026-10-09"): 1})
    s1.shutdown(wait=False)

    # restart one minute before the send time: process 2 at 08:44 (07:30 again due, but guarded)
    s2 = start(8, 44)
    await asyncio.sleep(0.3)
    clock.set(day, 8, 45)
    fake_now["now"] = clock.at
    s2.wakeup()
    want = Counter({(202, "2026-10-09"): 1, (101, "2026-10-09"): 1})
    await settle(bot, want)
    assert bot.digests() == want
    s2.shutdown(wait=False)

    # restart one minute after: process 3 at 08:46 runs the 08:45 job as a misfire within grace; guarded
    s3 = start(8, 46)
    job = s3.get_job("digest:08:45")
    assert job.coalesce and job.misfire_grace_time == 7200
    await asyncio.sleep(0.5)
    assert bot.digests() == want
    # the next daily fire; the job itself does nothing on the weekend
    assert s3.get_job("digest:08:45").next_run_time == dt.datetime(2026, 10, 10, 8, 45, tzinfo=SH)
    s3.shutdown(wait=False)

    # a process that died before sending (Monday, nothing sent yet) and restarts at 08:46 still sends, once
    monday = dt.date(2026, 10, 12)
    s4 = start(8, 46, monday)
    want_monday = want + Counter({(202, "2026-10-12"): 1, (101, "2026-10-12"): 1})
    await settle(bot, want_monday)
    assert bot.digests() == want_monday
    s4.shutdown(wait=False)

    # a restart past the grace (11:00) sends nothing stale for that day
    tuesday = dt.date(2026, 10, 13)
    s5 = start(11, 0, tuesday)
    await asyncio.sleep(0.5)
    assert bot.digests() == want_monday
    assert s5.get_job("digest:08:45").next_run_time == dt.datetime(2026, 10, 14, 8, 45, tzinfo=SH)
    s5.shutdown(wait=False)


async def test_guard_is_released_only_when_nothing_was_delivered(env, monkeypatch) -> None:
    settings, q, tmp = env
    day = dt.date(2026, 10, 9)
    clock, bot = Clock(dt.datetime(2026, 10, 9, 8, 45, tzinfo=SH)), RecordingBot()
    Subscriptions(q.r, q.prefix).unsubscribe(202)
    svc = service(settings, q, clock, bot, tmp, send_files=True)

    # 1. the build fails: guard released, the next run sends
    real_build = svc._build
    monkeypatch.setattr(svc, "_build", lambda *a: (_ for _ in ()).throw(RuntimeError("no worker")))
    out = await svc.run_slot("08:45")
    assert len(out) == 1 and "build failed" in (out[0].error or "") and not q.r.exists(svc.guard_key(day, "tg:101"))
    monkeypatch.setattr(svc, "_build", real_build)

    # 2. Telegram refuses every message: guard released
    bot.fail["send_message"] = BadRequest("Chat not found")
    out = await svc.run_slot("08:45")
    assert out[0].nothing_sent and not q.r.exists(svc.guard_key(day, "tg:101"))
    del bot.fail["send_message"]

    # 3. the text arrives, the XLSX does not: partial, the guard stays (never twice)
    bot.fail["send_document"] = BadRequest("file too big")
    out = await svc.run_slot("08:45")
    assert not out[0].ok and out[0].sent == 1 and q.r.exists(svc.guard_key(day, "tg:101"))
    assert q.r.ttl(svc.guard_key(day, "tg:101")) > 30 * 3600
    del bot.fail["send_document"]
    assert await svc.run_slot("08:45") == []  # guarded: nothing
    assert bot.digests() == Counter({(101, "2026-10-09"): 1})

    # a manual send goes out anyway (and keeps the guard for the rest of the day)
    out = await send_digest_now(bot, settings, q, 101, service=svc)
    assert out[0].ok and bot.digests() == Counter({(101, "2026-10-09"): 2})
    assert q.r.exists(svc.guard_key(day, "tg:101"))


def test_bot_digest_now_command_and_setup_with_a_real_application(env, monkeypatch) -> None:
    """``python -m bot digest --now --chat 101`` through PTB against the fake Bot API; setup_digest wiring."""
    import argparse
    import threading

    from telegram.ext import Application

    from bot.digest_scheduler import SCHEDULER_KEY, SERVICE_KEY, add_digest_now_args, cmd_digest_now, setup_digest
    from tests.fake_bot_api import FakeBotAPI

    settings, q, tmp = env
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    fake = asyncio.run_coroutine_threadsafe(FakeBotAPI().start(), loop).result(10)
    try:
        for key, value in {"SCREENER_TELEGRAM__TOKEN": fake.token, "SCREENER_TELEGRAM__BASE_URL": fake.base_url,
                           "SCREENER_TELEGRAM__BASE_FILE_URL": fake.base_file_url,
                           "SCREENER_REDIS__URL": settings.redis.url, "SCREENER_REDIS__PREFIX": settings.redis.prefix,
                           "SCREENER_UNIVERSE__PATH": settings.universe.path,
                           "XDG_CACHE_HOME": str(tmp / "cache")}.items():
            monkeypatch.setenv(key, value)
        parser = argparse.ArgumentParser()
        add_digest_now_args(parser)
        assert cmd_digest_now(parser.parse_args(["--now", "--chat", "202", "--engine", "rules"])) == 0
        texts = fake.texts(202)
        assert len(texts) == 1 and texts[0].startswith("A股盘前摘要") and "自选 3 只" in texts[0]
        assert len(fake.ok_calls("sendDocument", 202)) == 1 and len(fake.ok_calls("sendPhoto", 202)) == 1

        app = Application.builder().token(fake.token).base_url(fake.base_url).build()
        sched = setup_digest(app, settings, q, engine="rules")
        assert app.bot_data[SCHEDULER_KEY] is sched and isinstance(app.bot_data[SERVICE_KEY], DigestService)
        assert {j.id for j in sched.get_jobs()} == {"digest:08:45", "digest:07:30", "digest-sync"}
    finally:
        asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)


async def test_a_demo_digest_is_never_pushed_unless_the_operator_allows_it(env) -> None:
    """Demo figures must not reach a team's chat as if they were the market: held back, the guard released."""
    from screening.data.stock_csv import read_stock_csv
    from screening.data.universe import Record, Universe, UniverseInfo

    settings, q, tmp = env
    stocks = [s for s, _ in read_stock_csv(Path(__file__).resolve().parent.parent / "examples" / "sample_pool.csv")]
    Universe.load(Path(settings.universe.path)).replace(
        [Record(s, dict.fromkeys((f for f, v in s.data().items() if v is not None and f != "code"), "demo"))
         for s in stocks], UniverseInfo(provider="demo", demo=True))
    im = await IMServers().start()
    try:
        day = dt.date(2026, 9, 28)
        clock, bot = Clock(dt.datetime(2026, 9, 28, tzinfo=SH)), RecordingBot()
        kw = {"targets": [PushTarget(name="team", kind="wecom", url_env="W")], "env": {"W": im.wecom_url}}
        held = service(settings, q, clock, bot, tmp, **kw)
        outcomes = await held.deliver(day, held.recipients())
        assert outcomes and all(o.sent == 0 and "demo data: not pushed" in (o.error or "") for o in outcomes)
        assert bot.sent == [] and im.received["wecom"] == []
        allowed = service(settings, q, clock, bot, tmp, allow_demo=True, **kw)
        await run_days(allowed, clock, [day])  # the guards were released: the allowed run sends today
        assert bot.digests() == Counter({(101, "2026-09-28"): 1, (202, "2026-09-28"): 1})
        firsts = [t for m, _, t in bot.sent if m == "send_message" and TITLE.search(t.split("\n", 1)[0])]
        assert firsts and all("演示数据" in t for t in firsts)
        assert im.received["wecom"] and all("演示数据" in m["markdown"]["content"] for m in im.received["wecom"]
                                            if TITLE.search(m["markdown"]["content"]))
    finally:
        await im.stop()


# -- 2027: the law's holidays, the undecided (调休待定) days and the imported notice -------------------------
DAYS_2027 = [dt.date(2027, 1, 1), dt.date(2027, 6, 8), dt.date(2027, 6, 9), dt.date(2027, 6, 14)]


def _footers(bot: RecordingBot) -> dict[str, str]:
    """Digest date -> the text of its first message (the footer is in it for a digest this small)."""
    return {m.group(1): t for meth, _, t in bot.sent if meth == "send_message" and (m := TITLE.search(t))}


async def test_2027_holidays_by_law_and_undecided_days_send_nothing_by_default(env, caplog) -> None:
    """No config list: 元旦 and 端午 are closed by the law, Tuesday 06-08 is 调休待定 and skipped, 06-14 sends."""
    settings, q, tmp = env
    clock, bot = Clock(dt.datetime(2027, 1, 1, tzinfo=SH)), RecordingBot()
    svc = service(settings, q, clock, bot, tmp, holidays=[])
    with caplog.at_level("INFO", logger="bot.digest"):
        await run_days(svc, clock, DAYS_2027)
    assert bot.digests() == Counter({(chat, "2027-06-14"): 1 for chat in (101, 202)})
    said = [r.getMessage() for r in caplog.records]
    skipped = [m for m in said if "2027-06-08" in m and "nothing sent" in m]
    assert skipped and all("调休待定" in m and "calendar import" in m for m in skipped)
    assert any("2027-01-01" in r.getMessage() and "statutory: 元旦" in r.getMessage() for r in caplog.records)
    footer = _footers(bot)["2027-06-14"]
    assert "交易日依据" in footer and "法定节假日" in footer and "交易日历回退" in footer


async def test_on_unknown_days_send_pushes_an_undecided_day_but_never_a_statutory_one(env) -> None:
    settings, q, tmp = env
    clock, bot = Clock(dt.datetime(2027, 1, 1, tzinfo=SH)), RecordingBot()
    svc = service(settings, q, clock, bot, tmp, holidays=[], on_unknown_days="send")
    await run_days(svc, clock, DAYS_2027)
    assert bot.digests() == Counter({(chat, d): 1 for chat in (101, 202) for d in ("2027-06-08", "2027-06-14")})
    assert "调休待定" in _footers(bot)["2027-06-08"]


async def test_an_imported_notice_decides_the_undecided_days(env) -> None:
    from screening.data.calendar_notice import import_notice

    settings, q, tmp = env
    notice = tmp / "notice-2027.toml"
    notice.write_text(NOTICE_2027, encoding="utf-8")
    import_notice(notice, tmp / "calendar")
    clock, bot = Clock(dt.datetime(2027, 1, 1, tzinfo=SH)), RecordingBot()
    svc = service(settings, q, clock, bot, tmp, holidays=[])
    await run_days(svc, clock, [*DAYS_2027, dt.date(2027, 10, 6), dt.date(2027, 10, 8)])
    sent = ("2027-06-08", "2027-06-14", "2027-10-08")  # 06-08 open per the notice, 10-06 closed per the notice
    assert bot.digests() == Counter({(chat, d): 1 for chat in (101, 202) for d in sent})
    footer = _footers(bot)["2027-06-08"]
    assert "official notice" in footer and "made-up 2027" in footer and "交易日历回退" not in footer


async def test_the_refresh_never_runs_on_a_statutory_holiday_nor_by_default_on_an_undecided_day(env, caplog) -> None:
    from bot.refresh_scheduler import RefreshService

    settings, q, tmp = env
    ds = DigestSettings(calendar_dir=str(tmp / "calendar"))
    # demo mode makes a refresh that does start fail at once (no network), which the log then says
    demo = settings.universe.model_copy(update={"demo": True})
    settings = settings.model_copy(update={"digest": ds, "universe": demo})
    clock = Clock(dt.datetime(2027, 1, 1, tzinfo=SH))
    svc = RefreshService(settings, q.r, clock=clock, retry_until_min=0)
    with caplog.at_level("INFO", logger="bot.refresh"):
        for day in (dt.date(2027, 1, 1), dt.date(2027, 2, 8), dt.date(2027, 6, 8), dt.date(2027, 6, 14)):
            clock.set(day, 8, 0)
            assert await svc.run_slot("08:00") is None
    said = {day: [r.getMessage() for r in caplog.records if day in r.getMessage() and r.name == "bot.refresh"]
            for day in ("2027-01-01", "2027-02-08", "2027-06-08", "2027-06-14")}
    assert any("not a trading day (statutory: 元旦" in m for m in said["2027-01-01"])
    assert any("not a trading day (statutory: 春节 正月初三" in m for m in said["2027-02-08"])
    assert any("调休待定" in m and "not run" in m for m in said["2027-06-08"])
    assert not any("failed" in m for d in ("2027-01-01", "2027-02-08", "2027-06-08") for m in said[d])
    assert any("failed" in m and "demo" in m for m in said["2027-06-14"])  # a trading day: the refresh ran
