"""The GPU worker: one process owns the engine and feeds it continuously from every queued job.

Why it works the way it does (the Redis side, claims, leases and idempotent rows, is
queue/intake.py; the command line is queue/run.py):

* The engine is loaded once, at start (arq's ``on_startup`` idea): loading vLLM takes minutes
  and most of a GPU, so a worker is long-lived and there is one per GPU.
* Every prepared stock is submitted on its own as soon as it is ready (``Engine.submit``), the
  fast lane with priority 0 and without waiting for room, the bulk lane up to
  ``worker.max_in_flight`` at a time; each row is finished as its answer completes and written
  within ``worker.flush_s`` (a /screen's row in the round it is answered). vLLM's priority
  scheduler (engines/async_vllm.py) then lets a /screen of three stocks into the next step of a
  whole-market run, and the engine never drains between calls (the batch-shaped worker made a fast
  job wait for the bulk call in flight).
* The fast-lane hold (``worker.fast_hold_bulk``, off by default): priority only decides who enters
  the next step; a fast request then decodes in steps shared with every running bulk request and
  the prefills of the ones admitted after it. While a fast request is in flight the worker can stop
  handing vLLM new bulk requests (until fewer than ``fast_hold_bulk`` are in flight), for at most
  ``fast_hold_max_s``, then admits bulk freely for ``fast_hold_gap_s``, so the bulk job always
  progresses. With ``max_in_flight`` close to vLLM's ``max_num_seqs`` vLLM's own waiting queue stays
  shallow, so a hold takes effect within a step. vLLM's scheduler is not touched. A cooldown
  (``worker.fast_cool_bulk``, off by default) keeps bulk narrower for seconds after a fast job (pace.py).
* Paced bulk admission (``worker.bulk_admit_per_s``, off by default; queue/pace.py): bulk requests
  handed over together finish together, and the refill is prefilled beside every /screen; a token
  bucket hands them over at a steady rate instead (measured on the H200: worse, so off).
* Refill groups (``worker.bulk_refill_min``, off by default; queue/pace.py): bulk is handed over only
  once that many slots are free, so prefills gather into few engine steps and the rest stay decode-only.
* Each fast job's legs (claimed, prepared, handed, vLLM's queue, prefill, decode, stored, done) are
  kept in ``fast_traces`` and logged (queue/fast_trace.py): the figure to read before choosing a lever.
* Crash safety: a stock's attempt counter is incremented in Redis BEFORE it is submitted, so a
  stock that kills the process (SIGKILL, OOM, a segfault in a kernel) is seen as such by the next
  worker. Such "crash suspects" run apart from everything else, in groups halved per death they
  were in (``batch_stocks`` >> attempts), down to one stock alone. A stock fails for good only
  after it was ALONE in flight ``max_deliveries`` times when the worker died: a kill that lands
  while innocent stocks share the engine with it never fails them. An engine error on one
  request is retried alone up to ``max_deliveries`` attempts, so only the stock that raises fails.
* A dead engine (``EngineDead``, engines/types.py says why) is no stock's error: the answered rows are
  written, the jobs handed back, the process exits 3, and the next worker finishes them.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial

from redis.exceptions import ResponseError

from screening import metrics as _metrics  # ops: Prometheus counters and /healthz (screening/metrics.py)
from screening.config import Settings
from screening.engines.base import Engine
from screening.engines.types import EngineDead, EngineOutput
from screening.models import FailCode, PoolItem, ResultRow, failed_row
from screening.queue.client import GROUP, TRANSIENT_ERRORS
from screening.queue.fast_trace import JobClock
from screening.queue.held import ActiveJob, BatchResult
from screening.queue.intake import JobIntake
from screening.queue.pace import AdmissionPace, FastHold, refill_room
from screening.screen.pipeline import Prepared

log = logging.getLogger("screening.worker")
PRIORITY = {"fast": 0, "bulk": 1}


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

    @property
    def key(self) -> tuple[str, int]:
        return self.job.job_id, self.index


@dataclass
class Flight:
    """A submitted request: what it is for, and how to treat its answer."""

    work: Work
    future: Future[EngineOutput]
    final: bool  # the last try (an unparsable answer is retried once)
    suspect: bool  # part of a crash-suspect group: nothing else may join the engine meanwhile
    alone: bool  # had an engine call of its own


class Worker(JobIntake):
    """The loop behind ``python -m screening worker``; see the module docstring for the why."""

    def __init__(self, settings: Settings, engine: Engine, name: str | None = None,
                 stop: threading.Event | None = None, exit_when_idle: bool = False) -> None:
        super().__init__(settings, engine, name, stop, exit_when_idle)
        # a batch-shaped engine's calls hold at most batch_stocks (the bound on what one death can implicate)
        self.engine.max_batch = max(1, min(self.settings.batcher.max_batch, self.ws.batch_stocks))
        self.max_in_flight = self.engine.admission_limit(self.ws.max_in_flight)
        self.flights: dict[tuple[str, int], Flight] = {}
        self.done_q: queue.Queue[Flight] = queue.Queue()
        self.out = BatchResult()
        self._next_flush = 0.0
        self._started = time.perf_counter()
        self.fast_traces: deque[dict] = deque(maxlen=2000)  # finished fast jobs' legs, oldest first
        self.bulk_groups: deque[int] = deque(maxlen=5000)  # how many bulk requests each admission handed over
        self._clocks: dict[str, JobClock] = {}
        self._prepared_at: dict[str, float] = {}
        self._hold = FastHold(self.ws.fast_hold_bulk, self.ws.fast_hold_max_s, self.ws.fast_hold_gap_s,
                              self.ws.fast_cool_bulk, self.ws.fast_cool_s, self.ws.fast_refill_min)
        self._next_fast_poll = 0.0
        self._pace = AdmissionPace(self.ws.bulk_admit_per_s, self.ws.bulk_admit_burst)

    # -- the loop -------------------------------------------------------------------------
    def run(self) -> None:
        log.info("worker %s: engine %s (%s), redis %s prefix %s, up to %d in flight", self.name, self.engine.name,
                 self.engine.model_id, self.rs.url, self.rs.prefix, self.max_in_flight)
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
            self._drain()
        except EngineDead as exc:
            self._flush()  # the rows answered before the death are good: keep them
            log.error("worker %s: the engine died (%s); %d stock(s) in flight go back to the queue with %d job(s) "
                      "for the next worker; exiting", self.name, exc, len(self.flights), len(self.jobs))
            raise
        except TRANSIENT_ERRORS:
            if not self.stop.is_set():
                raise
        finally:
            self._shutdown()

    def _recover(self) -> None:
        """After an outage the in-memory view is dropped; requests in flight are abandoned, not written."""
        if self.flights:
            self.engine.abort({w.prep.request.key for w in (f.work for f in self.flights.values())})
            self.flights.clear()
        self.out = BatchResult()
        self._clocks.clear()
        super()._recover()

    def _step(self) -> bool:
        """One round: heartbeat, claim, admit, collect answers, write. False = exit (idle and asked to)."""
        if time.monotonic() >= self._next_beat:
            self._beat()
            self._abort_dropped()
        if len(self.flights) < self.max_in_flight:
            self._refill()
        elif "fast" in self.lanes and self.ws.fast_poll_ms > 0 and time.monotonic() >= self._next_fast_poll:
            self._next_fast_poll = time.monotonic() + self.ws.fast_poll_ms / 1000
            self._adopt_response(self.r.xreadgroup(GROUP, self.name, {self.q.stream("fast"): ">"}, count=64))
        # a /screen claimed this round goes to the engine before the next bulk chunk is prepared (run 38: 0.6-0.8 s)
        admitted = self._admit() if any(j.lane == "fast" and j.pending for j in self.jobs.values()) else 0
        self._prepare_ahead()
        admitted += self._admit()
        wait = min(0.05, self.ws.block_ms / 1000, self._pace.wait_s() or 0.05)
        self._collect(timeout=0.0 if admitted else wait)
        if time.monotonic() >= self._next_flush or len(self.out.rows) >= 256 or self._fast_row_waiting():
            self._flush()
        if (not self.flights and not self.out.rows and not self._waiting()
                and not any(j.unprepared for j in self.jobs.values())):
            if self.exit_when_idle and self._idle():
                log.info("worker %s: queue drained, exiting", self.name)
                return False
            if not admitted:
                streams = {self.q.stream(lane): ">" for lane in self.lanes}
                self._adopt_response(self.r.xreadgroup(GROUP, self.name, streams, count=1, block=self.ws.block_ms))
        return True

    def _drain(self, timeout_s: float = 120.0) -> None:
        """On SIGTERM: no new submissions; the answers in flight are collected and written, then hand back."""
        deadline = time.monotonic() + timeout_s
        while self.flights and time.monotonic() < deadline:
            self._collect(timeout=0.2)
            if time.monotonic() >= self._next_beat:
                self._beat()
        self._flush()

    # -- admission ------------------------------------------------------------------------
    def _prepare_ahead(self) -> None:
        """Prepare one more chunk of a held job while fewer than ``max_in_flight`` prepared stocks wait.

        One chunk per round: between chunks the loop polls the fast stream, admits and collects, so a
        /screen claimed during a whole-market job waits for one chunk's preparing, not the market's.
        Oldest job first, so jobs finish in the order they came.
        """
        held = [j for j in self.jobs.values() if j.unprepared]
        if not held:
            return
        waiting = sum(1 for j in self.jobs.values() for i in j.pending if (j.job_id, i) not in self.flights)
        if waiting < self.max_in_flight:
            self._prepare_more(min(held, key=lambda j: (j.lane != "fast", j.created_at)))

    def _waiting(self) -> list[Work]:
        return [Work(j, p) for j in self.jobs.values() for p in j.pending.values()
                if (j.job_id, p.item.index) not in self.flights]

    def _admit(self) -> int:
        """Submit what may run now: crash suspects apart from everything, else fast first, then bulk."""
        waiting = self._waiting()
        if not waiting:
            return 0
        if any(f.suspect for f in self.flights.values()):
            return 0  # a crash-suspect group is in flight: nothing joins it
        suspects = [w for w in waiting if w.job.attempts.get(w.index, 0) > 0]
        if suspects:
            return self._admit_suspects(suspects)
        fast = sorted((w for w in waiting if w.job.lane == "fast"), key=lambda w: (w.job.created_at, w.index))
        in_bulk = sum(1 for f in self.flights.values() if f.work.job.lane == "bulk")
        # a batch-shaped engine gets whole calls: the next bulk call is admitted once the last one is back
        room = 0 if in_bulk and not self.engine.continuous else max(0, self.max_in_flight - in_bulk)
        cap = self._hold.cap(bool(fast) or len(self.flights) > in_bulk, time.monotonic())
        if cap is not None:
            room = min(room, max(0, cap - in_bulk))
        room = self._pace.allowed(room, time.monotonic())
        bulk = sorted((w for w in waiting if w.job.lane == "bulk"), key=lambda w: (w.job.created_at, w.prompt_tokens))
        floor = self._hold.refill_min(self.ws.bulk_refill_min, time.monotonic())
        bulk = bulk[: refill_room(room, in_bulk, len(bulk), floor)]
        self._pace.spend(len(bulk))
        if bulk:
            self.bulk_groups.append(len(bulk))
        work = fast + bulk
        if work:
            self._submit(work)
        return len(work)

    def _admit_suspects(self, suspects: list[Work]) -> int:
        if self.flights:
            return 0  # suspects never share the engine: wait until nothing else is in flight
        limit = self.rs.max_deliveries
        cap = max(1, self.ws.batch_stocks)
        hard = limit + cap.bit_length() + 2  # halving reaches one stock alone within this many deaths
        for w in suspects:
            n, solo = w.job.attempts.get(w.index, 0), w.job.alone.get(w.index, 0)
            if solo >= limit or n >= hard:
                reason = (f"worker died {solo} times while generating this stock alone" if solo >= limit
                          else f"worker died {n} times while generating this stock") + f" (max_deliveries={limit})"
                self._give_up(w, reason, FailCode.WORKER_CRASH, n)
        suspects = [w for w in suspects if (w.job.job_id, w.index) in self._pending_keys()]
        if not suspects:
            return 0
        level = min(w.job.attempts.get(w.index, 0) for w in suspects)
        group = [w for w in suspects if w.job.attempts.get(w.index, 0) == level][: max(1, cap >> level)]
        log.info("worker %s: %d crash suspect(s) at level %d; running %d apart%s", self.name, len(suspects),
                 level, len(group), " (alone)" if len(group) == 1 else "")
        self._submit(group, alone=len(group) == 1, suspect=True)
        return len(group)

    def _pending_keys(self) -> set[tuple[str, int]]:
        return {(j.job_id, i) for j in self.jobs.values() for i in j.pending}

    def _submit(self, work: list[Work], *, final: bool = False, alone: bool = False, suspect: bool = False,
                count: bool = True) -> None:
        """Count the start in Redis first (it must survive a crash), then hand the engine each request.

        ``alone`` asks the engine for a call of its own; the ``:alone`` count (what can fail a stock for
        good, the job's ``alone`` hash) moves only when the stock really is the only one in flight.
        """
        solo = alone and len(work) == 1 and not self.flights
        if count:
            pipe = self.r.pipeline(transaction=False)
            for w in work:
                keys = self.q.job_keys(w.job.job_id)
                pipe.hincrby(keys.attempts, str(w.index), 1)
                if solo:
                    pipe.hincrby(keys.alone, str(w.index), 1)
            counts = pipe.execute()
            for w, n in zip(work, counts, strict=False):
                w.job.attempts[w.index] = int(n)
            if solo:
                work[0].job.alone[work[0].index] = int(counts[1])
        clocks = [self._clocks.get(w.job.job_id) for w in work]
        if any(clocks):
            in_bulk = sum(1 for f in self.flights.values() if f.work.job.lane == "bulk")
            for w, clock in zip(work, clocks, strict=True):
                if clock is not None:
                    clock.stocks[w.index] = {"handed": time.time()}
                    clock.info[w.index] = {"bulk_in_flight": in_bulk, "hold": self._hold.holding}
        for w in work:
            future = self.engine.submit(w.prep.request, PRIORITY.get(w.job.lane, 1), alone)
            flight = Flight(w, future, final, suspect, alone)
            self.flights[w.key] = flight
            future.add_done_callback(partial(self._answered, flight))
        self.out.requests += len(work)

    # -- answers --------------------------------------------------------------------------
    def _answered(self, flight: Flight, _future: Future[EngineOutput]) -> None:
        """Runs in the engine's thread: hand the finished flight to the worker loop."""
        self.done_q.put(flight)

    def _collect(self, timeout: float) -> None:
        """Finish every answer that has come back (waiting up to ``timeout`` for the first)."""
        try:
            flight = self.done_q.get(timeout=timeout) if timeout > 0 else self.done_q.get_nowait()
        except queue.Empty:
            return
        while True:
            self._finish(flight)
            try:
                flight = self.done_q.get_nowait()
            except queue.Empty:
                return

    def _finish(self, flight: Flight) -> None:
        w = flight.work
        if self.flights.get(w.key) is not flight or w.job.job_id not in self.jobs:
            return  # aborted (cancelled job, taken over, or dropped after an outage)
        del self.flights[w.key]
        if flight.future.cancelled():
            return
        exc = flight.future.exception()
        if isinstance(exc, EngineDead):
            raise exc  # no stock's fault: out of the loop (run() hands the jobs back)
        if exc is not None:
            self._engine_error(flight, f"{type(exc).__name__}: {exc}")
            return
        output = flight.future.result()
        clock = self._clocks.get(w.job.job_id)
        if clock is not None and w.index in clock.stocks:
            clock.stocks[w.index].update({**(output.timing or {}), "collected": time.time()})
            clock.info[w.index]["output_tokens"] = output.output_tokens
        row = self.screener.finish(w.prep, output, final=flight.final)
        if row is None:  # unparsable answer or a per-request engine error: one more, final try
            self._submit([w], final=True)
            return
        self._done(w, row)

    def _engine_error(self, flight: Flight, err: str) -> None:
        """Retry a stock whose engine call raised: alone first, uncounted (the call it shared may have
        failed for another stock), then alone and counted until max_deliveries attempts."""
        w = flight.work
        if not flight.alone:
            self._submit([w], final=flight.final, alone=True, count=False)
            return
        n = w.job.attempts.get(w.index, 0)
        if n < self.rs.max_deliveries:
            self._submit([w], final=True, alone=True)
            return
        self._give_up(w, f"engine error after {n} attempts: {err}", FailCode.ENGINE_ERROR, n)

    def _done(self, w: Work, row: ResultRow) -> None:
        w.job.pending.pop(w.index, None)  # the row is on its way to Redis: never submitted again
        self.out.rows.append((w.job, row))
        if row.status == "ok":
            self.out.fresh.append((w.job, w.prep.item, row))

    def _give_up(self, w: Work, reason: str, code: FailCode, attempts: int) -> None:
        row = failed_row(w.prep.item, reason, code, self.engine.name)
        self.out.rows.append((w.job, row))
        self.out.dead.append({"job": w.job.job_id, "index": w.index, "code": row.code, "reason": reason,
                              "attempts": attempts, "lane": w.job.lane, "worker": self.name, "at": repr(time.time())})
        w.job.pending.pop(w.index, None)
        log.warning("worker %s: %s[%d] %s failed for good: %s", self.name, w.job.job_id, w.index, row.code, reason)

    def _fast_row_waiting(self) -> bool:
        """A /screen row is written the round it is answered, not at the next ``flush_s`` tick.

        Why: the next round may prepare a bulk chunk (~0.5 s for 256 stocks on the H100 host), and a row
        collected less than ``flush_s`` after a flush waited for it: the store leg (answered -> in Redis) was
        p95 0.42-0.60 s in every interactive phase of runs 40-48, and median 0.42-0.55 s in three of the five
        3 s-cadence phases at 256 in flight, up to a fifth of the user's wait. Bulk rows keep the tick."""
        return any(job.lane == "fast" for job, _ in self.out.rows)

    def _flush(self) -> None:
        """Write the finished rows (and dead letters, cache entries, stats), then publish progress."""
        self._next_flush = time.monotonic() + self.ws.flush_s
        if not self.out.rows and not self.out.requests:
            return
        res, self.out = self.out, BatchResult()
        st = self.engine.stats
        seconds = time.perf_counter() - self._started
        self._started = time.perf_counter()
        self._write(res)
        self._stamp_stored(res)
        _metrics.observe_batch([row for _, row in res.rows], seconds, 0, 0)
        _metrics.JOBS_IN_FLIGHT.set(len(self.jobs))
        if res.rows:
            log.info("rows: %d of %d jobs written (%d in flight, %d prompt / %d output tokens so far)",
                     len(res.rows), len({j.job_id for j, _ in res.rows}), len(self.flights), st.prompt_tokens,
                     st.output_tokens, extra={"job_ids": sorted({j.job_id for j, _ in res.rows})})

    # -- fast-job traces (queue/fast_trace.py) -------------------------------------------
    def _prepare(self, jid: str, todo: list[tuple[int, PoolItem]]) -> list[Prepared | ResultRow]:
        out = super()._prepare(jid, todo)
        self._prepared_at[jid] = time.time()
        return out

    def _adopt(self, lane: str, entries: list[tuple[str, dict[str, str] | None]]) -> None:
        """Claiming as usual; a fast job that now waits for the engine gets a clock."""
        claimed, held = time.time(), set(self.jobs)
        super()._adopt(lane, entries)
        bulk = [j.created_at for j in self.jobs.values() if j.lane == "bulk"]
        for jid in set(self.jobs) - held:
            job = self.jobs[jid]
            if job.lane == "fast":
                self._clocks[jid] = JobClock(jid, job.created_at or claimed, claimed,
                                             self._prepared_at.get(jid, claimed),
                                             job.created_at - min(bulk) if bulk and job.created_at else None)
        self._prepared_at.clear()

    def _stamp_stored(self, res: BatchResult) -> None:
        """Rows just written: stamp them; a traced job that is now finished gives its record."""
        now = time.time()
        for job, row in res.rows:
            clock = self._clocks.get(job.job_id)
            if clock is not None and row.index in clock.stocks:
                clock.stocks[row.index]["stored"] = now
        for jid in [j for j in self._clocks if j not in self.jobs]:
            rec = self._clocks.pop(jid).record(now)
            self.fast_traces.append(rec)
            log.info("fast job %s: %.2f s, legs %s", jid, rec["total_s"], rec["legs"])

    def _abort_dropped(self) -> None:
        """Requests of jobs no longer held (cancelled, finished or taken over elsewhere) are aborted."""
        gone = [k for k, f in self.flights.items() if f.work.job.job_id not in self.jobs]
        if gone:
            self.engine.abort({self.flights[k].work.prep.request.key for k in gone})
            for k in gone:
                del self.flights[k]
            log.info("worker %s: aborted %d request(s) of dropped jobs", self.name, len(gone))


def run_in_thread(worker: Worker) -> threading.Thread:
    """The worker loop in a daemon thread (benches and tests that drive a worker in process)."""
    t = threading.Thread(target=worker.run, name=f"worker-{worker.name}", daemon=True)
    t.start()
    return t
