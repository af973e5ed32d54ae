"""vLLM's engine core dies under a running worker (the real engine on the CPU, killed for real).

On an H100 (2026-12-05, bench/RESULTS.md) one CUDA out-of-memory killed the engine core mid-job and the
old worker retried every remaining stock against the dead engine, three instant attempts each, then wrote
1,785 of 2,400 rows as failed "for good". A dead engine is nobody's stock: the worker must keep the rows
already answered, fail none, hand its job back and exit with code 3, and the next worker finishes the job.
"""

from __future__ import annotations

import signal
import time

import psutil
import pytest

from screening.config import Settings
from screening.queue.client import JobQueue
from screening.queue.run import EXIT_ENGINE_DEAD
from tests.fixtures_redis import make_items
from tests.worker_procs import ENGINE_ENV, engine_processes, wait_log

pytestmark = [pytest.mark.vllm, pytest.mark.slow]


def _engine_core(worker_pid: int) -> psutil.Process:
    """vLLM's engine core: the worker's child titled ``VLLM::EngineCore`` (else the one holding the model)."""
    procs = engine_processes(worker_pid)
    titled = [p for p in procs if "EngineCore" in p.name() or "EngineCore" in " ".join(p.cmdline())]
    return titled[0] if titled else max(procs, key=lambda p: p.memory_info().rss)


def test_a_dead_engine_fails_no_stock_and_the_next_worker_finishes_the_job(queue_settings: Settings,
                                                                          spawn_worker) -> None:
    q = JobQueue(queue_settings.redis.url, queue_settings.redis)
    env = {**ENGINE_ENV, "SCREENER_WORKER__MAX_IN_FLIGHT": "16"}  # 80 stocks: five waves, so it dies mid-job
    worker = spawn_worker(None, name="w-dies", args=["--engine", "vllm"], env=env)
    wait_log(worker, "loaded", 300)
    job = q.submit(make_items(80, start=4000), lane="bulk", source="engine-death")
    wait_log(worker, "rows:", 300)
    core = _engine_core(worker.proc.pid)
    core.send_signal(signal.SIGKILL)
    deadline = time.monotonic() + 60
    while worker.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert worker.proc.returncode == EXIT_ENGINE_DEAD, worker.log()[-3000:]
    log = worker.log()
    assert "the engine died" in log and "failed for good" not in log
    assert "Traceback" not in log.split("the engine died")[1]  # one line from the worker, no traceback of its own
    st = q.status(job)
    assert st.failed == 0 and not st.finished and st.done > 0, st  # answered rows kept, none failed

    spawn_worker(None, name="w-next", args=["--engine", "rules"], env=env)  # any engine: it is the takeover
    st = q.wait(job, timeout=300)
    assert st.state == "done" and st.failed == 0, st
    rows = q.results(job)
    assert [r.index for r in rows] == list(range(80)) and q.r.hlen(q.job_keys(job).rows) == 80
    assert all(r.status == "ok" for r in rows)
    assert {r.engine for r in rows} == {"vllm", "rules"}  # the first worker's rows stayed; the next one did the rest
    q.close()
