"""A real redis-server per test session, a key prefix per test, and real worker processes.

Why real: the queue's guarantees (no lost or duplicated rows across kills and restarts) live
in Redis semantics (consumer groups, pending lists, Lua atomicity, AOF), which a fake would
only imitate. The server runs with AOF on (appendfsync everysec) like production, and
without RDB snapshots so a restart replays the AOF.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest
import redis

from screening.config import RedisSettings, Settings, WorkerSettings
from screening.models import PoolItem, StockInput

REPO = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """One redis-server process on a fixed port and dir, restartable with its AOF."""

    def __init__(self, directory: Path) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.fail("redis-server is not installed (apt-get install redis-server; scripts/setup.sh does)")
        self.exe = exe
        self.dir = directory
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        args = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                "--daemonize", "no", "--protected-mode", "no", "--logfile", "redis.log"]
        self.proc = subprocess.Popen(args, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_ready()

    def wait_ready(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        try:
            while True:
                try:
                    if client.ping():
                        return
                except (redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
                    pass
                if self.proc is not None and self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {self.proc.returncode}; see {self.dir}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"redis-server on port {self.port} did not answer PING")
                time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        """Graceful stop (SIGTERM: Redis fsyncs the AOF and exits), SIGKILL if it hangs."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def restart(self, down_s: float = 0.0) -> None:
        self.stop()
        time.sleep(down_s)
        self.start()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def queue_settings(redis_server: RedisServer) -> Settings:
    """Settings on the session's server with a key prefix of its own, so tests never collide."""
    base = Settings()
    rs = RedisSettings(url=redis_server.url, prefix=f"t{uuid.uuid4().hex[:12]}", claim_idle_ms=1500,
                       max_deliveries=3, result_ttl_s=3600, cache_ttl_s=3600)
    ws = WorkerSettings(batch_stocks=64, heartbeat_s=0.5, block_ms=200)
    return base.model_copy(update={"redis": rs, "worker": ws})


def worker_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The worker subprocess's settings, as SCREENER_<SECTION>__<KEY> variables."""
    env = dict(os.environ)
    env["SCREENER_CONFIG"] = str(REPO / ".no-config-in-tests.toml")  # defaults + env only
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    for section in ("redis", "worker"):
        for key, value in getattr(settings, section).model_dump().items():
            # lists as JSON, the way pydantic-settings reads a complex value from the environment
            name = f"SCREENER_{section.upper()}__{key.upper()}"
            env[name] = json.dumps(value) if isinstance(value, list) else str(value)
    env.update(extra)
    return env


def wait_worker_up(settings: Settings, name: str, proc: subprocess.Popen[bytes], log_path: Path,
                   timeout: float = 120.0) -> None:
    """Wait for a worker subprocess's first heartbeat; fail at once, with its log, if it died on the way.

    Why: a worker that cannot start (a setting it cannot read) otherwise shows up as chat tests waiting
    for replies that never come.
    """
    from screening.queue.client import JobQueue

    q = JobQueue(settings.redis.url, settings.redis)
    hb_key = q.worker_keys(name)[0]
    deadline = time.monotonic() + timeout
    try:
        while not q.r.exists(hb_key):
            if proc.poll() is not None:
                log = log_path.read_text(errors="replace")[-3000:] if log_path.exists() else ""
                pytest.fail(f"worker {name} exited with {proc.returncode} before its first heartbeat:\n{log}")
            if time.monotonic() > deadline:
                pytest.fail(f"worker {name} sent no heartbeat in {timeout:.0f} s")
            time.sleep(0.05)
    finally:
        q.close()


@dataclass
class WorkerProc:
    proc: subprocess.Popen[bytes]
    name: str
    log_path: Path

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=30)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


@dataclass
class WorkerSpawner:
    settings: Settings
    tmp: Path
    procs: list[WorkerProc] = field(default_factory=list)

    def __call__(self, factory: str | None = "tests.engine_factories:slow_rules", name: str | None = None,
                 env: dict[str, str] | None = None, args: list[str] | None = None) -> WorkerProc:
        """``factory`` None: the worker builds its configured engine (``args`` may say ``--engine vllm``)."""
        name = name or f"w{len(self.procs)}-{uuid.uuid4().hex[:6]}"
        log_path = self.tmp / f"worker-{name}.log"
        engine = ["--engine-factory", factory] if factory else []
        cmd = [sys.executable, "-m", "screening", "worker", *engine, "--name", name, *(args or [])]
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(cmd, cwd=REPO, env=worker_env(self.settings, **(env or {})),
                                    stdout=log, stderr=subprocess.STDOUT)
        wp = WorkerProc(proc, name, log_path)
        self.procs.append(wp)
        return wp

    def close(self) -> None:
        for wp in self.procs:
            if wp.proc.poll() is None:
                wp.proc.terminate()
        for wp in self.procs:
            try:
                wp.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                wp.proc.kill()
                wp.proc.wait()


@pytest.fixture
def spawn_worker(queue_settings: Settings, tmp_path: Path,
                 request: pytest.FixtureRequest) -> Iterator[Callable[..., WorkerProc]]:
    """Start real worker processes (``python -m screening worker``); all are stopped at teardown."""
    spawner = WorkerSpawner(queue_settings, tmp_path)
    yield spawner
    spawner.close()
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        for wp in spawner.procs:
            print(f"--- worker {wp.name} log ---\n{wp.log()[-4000:]}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    rep = yield
    if rep.when == "call":
        item.rep_call = rep  # type: ignore[attr-defined]
    return rep


@lru_cache(maxsize=1)
def _market() -> tuple[StockInput, ...]:
    from screening.data.synthetic import generate_market

    return tuple(generate_market(5400, seed=7))


def make_items(n: int, start: int = 0) -> list[PoolItem]:
    """``n`` synthetic stocks (distinct codes, from ``start`` in the synthetic market) as items."""
    market = _market()
    if start + n > len(market):
        raise ValueError("the synthetic market has 5,400 stocks")
    return [PoolItem(index=i, raw_code=s.code, stock=StockInput.from_dict(s.to_dict()))
            for i, s in enumerate(market[start:start + n])]
