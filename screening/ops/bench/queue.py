"""The queue's own cost: the rules engine direct vs enqueue -> worker process -> stored results.

The rules engine answers in microseconds, so whatever the queue path adds over the direct
path is Redis, serialisation and the worker loop: an upper bound on the overhead that a
GPU-bound job (tens of stocks per second) would see.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

from screening.config import Settings
from screening.engines.rules_engine import RulesEngine
from screening.models import PoolItem
from screening.ops.bench.common import Timing, sample_pool
from screening.queue.client import JobQueue
from screening.runtime.local_redis import LocalRedis
from screening.screen.pipeline import Screener


def bench_queue(settings: Settings, n: int = 4000, small_jobs: int = 400) -> tuple[list[Timing], dict]:
    everything = sample_pool(n + small_jobs * 3)  # distinct stocks: the same-day cache must not answer
    items, others = everything[:n], everything[n:]
    screener = Screener(RulesEngine(), settings.engine, settings.batcher)
    screener.run(items[:50])  # warm-up: imports and first-call costs stay out of the timing
    t = time.perf_counter()
    rows = screener.run(items)
    direct = Timing("direct rules engine (in process)", len(rows), time.perf_counter() - t)

    with LocalRedis() as server:
        prefix = f"bench-{uuid.uuid4().hex[:8]}"
        rs = settings.redis.model_copy(update={"url": server.url, "prefix": prefix})
        env = {**os.environ, "SCREENER_REDIS__URL": server.url, "SCREENER_REDIS__PREFIX": prefix}
        worker = subprocess.Popen([sys.executable, "-m", "screening", "worker", "--engine", "rules"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        q = JobQueue(server.url, rs)
        try:
            q.wait(q.submit(items[:5], source="warm-up"), timeout=120)
            t = time.perf_counter()
            job = q.submit(items, lane="bulk", source="bench")
            st = q.wait(job, timeout=600)
            one_job = Timing(f"queue: one {n}-stock job", st.done, time.perf_counter() - t)

            def small(i: int) -> int:
                chunk = [PoolItem(k, it.raw_code, it.stock) for k, it in enumerate(others[i * 3 : i * 3 + 3])]
                return q.wait(q.submit(chunk, source=f"small-{i}"), timeout=600).done

            t = time.perf_counter()
            with ThreadPoolExecutor(20) as pool:
                stocks = sum(pool.map(small, range(small_jobs)))
            many = Timing(f"queue: {small_jobs} jobs of 3 from 20 clients (stocks)", stocks, time.perf_counter() - t)
            stats = q.worker_stats()
        finally:
            worker.terminate()
            worker.wait(30)
            q.close()
    info = {"jobs_per_s": small_jobs / many.seconds, "worker cache hits": stats.get("cache_hits", 0),
            "redis": "redis-server with AOF everysec, loopback"}
    return [direct, one_job, many], info
