"""``bench --faults``: the reliability claims of the README, measured. Every stock must end with one row.

Real parts only: Debian's redis-server with AOF (everysec), ``python -m screening worker --engine rules``
processes (the rules engine, so the queue and the recovery are what is measured, not a model), and the
product's own client. Scenarios, each on a key prefix of its own:

* load: 20 client threads submit 500 jobs of 20 stocks (10,000 stocks) against one worker, then two;
* worker kills: a 30,000-stock bulk job, the worker SIGKILLed three times 1.5 s apart, a new one started
  each time (claims are taken over after ``claim_idle_ms``, 1.5 s here);
* Redis restarts: the same job size, Redis stopped with SIGTERM and started again, then with SIGKILL;
* Redis outage: Redis SIGKILLed for 30 s in the middle of a job, then started again.

"Once" is checked on the rows themselves: for every job, exactly its indices, none missing, none twice,
none failed. Submissions are given 1.2 s before a Redis kill, because AOF everysec may lose the last
second of writes (README, "Redis and the worker"): what this measures is the recovery, not that second.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from screening.config import Settings
from screening.data.synthetic import generate_market
from screening.models import PoolItem
from screening.ops.bench.common import Timing, sample_pool
from screening.queue.client import JobQueue
from screening.runtime.local_redis import LocalRedis


@dataclass
class Outcome:
    jobs: int = 0
    stocks: int = 0
    rows: int = 0
    missing: int = 0
    failed: int = 0
    notes: list[str] = field(default_factory=list)

    def once(self) -> bool:
        return self.rows == self.stocks and not self.missing and not self.failed


class Rig:
    """A Redis server and rules workers on one key prefix; the test of "once" on the rows."""

    def __init__(self, server: LocalRedis, settings: Settings) -> None:
        self.server = server
        self.prefix = f"faults-{uuid.uuid4().hex[:8]}"
        self.rs = settings.redis.model_copy(update={"url": server.url, "prefix": self.prefix,
                                                    "claim_idle_ms": 1500})
        self.env = {**os.environ, "SCREENER_REDIS__URL": server.url, "SCREENER_REDIS__PREFIX": self.prefix,
                    "SCREENER_REDIS__CLAIM_IDLE_MS": "1500", "SCREENER_WORKER__HEARTBEAT_S": "0.5",
                    "SCREENER_WORKER__BLOCK_MS": "200", "SCREENER_METRICS__WORKER_PORT": "0"}
        self.workers: list[subprocess.Popen[bytes]] = []

    def worker(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, "-m", "screening", "worker", "--engine", "rules"], env=self.env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.workers.append(proc)
        return proc

    def queue(self) -> JobQueue:
        return JobQueue(self.server.url, self.rs)

    def close(self) -> None:
        for proc in self.workers:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.workers:
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()

    def check(self, q: JobQueue, jobs: dict[str, int], timeout: float = 600) -> Outcome:
        out = Outcome(jobs=len(jobs), stocks=sum(jobs.values()))
        deadline = time.monotonic() + timeout
        for job_id, n in jobs.items():
            q.wait(job_id, timeout=max(1.0, deadline - time.monotonic()), poll_s=0.5)
            rows = q.results(job_id)
            seen = [r.index for r in rows]
            out.rows += len(rows)
            out.missing += n - len(set(seen) & set(range(n)))
            out.failed += sum(1 for r in rows if r.status != "ok")
            if len(seen) != len(set(seen)):
                out.notes.append(f"job {job_id}: a stock has two rows")
        return out


def _job_items(pool: list[PoolItem]) -> list[PoolItem]:
    return [PoolItem(i, it.raw_code, it.stock) for i, it in enumerate(pool)]


def scenario_load(server: LocalRedis, settings: Settings, workers: int) -> tuple[Timing, Outcome]:
    rig = Rig(server, settings)
    # 10,800 distinct stocks (two seeds of the synthetic market): the same-day cache answers none of them
    pool = [PoolItem(0, s.code, s) for seed in (10 + workers, 20 + workers) for s in generate_market(5400, seed)]
    try:
        for _ in range(workers):
            rig.worker()
        q = rig.queue()
        q.wait(q.submit(_job_items(pool[:5]), source="warm-up"), timeout=120)

        def client(c: int) -> dict[str, int]:
            mine = rig.queue()
            jobs = {}
            for j in range(25):
                start = (c * 25 + j) * 20 + 5
                jobs[mine.submit(_job_items(pool[start:start + 20]), source=f"client-{c}")] = 20
            mine.close()
            return jobs

        t = time.perf_counter()
        with ThreadPoolExecutor(20) as ex:
            jobs = {k: v for d in ex.map(client, range(20)) for k, v in d.items()}
        out = rig.check(q, jobs)
        secs = time.perf_counter() - t
        q.close()
    finally:
        rig.close()
    return Timing(f"load: 10,000 stocks, 20 clients, {workers} worker(s)", out.rows, secs), out


def _big_job(rig: Rig, n: int = 30000) -> tuple[JobQueue, dict[str, int]]:
    pool = sample_pool(5400)
    items = [PoolItem(i, pool[i % 5400].raw_code, pool[i % 5400].stock) for i in range(n)]
    q = rig.queue()
    return q, {q.submit(items, lane="bulk", source="faults"): n}


def scenario_kills(server: LocalRedis, settings: Settings) -> tuple[Timing, Outcome]:
    rig = Rig(server, settings)
    try:
        rig.worker()
        t = time.perf_counter()
        q, jobs = _big_job(rig)
        for _ in range(3):
            time.sleep(1.5)
            victim = rig.workers[-1]
            victim.send_signal(signal.SIGKILL)
            victim.wait(30)
            rig.worker()
        out = rig.check(q, jobs)
        secs = time.perf_counter() - t
        q.close()
    finally:
        rig.close()
    return Timing("worker SIGKILL x3 during a 30,000-stock job", out.rows, secs), out


def scenario_redis(server: LocalRedis, settings: Settings, sigs: list[int], down_s: float,
                   label: str) -> tuple[Timing, Outcome]:
    rig = Rig(server, settings)
    try:
        rig.worker()
        t = time.perf_counter()
        q, jobs = _big_job(rig)
        for sig in sigs:
            time.sleep(1.2)  # AOF everysec: the submission is on disk before the crash
            server.halt(sig)
            time.sleep(down_s)
            server.start()
        out = rig.check(q, jobs)
        secs = time.perf_counter() - t
        q.close()
    finally:
        rig.close()
    return Timing(label, out.rows, secs), out


def bench_faults(settings: Settings) -> tuple[list[Timing], dict]:
    with LocalRedis() as server:
        runs = [scenario_load(server, settings, 1), scenario_load(server, settings, 2),
                scenario_kills(server, settings),
                scenario_redis(server, settings, [signal.SIGTERM, signal.SIGKILL], 0.5,
                               "Redis SIGTERM, then SIGKILL, restarted, during a 30,000-stock job"),
                scenario_redis(server, settings, [signal.SIGKILL], 30.0,
                               "Redis down 30 s (SIGKILL) during a 30,000-stock job")]
    info: dict = {}
    for timing, _ in runs[2:]:
        info[f"{timing.label}, seconds to the last row"] = round(timing.seconds, 1)
    for timing, out in runs:
        verdict = "every stock once" if out.once() else (f"NOT once: {out.missing} missing, {out.failed} failed, "
                                                          f"{out.rows} rows for {out.stocks} stocks")
        info[timing.label] = f"{out.jobs} job(s), {out.stocks} stocks: {verdict}" + (
            f" ({'; '.join(out.notes[:3])})" if out.notes else "")
    info["engine"] = "rules (python -m screening worker --engine rules); Redis AOF everysec, loopback"
    return [runs[0][0], runs[1][0]], info
