"""The worker's vLLM engine: one long-lived ``AsyncLLM`` fed continuously, fast lane first.

The batch-shaped ``LLM.generate`` made the worker hand vLLM one blocking call at a time: a
two-stock /screen waited for the bulk call in flight (p95 21.4 s on the H200) and the engine
drained between calls. Here every prepared stock is submitted as soon as it is ready, with
``scheduling_policy="priority"`` and the lane as priority (0 fast, 1 bulk; lower first), so a
fast request enters the next scheduler step ahead of every waiting bulk request, and the engine
never drains while work is queued. The engine runs in its own event loop thread; ``submit`` returns
a ``concurrent.futures.Future``, so the (synchronous, Redis-side) worker loop needs no asyncio.
Same prompt ids as the sync engine (the pipeline's exact ids), same guided JSON params.

Bulk requests reach the event loop through one feeder coroutine that starts them one at a time
(``_feed``); fast requests are scheduled on the loop directly. Why: each request's first slice on the
loop is vLLM's input processing (~3.6 ms on the H100 host), and a chunk of 512 bulk requests handed over
at once queued 1.9 s of it ahead of a /screen that came a moment later (run 38, 2026-12-05: handed at
1.39 s, run by the loop at 3.24 s; the ``event_loop`` leg's p95 0.4-1.1 s, max 1.8 s). With the feeder a
fast request waits for at most one bulk request's input processing.

Each output carries its request's timing (``EngineOutput.timing``, read by queue/fast_trace.py): when
it was handed over, when the event loop ran it, and, with stat logging on, vLLM's own per-request
stamps (``RequestOutput.metrics``, a ``RequestStateStats`` in vLLM 0.26: queued, first scheduled, first
and last token, engine-core ``time.monotonic()``), converted to wall-clock seconds.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import itertools
import logging
import threading
import time
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from screening.config import EngineSettings
from screening.engines.base import CHAT_TEMPLATE_KWARGS, ChatTokenizerMixin, Engine
from screening.engines.types import EngineDead, EngineOutput, EngineRequest
from screening.engines.vllm_engine import (
    block_size_of,
    engine_model_id,
    llm_kwargs,
    lora_request,
    sampling_params,
    scheduler_of,
    use_moe_configs,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
FAST_PRIORITY = 0  # the fast lane's priority (queue/worker.py's PRIORITY): scheduled on the loop directly


def _settle(future: Future[EngineOutput], task: asyncio.Task[EngineOutput]) -> None:
    """Copy a finished bulk task's outcome to the future the worker holds."""
    if task.cancelled():  # the future is running already: cancel() would do nothing
        future.set_exception(asyncio.CancelledError())
    elif (exc := task.exception()) is not None:
        future.set_exception(exc)
    else:
        future.set_result(task.result())


def async_engine_args(settings: EngineSettings, model_path: str, log_stats: bool = False,
                      extra_args: dict[str, Any] | None = None) -> Any:
    """``AsyncEngineArgs`` from the same settings ``LLM`` gets, plus the priority scheduler.

    ``extra_args`` are engine arguments the settings do not carry (the GPU bench's ``profiler_config``).
    """
    from vllm.config import StructuredOutputsConfig
    from vllm.engine.arg_utils import AsyncEngineArgs

    kwargs = llm_kwargs(settings, model_path)
    kwargs["structured_outputs_config"] = StructuredOutputsConfig(**kwargs["structured_outputs_config"])
    return AsyncEngineArgs(**{**kwargs, **(extra_args or {})}, scheduling_policy="priority",
                           disable_log_stats=not log_stats)


def vllm_stamps(out: Any) -> dict[str, float]:
    """vLLM's per-request stamps as wall-clock seconds; empty without stat logging (metrics is None).

    ``arrival_time`` is already wall-clock; the engine core's stamps are ``time.monotonic()``, which
    on Linux is one clock for every process of the machine, so one offset converts them.
    """
    m = getattr(out, "metrics", None)
    if m is None:
        return {}
    offset = time.time() - time.monotonic()
    stamps = {"arrival": float(getattr(m, "arrival_time", 0.0) or 0.0)}
    for name in ("queued", "scheduled", "first_token", "last_token"):
        value = float(getattr(m, f"{name}_ts", 0.0) or 0.0)
        if value:
            stamps[name] = value + offset
    return {k: v for k, v in stamps.items() if v}


class AsyncVllmEngine(ChatTokenizerMixin, Engine):
    name = "vllm"

    def __init__(self, settings: EngineSettings, model_path: str, log_stats: bool = False,
                 extra_args: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.model_path = model_path
        self.model_id = engine_model_id(settings, model_path)
        self.lora_request = lora_request(settings)  # None without an adapter
        self.params = sampling_params(settings.max_output_tokens, seed=settings.seed)
        self._ids = itertools.count()
        self._live: dict[str, set[str]] = {}  # request key -> vLLM request ids in flight (for abort)
        self._lock = threading.Lock()
        self.loop = asyncio.new_event_loop()
        # bulk requests waiting for the feeder (only the loop thread touches the queue)
        self._bulk: asyncio.Queue[tuple[Coroutine[Any, Any, EngineOutput], Future[EngineOutput], str, str]] = (
            asyncio.Queue())
        self._aborted: set[str] = set()  # request ids aborted while still queued for the feeder
        self._thread = threading.Thread(target=self.loop.run_forever, name="async-llm", daemon=True)
        self._thread.start()
        self._tasks: set[asyncio.Task[Any]] = set()  # requests on the loop, failed on close
        self._closing = False
        self._feeder = asyncio.run_coroutine_threadsafe(self._feed(), self.loop)
        use_moe_configs(settings)  # before the engine core process starts: it inherits the environment
        started = time.perf_counter()
        self.llm = self._call(self._start(settings, model_path, log_stats, extra_args))
        self.load_seconds = time.perf_counter() - started
        log.info("vLLM AsyncLLM loaded %s in %.1f s (priority scheduling)", model_path, self.load_seconds)
        self.tokenizer = self.llm.get_tokenizer()

    async def _start(self, settings: EngineSettings, model_path: str, log_stats: bool,
                     extra_args: dict[str, Any] | None) -> Any:
        from vllm.v1.engine.async_llm import AsyncLLM

        return AsyncLLM.from_engine_args(async_engine_args(settings, model_path, log_stats, extra_args))

    def _call(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def submit(self, request: EngineRequest, priority: int = 1, alone: bool = False,
               params: Any = None) -> Future[EngineOutput]:
        """``alone`` needs nothing special here: AsyncLLM fails requests one by one, never a whole call."""
        rid = f"{request.key}#{next(self._ids)}"
        with self._lock:
            self._live.setdefault(request.key, set()).add(rid)
        coro = self._one(request, rid, priority, params, time.time())
        if priority <= FAST_PRIORITY:
            return asyncio.run_coroutine_threadsafe(coro, self.loop)
        future: Future[EngineOutput] = Future()
        self.loop.call_soon_threadsafe(self._bulk.put_nowait, (coro, future, request.key, rid))
        return future

    async def _feed(self) -> None:
        """Start queued bulk requests one at a time, yielding after each (see the module docstring).

        ``sleep(0)`` puts the feeder behind the new task's first slice (its input processing) and
        behind any fast request scheduled meanwhile from the worker's thread.
        """
        while True:
            coro, future, key, rid = await self._bulk.get()
            with self._lock:
                aborted = rid in self._aborted
            if aborted:  # its job was cancelled while it waited here: vLLM never sees it
                self._forget(key, rid)
                future.cancel()
            if not future.set_running_or_notify_cancel():
                coro.close()  # cancelled before it started
                continue
            task = self.loop.create_task(coro)
            self._tasks.add(task)
            task.add_done_callback(functools.partial(_settle, future))
            await asyncio.sleep(0)

    async def _stop_feeding(self) -> None:
        """Close, first step: bulk requests the feeder never started fail with ``EngineDead``.

        Why: no future may stay unresolved (the worker would wait on it), and a closing engine is not a
        stock's failure (for ``EngineDead`` the worker hands the job back and fails no row).
        """
        self._closing = True
        while not self._bulk.empty():
            coro, future, key, rid = self._bulk.get_nowait()
            self._forget(key, rid)
            coro.close()
            if future.set_running_or_notify_cancel():
                future.set_exception(EngineDead("the engine closed before this request started"))

    async def _fail_running(self) -> None:
        """Close, second step (before vLLM's shutdown): requests on the loop fail with ``EngineDead``, then
        vLLM's output handler stops.

        Why before: ``AsyncLLM.shutdown`` stops the engine core first and cancels its output handler after,
        which meanwhile finds the core gone and logs ``AsyncLLM output_handler failed`` with a traceback at
        every normal worker exit; cut requests would come back as answers with finish reason ``abort``.
        """
        running = [t for t in self._tasks if not t.done() and t is not asyncio.current_task()]
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        handler = getattr(self.llm, "output_handler", None)  # AsyncLLM's task (vLLM 0.26 and 0.32)
        if isinstance(handler, asyncio.Task) and not handler.done():
            handler.cancel()
            await asyncio.gather(handler, return_exceptions=True)

    async def _one(self, req: EngineRequest, rid: str, priority: int, params: Any, handed: float) -> EngineOutput:
        loop_at = time.time()
        me = asyncio.current_task()
        if me is not None:
            self._tasks.add(me)
        prompt: Any = ({"prompt_token_ids": req.prompt_ids.tolist()} if req.prompt_ids is not None
                       else self.tokenizer.apply_chat_template(req.messages, tokenize=False,
                                                               add_generation_prompt=True, **CHAT_TEMPLATE_KWARGS))
        from vllm.v1.engine.exceptions import EngineDeadError

        final = None
        try:
            async for out in self.llm.generate(prompt, params or self.params, request_id=rid, priority=priority,
                                               lora_request=self.lora_request):
                final = out
        except EngineDeadError as exc:
            raise EngineDead(f"vLLM's engine core died ({exc})") from exc
        except (asyncio.CancelledError, Exception) as exc:
            if self._closing:  # vLLM refuses or drops what runs while it shuts down
                raise EngineDead("the engine closed while this request ran") from exc
            raise
        finally:
            if me is not None:
                self._tasks.discard(me)
            self._forget(req.key, rid)
        if final is None:
            raise RuntimeError(f"vLLM returned no output for {req.key}")
        comp = final.outputs[0]
        if self._closing and comp.finish_reason == "abort":  # vLLM's shutdown cut it: not an answer
            raise EngineDead(f"the engine closed while this request ran ({len(comp.token_ids)} tokens in)")
        self.stats.requests += 1
        self.stats.prompt_tokens += len(final.prompt_token_ids or [])
        self.stats.output_tokens += len(comp.token_ids)
        return EngineOutput(req.key, comp.text, comp.finish_reason, prompt_tokens=len(final.prompt_token_ids or []),
                            output_tokens=len(comp.token_ids),
                            timing={"handed": handed, "loop": loop_at, **vllm_stamps(final), "answered": time.time()})

    def generate(self, requests: list[EngineRequest], params: Any = None) -> list[EngineOutput]:
        """All at once, as one would hand ``LLM.generate`` a list: the raw-engine baseline of the bench."""
        futures = [self.submit(r, 1, params=params) for r in requests]
        self.stats.calls += 1
        return [f.result() for f in futures]

    continuous = True

    def admission_limit(self, wanted: int) -> int:
        return wanted  # continuous: every submitted request is really running or waiting in the scheduler

    def _forget(self, key: str, rid: str) -> None:
        """The request is over (answered, failed, or dropped before it started): no longer abortable."""
        with self._lock:
            self._aborted.discard(rid)
            ids = self._live.get(key)
            if ids is not None:
                ids.discard(rid)
                if not ids:
                    del self._live[key]

    def abort(self, keys: set[str]) -> None:
        """Running requests are aborted in vLLM; bulk ones still queued for the feeder are dropped by it."""
        with self._lock:
            rids = [rid for k in keys for rid in self._live.get(k, ())]
            self._aborted.update(rids)
        if rids:
            asyncio.run_coroutine_threadsafe(self.llm.abort(rids), self.loop)

    def cache_block_size(self) -> int | None:
        return block_size_of(self.llm.vllm_config)

    def scheduler(self) -> dict[str, object]:
        return scheduler_of(self.llm.vllm_config)

    def reset_cache(self) -> None:
        self._call(self.llm.reset_prefix_cache())

    def close(self) -> None:
        if "llm" not in self.__dict__:
            return  # closed already
        self._feeder.cancel()
        try:
            self._call(self._stop_feeding(), timeout=30)
            self._call(self._fail_running(), timeout=30)
        except Exception as exc:  # closing goes on; the futures left say why
            log.warning("closing the engine with requests still running: %s", exc)
        try:
            self.llm.shutdown()
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=10)
            super().close()
            # AsyncLLM shuts down again in __del__; left to the interpreter's exit (failed requests keep it
            # alive in reference cycles), that runs after vLLM's module globals are gone and prints a traceback
            del self.llm
            gc.collect()
