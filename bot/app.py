"""All the wiring in one place: ``build_application(settings, queue)`` returns a ready PTB Application.

* HTTP: ``HTTPXRequest`` whose transport retries failed connections (the request never left,
  so a retry cannot duplicate a message); sends also go through ``jobs.with_retry``.
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
from telegram import LinkPreviewOptions, Update
from telegram.constants import ParseMode
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    CommandHandler,
    Defaults,
    MessageHandler,
    filters,
)
from telegram.request import HTTPXRequest

from screening import metrics as _metrics  # ops: Telegram send errors counted (screening/metrics.py)
from screening.config import Settings
from screening.data.load import default_universe
from screening.data.universe import Universe
from screening.queue.client import JobQueue

from . import handlers, jobs
from .deps import CONTEXT_TYPES, DEPS_KEY, BotDeps, ScreenerContext
from .digest_scheduler import SCHEDULER_KEY, setup_digest

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
                      poll_s: float = 1.0, max_retries: int = 5, connect_retries: int = 3) -> Application:
    """The bot: handlers, auth, rate limiter, retries; nothing is started here."""
    tg = settings.telegram
    token = token or (tg.token.get_secret_value() if tg.token else "")
    if not token:
        raise MissingToken("no bot token: set the environment variable SCREENER_TELEGRAM__TOKEN "
                           "(from @BotFather); it is never read from config.toml")
    deps = BotDeps(settings=settings, queue=queue, universe=universe, progress_interval_s=progress_interval_s,
                   poll_s=poll_s)

    async def post_init(app: Application) -> None:
        if deps.universe is None:
            deps.universe = await asyncio.to_thread(default_universe, settings)
        await app.bot.set_my_commands(handlers.COMMANDS)
        await jobs.resume_followers(app.bot, deps)
        scheduler = app.bot_data.get(SCHEDULER_KEY)
        if scheduler is not None:
            scheduler.start()  # on PTB's event loop: the AsyncIOScheduler runs its jobs there
        log.info("bot @%s ready: %d allowed chats, %d admins, universe of %d stocks",
                 app.bot.username, len(tg.allowed_chats), len(tg.admin_users), len(deps.universe))

    async def post_stop(app: Application) -> None:
        await jobs.stop_followers(deps)
        scheduler = app.bot_data.get(SCHEDULER_KEY)
        if scheduler is not None and scheduler.running:
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
    app.bot_data[DEPS_KEY] = deps
    if settings.digest.enabled:
        setup_digest(app, settings, queue)  # the pre-market digest on trading days (bot/digest_scheduler.py)

    private = filters.ChatType.PRIVATE
    commands = {
        "start": handlers.start_cb, "help": handlers.help_cb, "screen": handlers.screen_cb,
        "status": handlers.status_cb, "cancel": handlers.cancel_cb, "subscribe": handlers.subscribe_cb,
        "unsubscribe": handlers.unsubscribe_cb, "digest": handlers.digest_cb, "whoami": handlers.whoami_cb,
        "watch": handlers.watch_cb,
    }
    for name, callback in commands.items():
        app.add_handler(CommandHandler(name, callback))
    # groups: commands only; files and plain text are handled in private chats
    app.add_handler(MessageHandler(filters.Document.ALL & private, handlers.document_cb))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND & private, handlers.text_cb))
    app.add_handler(CallbackQueryHandler(handlers.button_cb))
    app.add_error_handler(error_handler)
    return app


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
