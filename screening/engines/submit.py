"""Continuous submission for engines whose native call is a batch: one request in, one future out.

The worker hands every engine single requests as soon as they are prepared (fast lane first) and
finishes each row as its future completes. vLLM's AsyncLLM does that natively; an engine that only
has a batch call (the rules engine, the sync ``LLM``, the test engines that sleep or crash per
call) gets this adapter: a thread that gathers what is queued into calls of up to ``max_batch``
(the lowest priority value first, so a fast-lane stock never waits behind a queued bulk call),
runs them one after another, and completes the futures. A request marked ``alone`` gets a call of
its own: that is how the worker isolates a stock that made a shared call fail or kill the process.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from screening.engines.types import EngineOutput, EngineRequest


@dataclass(order=True)
class Submission:
    priority: int  # lower first: 0 the fast lane, 1 the bulk lane
    seq: int
    request: EngineRequest = field(compare=False)
    alone: bool = field(default=False, compare=False)
    future: Future[EngineOutput] = field(default_factory=Future, compare=False)


class BatchSubmitter:
    """Feeds a batch call (``generate(list) -> list``) from single submissions, in a thread of its own."""

    def __init__(self, generate: Callable[[list[EngineRequest]], list[EngineOutput]], max_batch: int = 512) -> None:
        self.generate = generate
        self.max_batch = max(1, max_batch)
        self._queue: list[Submission] = []
        self._cond = threading.Condition()
        self._seq = itertools.count()
        self._closed = False
        self._thread: threading.Thread | None = None

    def submit(self, request: EngineRequest, priority: int = 1, alone: bool = False) -> Future[EngineOutput]:
        sub = Submission(priority, next(self._seq), request, alone)
        with self._cond:
            if self._closed:
                raise RuntimeError("engine closed")
            self._queue.append(sub)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="engine-batches", daemon=True)
                self._thread.start()
            self._cond.notify()
        return sub.future

    def abort(self, keys: set[str]) -> None:
        """Drop queued requests of these keys (their futures are cancelled); a call in flight finishes."""
        with self._cond:
            keep = []
            for sub in self._queue:
                if sub.request.key in keys:
                    sub.future.cancel()
                else:
                    keep.append(sub)
            self._queue = keep

    def _take(self) -> list[Submission] | None:
        with self._cond:
            while not self._queue and not self._closed:
                self._cond.wait()
            if not self._queue:
                return None
            self._queue.sort()
            first = self._queue[0]
            if first.alone:
                batch = [first]
            else:
                batch = [s for s in self._queue if not s.alone and s.priority == first.priority][: self.max_batch]
            taken = {id(s) for s in batch}
            self._queue = [s for s in self._queue if id(s) not in taken]
            return batch

    def _loop(self) -> None:
        while True:
            batch = self._take()
            if batch is None:
                return
            live = [s for s in batch if s.future.set_running_or_notify_cancel()]
            if not live:
                continue
            try:
                outs = self.generate([s.request for s in live])
                if len(outs) != len(live):
                    raise RuntimeError(f"engine returned {len(outs)} outputs for {len(live)} requests")
            except Exception as exc:  # every request of the call learns it; the worker isolates them
                for s in live:
                    s.future.set_exception(exc)
                continue
            for s, out in zip(live, outs, strict=True):
                s.future.set_result(out)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            for sub in self._queue:
                sub.future.cancel()
            self._queue.clear()
            self._cond.notify_all()
