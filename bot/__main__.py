"""``python -m bot``: run the Telegram bot (long polling by default, webhook by config).

The token comes only from the environment variable SCREENER_TELEGRAM__TOKEN. httpx logs every
request URL at INFO, and Bot API URLs contain the token, so httpx/httpcore are kept at WARNING
and every handler's formatter redacts the token (message, arguments, tracebacks) from whatever still
carries it (screening/runtime/logsafe.py).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import tomllib
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError
from telegram import Update
from telegram.error import InvalidToken

from bot.fronts import im_fronts_enabled, run_fronts, secrets_of
from bot.telegram.app import MissingToken, build_application
from screening import metrics as _metrics  # ops: /metrics, /healthz and JSON logs (screening/metrics.py)
from screening.config import WEBHOOK_SECRET_ENV, ConfigKeyError, config_problems, load_settings, webhook_problem
from screening.queue.client import LANES, JobQueue
from screening.runtime import logsafe

TOKEN_ENV = "SCREENER_TELEGRAM__TOKEN"


def setup_logging(token: str, verbose: bool = False, *more_secrets: str | None, json_logs: bool = False) -> None:
    """Logging for the bot process: httpx quiet (its URLs carry the token), secrets redacted in every
    handler's formatter (plain or JSON) and in the last-chance exception hook."""
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    _metrics.use_json_logs(json_logs)  # ops: JSON lines; the redaction wraps whichever formatter is set
    logsafe.install([token, *(s for s in more_secrets if s)])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["digest"]:  # python -m bot digest --now [--chat ID]: one digest by hand
        from .digest_scheduler import add_digest_now_args, cmd_digest_now

        dparser = argparse.ArgumentParser(prog="python -m bot digest", description="send the digest now")
        add_digest_now_args(dparser)
        dargs = dparser.parse_args(argv[1:])
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        return cmd_digest_now(dargs)
    parser = argparse.ArgumentParser(prog="python -m bot", description="the A-share screening bot (Telegram, "
                                     "DingTalk, Feishu, WeCom)")
    parser.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)

    try:
        settings = load_settings(args.config)
    except (ValidationError, ConfigKeyError, tomllib.TOMLDecodeError) as exc:
        for line in config_problems(exc, args.config):
            print(f"error: {line}", file=sys.stderr)
        return 2
    token = settings.telegram.token.get_secret_value().strip() if settings.telegram.token else ""
    im = im_fronts_enabled(settings)
    if not token and not im:
        print(f"error: no front configured. Set the environment variable {TOKEN_ENV} to the Telegram token "
              "from @BotFather (it is never read from config.toml), and/or enable [dingtalk], [feishu] or [wecom] "
              "in config.toml with their credentials in the environment (README), then run `python -m bot` again.",
              file=sys.stderr)
        return 2
    tg = settings.telegram
    webhook_secret = os.environ.get(WEBHOOK_SECRET_ENV, "").strip()
    if tg.mode == "webhook":  # configuration errors first, before anything connects
        problem = webhook_problem(tg.webhook_url, webhook_secret)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    ms = _metrics.metrics_settings(settings)
    setup_logging(token, args.verbose, webhook_secret, *secrets_of(settings), json_logs=ms.json_logs)
    log = logging.getLogger("bot")
    queue = JobQueue(settings.redis.url, settings.redis)
    try:
        queue.ping()
    except Exception as exc:
        print(f"error: Redis at {settings.redis.url} is not reachable ({exc}); start redis-server first "
              "(see README)", file=sys.stderr)
        return 2
    if ms.bot_port:  # ops: healthy while Redis answers; queue depth read at scrape time
        health_q = JobQueue(settings.redis.url, settings.redis)

        def health() -> tuple[bool, dict]:
            try:
                return bool(health_q.r.ping()), {"status": "ok", "redis": "up"}
            except Exception as exc:
                return False, {"status": "redis unreachable", "error": type(exc).__name__}

        _metrics.watch_queue(health_q, LANES)
        _metrics.start_metrics_server(ms.bot_port, ms.listen, health)
    try:
        if im:  # several fronts: one loop, one core, each front its own task
            asyncio.run(run_fronts(settings, queue, token, webhook_secret))
            return 0
        app = build_application(settings, queue, token=token)
    except MissingToken as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        _run(app, tg, webhook_secret, log)
    except InvalidToken:
        print(f"error: Telegram rejected the bot token in {TOKEN_ENV}; get a new one from @BotFather",
              file=sys.stderr)
        return 2
    return 0


def _run(app: Any, tg: Any, webhook_secret: str, log: logging.Logger) -> None:
    if tg.mode == "webhook":
        log.info("webhook mode on %s:%d", tg.webhook_listen, tg.webhook_port)
        # Telegram posts to webhook_url; the local server listens on the same path and answers 403
        # to a post without the secret header
        url_path = urlsplit(tg.webhook_url).path.strip("/")
        app.run_webhook(listen=tg.webhook_listen, port=tg.webhook_port, url_path=url_path,
                        webhook_url=tg.webhook_url, secret_token=webhook_secret,
                        allowed_updates=Update.ALL_TYPES)
    else:
        log.info("long polling %s", tg.base_url.split("/bot")[0])
        app.run_polling(allowed_updates=Update.ALL_TYPES)


if __name__ == "__main__":
    sys.exit(main())
