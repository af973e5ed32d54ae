"""Webhook mode end to end, as deployed: ``python -m bot`` in a process of its own with its settings
from the environment, tests/fake_bot_api.py in Telegram's place (it records setWebhook and posts
updates with the secret header), a real Redis server and a real worker (``--engine rules``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from screening.config import WEBHOOK_SECRET_ENV, RedisSettings, Settings, WorkerSettings, webhook_secret_problem
from screening.data.load import EXAMPLES, ensure_demo_universe
from screening.runtime.local_redis import free_port
from tests.fake_bot_api import FakeBotAPI
from tests.fixtures_redis import REPO, worker_env

CHAT = 2001


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def _listening(port: int, proc: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    """Until the bot's webhook server accepts connections (or the bot died: show its log)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if loop.time() > deadline:
                tail = log.read_text(errors="replace")[-3000:]
                raise TimeoutError(f"webhook server not up on {port}: {tail}") from None
            await asyncio.sleep(0.2)


async def test_webhook_mode_screens_and_rejects_forged_posts(redis_server, tmp_path: Path) -> None:
    fake = await FakeBotAPI().start()
    settings = Settings(
        redis=RedisSettings(url=redis_server.url, prefix=f"tw{uuid.uuid4().hex[:10]}", claim_idle_ms=5000),
        worker=WorkerSettings(batch_stocks=16, heartbeat_s=0.5, block_ms=200))
    universe = tmp_path / "universe.sqlite"
    ensure_demo_universe(universe, EXAMPLES)
    port, secret = free_port(), f"wh_{uuid.uuid4().hex}"
    hook = f"http://127.0.0.1:{port}/tg/hook"
    env = worker_env(settings, **{
        "SCREENER_TELEGRAM__TOKEN": fake.token, WEBHOOK_SECRET_ENV: secret,
        "SCREENER_TELEGRAM__MODE": "webhook", "SCREENER_TELEGRAM__WEBHOOK_URL": hook,
        "SCREENER_TELEGRAM__WEBHOOK_LISTEN": "127.0.0.1", "SCREENER_TELEGRAM__WEBHOOK_PORT": str(port),
        "SCREENER_TELEGRAM__BASE_URL": fake.base_url, "SCREENER_TELEGRAM__BASE_FILE_URL": fake.base_file_url,
        "SCREENER_TELEGRAM__ALLOWED_CHATS": f"[{CHAT}]", "SCREENER_UNIVERSE__PATH": str(universe)})
    bot_log, worker_log = tmp_path / "bot.log", tmp_path / "worker.log"
    with open(worker_log, "ab") as wl, open(bot_log, "ab") as bl:
        worker = subprocess.Popen([sys.executable, "-m", "screening", "worker", "--engine", "rules", "--name", "whw"],
                                  cwd=REPO, env=env, stdout=wl, stderr=subprocess.STDOUT)
        bot = subprocess.Popen([sys.executable, "-m", "bot", "-v"], cwd=REPO, env=env, stdout=bl,
                               stderr=subprocess.STDOUT)
    try:
        await fake.wait_for(lambda: fake.webhook, 90, "setWebhook from the bot")
        assert fake.webhook == {"url": hook, "secret_token": secret, "allowed_updates": fake.webhook["allowed_updates"]}
        assert "message" in fake.webhook["allowed_updates"]
        await _listening(port, bot, bot_log)

        update = fake.push_text(CHAT, "/screen 600519.SH")
        # anyone who learns the URL can post: without Telegram's secret header the bot must not act
        assert await fake.deliver(update, secret=None) == 403
        assert await fake.deliver(update, secret="a_guess") == 403
        await asyncio.sleep(1.5)
        assert not fake.ok_calls("sendMessage", CHAT), fake.texts(CHAT)

        assert await fake.deliver(update) == 200
        await fake.wait_for(lambda: fake.ok_calls("sendPhoto", CHAT), 60, "the result chart")
        summary = next(t for t in fake.texts(CHAT) if "600519.SH" in t and "贵州茅台" in t)
        assert "失败 0" in summary and "600519.SH 贵州茅台 · 低" in summary
        assert fake.ok_calls("sendDocument", CHAT)
        assert not [c for c in fake.calls if c.method == "getUpdates"]  # webhook mode never polls
    finally:
        _stop(bot)
        _stop(worker)
        await fake.stop()
    text = bot_log.read_text(errors="replace")
    assert "webhook mode on 127.0.0.1" in text
    assert fake.token not in text and secret not in text  # -v logs at DEBUG: the redaction holds there too


def test_webhook_mode_refuses_to_start_without_a_usable_secret(tmp_path: Path) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_")}
    base.update({"SCREENER_CONFIG": str(REPO / ".no-config-in-tests.toml"),
                 "SCREENER_TELEGRAM__TOKEN": "123456:TEST-token_abcdefghijklmnopqrstuvwxyz",
                 "SCREENER_TELEGRAM__MODE": "webhook",
                 "SCREENER_TELEGRAM__WEBHOOK_URL": "https://bot.example.com/tg/hook",
                 # nothing listens here: a secret problem must be reported before any connection
                 "SCREENER_REDIS__URL": "redis://127.0.0.1:1/0"})
    for secret, expect in (("", WEBHOOK_SECRET_ENV), ("has space", "outside A-Z a-z 0-9 _ -")):
        env = {**base, WEBHOOK_SECRET_ENV: secret}
        proc = subprocess.run([sys.executable, "-m", "bot"], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert expect in proc.stderr and "Traceback" not in proc.stderr and "Redis" not in proc.stderr
        assert not secret or secret not in proc.stderr


@pytest.mark.parametrize(("secret", "ok"), [
    ("abc_DEF-123", True), ("x" * 256, True), ("", False), ("x" * 257, False), ("semi;colon", False),
    ("密钥", False),
])
def test_webhook_secret_rules(secret: str, ok: bool) -> None:
    assert (webhook_secret_problem(secret) is None) is ok


def test_redaction_hides_every_secret() -> None:
    import logging

    from screening.runtime.logsafe import RedactingFormatter

    record = logging.LogRecord("bot", logging.DEBUG, __file__, 1, "token %s secret %s", ("T0KEN", "S3CRET"), None)
    assert RedactingFormatter(logging.Formatter("%(message)s"), ["T0KEN", "S3CRET"]).format(record) == (
        "token *** secret ***")
