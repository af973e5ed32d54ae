"""Running several fronts in one bot process: each front its own task, one failing stops none.

``python -m bot`` builds the fronts that are configured (Telegram when a token is set; DingTalk,
Feishu and WeCom when ``[<front>] enabled = true`` and their credentials are in the environment)
around ONE chat core, digest service and scheduler on one event loop. A front whose task raises is
logged and restarted after a pause; the others keep serving.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from telegram import Update

from bot.core import jobs
from bot.core.front import Front
from bot.core.service import ChatCore
from bot.digest_scheduler import DigestService, build_scheduler
from bot.refresh_scheduler import RefreshService
from screening.config import Settings
from screening.queue.client import JobQueue

log = logging.getLogger("bot")
IM_FRONTS = ("dingtalk", "feishu", "wecom")
RESTART_S = 30.0
# the environment variables each front reads its secrets from (redacted from every log line)
SECRET_ENVS = {
    "dingtalk": ("SCREENER_DINGTALK__CLIENT_SECRET",),
    "feishu": ("SCREENER_FEISHU__APP_SECRET", "SCREENER_FEISHU__ENCRYPT_KEY", "SCREENER_FEISHU__VERIFICATION_TOKEN"),
    "wecom": ("SCREENER_WECOM__SECRET", "SCREENER_WECOM__TOKEN", "SCREENER_WECOM__ENCODING_AES_KEY"),
}


def im_fronts_enabled(settings: Settings) -> list[str]:
    return [name for name in IM_FRONTS if getattr(settings, name).enabled]


def secrets_of(settings: Settings) -> list[str]:
    return [os.environ.get(v, "") for name in im_fronts_enabled(settings) for v in SECRET_ENVS[name]]


def make_im_front(name: str, core: ChatCore, settings: Settings) -> Any:
    """The front object (its vendor SDK imported only when configured)."""
    if name == "dingtalk":
        from bot.dingtalk.front import DingTalkFront

        return DingTalkFront(core, settings.dingtalk)
    if name == "wecom":
        from bot.wecom.front import WeComFront

        return WeComFront(core, settings.wecom)
    from bot.feishu.front import FeishuFront

    return FeishuFront(core, settings.feishu)


async def _keep_running(name: str, run: Callable[[], Awaitable[None]]) -> None:
    while True:
        try:
            await run()
            return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("front %s failed; the other fronts go on; restarting it in %.0f s", name, RESTART_S)
            await asyncio.sleep(RESTART_S)


async def _telegram(app: Any, tg: Any, webhook_secret: str) -> None:
    """PTB's Application inside the shared loop (run_polling would own the loop)."""
    from urllib.parse import urlsplit

    async with app:
        if app.post_init:
            await app.post_init(app)
        if tg.mode == "webhook":
            await app.updater.start_webhook(listen=tg.webhook_listen, port=tg.webhook_port,
                                            url_path=urlsplit(tg.webhook_url).path.strip("/"),
                                            webhook_url=tg.webhook_url, secret_token=webhook_secret,
                                            allowed_updates=Update.ALL_TYPES)
        else:
            await app.updater.start_polling(allowed_updates=Update.ALL_TYPES)
        await app.start()
        try:
            await asyncio.Event().wait()
        finally:
            await app.updater.stop()
            await app.stop()
            if app.post_stop:
                await app.post_stop(app)


async def run_fronts(settings: Settings, queue: JobQueue, token: str, webhook_secret: str) -> None:
    """Every configured front on one loop, around one core, digest service and scheduler."""
    from bot.telegram.app import build_application
    from bot.telegram.handlers import FRONT_KEY

    core = ChatCore(settings=settings, queue=queue)
    scheduler = AsyncIOScheduler(timezone=settings.digest.tz)
    app = build_application(settings, queue, token=token, core=core) if token else None
    service = DigestService(settings, queue, app.bot if app else None, chart_lock=core.chart_lock)
    service.scheduler = scheduler
    core.services["digest"] = service
    if settings.digest.enabled:
        scheduler = build_scheduler(service)
        service.scheduler = scheduler
    if settings.universe.refresh_enabled and not settings.universe.demo:
        RefreshService(settings, queue.r).add_jobs(scheduler)
    tasks: list[asyncio.Task[None]] = []
    if app is not None:
        service.register_front(app.bot_data[FRONT_KEY])
        tasks.append(asyncio.create_task(_keep_running("telegram", lambda: _telegram(app, settings.telegram,
                                                                                      webhook_secret))))
    for name in im_fronts_enabled(settings):
        front: Front = make_im_front(name, core, settings)
        service.register_front(front)
        await jobs.resume_followers(core, front)
        jobs.start_sweeper(core, front)
        tasks.append(asyncio.create_task(_keep_running(name, front.run)))  # type: ignore[attr-defined]
    scheduler.start()
    log.info("bot running %d front(s): %s", len(tasks), ", ".join((["telegram"] if app else [])
                                                                  + im_fronts_enabled(settings)))
    try:
        await asyncio.gather(*tasks)
    finally:
        scheduler.shutdown(wait=False)
        await jobs.stop_followers(core)
