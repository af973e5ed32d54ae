"""The fast lane overtakes a whole-market run, and a repeated request is served from the cache."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

from screening.config import Settings
from screening.engines.rules_engine import RulesEngine
from screening.models import PoolItem, ResultRow, StockInput
from screening.queue.client import JobQueue
from screening.queue.worker import Worker
from screening.screen.pipeline import Prepared
from tests.fixtures_redis import make_items


def _queue(settings: Settings) -> JobQueue:
    return JobQueue(settings.redis.url, settings.redis)


@pytest.mark.slow  # a 5,000-stock job through a real worker
def test_fast_job_overtakes_a_5000_stock_bulk_job(queue_settings: Settings, spawn_worker) -> None:
    """Three stocks submitted mid-run finish while the 5,000-stock job is far from done.

    The bound is one bulk batch in flight (batch_stocks=512 at 2 ms a stock, about 1 s) plus
    the fast batch itself; the latency is printed, not asserted, since CI machines vary.
    """
    q = _queue(queue_settings)
    big = q.submit(make_items(5000), lane="bulk", source="digest")
    spawn_worker(env={"SCREENER_TEST_SLEEP_S": "0.002", "SCREENER_WORKER__BATCH_STOCKS": "512"})
    deadline = time.monotonic() + 30
    while q.status(big).done == 0:
        assert time.monotonic() < deadline, "the bulk job never started"
        time.sleep(0.05)
    small_items = make_items(3, start=5100)
    t0 = time.monotonic()
    small = q.submit(small_items, lane="fast", source="/screen", owner={"user": 9})
    st = q.wait(small, timeout=60)
    latency = time.monotonic() - t0
    big_st = q.status(big)
    print(f"\nfast 3-stock job: {latency:.2f} s while the bulk job was at {big_st.done}/5000 "
          f"(eta {big_st.eta_s or 0:.1f} s)")
    assert st.state == "done" and st.failed == 0
    assert [r.code for r in q.results(small)] == [i.raw_code for i in small_items]
    assert big_st.state == "running" and big_st.done < 5000  # it finished ahead of the big job
    # cancel the rest of the big job while the worker is on it: every stock still ends as one row
    assert q.cancel(big)
    rows = q.results(big)
    assert [r.index for r in rows] == list(range(5000))
    cancelled = sum(r.error == "cancelled" for r in rows)
    assert 0 < cancelled < 5000 and q.status(big).state == "cancelled"
    deadline = time.monotonic() + 15
    while q.r.xlen(q.stream("bulk")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert q.r.xlen(q.stream("bulk")) == 0  # the worker noticed the cancel and acked the entry


def test_repeated_request_is_answered_from_the_cache(queue_settings: Settings, spawn_worker) -> None:
    """Same stocks, same day: rows come back with no engine call (counted in the worker stats)."""
    q = _queue(queue_settings)
    items = make_items(20, start=5200)
    spawn_worker("tests.engine_factories:slow_rules", name="cachew", env={"SCREENER_TEST_SLEEP_S": "0"})
    first = q.submit(items, lane="fast")
    assert q.wait(first, timeout=30).state == "done"
    s1 = q.worker_stats()
    assert s1["engine_requests"] == 20 and s1["cache_hits"] == 0

    again = q.submit(items, lane="fast")
    assert q.wait(again, timeout=30).state == "done"
    s2 = q.worker_stats()
    assert s2["engine_requests"] == s1["engine_requests"]  # no engine call at all
    assert s2["cache_hits"] == s1["cache_hits"] + 20
    cached = q.results(again)  # the same rows, each saying it is a cached answer and from when
    assert all(re.fullmatch(r"缓存结果 \(\d{4}-\d\d-\d\d \d\d:\d\d, 同日同输入\)", r.flags[-1]) for r in cached)
    assert [{**r.to_dict(), "flags": r.flags[:-1]} for r in cached] == [r.to_dict() for r in q.results(first)]

    # one stock's report text changed: that one misses, the other 19 hit
    changed = [PoolItem(index=i.index, raw_code=i.raw_code, stock=StockInput.from_dict(i.stock.to_dict()))
               for i in items]  # type: ignore[union-attr]
    assert changed[5].stock is not None
    changed[5].stock.report_text = (changed[5].stock.report_text or "") + " 补充: 新增诉讼一起。"
    third = q.submit(changed, lane="fast")
    assert q.wait(third, timeout=30).state == "done"
    s3 = q.worker_stats()
    assert (s3["engine_requests"], s3["cache_hits"]) == (s2["engine_requests"] + 1, s2["cache_hits"] + 19)
    (w,) = q.workers()
    assert w["name"] == "cachew" and w["alive"] is True and w["stocks_done"] == 60


class _RecordingWorker(Worker):
    """The real worker loop, recording each prepare call (job, stocks) in the order it happened."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, RulesEngine(), "chunks")
        self.prepared: list[tuple[str, int]] = []

    def _prepare(self, jid: str, todo: list[tuple[int, PoolItem]]) -> list[Prepared | ResultRow]:
        self.prepared.append((jid, len(todo)))
        return super()._prepare(jid, todo)


def _step_until(w: Worker, done: Callable[[], bool], max_steps: int = 500) -> int:
    """Drive the worker loop one step at a time until ``done()``; the bound is a count of steps, not a
    wall-clock deadline, so a slow or loaded machine cannot fail it (a hang still fails: every step claims,
    prepares or answers something, and these jobs need a few dozen). Returns the steps taken."""
    for n in range(max_steps):
        if done():
            return n
        w._step()
    raise AssertionError(f"not done after {max_steps} worker steps")


def test_a_big_job_is_prepared_in_chunks_and_a_fast_job_is_claimed_between_them(queue_settings: Settings) -> None:
    """A 1,000-stock job is prepared 100 at a time, no more than the engine can take ahead; a /screen
    submitted after its first chunk is claimed and answered before the rest is prepared, and every stock
    of both ends as exactly one row."""
    ws = queue_settings.worker.model_copy(update={"prepare_chunk": 100, "max_in_flight": 200})
    settings = queue_settings.model_copy(update={"worker": ws})
    q = _queue(settings)
    w = _RecordingWorker(settings)
    w._recover()
    big = q.submit(make_items(1000), lane="bulk", source="digest")
    w._step()
    assert w.prepared[0] == (big, 100)
    assert len(w.jobs[big].unprepared) >= 800  # claimed, mostly not yet prepared
    small = q.submit(make_items(2, start=2000), lane="fast", source="/screen")
    _step_until(w, lambda: q.status(small).state == "done")
    assert big in w.jobs and w.jobs[big].unprepared, "the fast job waited for the whole bulk job's preparing"
    assert (small, 2) in w.prepared
    _step_until(w, lambda: q.status(big).state == "done")
    w._shutdown()
    sizes = [n for jid, n in w.prepared if jid == big]
    assert sum(sizes) == 1000 and max(sizes) == 100
    assert [r.index for r in q.results(big)] == list(range(1000))
    assert [r.code for r in q.results(small)] == [i.raw_code for i in make_items(2, start=2000)]
    assert q.r.xlen(q.stream("bulk")) == 0 and q.r.xlen(q.stream("fast")) == 0  # both entries acked


def test_chunk_zero_prepares_a_job_at_once(queue_settings: Settings) -> None:
    ws = queue_settings.worker.model_copy(update={"prepare_chunk": 0})
    settings = queue_settings.model_copy(update={"worker": ws})
    q = _queue(settings)
    w = _RecordingWorker(settings)
    w._recover()
    jid = q.submit(make_items(300), lane="bulk")
    _step_until(w, lambda: q.status(jid).state == "done")
    w._shutdown()
    assert w.prepared == [(jid, 300)]
