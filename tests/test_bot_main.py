"""``python -m bot``: refuses to start without a token, and the token never reaches the logs."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

from bot.__main__ import RedactFilter, setup_logging
from tests.fixtures_redis import REPO


def test_refuses_to_start_without_token() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_")}
    env["SCREENER_CONFIG"] = str(REPO / ".no-config-in-tests.toml")
    proc = subprocess.run([sys.executable, "-m", "bot"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2
    assert "SCREENER_TELEGRAM__TOKEN" in proc.stderr and "Traceback" not in proc.stderr


def test_token_redacted_and_httpx_silenced(caplog) -> None:
    token = "999:SECRET-token-value"
    root = logging.getLogger()
    before = list(root.handlers)
    try:
        setup_logging(token)
        assert logging.getLogger("httpx").getEffectiveLevel() >= logging.WARNING
        record = logging.LogRecord("httpx", logging.WARNING, __file__, 1, "POST %s failed",
                                   (f"https://api.telegram.org/bot{token}/sendMessage",), None)
        RedactFilter(token).filter(record)
        assert token not in record.getMessage() and "bot***/sendMessage" in record.getMessage()
    finally:
        for h in root.handlers:
            if h not in before:
                root.removeHandler(h)
        for h in before:
            for f in list(h.filters):
                if isinstance(f, RedactFilter):
                    h.removeFilter(f)
