"""The queue's contract against a real Redis: idempotent rows, counters, cancel, wait, and a burst.

The first tests drive the queue directly (no worker) to pin down what the worker relies on;
the last one runs the real worker process under 1,000 concurrent small jobs.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from screening.config import Settings
from screening.engines.rules_engine import RulesEngine
from screening.models import FailCode, InputProblem, PoolItem, failed_row
from screening.queue.client import JobQueue, submit_and_wait
from screening.queue.run import load_engine_factory, run_worker
from screening.queue.status import JobStatus
from tests.fixtures_redis import make_items


def _queue(settings: Settings) -> JobQueue:
    return JobQueue(settings.redis.url, settings.redis)


def _ok_row(item: PoolItem, reason: str = "x"):
    row = failed_row(item, "", FailCode.INPUT)
    row.status, row.error, row.reason = "ok", None, reason
    return row


def test_writing_a_row_twice_leaves_one_row_and_correct_counts(queue_settings: Settings) -> None:
    q = _queue(queue_settings)
    items = make_items(3)
    jid = q.submit(items, lane="bulk", source="unit")
    first = q.write_rows(jid, [_ok_row(items[0], "first")], owner_key=None, lane="bulk")
    again = q.write_rows(jid, [_ok_row(items[0], "second")], owner_key=None, lane="bulk")
    assert [int(x) for x in first] == [0, 0]  # running, index 0 added
    assert [int(x) for x in again] == [0]  # nothing added the second time
    st = q.status(jid)
    assert (st.done, st.failed, st.state) == (1, 0, "queued")
    rows = q.results(jid)
    assert len(rows) == 1 and rows[0].reason == "first"  # first writer wins
    res = q.write_rows(jid, [_ok_row(items[1]), _ok_row(items[2]), _ok_row(items[1])],
                       owner_key=None, lane="bulk")
    assert int(res[0]) == 1  # this write finished the job
    st = q.status(jid)
    assert (st.state, st.done, st.total, st.eta_s) == ("done", 3, 3, 0.0)
    assert [r.index for r in q.results(jid)] == [0, 1, 2]
    assert q.r.ttl(q.job_keys(jid).rows) > 0  # finished jobs expire
    # a finished job takes no more writes
    assert [int(x) for x in q.write_rows(jid, [_ok_row(items[0])], owner_key=None, lane="bulk")] == [2]


def test_submit_stores_unusable_items_as_failed_rows(queue_settings: Settings) -> None:
    q = _queue(queue_settings)
    good = make_items(2)
    bad = PoolItem(index=2, raw_code="12345X", error=InputProblem("upload.csv", "not an A-share code", row=4))
    jid = q.submit([*good, bad], lane="fast", source="upload.csv", owner={"user": 42, "chat": 7})
    st = q.status(jid)
    assert (st.state, st.total, st.done, st.failed, st.position) == ("queued", 3, 1, 1, 0)
    assert st.owner == {"user": 42, "chat": 7} and st.source == "upload.csv"
    (row,) = q.results(jid)
    assert row.index == 2 and row.status == "failed" and "not an A-share code" in (row.error or "")
    assert [i.index for i in q.items(jid)] == [0, 1, 2]
    assert q.jobs_of("42") == [jid]
    # only unusable items: finished at submit, nothing enqueued
    jid2 = q.submit([bad], owner={"user": 42})
    assert q.status(jid2).state == "done" and q.jobs_of("42") == [jid]
    with pytest.raises(ValueError):
        q.submit(good, lane="urgent")
    with pytest.raises(KeyError):
        q.status("nope")


def test_position_cancel_and_wait_events(queue_settings: Settings) -> None:
    q = _queue(queue_settings)
    a = q.submit(make_items(2), lane="bulk", owner={"user": 1})
    b = q.submit(make_items(2, start=2), lane="bulk", owner={"user": 1})
    assert (q.status(a).position, q.status(b).position) == (0, 1)
    seen: list[JobStatus] = []
    waiter: list[JobStatus] = []
    t = threading.Thread(target=lambda: waiter.append(q.wait(b, timeout=10, on_progress=seen.append)))
    t.start()
    time.sleep(0.3)
    assert q.cancel(a) is True and q.cancel(a) is False
    assert q.status(b).position == 0  # the cancelled job no longer counts ahead
    assert q.cancel(b) is True
    t.join(10)
    assert waiter and waiter[0].state == "cancelled"
    assert seen[0].state == "queued" and seen[-1].state == "cancelled"
    rows = q.results(b)
    assert [(r.status, r.error) for r in rows] == [("failed", "cancelled")] * 2
    assert q.jobs_of("1") == []
    # wait() with a timeout on a job nobody works on returns the unfinished status
    c = q.submit(make_items(1))
    t0 = time.monotonic()
    st = q.wait(c, timeout=0.5)
    assert not st.finished and time.monotonic() - t0 < 3


def test_in_process_worker_and_submit_and_wait(queue_settings: Settings) -> None:
    """run_worker with exit_when_idle drains the queue; submit_and_wait gets rows in order."""
    stop = threading.Event()
    t = threading.Thread(target=run_worker, args=(queue_settings, RulesEngine(), "inproc", stop), daemon=True)
    t.start()
    try:
        items = make_items(10)
        items.append(PoolItem(index=10, raw_code="bad", error=InputProblem("typed", "bad code")))
        progress: list[JobStatus] = []
        rows = submit_and_wait(queue_settings, items, lane="fast", source="cli", progress=progress.append,
                               timeout=30)
        assert [r.index for r in rows] == list(range(11))
        assert [r.code for r in rows[:10]] == [i.stock.code for i in items[:10]]  # type: ignore[union-attr]
        assert all(r.status == "ok" for r in rows[:10]) and rows[10].status == "failed"
        assert progress[-1].state == "done"
    finally:
        stop.set()
        t.join(10)
    assert not t.is_alive()
    # exit_when_idle returns by itself once nothing is left
    q = _queue(queue_settings)
    jid = q.submit(make_items(3), lane="bulk")
    run_worker(queue_settings, RulesEngine(), "drain", exit_when_idle=True)
    assert q.status(jid).state == "done"
    assert load_engine_factory("tests.engine_factories:slow_rules")(queue_settings).name == "rules"
    with pytest.raises(ValueError):
        load_engine_factory("no_colon")


@pytest.mark.slow  # a thousand jobs through a real worker
def test_thousand_small_jobs_from_twenty_clients(queue_settings: Settings, spawn_worker) -> None:
    """1,000 jobs of 1-3 stocks, submitted at once by 20 threads, each gets exactly its own rows."""
    spawn_worker("tests.engine_factories:slow_rules", env={"SCREENER_TEST_SLEEP_S": "0"})
    market = make_items(3000)

    def client(c: int) -> list[tuple[str, list[str]]]:
        q = _queue(queue_settings)
        jobs = []
        for j in range(50):
            n = 1 + (c + j) % 3
            start = (c * 50 + j) * 3
            items = [PoolItem(index=k, raw_code=it.raw_code, stock=it.stock)
                     for k, it in enumerate(market[start:start + n])]
            jobs.append((q.submit(items, lane="fast", source=f"client{c}", owner={"user": c}),
                         [it.raw_code for it in items]))
        out = []
        for jid, codes in jobs:
            st = q.wait(jid, timeout=120)
            assert st.state == "done", st
            rows = q.results(jid)
            out.append((jid, codes))
            assert [r.code for r in rows] == codes
            assert [r.index for r in rows] == list(range(len(codes)))
            assert all(r.status == "ok" for r in rows)
        q.close()
        return out

    t0 = time.monotonic()
    with ThreadPoolExecutor(20) as pool:
        done = [j for part in pool.map(client, range(20)) for j in part]
    elapsed = time.monotonic() - t0
    assert len(done) == 1000 and len({jid for jid, _ in done}) == 1000
    stocks = sum(len(c) for _, c in done)
    print(f"\n1,000 jobs / {stocks} stocks from 20 clients: {elapsed:.1f} s "
          f"({1000 / elapsed:.0f} jobs/s, {stocks / elapsed:.0f} stocks/s)")


def test_the_bench_stops_waiting_once_its_worker_is_gone(queue_settings: Settings) -> None:
    """Run 34: after the engine died, a bench phase would have waited out its GPU budget for rows nobody writes."""
    from screening.ops.bench.interactive import wait_alive

    q = _queue(queue_settings)
    jid = q.submit(make_items(2), lane="bulk", source="no-worker")
    t = time.monotonic()
    st = wait_alive(q, jid, timeout=60.0, alive=lambda: False)
    assert not st.finished and time.monotonic() - t < 10.0
    t = time.monotonic()
    assert not wait_alive(q, jid, timeout=1.0, alive=lambda: True).finished and time.monotonic() - t < 8.0
    q.close()


def test_the_bench_sends_no_fast_job_while_too_many_are_unanswered(queue_settings: Settings) -> None:
    """On a CPU slower than the cadence, followers (one Redis connection each) piled up past redis-py's
    100-connection pool and the phase died with MaxConnectionsError; a cap holds the cadence back instead and
    says how often."""
    from screening.ops.bench.interactive import run_interactive

    q = _queue(queue_settings)
    res = run_interactive(q, make_items(2), every_s=0.05, min_jobs=20, timeout_s=2.0, max_waiting=3)
    summary = res.summary()  # nobody serves: every fast job stays unanswered
    assert summary["fast_jobs"] == 3 and res.unfinished == 3 and summary["fast_held_back"] > 0, summary
    assert not res.bulk_finished
    q.close()
