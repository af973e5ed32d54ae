"""The GPU worker: one process owns the engine and pulls stocks from every queued job.

Why it works the way it does (the Redis side, claims, leases and idempotent rows, is
queue/intake.py; the command line is queue/run.py):

* The engine is loaded once, at start (arq's ``on_startup`` idea): loading vLLM takes tens
  of seconds and most of a GPU, so a worker is long-lived and there is one per GPU.
* Jobs are exploded into per-stock requests and batched ACROSS jobs by the batcher, so a
  thousand 2-stock chat jobs make a few large engine calls instead of a thousand tiny ones.
* Before every engine call the fast lane is looked at first, and a bulk call is bounded by
  ``worker.batch_stocks``: a 3-stock ``/screen`` waits for at most the one bulk call in flight.
* Crash safety: a stock's attempt counter is incremented in Redis BEFORE its generation, so a
  stock that kills the process (SIGKILL, OOM, a segfault in a kernel) is seen as such by the
  next worker; such "crash suspects" are re-run in smaller batches (1/4 per prior crash) and
  after ``max_deliveries`` starts the stock ends as a failed row and a dead letter instead of
  taking the worker down forever. An engine exception on a batch is bisected in-process so
  only the poison stock fails; it is retried alone up to ``max_deliveries`` attempts.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from redis.exceptions import ResponseError

from screening import metrics as _metrics  # ops: Prometheus counters and /healthz (screening/metrics.py)
from screening.engines.base import EngineOutput
from screening.models import FailCode, ResultRow, failed_row
from screening.queue.client import GROUP, TRANSIENT_ERRORS
from screening.queue.intake import ActiveJob, BatchResult, JobIntake
from screening.screen.batcher import plan_batches
from screening.screen.pipeline import Prepared

log = logging.getLogger("screening.worker")


@dataclass
class Work:
    """One stock of one job on its way through the engine."""

    job: ActiveJob
    prep: Prepared

    @property
    def prompt_tokens(self) -> int:
        return self.prep.prompt_tokens

    @property
    def index(self) -> int:
        return self.prep.item.index


class Worker(JobIntake):
    """The loop behind ``python -m screening worker``; see the module docstring for the why."""

    # -- the loop -------------------------------------------------------------------------
    def run(self) -> None:
        log.info("worker %s: engine %s (%s), redis %s prefix %s", self.name, self.engine.name,
                 self.engine.model_id, self.rs.url, self.rs.prefix)
        try:
            self._recover()
            while not self.stop.is_set():
                try:
                    if not self._step():
                        break
                except TRANSIENT_ERRORS as exc:
                    log.warning("redis unavailable (%s); reconnecting", exc)
                    self._recover()
                except ResponseError as exc:
                    if "NOGROUP" not in str(exc):
                        raise
                    log.warning("consumer group vanished (%s); recreating", exc)
                    self._recover()
        except TRANSIENT_ERRORS:
            if not self.stop.is_set():
                raise
        finally:
            self._shutdown()

    def _step(self) -> bool:
        """One round: heartbeat, claim, pick and run one batch. False = exit (idle and asked to)."""
        if time.monotonic() >= self._next_beat:
            self._beat()
        self._refill()
        batch = self._pick()
        if not batch:
            if self.exit_when_idle and self._idle():
                log.info("worker %s: queue drained, exiting", self.name)
                return False
            streams = {self.q.stream("fast"): ">", self.q.stream("bulk"): ">"}
            self._adopt_response(self.r.xreadgroup(GROUP, self.name, streams, count=1,
                                                   block=self.ws.block_ms))
            return True
        self._run(batch)
        return True

    # -- batches ---------------------------------------------------------------------------
    def _pick(self) -> list[Work]:
        """The next engine call: fast lane first, bounded by batch_stocks, crash suspects apart."""
        cap = max(1, self.ws.batch_stocks)
        for lane in ("fast", "bulk"):
            jobs = sorted((j for j in self.jobs.values() if j.lane == lane and j.pending),
                          key=lambda j: j.created_at)
            cands: list[Work] = []
            for job in jobs:
                for prep in job.pending.values():
                    cands.append(Work(job, prep))
                    if len(cands) >= cap:
                        break
                if len(cands) >= cap:
                    break
            if not cands:
                continue
            suspects = [w for w in cands if w.job.attempts.get(w.index, 0) > 0]
            if suspects:
                level = suspects[0].job.attempts.get(suspects[0].index, 0)
                size = max(1, cap // 4 ** level)
                return [w for w in suspects if w.job.attempts.get(w.index, 0) == level][:size]
            return plan_batches(cands, self.screener.plan)[0]
        return []

    def _incr_attempts(self, work: list[Work]) -> None:
        """Count a generation start in Redis before the engine runs: it must survive a crash."""
        pipe = self.r.pipeline(transaction=False)
        for w in work:
            pipe.hincrby(self.q.job_keys(w.job.job_id).attempts, str(w.index), 1)
        for w, n in zip(work, pipe.execute(), strict=True):
            w.job.attempts[w.index] = int(n)

    def _generate(self, work: list[Work], res: BatchResult) -> tuple[list[tuple[Work, EngineOutput]],
                                                                      list[tuple[Work, str]]]:
        """Generate; on an exception bisect so that only the stock that raises is blamed."""
        if not work:
            return [], []
        res.requests += len(work)
        try:
            outs = self.engine.generate([w.prep.request for w in work])
            if len(outs) != len(work):
                raise RuntimeError(f"engine returned {len(outs)} outputs for {len(work)} requests")
        except Exception as exc:  # any engine failure is isolated, never fatal
            if len(work) == 1:
                return [], [(work[0], f"{type(exc).__name__}: {exc}")]
            mid = len(work) // 2
            ok_a, bad_a = self._generate(work[:mid], res)
            ok_b, bad_b = self._generate(work[mid:], res)
            return ok_a + ok_b, bad_a + bad_b
        return list(zip(work, outs, strict=True)), []

    def _run(self, batch: list[Work]) -> None:
        started, st = time.perf_counter(), self.engine.stats  # ops metrics: batch time and tokens
        tokens_before = (st.prompt_tokens, st.output_tokens)
        res = BatchResult()
        limit = self.rs.max_deliveries
        todo: list[Work] = []
        for w in batch:
            n = w.job.attempts.get(w.index, 0)
            if n >= limit:  # started `limit` times and never finished: it takes the worker down
                reason = f"worker died {n} times while generating this stock (max_deliveries={limit})"
                self._give_up(w, reason, FailCode.WORKER_CRASH, n, res)
            else:
                todo.append(w)
        self._incr_attempts(todo)
        outs, errors = self._generate(todo, res)
        retry: list[Work] = []
        for w, out in outs:
            row = self.screener.finish(w.prep, out, final=False)
            if row is None:
                retry.append(w)
            else:
                self._done(w, row, res)
        if retry:  # unparsable answer or a per-request engine error: one more, final try
            self._incr_attempts(retry)
            outs, more = self._generate(retry, res)
            errors += more
            for w, out in outs:
                row = self.screener.finish(w.prep, out, final=True)
                assert row is not None
                self._done(w, row, res)
        for w, err in errors:
            self._isolate(w, err, res)
        self._write(res)
        # ops metrics: counts move once the batch's rows are in Redis
        _metrics.observe_batch([row for _, row in res.rows], time.perf_counter() - started,
                               st.prompt_tokens - tokens_before[0], st.output_tokens - tokens_before[1])
        _metrics.JOBS_IN_FLIGHT.set(len(self.jobs))
        log.info("batch: %d stocks of %d jobs in %.2f s", len(res.rows), len({j.job_id for j, _ in res.rows}),
                 time.perf_counter() - started, extra={"job_ids": sorted({j.job_id for j, _ in res.rows})})

    def _isolate(self, w: Work, err: str, res: BatchResult) -> None:
        """Retry a stock that made the engine raise, alone, until max_deliveries attempts."""
        while w.job.attempts.get(w.index, 0) < self.rs.max_deliveries:
            self._incr_attempts([w])
            outs, errs = self._generate([w], res)
            if outs:
                row = self.screener.finish(w.prep, outs[0][1], final=True)
                assert row is not None
                self._done(w, row, res)
                return
            err = errs[0][1]
        n = w.job.attempts.get(w.index, 0)
        self._give_up(w, f"engine error after {n} attempts: {err}", FailCode.ENGINE_ERROR, n, res)

    def _done(self, w: Work, row: ResultRow, res: BatchResult) -> None:
        res.rows.append((w.job, row))
        if row.status == "ok":
            res.fresh.append((w.job, w.prep.item, row))

    def _give_up(self, w: Work, reason: str, code: FailCode, attempts: int, res: BatchResult) -> None:
        row = failed_row(w.prep.item, reason, code, self.engine.name)
        res.rows.append((w.job, row))
        res.dead.append({"job": w.job.job_id, "index": w.index, "code": row.code, "reason": reason,
                         "attempts": attempts, "lane": w.job.lane, "worker": self.name,
                         "at": repr(time.time())})
        log.warning("worker %s: %s[%d] %s failed for good: %s", self.name, w.job.job_id, w.index,
                    row.code, reason)
