"""Start a private redis-server (Debian's binary) for benchmarks and local runs.

Same settings as production (AOF, appendfsync everysec, no RDB snapshots) so what is
measured or demonstrated is what runs under docker compose.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalRedis:
    """``with LocalRedis() as r: r.url`` (or ``start()``/``stop()``); ``aof=False`` for throw-away runs."""

    def __init__(self, binary: str | None = None, directory: Path | None = None, aof: bool = True) -> None:
        exe = binary or shutil.which("redis-server")
        if not exe:
            raise RuntimeError("redis-server not found: apt-get install redis-server (or pass its path)")
        self.exe = exe
        self.dir = directory or Path(tempfile.mkdtemp(prefix="screener-redis-"))
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.aof = aof
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def version(self) -> str:
        try:
            return subprocess.run([self.exe, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"

    def start(self) -> LocalRedis:
        """Start (or restart, on the same port and files: the AOF is reloaded)."""
        return self.__enter__()

    def halt(self, sig: int = signal.SIGKILL) -> None:
        """Stop the server with ``sig`` and keep its files, as a crash or an operator's stop would."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(30)

    def stop(self) -> None:
        self.__exit__()

    def __enter__(self) -> LocalRedis:
        persistence = ["--appendonly", "yes", "--appendfsync", "everysec"] if self.aof else ["--appendonly", "no"]
        args = [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
                *persistence, "--save", "", "--logfile", "redis.log"]
        self.proc = subprocess.Popen(args, cwd=self.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 20
        while True:
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError(f"redis-server did not start (see {self.dir}/redis.log)") from None
                time.sleep(0.05)
        client.close()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
