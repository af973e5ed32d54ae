"""``python -m bot``: run the Telegram bot (long polling by default, webhook by config).

The token comes only from the environment variable SCREENER_TELEGRAM__TOKEN. httpx logs every
request URL at INFO, and Bot API URLs contain the token, so httpx/httpcore are kept at WARNING
and a filter on the root handlers redacts the token from any record that still carries it.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tomllib
from urllib.parse import urlsplit

from pydantic import ValidationError
from telegram import Update

from screening import metrics as _metrics  # ops: /metrics, /healthz and JSON logs (screening/metrics.py)
from screening.config import WEBHOOK_SECRET_ENV, config_problems, load_settings, webhook_problem
from screening.queue.client import LANES, JobQueue

from .app import MissingToken, build_application

TOKEN_ENV = "SCREENER_TELEGRAM__TOKEN"


class RedactFilter(logging.Filter):
    """Replace each secret in a log record's final message (arguments included) with ***."""

    def __init__(self, *secrets: str | None) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        redacted = message
        for secret in self.secrets:
            redacted = redacted.replace(secret, "***")
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


def setup_logging(token: str, verbose: bool = False, *more_secrets: str | None) -> None:
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactFilter(token, *more_secrets))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["digest"]:  # python -m bot digest --now [--chat ID]: one digest by hand
        from .digest_scheduler import add_digest_now_args, cmd_digest_now

        dparser = argparse.ArgumentParser(prog="python -m bot digest", description="send the digest now")
        add_digest_now_args(dparser)
        dargs = dparser.parse_args(argv[1:])
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        return cmd_digest_now(dargs)
    parser = argparse.ArgumentParser(prog="python -m bot", description="the A-share screening Telegram bot")
    parser.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)

    try:
        settings = load_settings(args.config)
    except (ValidationError, tomllib.TOMLDecodeError) as exc:
        for line in config_problems(exc, args.config):
            print(f"error: {line}", file=sys.stderr)
        return 2
    token = settings.telegram.token.get_secret_value().strip() if settings.telegram.token else ""
    if not token:
        print(f"error: no bot token. Set the environment variable {TOKEN_ENV} to the token from "
              "@BotFather (it is never read from config.toml), then run `python -m bot` again.",
              file=sys.stderr)
        return 2
    tg = settings.telegram
    webhook_secret = os.environ.get(WEBHOOK_SECRET_ENV, "").strip()
    if tg.mode == "webhook":  # configuration errors first, before anything connects
        problem = webhook_problem(tg.webhook_url, webhook_secret)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    setup_logging(token, args.verbose, webhook_secret)
    ms = _metrics.metrics_settings(settings)  # ops: JSON log lines keep the token redaction filter
    _metrics.use_json_logs(ms.json_logs)
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
        app = build_application(settings, queue, token=token)
    except MissingToken as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
