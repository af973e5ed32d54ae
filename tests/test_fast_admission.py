"""A /screen claimed during a market job is handed to the engine before the worker prepares more bulk.

Run 38 (H100, 2026-12-05): a fast job prepared at 0.525 s was handed over at 1.39 s; the worker's round had
prepared the market job's next 256-stock chunk in between (the ``to_engine`` leg, p95 0.6-0.8 s). Real
Redis, the real worker loop and the real rules engine fed one request at a time; what is checked is order.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from typing import TypeVar

import pytest

from screening.config import Settings
from screening.engines.rules_engine import RulesEngine
from screening.engines.types import EngineOutput, EngineRequest
from screening.queue.client import JobQueue
from screening.queue.held import ActiveJob
from screening.queue.pace import PrepareChunks
from screening.queue.worker import Worker, run_in_thread
from tests.fixtures_redis import make_items

W = TypeVar("W", bound=Worker)

class Answering(RulesEngine):
    """The real rules engine, continuous and a little slow (answers come back a few at a time), which queues
    a /screen job once the market job's 40th stock is handed over."""

    continuous = True

    def __init__(self, q: JobQueue, events: list[tuple[str, str]]) -> None:
        super().__init__()
        self.q, self.events, self.fast_job = q, events, ""

    def submit(self, request: EngineRequest, priority: int = 1, alone: bool = False) -> Future[EngineOutput]:
        self.events.append(("submit", "fast" if request.key.startswith(self.fast_job or "-") else "bulk"))
        if not self.fast_job and sum(1 for e in self.events if e[0] == "submit") == 40:
            self.fast_job = self.q.submit(make_items(2, 900), lane="fast", source="fast")
        future: Future[EngineOutput] = Future()
        threading.Timer(0.02, future.set_result, args=(self.generate([request])[0],)).start()
        return future


class Recording(Worker):
    """The real worker, noting each chunk it prepares (claims prepare the first chunk too)."""

    def __init__(self, settings: Settings, engine: Answering, name: str) -> None:
        super().__init__(settings, engine, name, exit_when_idle=True)
        self.events = engine.events

    def _prepare_chunk(self, job: ActiveJob, job_rows):  # type: ignore[no-untyped-def]
        self.events.append(("prepare", job.lane))
        return super()._prepare_chunk(job, job_rows)


def _market_with_a_screen(queue_settings: Settings, worker_type: type[W], stocks: int,
                          **worker: object) -> tuple[JobQueue, str, Answering, W]:
    """A market job of ``stocks`` run to the end by ``worker_type`` with ``worker`` settings, a /screen queued
    once its 40th stock is handed over; both jobs done."""
    settings = queue_settings.model_copy(update={"worker": queue_settings.worker.model_copy(update=worker)})
    q = JobQueue(settings.redis.url, settings.redis)
    market = q.submit(make_items(stocks, 1000), lane="bulk", source="market")
    engine = Answering(q, [])
    runner = worker_type(settings, engine, worker_type.__name__)
    runner.run()
    assert q.status(market).state == "done" and q.status(engine.fast_job).state == "done"
    return q, market, engine, runner


def test_a_claimed_screen_is_handed_over_before_the_next_bulk_chunk_is_prepared(queue_settings: Settings) -> None:
    _, _, _, worker = _market_with_a_screen(queue_settings, Recording, 400, max_in_flight=48, prepare_chunk=16)
    events = worker.events
    claimed = events.index(("prepare", "fast"))
    handed = events.index(("submit", "fast"))
    between = events[claimed:handed]
    assert handed > claimed and ("prepare", "bulk") not in between, between


def test_a_screens_rows_are_written_the_round_they_are_answered_not_at_the_flush_tick(
        queue_settings: Settings) -> None:
    """Runs 40-48: a /screen's store leg (answered -> row in Redis) was p95 0.42-0.60 s, because a row
    collected just after a flush waited for the next round's bulk chunk. With a flush tick of 60 s and a
    market job too small to reach 256 rows, the /screen still finishes at once; the market job, handed back at
    the stop, is finished by the next worker, and every row of both is written once."""
    ws = queue_settings.worker.model_copy(update={"max_in_flight": 48, "prepare_chunk": 16, "flush_s": 60.0})
    settings = queue_settings.model_copy(update={"worker": ws})
    q = JobQueue(settings.redis.url, settings.redis)
    market = q.submit(make_items(200, 3000), lane="bulk", source="market")
    engine = Answering(q, [])
    worker = Worker(settings, engine, "fast-store")
    thread = run_in_thread(worker)
    try:
        deadline = time.monotonic() + 20
        while not (engine.fast_job and q.status(engine.fast_job).state == "done") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert engine.fast_job and q.status(engine.fast_job).state == "done", "the /screen waited for the flush tick"
        # the worker writes the job's last row (the state reads done) and then, in the same round, its trace:
        # the test thread may look between the two
        while not worker.fast_traces and time.monotonic() < deadline + 5:
            time.sleep(0.01)
        assert worker.fast_traces and worker.fast_traces[0]["legs"]["store"] < 5.0
    finally:
        worker.stop.set()
        thread.join(30)
    assert not thread.is_alive()
    Worker(settings.model_copy(update={"worker": queue_settings.worker}), RulesEngine(), "next",
           exit_when_idle=True).run()  # the market job, handed back at the stop, is finished by the next worker
    assert q.status(market).state == "done" and sorted(r.index for r in q.results(market)) == list(range(200))
    assert sorted(r.index for r in q.results(engine.fast_job)) == [0, 1]


class Sizing(Worker):
    """The real worker, noting how many stocks of the market job each prepared chunk took, and when."""

    def __init__(self, settings: Settings, engine: Answering, name: str) -> None:
        super().__init__(settings, engine, name, exit_when_idle=True)
        self.sizes: list[tuple[float, int, bool]] = []  # (time, chunk, a /screen held)

    def _prepare_chunk(self, job: ActiveJob, job_rows):  # type: ignore[no-untyped-def]
        before = len(job.unprepared)
        work = super()._prepare_chunk(job, job_rows)
        if job.lane == "bulk":
            held = any(j.lane == "fast" for j in self.jobs.values())
            self.sizes.append((time.monotonic(), before - len(job.unprepared), held))
        return work


@pytest.mark.slow
def test_the_market_job_is_prepared_in_small_chunks_only_while_screens_come(queue_settings: Settings) -> None:
    """Runs 49-50: 64-stock chunks cut a /screen's claim and collect legs but cost the bulk job alone
    0.72-0.87x. ``prepare_chunk_fast`` narrows the chunk while a /screen is held and ``fast_cool_s`` after,
    then the market job is prepared at full width again; every row of both jobs is written once."""
    q, market, _, worker = _market_with_a_screen(queue_settings, Sizing, 3000, max_in_flight=48, prepare_chunk=32,
                                                 prepare_chunk_fast=4, fast_cool_s=0.2)
    assert sorted(r.index for r in q.results(market)) == list(range(3000))
    sizes = worker.sizes
    first_small = next(i for i, (_, n, _) in enumerate(sizes) if n == 4)
    assert all(n == 32 for _, n, _ in sizes[:first_small]), "full chunks before any /screen"
    assert any(held for _, _, held in sizes[first_small:first_small + 2]), "small chunks begin with a /screen"
    last_small_at = max(t for t, n, _ in sizes if n == 4)
    later = [n for t, n, _ in sizes if t > last_small_at]
    assert all(n == 32 for n in later[:-1]), "full chunks again once the fast lane is quiet"  # the clock: below


def test_the_chunk_follows_the_fast_lane_in_time() -> None:
    """PrepareChunks alone, on a given clock: small from a held /screen until cool_s after the last one."""
    chunks = PrepareChunks(256, 64, 10.0)
    assert chunks.size(False, 0.0) == 256
    assert chunks.size(True, 1.0) == 64 and chunks.size(False, 10.9) == 64
    assert chunks.size(False, 11.0) == 256 and chunks.size(True, 30.0) == 64 and chunks.size(False, 41.0) == 256
    assert PrepareChunks(256).size(True, 1.0) == 256 and PrepareChunks(0, 64, 10.0).size(False, 0.0) == 0
