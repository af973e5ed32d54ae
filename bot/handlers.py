"""One callback per command, the document upload and the inline-keyboard buttons.

Every callback is ``async def cb(update, context) -> None``; Redis is reached only through
``asyncio.to_thread`` (the queue client is sync). Access control is the ``@authorized_only``
decorator on each callback, except /whoami, which only tells callers their own ids.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from collections.abc import Callable
from pathlib import Path

from telegram import BotCommand, Update
from telegram.constants import ParseMode

from screening.data.codes import split_codes
from screening.data.load import default_universe, load_file, pool_from_codes
from screening.data.universe import Universe
from screening.models import Pool, PoolRejected

from . import jobs, render
from .auth import authorized_only, is_admin
from .deps import BotDeps, ScreenerContext

log = logging.getLogger("bot.handlers")
_MB = 1024 * 1024
UPLOAD_SUFFIXES = {".csv", ".txt", ".tsv", ".xlsx", ".xlsm", ".xls"}
MAX_CODES_PER_COMMAND = 200
CLOUD_API_DOWNLOAD_MB = 20  # getFile limit of the cloud Bot API; a self-hosted one allows 2,000 MB

COMMANDS = [
    BotCommand("start", "开始 / what this bot does"),
    BotCommand("help", "用法和示例 / usage with examples"),
    BotCommand("screen", "筛选股票: /screen 600519.SH 300750"),
    BotCommand("status", "任务进度: /status [任务号]"),
    BotCommand("cancel", "取消任务: /cancel [任务号]"),
    BotCommand("subscribe", "订阅盘前摘要: /subscribe [HH:MM]"),
    BotCommand("unsubscribe", "取消订阅盘前摘要"),
    BotCommand("digest", "最新的盘前摘要"),
    BotCommand("watch", "设定摘要的自选股票池: /watch 600519 300750"),
    BotCommand("whoami", "显示 chat id 和 user id"),
]

HELP = """<b>A股选股机器人</b>
规则: ST、ROE&lt;5 或连续两年亏损为 🔴 高风险; ROE 5–15、PE&gt;50 或 PE≤0 为 🟡 中; 其余 🟢 低。

<b>用法</b>
/screen 600519.SH 300750 — 代码 (600519、sh600519、600519.SS 均可) 或股票名称
/screen 贵州茅台 宁德时代 — 按名称 (本地股票库)
发送 CSV 或 XLSX 文件 (同花顺 / 东方财富导出, GBK 或 UTF-8, 中文表头) — 整个股票池
/status — 你的任务; /status 任务号 — 单个任务进度
/cancel — 取消你唯一的运行中任务; /cancel 任务号
/whoami — 显示 chat id / user id (用于加入允许名单)

结果: 摘要消息 (风险分布、首选、失败行)、完整 XLSX 文件、图表 PNG; 按钮可查看高风险列表、失败明细、刷新。
每只股票都会有一行结果: 成功, 或失败并写明原因。"""


# ----------------------------------------------------------------------------- helpers


async def _universe(deps: BotDeps) -> Universe:
    if deps.universe is None:
        deps.universe = await asyncio.to_thread(default_universe, deps.settings)
    return deps.universe


async def _reply(update: Update, context: ScreenerContext, lines: list[str] | str) -> None:
    msg = update.effective_message
    if msg is None or update.effective_chat is None:
        return
    await jobs.send_lines(context.bot, context.deps, update.effective_chat.id,
                          [lines] if isinstance(lines, str) else lines, reply_to=msg.message_id)


async def _enqueue(update: Update, context: ScreenerContext, deps: BotDeps, pool: Pool,
                   ack: Callable[[Pool, str], list[str]]) -> None:
    """Per-user limits, then the job is written to Redis before the reply that acknowledges it."""
    user, chat, msg = update.effective_user, update.effective_chat, update.effective_message
    assert user is not None and chat is not None and msg is not None
    refusal = await asyncio.to_thread(jobs.check_limits, deps, user.id, len(pool.items))
    if refusal:
        await _reply(update, context, refusal)
        return
    await jobs.submit_and_follow(context.bot, deps, chat_id=chat.id, user_id=user.id, pool=pool,
                                 ack_lines=lambda job_id: ack(pool, job_id), reply_to=msg.message_id)


async def _resolve_job(deps: BotDeps, user_id: int, arg: str | None, *,
                       active_only: bool) -> tuple[str | None, str]:
    """(job id, '') for a full id or a unique prefix among the user's jobs; (None, why) otherwise."""

    def lookup() -> tuple[str | None, str]:
        candidates = deps.queue.jobs_of(str(user_id))
        if not active_only:
            candidates += [j for j in deps.recent_jobs(user_id) if j not in candidates]
        if not arg:
            if len(candidates) == 1:
                return candidates[0], ""
            if not candidates:
                return None, "你没有运行中的任务。" if active_only else "你最近没有任务。"
            ids = ", ".join(f"<code>{render.esc(j[:12])}</code>" for j in candidates[:10])
            return None, f"你有多个任务, 请指定任务号: {ids}"
        token = arg.strip().lower()
        if len(token) == 32:
            return token, ""
        matches = [j for j in candidates if j.startswith(token)] if len(token) >= 4 else []
        if len(matches) == 1:
            return matches[0], ""
        if len(matches) > 1:
            return None, f"任务号 <code>{render.esc(token)}</code> 不唯一, 请多给几位。"
        return None, f"找不到任务 <code>{render.esc(token, 40)}</code>。"

    return await asyncio.to_thread(lookup)


def _chat_id(update: Update) -> int:
    """The chat of a command update (PTB types it optional; a command always has one)."""
    assert update.effective_chat is not None
    return update.effective_chat.id


# ----------------------------------------------------------------------------- commands


@authorized_only
async def start_cb(update: Update, context: ScreenerContext) -> None:
    await _reply(update, context, ["你好! 发送 /screen 加股票代码, 或直接发送股票池文件 (CSV/XLSX)。",
                                   "/help 查看用法和示例。"])


@authorized_only
async def help_cb(update: Update, context: ScreenerContext) -> None:
    await _reply(update, context, HELP.split("\n"))


async def whoami_cb(update: Update, context: ScreenerContext) -> None:
    """Open to everyone: it only shows callers their own ids, which is what allow-listing needs."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or update.effective_message is None:
        return
    deps = context.deps
    lines = [f"chat id: <code>{chat.id}</code> ({render.esc(chat.type)})",
             f"user id: <code>{user.id if user else '?'}</code>"]
    if user and is_admin(deps.settings.telegram, user):
        lines.append("你是管理员。")
    await _reply(update, context, lines)


@authorized_only
async def screen_cb(update: Update, context: ScreenerContext) -> None:
    deps = context.deps
    chat, user, msg = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None and msg is not None
    tokens = split_codes(" ".join(context.args or []))
    if not tokens:
        await _reply(update, context, ["用法: /screen 600519.SH 300750 或 /screen 贵州茅台",
                                       "/help 查看更多。"])
        return
    if len(tokens) > MAX_CODES_PER_COMMAND:
        await _reply(update, context, f"一次最多 {MAX_CODES_PER_COMMAND} 个代码; 更多请发送 CSV/XLSX 文件。")
        return
    universe = await _universe(deps)
    pool = await asyncio.to_thread(pool_from_codes, tokens, universe, "/screen")
    await _enqueue(update, context, deps, pool, render.codes_ack_lines)


@authorized_only
async def status_cb(update: Update, context: ScreenerContext) -> None:
    deps = context.deps
    user = update.effective_user
    assert user is not None
    arg = context.args[0] if context.args else None
    if arg is None:
        def active() -> list:
            ids = deps.queue.jobs_of(str(user.id))
            return deps.queue.statuses(ids) if ids else []

        await _reply(update, context, render.status_lines(await asyncio.to_thread(active)))
        return
    job_id, why = await _resolve_job(deps, user.id, arg, active_only=False)
    if job_id is None:
        await _reply(update, context, why)
        return
    try:
        st = await asyncio.to_thread(deps.queue.status, job_id)
    except KeyError:
        await _reply(update, context, f"找不到任务 <code>{render.esc(job_id[:12])}</code> (可能已过期)。")
        return
    if not _may_see(deps, user.id, st.owner, update):
        await _reply(update, context, "这不是你的任务。")
        return
    chat = update.effective_chat
    assert chat is not None
    await jobs.with_retry(deps, lambda: context.bot.send_message(
        chat.id, render.progress_text(st, st.source), parse_mode=ParseMode.HTML,
        reply_markup=jobs.keyboard_for(st)))


def _may_see(deps: BotDeps, user_id: int, owner: dict, update: Update) -> bool:
    if owner.get("user") == user_id or user_id in deps.settings.telegram.admin_users:
        return True
    chat = update.effective_chat
    return chat is not None and owner.get("chat") == chat.id


@authorized_only
async def cancel_cb(update: Update, context: ScreenerContext) -> None:
    deps = context.deps
    user = update.effective_user
    assert user is not None
    arg = context.args[0] if context.args else None
    job_id, why = await _resolve_job(deps, user.id, arg, active_only=True)
    if job_id is None:
        await _reply(update, context, why)
        return
    await _reply(update, context, await _cancel(deps, user.id, job_id))


async def _cancel(deps: BotDeps, user_id: int, job_id: str) -> str:
    try:
        st = await asyncio.to_thread(deps.queue.status, job_id)
    except KeyError:
        return f"找不到任务 <code>{render.esc(job_id[:12])}</code>。"
    if st.owner.get("user") != user_id and user_id not in deps.settings.telegram.admin_users:
        return "只有任务的提交者或管理员可以取消它。"
    if await asyncio.to_thread(deps.queue.cancel, job_id):
        log.info("job %s cancelled by user %s", job_id, user_id)
        return f"任务 <code>{render.esc(job_id[:12])}</code> 已取消; 已完成的结果照常发送。"
    return f"任务 <code>{render.esc(job_id[:12])}</code> 已经结束 ({render.esc(st.state)}), 无需取消。"


async def _digest(update: Update, context: ScreenerContext):
    """The digest service ``app.build_application`` set up; None (and the user told) when disabled."""
    from .digest_scheduler import SERVICE_KEY

    service = context.application.bot_data.get(SERVICE_KEY)
    if service is None:
        await _reply(update, context, render.esc(DIGEST_OFF))
    return service


DIGEST_OFF = "盘前摘要未启用 (config [digest] enabled = false)。"


@authorized_only
async def subscribe_cb(update: Update, context: ScreenerContext) -> None:
    """/subscribe [HH:MM]: this chat gets the digest on trading days (default time from config)."""
    from .digest_scheduler import refresh_digest_jobs

    service = await _digest(update, context)
    if service is None:
        return
    at = context.args[0] if context.args else None
    try:
        sub = await asyncio.to_thread(service.subs.subscribe, _chat_id(update), at)
    except ValueError as exc:
        await _reply(update, context, f"时间格式不对: {render.esc(str(exc))}; 例如 /subscribe 08:30")
        return
    refresh_digest_jobs(context.application)
    pool = f"自选 {len(sub.pool)} 只 (/watch 修改)" if sub.pool else "全部本地股票池 (/watch 代码... 设定自选)"
    await _reply(update, context, [
        f"已订阅盘前摘要: 每个交易日 {render.esc(sub.slot(service.ds.time))} (北京时间) 推送。",
        f"范围: {render.esc(pool)}。/unsubscribe 取消。"])


@authorized_only
async def unsubscribe_cb(update: Update, context: ScreenerContext) -> None:
    from .digest_scheduler import refresh_digest_jobs

    service = await _digest(update, context)
    if service is None:
        return
    removed = await asyncio.to_thread(service.subs.unsubscribe, _chat_id(update))
    refresh_digest_jobs(context.application)
    await _reply(update, context, "已取消订阅。" if removed else "本聊天没有订阅盘前摘要。")


@authorized_only
async def watch_cb(update: Update, context: ScreenerContext) -> None:
    """/watch CODE...: this chat's own digest pool; /watch alone shows it, /watch clear resets it."""
    service = await _digest(update, context)
    if service is None:
        return
    chat_id = _chat_id(update)
    tokens = split_codes(" ".join(context.args or []))
    if not tokens:
        sub = await asyncio.to_thread(service.subs.get, chat_id)
        shown = ", ".join(sub.pool) if sub and sub.pool else "(未设定: 摘要覆盖全部本地股票池)"
        await _reply(update, context, f"自选股票池: {render.esc(shown)}")
        return
    if tokens == ["clear"]:
        await asyncio.to_thread(service.subs.set_pool, chat_id, None)
        await _reply(update, context, "已清除自选股票池, 摘要将覆盖全部本地股票池。")
        return
    deps = context.deps
    pool = await asyncio.to_thread(pool_from_codes, tokens, await _universe(deps), "watch")
    good = [i.stock.code for i in pool.items if i.stock is not None]
    bad = [f"{i.raw_code}: {i.error.message}" for i in pool.items if i.error is not None]
    if good:
        await asyncio.to_thread(service.subs.set_pool, chat_id, good)
    lines = [f"自选股票池已设为 {len(good)} 只: {render.esc(', '.join(good))}"] if good else []
    lines += [f"无法识别: {render.esc(b)}" for b in bad]
    await _reply(update, context, lines or "没有可用的代码。")


@authorized_only
async def digest_cb(update: Update, context: ScreenerContext) -> None:
    """/digest: today's digest for this chat now. Takes no daily guard: the scheduled push still comes."""
    service = await _digest(update, context)
    if service is None:
        return
    chat_id = _chat_id(update)
    await _reply(update, context, "正在生成盘前摘要 (全市场需要几分钟)…")
    sub = await asyncio.to_thread(service.subs.get, chat_id)
    recipient = service.telegram_recipient(chat_id, sub.pool if sub else None)
    digest = await service.digest_for(service.now().date(), recipient.group)
    outcome = await recipient.channel.send(digest)
    log.info("digest for chat %s on demand: %s", chat_id, outcome)


@authorized_only
async def text_cb(update: Update, context: ScreenerContext) -> None:
    """Plain text in a private chat: point at the commands (groups never get here)."""
    await _reply(update, context, ["发送 /screen 600519.SH 300750, 或直接发送 CSV/XLSX 股票池文件。",
                                   "/help 查看用法。"])


# ----------------------------------------------------------------------------- upload


def _safe_name(name: str | None) -> str:
    base = Path(name or "upload").name.replace("\x00", "")
    return base[:80] or "upload"


@authorized_only
async def document_cb(update: Update, context: ScreenerContext) -> None:
    deps = context.deps
    chat, user, msg = update.effective_chat, update.effective_user, update.effective_message
    assert chat is not None and user is not None and msg is not None and msg.document is not None
    doc = msg.document
    name = _safe_name(doc.file_name)
    suffix = Path(name).suffix.lower()
    if suffix not in UPLOAD_SUFFIXES:
        await _reply(update, context, f"无法识别的文件类型 <code>{render.esc(suffix or name)}</code>: "
                                      "请发送 CSV 或 XLSX 股票池文件。")
        return
    limit_mb = deps.settings.input.max_file_mb
    if doc.file_size is not None and doc.file_size > limit_mb * _MB:
        await _reply(update, context, f"文件 {render.esc(name)} 有 {doc.file_size / _MB:.1f} MB, 超过 "
                                      f"{limit_mb:g} MB 的上限 (input.max_file_mb); 未下载。")
        return
    cloud = deps.settings.telegram.base_url.startswith("https://api.telegram.org")
    if cloud and doc.file_size is not None and doc.file_size > CLOUD_API_DOWNLOAD_MB * _MB:
        await _reply(update, context, f"Telegram 云端 Bot API 只能下载 {CLOUD_API_DOWNLOAD_MB} MB "
                                      "以内的文件; 请压缩或拆分, 或使用自建 telegram-bot-api "
                                      "(telegram.base_url)。")
        return
    universe = await _universe(deps)
    with tempfile.TemporaryDirectory(prefix="screener-upload-") as tmp:
        path = Path(tmp) / f"upload{suffix}"
        tg_file = await jobs.with_retry(deps, lambda: context.bot.get_file(doc.file_id), what="getFile")
        await jobs.with_retry(deps, lambda: tg_file.download_to_drive(path), what="download")
        try:
            pool = await asyncio.to_thread(load_file, path, deps.settings, universe, source_name=name)
        except PoolRejected as exc:
            log.info("upload %r from user %s rejected: %s", name, user.id, exc)
            await _reply(update, context, f"❌ 无法使用这个文件: {render.esc(str(exc), 600)}")
            return
    if not pool.items:
        await _reply(update, context, f"文件 {render.esc(name)} 里没有数据行。")
        return
    await _enqueue(update, context, deps, pool, render.understood_lines)


# ----------------------------------------------------------------------------- buttons


@authorized_only
async def button_cb(update: Update, context: ScreenerContext) -> None:
    deps = context.deps
    query = update.callback_query
    assert query is not None and update.effective_user is not None
    action, _, job_id = (query.data or "").partition(":")
    user_id = update.effective_user.id
    if action not in {"hi", "fail", "ref", "can"} or len(job_id) != 32:
        await query.answer("未知按钮")
        return
    try:
        st = await asyncio.to_thread(deps.queue.status, job_id)
    except KeyError:
        await query.answer("任务已过期", show_alert=True)
        return
    if not _may_see(deps, user_id, st.owner, update):
        await query.answer("这不是你的任务", show_alert=True)
        return
    chat_id = update.effective_chat.id if update.effective_chat else user_id
    if action == "can":
        text = await _cancel(deps, user_id, job_id)
        await query.answer("已取消" if "已取消" in text else "无法取消")
        await jobs.send_lines(context.bot, deps, chat_id, [text])
        return
    if action == "ref":
        await query.answer("已刷新")
        if query.message is not None:
            from .progress import ProgressMessage

            card = ProgressMessage(context.bot, chat_id, query.message.message_id, 0.0)
            await jobs.with_retry(deps, lambda: card.show(render.progress_text(st, st.source),
                                                          keyboard=jobs.keyboard_for(st), force=True))
        return
    await query.answer()
    rows = await asyncio.to_thread(deps.queue.results, job_id)
    if action == "hi":
        lines = render.list_lines(render.high_risk(rows), "高风险列表", "没有高风险股票。")
    else:
        lines = render.list_lines(render.failed_rows(rows), "失败明细", "没有失败的股票。")
    await jobs.send_lines(context.bot, deps, chat_id, lines)
