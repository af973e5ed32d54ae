"""The Telegram front's wiring in one place: ``build_application(settings, queue)`` returns a ready PTB Application.

* HTTP: ``HTTPXRequest`` whose transport retries failed connections (the request never left,
  so a retry cannot duplicate a message); sends also go through ``telegram_call``.
* Flood control: ``AIORateLimiter(max_retries=...)`` waits out 429 RetryAfter and retries.
* ``post_init`` loads the universe, registers the commands (setMyCommands) and resumes
  following jobs whose results were not delivered before a restart; ``post_stop`` stops them.
* The error handler logs first, then tells the user something went wrong (never the details).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from telegram import LinkPreviewOptions, Update
from telegram.constants import ParseMode
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    Defaults,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import HTTPXRequest

from bot.core import jobs
from bot.core.guard import ChatGuard
from bot.core.service import ChatCore
from bot.digest_scheduler import SCHEDULER_KEY, setup_digest
from bot.refresh_scheduler import RefreshService
from bot.telegram import handlers
from bot.telegram.front import TelegramFront
from bot.telegram.handlers import CONTEXT_TYPES, DEPS_KEY, FRONT_KEY, ScreenerContext
from screening import metrics as _metrics  # ops: Telegram send errors counted (screening/metrics.py)
from screening.config import Settings
from screening.data.universe import Universe
from screening.queue.client import JobQueue

log = logging.getLogger("bot")


class MissingToken(RuntimeError):
    """No bot token in SCREENER_TELEGRAM__TOKEN."""


class CountingRequest(HTTPXRequest):
    """ops: count every failed Bot API request (network error or HTTP >= 400) by method and code."""

    async def do_request(self, url: str, method: str, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        api_method = url.rsplit("/", 1)[-1]
        try:
            code, payload = await super().do_request(url, method, *args, **kwargs)
        except Exception as exc:
            _metrics.telegram_error(api_method, type(exc).__name__)
            raise
        if code >= 400:
            _metrics.telegram_error(api_method, code)
        return code, payload


def _request(pool_size: int, read_timeout: float, connect_retries: int) -> HTTPXRequest:
    transport = httpx.AsyncHTTPTransport(retries=connect_retries,
                                         limits=httpx.Limits(max_connections=pool_size))
    return CountingRequest(connection_pool_size=pool_size, read_timeout=read_timeout, write_timeout=20.0,
                        connect_timeout=10.0, pool_timeout=5.0, httpx_kwargs={"transport": transport})


def build_application(settings: Settings, queue: JobQueue, *, token: str | None = None,
                      universe: Universe | None = None, progress_interval_s: float = 2.0,
                      poll_s: float = 1.0, max_retries: int = 5, connect_retries: int = 3,
                      core: ChatCore | None = None) -> Application:
    """The Telegram front: handlers, rate limiter, retries; nothing is started here.

    ``core`` is the process's chat core when several fronts run together (python -m bot); without
    one the application makes its own, with the digest and refresh schedules on its event loop.
    """
    tg = settings.telegram
    token = token or (tg.token.get_secret_value() if tg.token else "")
    if not token:
        raise MissingToken("no bot token: set the environment variable SCREENER_TELEGRAM__TOKEN "
                           "(from @BotFather); it is never read from config.toml")
    own = core is None
    deps = core or ChatCore(settings=settings, queue=queue, universe=universe,
                            progress_interval_s=progress_interval_s, poll_s=poll_s)
    front_box: list[TelegramFront] = []

    async def post_init(app: Application) -> None:
        universe = await asyncio.to_thread(deps.current_universe)
        await app.bot.set_my_commands(handlers.COMMANDS)
        await jobs.resume_followers(deps, front_box[0])
        jobs.start_sweeper(deps, front_box[0])
        scheduler = app.bot_data.get(SCHEDULER_KEY)
        if scheduler is not None and own and not scheduler.running:
            scheduler.start()  # on PTB's event loop: the AsyncIOScheduler runs its jobs there
        log.info("bot @%s ready: %d allowed chats, %d admins, universe of %d stocks",
                 app.bot.username, len(tg.allowed_chats), len(tg.admin_users), len(universe))

    async def post_stop(app: Application) -> None:
        await jobs.stop_followers(deps)
        scheduler = app.bot_data.get(SCHEDULER_KEY)
        if scheduler is not None and own and scheduler.running:
            scheduler.shutdown(wait=False)

    app = (
        Application.builder()
        .token(token)
        .base_url(tg.base_url)
        .base_file_url(tg.base_file_url)
        .request(_request(32, 10.0, connect_retries))
        .get_updates_request(_request(2, 30.0, connect_retries))
        .rate_limiter(AIORateLimiter(max_retries=max_retries))
        .defaults(Defaults(parse_mode=ParseMode.HTML,
                           link_preview_options=LinkPreviewOptions(is_disabled=True)))
        .context_types(CONTEXT_TYPES)
        .post_init(post_init)
        .post_stop(post_stop)
        .build()
    )
    front = TelegramFront(app.bot, attempts=deps.send_attempts, edit_interval_s=progress_interval_s)
    front_box.append(front)
    app.bot_data[DEPS_KEY], app.bot_data[FRONT_KEY] = deps, front
    if own:
        schedule(app, settings, deps)
    else:
        deps.services["digest"].register_front(front) if "digest" in deps.services else None

    app.bot_data[handlers.GUARD_KEY] = ChatGuard.connect(settings.redis.url, deps.queue.prefix, "telegram")
    app.add_handler(TypeHandler(Update, handlers.once_cb), group=-1)  # a redelivered update stops here
    private = filters.ChatType.PRIVATE
    for name in handlers.COMMAND_NAMES:
        app.add_handler(CommandHandler(name, handlers.message_cb))
    # groups: commands only; files and plain text are handled in private chats
    # an unknown /command in a private chat gets the core's one line ("未知命令"); it got nothing (in a group it
    # may be another bot's, so it is left alone there)
    app.add_handler(MessageHandler(filters.COMMAND & private, handlers.message_cb))
    app.add_handler(MessageHandler(filters.Document.ALL & private, handlers.message_cb))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND & private, handlers.message_cb))
    app.add_handler(CallbackQueryHandler(handlers.button_cb))
    app.add_error_handler(error_handler)
    return app


def schedule(app: Application, settings: Settings, core: ChatCore) -> None:
    """The digest and the universe refresh on this application's loop (a single-front process)."""
    if settings.digest.enabled:
        setup_digest(app, settings, core.queue)  # the pre-market digest on trading days (bot/digest_scheduler.py)
    if settings.universe.refresh_enabled and not settings.universe.demo:
        # the universe refresh before the digest, on the same scheduler (bot/refresh_scheduler.py)
        scheduler = app.bot_data.get(SCHEDULER_KEY)
        if scheduler is None:
            scheduler = app.bot_data[SCHEDULER_KEY] = AsyncIOScheduler(timezone=settings.digest.tz)
        RefreshService(settings, core.queue.r).add_jobs(scheduler)


async def error_handler(update: object, context: ScreenerContext) -> None:
    """Log first (with the traceback), then tell the user, without details."""
    update_id = update.update_id if isinstance(update, Update) else None
    log.error("update %s raised", update_id, exc_info=context.error)
    if not isinstance(update, Update) or update.effective_chat is None:
        return
    try:
        if update.callback_query is not None:
            await update.callback_query.answer("出错了, 已记录 / internal error, logged")
        else:
            await context.bot.send_message(update.effective_chat.id,
                                           "抱歉, 处理时出错了, 已记录。请稍后再试。")
    except Exception:
        log.warning("could not report the error to chat %s", update.effective_chat.id, exc_info=True)
