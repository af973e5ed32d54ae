"""`screen --via-queue` with Redis up and no worker running (session 22).

It used to wait in silence for ever (or, with --timeout, end asking "is the worker running?"); now, once
no live worker has been seen for ``redis.no_worker_s``, one stderr line says none is running and what to run,
and the job keeps waiting for a worker still loading its model.
"""

from __future__ import annotations

import subprocess
import sys
import time

from screening.config import Settings
from tests.fixtures_redis import REPO, worker_env


def test_no_live_worker_is_said_within_the_bound(queue_settings: Settings, tmp_path) -> None:  # type: ignore[no-untyped-def]
    env = worker_env(queue_settings, SCREENER_REDIS__NO_WORKER_S="0.3",
                     SCREENER_UNIVERSE__PATH=str(tmp_path / "u.sqlite"))
    started = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "screening", "screen", "600519", "--via-queue", "--demo",
                        "--timeout", "1.5"], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert time.monotonic() - started < 60
    notice = [ln for ln in p.stderr.splitlines() if "没有在运行的 worker" in ln]
    assert len(notice) == 1 and "python -m screening worker" in notice[0], p.stderr[-1500:]
    assert queue_settings.redis.prefix in notice[0]
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
