"""The digest's commands, once for every front: /subscribe [HH:MM], /unsubscribe, /watch CODE..., /digest,
/calendar [YEAR].

They talk to the bot process's DigestService (bot/digest_scheduler.py), which keeps the subscriptions
in Redis per chat (``platform:chat`` outside Telegram) and pushes on SSE trading days through the
chat's own front.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from typing import Any

from bot.core.front import Front
from bot.core.inbound import Inbound
from bot.core.say import reply
from bot.core.service import ChatCore
from bot.core.text import Line, line, t
from screening.data.codes import split_codes
from screening.data.load import pool_from_codes
from screening.data.row_checks import typed_pair_notes
from screening.data.trading_calendar import BASIS_TEXT, IMPORT_HINT, year_days

log = logging.getLogger("bot.core")
FIRST_YEAR = 1990  # the exchanges opened in December 1990; no calendar before
YEARS_AHEAD = 10  # the law's statutory days are known ahead; a far year is a typo more likely than a plan
DIGEST_OFF = "盘前摘要未启用 (config [digest] enabled = false)。"


async def _service(core: ChatCore, front: Front, msg: Inbound) -> Any:
    """The DigestService the bot set up; None (and the user told) when the digest is disabled."""
    service = core.services.get("digest")
    if service is None:
        await reply(front, msg, DIGEST_OFF)
    return service


async def subscribe(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    """/subscribe [HH:MM]: this chat gets the digest on trading days (default time from config)."""
    service = await _service(core, front, msg)
    if service is None:
        return
    at = args[0] if args else None
    try:
        sub = await asyncio.to_thread(service.subs.subscribe, service.sub_key(msg.chat), at, msg.chat.chat_type)
    except ValueError as exc:
        await reply(front, msg, [line("时间格式不对: ", t(str(exc)), "; 例如 /subscribe 08:30")])
        return
    service.resync()
    pool = f"自选 {len(sub.pool)} 只 (/watch 修改)" if sub.pool else "全部本地股票池 (/watch 代码... 设定自选)"
    # no time given keeps the chat's own (subscriptions.subscribe): the reply says so, and how to change it
    kept = "沿用本聊天设定的时间; 改时间 /subscribe HH:MM, 恢复默认 /subscribe 默认。" if not at and sub.time else ""
    await reply(front, msg, [line(f"已订阅盘前摘要: 每个交易日 {sub.slot(service.ds.time)} (北京时间) 推送。{kept}"),
                             line("范围: ", t(pool), "。/unsubscribe 取消。")])


async def calendar(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    """/calendar [YEAR]: the closed weekdays of a year and the undecided (调休待定) ones, with how to settle them.

    The digest and the refresh skip an undecided day unless [digest].on_unknown_days = "send"
    (screening/data/trading_calendar.py); this is where an admin sees which days those are.
    """
    ds = core.settings.digest
    today = dt.datetime.now(ds.tz).date()
    try:
        year = int(args[0]) if args else today.year
    except ValueError:
        year = 0
    if not FIRST_YEAR <= year <= today.year + YEARS_AHEAD:  # 0, -3 or 99999 raised in the calendar, unanswered
        await reply(front, msg, [line("年份不对: ", t(args[0], 20),
                                      f"; 可查 {FIRST_YEAR}-{today.year + YEARS_AHEAD} 年, 例如 /calendar 2027")])
        return
    days = await asyncio.to_thread(year_days, year, ds.holiday_set(), store=ds.calendar_store())
    closed = [d for d in days if d.open is False]
    undecided = [d for d in days if d.open is None]
    out = [line(f"{year} 年交易日历: 休市工作日 {len(closed)} 天, 调休待定 {len(undecided)} 天")]
    out += [line("• 休市 ", t(f"{d.day} {BASIS_TEXT[d.basis]} {d.note}", 120)) for d in closed]
    out += [line("• 待定 ", t(f"{d.day} {d.note}", 120)) for d in undecided]
    if undecided:
        out.append(line(f"待定日不推送摘要 (on_unknown_days = {ds.on_unknown_days}); 国务院通知发布后由管理员运行 ",
                        t(IMPORT_HINT, 80), " 确定。"))
    await reply(front, msg, out)


async def unsubscribe(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    service = await _service(core, front, msg)
    if service is None:
        return
    removed = await asyncio.to_thread(service.subs.unsubscribe, service.sub_key(msg.chat))
    service.resync()
    await reply(front, msg, "已取消订阅。" if removed else "本聊天没有订阅盘前摘要。")


async def watch(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    """/watch CODE...: this chat's own digest pool; /watch alone shows it, /watch clear resets it."""
    service = await _service(core, front, msg)
    if service is None:
        return
    key = service.sub_key(msg.chat)
    tokens = split_codes(" ".join(args))
    if not tokens:
        sub = await asyncio.to_thread(service.subs.get, key)
        shown = ", ".join(sub.pool) if sub and sub.pool else "(未设定: 摘要覆盖全部本地股票池)"
        await reply(front, msg, [line("自选股票池: ", t(shown))])
        return
    if tokens == ["clear"]:
        await asyncio.to_thread(service.subs.set_pool, key, None)
        await reply(front, msg, "已清除自选股票池, 摘要将覆盖全部本地股票池。")
        return
    universe = await asyncio.to_thread(core.current_universe)
    pool = await asyncio.to_thread(pool_from_codes, tokens, universe, "watch", "watch")
    stocks = [i.stock for i in pool.items if i.stock is not None]
    good = [s.code for s in stocks]
    bad = [f"{i.raw_code}: {i.error.message}" for i in pool.items if i.error is not None]
    sub = await asyncio.to_thread(service.subs.set_pool, key, good) if good else None
    # each code with its name (a name typed in part, 京东, must show which stock it was read as), and why a
    # token was left out (a repeat is understood, not unrecognised)
    shown = ", ".join(f"{s.code} {s.name}" if s.name else s.code for s in stocks)
    lines = [line(f"自选股票池已设为 {len(good)} 只: ", t(shown))] if good else []
    # a code typed beside another stock's name (600519 五粮液): /screen's note on both rows, said here, since
    # no row of a watch is shown until the digest, and the user may believe they watch the other stock
    lines += [line("⚠️ ", t(note, 300)) for note in typed_pair_notes(stocks)]
    lines += [line("未加入: ", t(b)) for b in bad]
    lines += await _watch_state(service, key, sub)
    await reply(front, msg, lines)


async def _watch_state(service: Any, key: int | str, sub: Any) -> list[Line]:
    """What a /watch reply adds about the chat (a trial, 2026-12-07): a watch in a chat with no subscription was
    kept with no word that no digest comes until /subscribe, and a /watch of nothing usable did not say whether
    the pool it had still stands."""
    if sub is None:  # nothing usable typed: the pool stays as it was, said with what it is
        sub = await asyncio.to_thread(service.subs.get, key)
        kept = f"{len(sub.pool)} 只: {', '.join(sub.pool)}" if sub and sub.pool else "未设定, 摘要覆盖全部本地股票池"
        return [line("没有可用的代码, 自选股票池未改变 (", t(kept), ")。")]
    if not sub.enabled:
        return [line("本聊天尚未订阅盘前摘要: 自选股票池已保存, 发送 /subscribe 后每个交易日按它推送。")]
    return []


async def digest(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    """/digest: today's digest for this chat now. Takes no daily guard: the scheduled push still comes."""
    service = await _service(core, front, msg)
    if service is None:
        return
    await reply(front, msg, "正在生成盘前摘要 (全市场需要几分钟)…")
    sub = await asyncio.to_thread(service.subs.get, service.sub_key(msg.chat))
    recipient = service.recipient_for(msg.chat, sub.pool if sub else None)
    made = await service.digest_for(service.now().date(), recipient.group)
    outcome = await recipient.channel.send(made)
    log.info("digest for %s chat %s on demand: %s", msg.chat.platform, msg.chat.chat_id, outcome)
