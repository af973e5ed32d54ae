"""doctor tells "no Redis running" apart from "Redis broken" (issue 25.7), with real redis-server processes."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from screening.config import RedisSettings, Settings
from screening.ops.doctor import check_redis
from tests.fixtures_redis import RedisServer


def _settings(url: str) -> Settings:
    return Settings(redis=RedisSettings(url=url))


def test_nothing_listening_is_no_redis_running(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)
    server.stop()
    (finding,) = check_redis(_settings(server.url), timeout=1.0)
    assert finding.level == "fail" and "not reachable" in finding.message
    assert "no Redis running there (connection refused)" in finding.message and "demo" in finding.message


def test_a_server_that_answers_wrongly_is_running_but_broken(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    exe = shutil.which("redis-server")
    assert exe is not None
    # a real Redis whose PING is renamed away: it is there and answers, but not as the program needs
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path), "--rename-command", "PING", ""],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "redis-server did not start"
                time.sleep(0.05)
        (finding,) = check_redis(_settings(f"redis://127.0.0.1:{port}/0"), timeout=2.0)
        assert finding.level == "fail" and "is running but broken" in finding.message
        assert "connection refused" not in finding.message and "redis-server's log" in (finding.fix or "")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
