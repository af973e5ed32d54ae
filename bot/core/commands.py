"""The screening commands, once for every front: /start /help /whoami /screen, a file, /status /cancel /data.

Access control has run before any of these (bot/core/dispatch.py). Redis is reached through
``asyncio.to_thread`` (the queue client is sync).
"""

from __future__ import annotations

import asyncio
import logging
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.core import jobs, replies
from bot.core.access import is_admin
from bot.core.front import Front
from bot.core.inbound import ChatRef, Inbound
from bot.core.say import reply
from bot.core.service import ChatCore, scoped
from bot.core.text import Line, code, line, t
from screening.config import Settings
from screening.data.codes import split_codes
from screening.data.load import codes_pool, load_file
from screening.data.typed_table import typed_tokens
from screening.data.universe import Universe
from screening.models import Pool, PoolRejected
from screening.queue.status import JobState, JobStatus
from screening.screen.unread_text import admit_pool

log = logging.getLogger("bot.core")
_MB = 1024 * 1024
UPLOAD_SUFFIXES = {".csv", ".txt", ".tsv", ".xlsx", ".xlsm", ".xls"}
MAX_CODES_PER_COMMAND = 200
TOKENS_PER_STOCK = 2  # a code and its name: the most tokens one typed stock takes
SPLIT_LIST = "请分几次发送, 或发送 CSV/XLSX 文件。"
COMMAND_HELP = {
    "start": "开始 / what this bot does", "help": "用法和示例 / usage with examples",
    "screen": "筛选股票: /screen 600519.SH 300750", "status": "任务进度: /status [任务号]",
    "cancel": "取消任务: /cancel [任务号]", "subscribe": "订阅盘前摘要: /subscribe [HH:MM|默认]",
    "unsubscribe": "取消订阅盘前摘要", "digest": "最新的盘前摘要",
    "watch": "设定摘要的自选股票池: /watch 600519 300750",
    "data": "本地行情和财报数据: 来源、日期、股票数", "whoami": "显示 chat id 和 user id",
    "calendar": "交易日历: 休市日和调休待定日 /calendar [年份]",
}


async def start(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    await reply(front, msg, [line("你好! 发送 /screen 加股票代码, 或直接发送股票池文件 (CSV/XLSX)。"),
                             line("/help 查看用法和示例。")])


async def help_(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    await reply(front, msg, replies.HELP)


async def whoami(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    """Open to everyone: it only shows callers their own ids, which is what allow-listing needs."""
    lines = [line("chat id: ", code(msg.chat.chat_id), f" ({msg.chat.chat_type})"),
             line("user id: ", code(msg.user_id))]
    if is_admin(core.settings, msg.chat.platform, msg.user_id):
        lines.append(line("你是管理员。"))
    await reply(front, msg, lines)


async def submit(core: ChatCore, front: Front, msg: Inbound, pool: Pool,
                 ack: Callable[[Pool, str], list[Line]]) -> None:
    """Per-user limits, then the job is written to Redis before the reply that acknowledges it."""
    refusal = await asyncio.to_thread(jobs.check_limits, core, msg.chat.platform, msg.user_id, len(pool.items))
    if refusal:
        await reply(front, msg, refusal)
        return
    universe = await asyncio.to_thread(core.current_universe)
    await jobs.submit_and_follow(core, front, chat=msg.chat, user_id=msg.user_id, pool=pool,
                                 ack_lines=lambda job_id: ack(pool, job_id), reply_to=msg.message_id,
                                 data_label=universe.info.label())


async def screen(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    """A pasted table (Excel, a quote board) is read by its lines and cells, from the message's own text:
    ``args`` are its words, the line breaks and tabs gone; any other text is split as before."""
    typed = typed_tokens(args_text(msg.text, args))
    tokens = typed.tokens if typed.header or typed.figures else split_codes(" ".join(args))
    if not tokens:
        await reply(front, msg, [line("用法: /screen 600519.SH 300750 或 /screen 贵州茅台"), line("/help 查看更多。")])
        return
    universe = await asyncio.to_thread(core.current_universe)
    pool = await asyncio.to_thread(typed_pool, tokens, core.settings, universe)
    if isinstance(pool, str):
        await reply(front, msg, pool)
        return
    unread = typed.unread_note() if tokens is typed.tokens else ""
    if not pool.ok_items:  # nothing a job could screen: say why now, queue nothing
        await reply(front, msg, replies.nothing_to_screen_lines(pool, unread))
        return
    await submit(core, front, msg, pool, lambda p, job_id: replies.codes_ack_lines(p, job_id, unread))


def args_text(text: str, args: list[str]) -> str:
    """The text ``args`` were split from, line breaks and tabs kept: they are its last ``len(args)`` words."""
    words = list(re.finditer(r"\S+", text))
    return text[words[len(words) - len(args)].start():] if args and len(words) >= len(args) else " ".join(args)


def typed_pool(tokens: list[str], settings: Settings, universe: Universe) -> Pool | str:
    """/screen's pool of typed tokens (stale and demo rows flagged), or the refusal of a list too long.

    The limit is on stocks, not tokens: a name merged into its code counts once, so 120 pasted
    ``600519 贵州茅台`` pairs (240 tokens) are 120 stocks, and the refusal says how many there were; it
    used to count tokens and say only the limit (a trial, 2026-12-07). A list that cannot be under the
    limit even with every token in a pair is refused before any is read."""
    if len(tokens) > TOKENS_PER_STOCK * MAX_CODES_PER_COMMAND:
        return f"一次最多 {MAX_CODES_PER_COMMAND} 个代码, 这次有 {len(tokens)} 个代码或名称; {SPLIT_LIST}"
    pool = codes_pool(tokens, settings, universe, "/screen")
    if len(pool.items) > MAX_CODES_PER_COMMAND:
        return (f"一次最多 {MAX_CODES_PER_COMMAND} 个代码, 这次有 {len(pool.items)} 个 (代码和它的名称算一个); "
                f"{SPLIT_LIST}")
    return pool


async def upload(core: ChatCore, front: Front, msg: Inbound) -> None:
    assert msg.file is not None
    name = (Path(msg.file.name or "upload").name.replace("\x00", "") or "upload")[:80]
    suffix = Path(name).suffix.lower()
    if suffix not in UPLOAD_SUFFIXES:
        await reply(front, msg, [line("无法识别的文件类型 ", code(suffix or name),
                                      ": 请发送 CSV 或 XLSX 股票池文件。")])
        return
    limit_mb = core.settings.input.max_file_mb
    if msg.file.size is not None and msg.file.size > limit_mb * _MB:
        await reply(front, msg, [line("文件 ", t(name), f" 有 {msg.file.size / _MB:.1f} MB, 超过 {limit_mb:g} MB "
                                      "的上限 (input.max_file_mb); 未下载。")])
        return
    universe = await asyncio.to_thread(core.current_universe)
    with tempfile.TemporaryDirectory(prefix="screener-upload-") as tmp:
        path = Path(tmp) / f"upload{suffix}"
        if not await _fetched(front, msg, path, name):
            return
        try:
            pool = await asyncio.to_thread(_read_upload, path, core, universe, name)
        except PoolRejected as exc:
            log.info("upload %r from user %s rejected: %s", name, msg.user_id, exc)
            await reply(front, msg, [line("❌ 无法使用这个文件: ", t(str(exc), 600))])
            return
    if not pool.items:
        await reply(front, msg, [line("文件 ", t(name), " 里没有数据行。")])
        return
    await submit(core, front, msg, pool, replies.understood_lines)


PLATFORM_NAMES = {"telegram": "Telegram", "dingtalk": "钉钉", "feishu": "飞书", "wecom": "企业微信"}


async def _fetched(front: Front, msg: Inbound, path: Path, name: str) -> bool:
    """Fetch the upload; when the vendor will not give it, say so in one line and return False.

    Any failure of the vendor's fetch (a download code or link that expired, a file over the vendor's size cap,
    an API refusal) means the same to the user: the bot never got the file, so it must be sent again. It used
    to escape to the front's handler, which logged a traceback and answered nothing (a trial, S22 jb)."""
    assert msg.file is not None
    try:
        await msg.file.download(path)
    except Exception as exc:  # the vendor's errors differ per front; each is logged with its reason
        log.warning("upload %r from %s user %s not downloaded: %s: %s", name, msg.chat.platform, msg.user_id,
                    type(exc).__name__, exc)
        where = PLATFORM_NAMES.get(msg.chat.platform, msg.chat.platform)
        await reply(front, msg, [line("❌ 未能从", where, "下载文件 ", t(name), " (链接可能已过期, 或文件太大): "
                                      "请重新发送 (这次没有筛选任何一行)。")])
        return False
    return True


def _read_upload(path: Path, core: ChatCore, universe: Universe, name: str) -> Pool:
    """The uploaded file as a pool, its unknown columns' risk text read here (as the ``screen`` command does), so
    the reply names each such column once; the worker's screen step then finds nothing left to read."""
    pool = load_file(path, core.settings, universe, source_name=name)
    pool.warnings += admit_pool(pool.items, pool.source)
    return pool


async def resolve_job(core: ChatCore, msg: Inbound, arg: str | None, *, active_only: bool) -> tuple[str | None, Line]:
    """(job id, ()) for a full id or a unique prefix among the user's jobs; (None, why) otherwise."""
    user_key = scoped(msg.chat.platform, msg.user_id)

    def lookup() -> tuple[str | None, Line]:
        candidates = core.queue.jobs_of(user_key)
        if not active_only:
            candidates += [j for j in core.recent_jobs(user_key) if j not in candidates]
        if not arg:
            if len(candidates) == 1:
                return candidates[0], ()
            if not candidates:
                return None, line("你没有运行中的任务。" if active_only else "你最近没有任务。")
            ids: list[Any] = []
            for n, j in enumerate(candidates[:10]):
                ids += ([", "] if n else []) + [code(j[:12])]
            return None, line("你有多个任务, 请指定任务号: ", *ids)
        token = arg.strip().lower()
        if len(token) == 32:
            return token, ()
        matches = [j for j in candidates if j.startswith(token)] if len(token) >= 4 else []
        if len(matches) == 1:
            return matches[0], ()
        if len(matches) > 1:
            return None, line("任务号 ", code(token), " 不唯一, 请多给几位。")
        return None, line("找不到任务 ", code(token, 40), "。")

    return await asyncio.to_thread(lookup)


def may_see(core: ChatCore, msg_chat: ChatRef, user_id: str, owner: dict[str, Any]) -> bool:
    platform = msg_chat.platform
    mine = owner.get("user") == (int(user_id) if platform == "telegram" else scoped(platform, user_id))
    if mine or is_admin(core.settings, platform, user_id):
        return True
    chat = int(msg_chat.chat_id) if platform == "telegram" else scoped(platform, msg_chat.chat_id)
    return owner.get("chat") == chat


async def status(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    if not args:
        def active() -> list[Any]:
            ids = core.queue.jobs_of(scoped(msg.chat.platform, msg.user_id))
            return core.queue.statuses(ids) if ids else []

        await reply(front, msg, replies.status_lines(await asyncio.to_thread(active)))
        return
    job_id, why = await resolve_job(core, msg, args[0], active_only=False)
    if job_id is None:
        await reply(front, msg, why)
        return
    st = await visible_status(core, front, msg, job_id)
    if st is None:
        return
    await front.send(msg.chat, replies.progress_lines(st, st.source), buttons=jobs.buttons_for(st),
                     for_user=msg.user_id)
    if st.finished:
        await jobs.retry_missing(core, front, job_id)  # files that could not be sent go again


async def visible_status(core: ChatCore, front: Front, msg: Inbound, job_id: str) -> JobStatus | None:
    """The job's status when it exists and this user may see it; otherwise the refusal is replied and None."""
    try:
        st = await asyncio.to_thread(core.queue.status, job_id)
    except KeyError:
        await reply(front, msg, [line("找不到任务 ", code(job_id[:12]), " (可能已过期)。")])
        return None
    if not may_see(core, msg.chat, msg.user_id, st.owner):
        await reply(front, msg, "这不是你的任务。")
        return None
    return st


async def cancel_job(core: ChatCore, platform: str, user_id: str, job_id: str) -> Line:
    try:
        st = await asyncio.to_thread(core.queue.status, job_id)
    except KeyError:
        return line("找不到任务 ", code(job_id[:12]), "。")
    owner = int(user_id) if platform == "telegram" else scoped(platform, user_id)
    if st.owner.get("user") != owner and not is_admin(core.settings, platform, user_id):
        return line("只有任务的提交者或管理员可以取消它。")
    if await asyncio.to_thread(core.queue.cancel, job_id):
        log.info("job %s cancelled by %s user %s", job_id, platform, user_id)
        return line("任务 ", code(job_id[:12]), " 已取消; 已完成的结果照常发送。")
    return await _not_cancelled(core, job_id)


async def _not_cancelled(core: ChatCore, job_id: str) -> Line:
    """Why a cancel did nothing, from the job's state *after* it: the state read before may be stale (the job
    finished between the two, and the answer read "已经结束 (running)"; a trial, S3)."""
    job = code(job_id[:12])
    try:
        st = await asyncio.to_thread(core.queue.status, job_id)
    except KeyError:  # expired meanwhile: it had ended long before
        return line("任务 ", job, " 已经结束 (已过期), 无需取消。")
    if st.state == JobState.DONE:
        return line("任务 ", job, " 已经完成, 无需取消; 结果已发送或即将发送。")
    if st.state == JobState.CANCELLED:
        return line("任务 ", job, " 已被取消。")
    return line("任务 ", job, " 未能取消 (", t(st.state), "), 请稍后再试。")


async def cancel(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    job_id, why = await resolve_job(core, msg, args[0] if args else None, active_only=True)
    if job_id is None:
        await reply(front, msg, why)
        return
    await reply(front, msg, await cancel_job(core, msg.chat.platform, msg.user_id, job_id))


async def data(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    """/data: where the figures come from and how old they are (the same facts as `universe status`)."""
    info = (await asyncio.to_thread(core.current_universe)).info
    lines = [line("本地数据: ", t(info.label()))]
    if info.refreshed_at:
        lines.append(line("刷新于 ", t(info.refreshed_at)))
    lines += [line("• ", t(n, 200)) for n in info.notes[:8]]
    if not info.demo and info.provider:
        lines.append(line("每个结果行都标明各项数据的来源和日期; 超期的数据会被标记「数据过期」。"))
    await reply(front, msg, lines)


async def _listing(core: ChatCore, front: Front, msg: Inbound, args: list[str], which: str) -> None:
    """/high [job] and /failed [job]: the lists Telegram shows behind buttons, for fronts without buttons."""
    job_id, why = await resolve_job(core, msg, args[0] if args else None, active_only=False)
    if job_id is None:
        await reply(front, msg, why)
        return
    st = await visible_status(core, front, msg, job_id)
    if st is None:
        return
    rows = await asyncio.to_thread(core.queue.results, job_id)
    if which == "high":
        await reply(front, msg, replies.list_lines(replies.high_risk(rows), "高风险列表", "没有高风险股票。"))
    else:
        await reply(front, msg, replies.list_lines(replies.failed_rows(rows), "失败明细", "没有失败的股票。"))


async def high(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    await _listing(core, front, msg, args, "high")


async def failed(core: ChatCore, front: Front, msg: Inbound, args: list[str]) -> None:
    await _listing(core, front, msg, args, "failed")
