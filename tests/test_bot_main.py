"""``python -m bot``: refuses to start without a token, and the token never reaches the logs."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys

from bot.__main__ import setup_logging
from tests.fake_bot_api import FakeBotAPI
from tests.fixtures_redis import REPO


def test_refuses_to_start_without_token() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_")}
    env["SCREENER_CONFIG"] = str(REPO / ".no-config-in-tests.toml")
    proc = subprocess.run([sys.executable, "-m", "bot"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert "SCREENER_TELEGRAM__TOKEN" in proc.stderr and "Traceback" not in proc.stderr


def test_token_redacted_in_every_formatted_line_and_httpx_silenced() -> None:
    """The formatter redacts the final text: message, arguments and the traceback of an exception whose
    own text carries the token (python-telegram-bot's "The token `...` was rejected")."""
    token = "999:SECRET-token-value"
    root = logging.getLogger()
    before = list(root.handlers)
    old_hook = sys.excepthook
    try:
        setup_logging(token)
        assert logging.getLogger("httpx").getEffectiveLevel() >= logging.WARNING
        record = logging.LogRecord("httpx", logging.WARNING, __file__, 1, "POST %s failed",
                                   (f"https://api.telegram.org/bot{token}/sendMessage",), None)
        try:
            raise RuntimeError(f"The token `{token}` was rejected by the server.")
        except RuntimeError:
            record.exc_info = sys.exc_info()
        for handler in root.handlers:
            text = handler.format(record)
            assert token not in text and "bot***/sendMessage" in text and "The token `***`" in text
    finally:
        sys.excepthook = old_hook
        for h in root.handlers:
            if h not in before:
                root.removeHandler(h)


async def test_a_rejected_token_ends_in_one_line_without_the_token(redis_server) -> None:
    """`python -m bot` with a token Telegram (the fake Bot API) rejects: exit 2, the token nowhere, one last line."""
    fake = await FakeBotAPI().start()
    try:
        bad = "999999:REJECTED-token-value-abcdefghijkl"
        env = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_")}
        env.update({"SCREENER_CONFIG": str(REPO / ".no-config-in-tests.toml"), "SCREENER_TELEGRAM__TOKEN": bad,
                    "SCREENER_TELEGRAM__BASE_URL": fake.base_url, "SCREENER_REDIS__URL": redis_server.url,
                    "SCREENER_DIGEST__ENABLED": "false", "SCREENER_UNIVERSE__REFRESH_ENABLED": "false"})
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=REPO, env=env,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 90)
        text = out.decode() + err.decode()
        assert proc.returncode == 2, text
        assert bad not in text  # redacted in every log record, tracebacks included
        last = err.decode().strip().splitlines()[-1]
        assert last.startswith("error: Telegram rejected the bot token"), text  # it ends in one line
    finally:
        await fake.stop()
