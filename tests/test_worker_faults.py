"""Faults against the real worker process and the real Redis server: kills, a Redis restart, poison.

The engine is the rules engine with staged timing/failures (tests/engine_factories.py), so
these prove the queue's bookkeeping, not a model.
"""

from __future__ import annotations

import random
import signal
import time
from collections import Counter

from screening.config import Settings
from screening.queue.client import JobQueue
from tests.fixtures_redis import RedisServer, make_items


def _queue(settings: Settings) -> JobQueue:
    return JobQueue(settings.redis.url, settings.redis)


def _wait_done_moves(q: JobQueue, jid: str, above: int, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = q.status(jid).done
        if done > above:
            return done
        time.sleep(0.05)
    raise AssertionError(f"no progress on {jid} beyond {above} within {timeout} s")


def _assert_complete(q: JobQueue, jid: str, n: int) -> None:
    rows = q.results(jid)
    assert len(rows) == n
    assert [r.index for r in rows] == list(range(n))  # unique, none missing
    assert [r.code for r in rows] == [i.raw_code for i in q.items(jid)]
    failed = [(r.index, r.error) for r in rows if r.status != "ok"]
    assert failed == []
    raw = q.r.hlen(q.job_keys(jid).rows)
    assert raw == n


def test_sigkill_three_times_during_a_300_stock_job(queue_settings: Settings, spawn_worker) -> None:
    """Kills at random moments lose only the batch in flight; the next worker claims the entry.

    max_deliveries is kills + 1 here: an attempt counter that survives crashes cannot tell a
    SIGKILL from a stock that crashes the worker, so three kills could, in theory, land on the
    same stock and legitimately make it a dead letter under the default of 3.
    """
    rng = random.Random()
    kills = 3
    env = {"SCREENER_TEST_SLEEP_S": "0.02", "SCREENER_WORKER__BATCH_STOCKS": "20",
           "SCREENER_REDIS__MAX_DELIVERIES": str(kills + 1)}
    q = _queue(queue_settings)
    jid = q.submit(make_items(300), lane="bulk", source="kill-test")
    worker = spawn_worker(env=env)
    done = 0
    t0 = time.monotonic()
    for k in range(kills):
        done = _wait_done_moves(q, jid, done)
        time.sleep(rng.uniform(0.05, 0.6))  # random moment, mostly inside a 0.4 s batch
        before = q.status(jid).done
        worker.kill(signal.SIGKILL)
        assert worker.proc.returncode == -signal.SIGKILL
        print(f"\nkill {k + 1}: at {before}/300 rows, t={time.monotonic() - t0:.1f}s")
        worker = spawn_worker(env=env)  # a new consumer name: it must XAUTOCLAIM the dead one's entry
        done = before
    st = q.wait(jid, timeout=90)
    print(f"finished in {time.monotonic() - t0:.1f} s")
    assert st.state == "done" and st.done == 300 and st.failed == 0
    _assert_complete(q, jid, 300)
    attempts = Counter(int(v) for v in q.r.hvals(q.job_keys(jid).attempts))
    print(f"attempts per stock: {dict(sorted(attempts.items()))}")
    assert q.dead_letters() == []
    assert q.r.xlen(q.stream("bulk")) == 0  # acked and deleted once complete


def test_redis_restart_in_the_middle_of_a_job(queue_settings: Settings, spawn_worker,
                                               redis_server: RedisServer) -> None:
    """The worker rides out a Redis restart (AOF replayed) and the job completes."""
    q = _queue(queue_settings)
    jid = q.submit(make_items(300, start=300), lane="bulk", source="redis-restart")
    worker = spawn_worker(env={"SCREENER_TEST_SLEEP_S": "0.02", "SCREENER_WORKER__BATCH_STOCKS": "20"})
    _wait_done_moves(q, jid, 40)
    redis_server.restart(down_s=3.0)
    at = q.status(jid).done
    print(f"\nredis restarted at {at}/300 rows")
    st = q.wait(jid, timeout=90)
    assert worker.proc.poll() is None, "the worker must survive the outage"
    assert st.state == "done" and st.failed == 0
    _assert_complete(q, jid, 300)
    log = worker.log()
    assert "redis unavailable" in log or "Retrying" in log, log[-2000:]  # the outage was really felt


def test_poison_stock_fails_after_n_tries_and_is_dead_lettered(queue_settings: Settings,
                                                                spawn_worker) -> None:
    items = make_items(40, start=600)
    poison = items[17].raw_code
    q = _queue(queue_settings)
    jid = q.submit(items, lane="fast", source="poison")
    spawn_worker("tests.engine_factories:poison_rules", env={"SCREENER_TEST_POISON": poison})
    st = q.wait(jid, timeout=60)
    assert st.state == "done" and st.done == 40 and st.failed == 1
    rows = q.results(jid)
    bad = [r for r in rows if r.status != "ok"]
    assert [r.index for r in bad] == [17] and bad[0].code == poison
    assert "engine error after 3 attempts" in (bad[0].error or "")
    assert "poison" in (bad[0].error or "")
    assert len(rows) == 40
    (dead,) = q.dead_letters()
    assert (dead["job"], dead["index"], dead["code"], dead["attempts"]) == (jid, 17, poison, 3)
    assert "RuntimeError" in dead["reason"]
    # the innocent neighbours were tried once, the poison exactly max_deliveries times
    attempts = {int(k): int(v) for k, v in q.r.hgetall(q.job_keys(jid).attempts).items()}
    assert attempts.pop(17) == 3 and set(attempts.values()) == {1}


def test_sigterm_finishes_the_batch_and_hands_the_job_back(queue_settings: Settings, spawn_worker) -> None:
    """SIGTERM: the batch in flight is written, the process exits 0, and the entry is handed back
    (its idle time set past claim_idle_ms), so a second worker takes over at once instead of
    waiting out a long claim_idle_ms."""
    env = {"SCREENER_TEST_SLEEP_S": "0.02", "SCREENER_WORKER__BATCH_STOCKS": "20",
           "SCREENER_REDIS__CLAIM_IDLE_MS": "60000"}
    q = _queue(queue_settings)
    jid = q.submit(make_items(120, start=700), lane="bulk", source="sigterm")
    first = spawn_worker(env=env)
    _wait_done_moves(q, jid, 0)
    time.sleep(0.2)  # mid-batch
    t0 = time.monotonic()
    first.kill(signal.SIGTERM)
    assert first.proc.returncode == 0
    at = q.status(jid).done
    assert at % 20 == 0  # whole batches only: the one in flight was finished and written
    print(f"\nSIGTERM exit took {time.monotonic() - t0:.2f} s at {at}/120 rows")
    spawn_worker(env=env)
    st = q.wait(jid, timeout=30)  # far below claim_idle_ms: the hand-back worked
    assert st.state == "done" and st.failed == 0
    _assert_complete(q, jid, 120)
    assert time.monotonic() - t0 < 30
