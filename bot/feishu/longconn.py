"""Feishu's long connection (no public URL needed) through the SDK's own ``lark_oapi.ws.Client``.

How the SDK works (lark-oapi 1.7.5, ws/client.py), and why this module looks the way it does:
* ``start()`` POSTs ``{AppID, AppSecret}`` to ``<domain>/callback/ws/endpoint``, gets a one-off
  ``wss://...?device_id=..&service_id=..`` URL and a ClientConfig (ping interval, reconnect count,
  interval and jitter), opens the websocket and speaks protobuf ``pbbp2.Frame``s: it pings every
  PingInterval seconds, answers each event frame with the same frame carrying ``{"code": 200}``
  (500 if the handler raised), and on a lost connection fetches a new endpoint and reconnects.
* It runs on a module-level event loop (``lark_oapi.ws.client.loop``, taken when the SDK is imported)
  with ``run_until_complete`` and never returns; it has no stop method.
So the SDK gets a thread of its own that runs *its* loop, the bot's loop stays free, and events cross
over through ``FeishuEventRouter`` (``run_coroutine_threadsafe``). Stopping stops the SDK's loop from
outside (repeatedly, since ``start()`` catches the first interruption and tries to reconnect), then
cancels what the SDK left on it and closes its socket. One long connection per process (one SDK loop);
import this module before the bot's event loop starts, or the SDK adopts the running loop and cannot
run in its thread (``run`` says so instead of hanging).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import Any

import lark_oapi as lark
import lark_oapi.ws.client as lark_ws_client

from bot.feishu.client import FEISHU_DOMAIN
from bot.feishu.config import FeishuCredentials
from bot.feishu.errors import FeishuError
from bot.feishu.events import FeishuEventRouter

log = logging.getLogger(__name__)

_IN_USE = threading.Lock()  # the SDK has one loop per process, so one connection at a time
STOP_TIMEOUT_S = 15.0


class FeishuLongConnection:
    """Receive events over the SDK's websocket and hand them to ``router`` until ``stop()``."""

    def __init__(self, credentials: FeishuCredentials, router: FeishuEventRouter, *,
                 domain: str = FEISHU_DOMAIN) -> None:
        self._credentials = credentials
        self._router = router
        self._domain = domain
        self._thread: threading.Thread | None = None
        self._stop_lock = threading.Lock()
        self._sdk_exited = threading.Event()
        self._stopping = False
        self._done: asyncio.Future[None] | None = None

    async def run(self) -> None:
        """Connect and deliver events until ``stop()``; raises why the SDK gave up (bad credentials...)."""
        sdk_loop: asyncio.AbstractEventLoop = lark_ws_client.loop
        if sdk_loop.is_running():
            raise FeishuError("the lark-oapi SDK adopted a running event loop: import bot.feishu before the "
                              "bot's event loop starts, or run the long connection in its own process")
        if sdk_loop.is_closed():
            raise FeishuError("the lark-oapi SDK's event loop was closed; the long connection cannot start")
        if not _IN_USE.acquire(blocking=False):
            raise FeishuError("a Feishu long connection is already running in this process")
        try:
            loop = asyncio.get_running_loop()
            self._router.attach(loop)
            self._done = loop.create_future()
            self._thread = threading.Thread(target=self._thread_main, args=(sdk_loop, loop, self._done),
                                            name="feishu-long-connection", daemon=True)
            self._thread.start()
            try:
                await asyncio.shield(self._done)
            except asyncio.CancelledError:
                await self._shutdown(sdk_loop)
                raise
        finally:
            _IN_USE.release()

    async def stop(self) -> None:
        """Close the connection. Messages it already accepted still run on the bot's loop; a front that
        wants them finished before it exits awaits ``router.drain()``."""
        await self._shutdown(lark_ws_client.loop)
        if self._done is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._done)

    async def _shutdown(self, sdk_loop: asyncio.AbstractEventLoop) -> None:
        self._stopping = True
        thread = self._thread
        if thread is None:
            return
        deadline = asyncio.get_running_loop().time() + STOP_TIMEOUT_S
        while thread.is_alive() and asyncio.get_running_loop().time() < deadline:
            with self._stop_lock:
                if not self._sdk_exited.is_set():
                    sdk_loop.call_soon_threadsafe(sdk_loop.stop)
            await asyncio.sleep(0.05)
        if thread.is_alive():
            log.warning("Feishu long connection thread did not stop within %.0f s", STOP_TIMEOUT_S)

    # -- the SDK's thread -------------------------------------------------------------------------------
    def _thread_main(self, sdk_loop: asyncio.AbstractEventLoop, bot_loop: asyncio.AbstractEventLoop,
                     done: asyncio.Future[None]) -> None:
        asyncio.set_event_loop(sdk_loop)  # the SDK's ExpiringCache schedules its sweeper on the current loop
        error: BaseException | None = None
        ws: Any = None
        try:
            ws = lark.ws.Client(self._credentials.app_id, self._credentials.app_secret,
                                log_level=lark.LogLevel.WARNING,  # INFO logs the endpoint URL with its ticket
                                event_handler=self._router.dispatcher(), domain=self._domain, auto_reconnect=True)
            ws.on_reconnecting = lambda: log.warning("Feishu long connection lost; reconnecting")
            ws.on_reconnected = lambda: log.info("Feishu long connection re-established")
            if not self._stopping:
                ws.start()
        except RuntimeError as e:  # "Event loop stopped before Future completed": our stop
            if not self._stopping:
                error = e
        except BaseException as e:
            error = e
        finally:
            with self._stop_lock:
                self._sdk_exited.set()
            self._cleanup(sdk_loop, ws)
            asyncio.set_event_loop(None)
            bot_loop.call_soon_threadsafe(_settle, done, error)

    @staticmethod
    def _cleanup(sdk_loop: asyncio.AbstractEventLoop, ws: Any) -> None:
        """Cancel what the SDK left on its loop (receive loop, pings, cache sweeper) and close its socket.

        ``ws._conn`` is read, not changed: the SDK has no public close, and cancelling its receive loop
        first keeps its auto-reconnect from opening a new connection."""
        tasks = [t for t in asyncio.all_tasks(sdk_loop) if not t.done()]
        for t in tasks:
            t.cancel()
        conn = getattr(ws, "_conn", None) if ws is not None else None

        async def finish() -> None:
            await asyncio.gather(*tasks, return_exceptions=True)
            if conn is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.close(), 2.0)

        task = sdk_loop.create_task(finish())
        while not task.done():
            with contextlib.suppress(RuntimeError):  # a stop queued before the SDK exited
                sdk_loop.run_until_complete(task)
        while True:  # leave no queued stop behind for the next connection
            try:
                sdk_loop.run_until_complete(asyncio.sleep(0))
                break
            except RuntimeError:
                continue


def _settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    elif isinstance(error, Exception):
        wrapped = FeishuError(f"Feishu long connection stopped: {type(error).__name__}: {error}")
        wrapped.__cause__ = error
        done.set_exception(wrapped)
    else:
        done.set_exception(error)
