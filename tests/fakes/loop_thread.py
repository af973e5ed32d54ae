"""A fake server's own asyncio loop in a daemon thread, so a synchronous test can start and stop it.

``start()`` returns once every listener is up (or raises what stopped them), ``stop()`` ends the loop
after the subclass has closed its connections; ``_on_fake`` runs a coroutine on the fake's loop from
the test's.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from types import TracebackType
from typing import Any, Self, TypeVar

T = TypeVar("T")


class LoopThread:
    label = "fake server"  # for the thread name and the start error

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stopped: asyncio.Event | None = None
        self._startup_error: BaseException | None = None

    async def _start_servers(self) -> None:
        """Bind every listener and record its port (on the fake's loop)."""
        raise NotImplementedError

    async def _stop_servers(self) -> None:
        """Close connections and listeners (on the fake's loop)."""

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._run_thread, name=self.label, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError(f"{self.label} did not start")
        if self._startup_error is not None:
            raise RuntimeError(f"{self.label} failed to start") from self._startup_error
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stopped is not None:
            self._loop.call_soon_threadsafe(self._stopped.set)
        if self._thread is not None:
            self._thread.join(10)
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def _run_thread(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        finally:
            loop.close()

    async def _serve(self) -> None:
        self._stopped = asyncio.Event()
        try:
            await self._start_servers()
        except BaseException as exc:
            self._startup_error = exc
            self._ready.set()
            raise
        self._ready.set()
        try:
            await self._stopped.wait()
        finally:
            await self._stop_servers()

    async def _on_fake(self, coro: Coroutine[Any, Any, T]) -> T:
        assert self._loop is not None, "start() first"
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))
