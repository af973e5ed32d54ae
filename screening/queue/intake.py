"""The worker's Redis side: claiming jobs, turning them into per-stock work, leases, rows, acks.

Kept apart from the engine side (queue/worker.py) so that how stocks reach the engine can change
without touching how jobs are claimed and finished. The guarantees live here:

* Claim order: this consumer's own pending entries (after a restart under the same name),
  then XAUTOCLAIM of entries idle longer than ``claim_idle_ms`` (a dead worker's), then new
  entries. Live workers renew their entries' idle time (``_beat``), so only a dead or hung
  worker's entries become claimable: ``claim_idle_ms`` must exceed the slowest engine call.
* Rows are written idempotently by index (queue/scripts.py ``WRITE_ROWS``) and the job's stream
  entry is acknowledged only once the job has all its rows: a kill anywhere loses at most the
  stocks in flight and never duplicates a row.
* Redis going away (restart, failover) is not fatal: writes are retried with backoff through
  tenacity, and after an outage the worker drops its in-memory view and re-reads its pending
  entries from Redis, since with ``appendfsync everysec`` the last second may be gone.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from typing import Any

from tenacity import (
    Retrying,
    before_sleep_log,
    retry_if_exception_type,
    stop_after_delay,
    stop_when_event_set,
    wait_exponential,
    wait_random,
)

from screening import metrics as _metrics  # ops: Prometheus counters and /healthz (screening/metrics.py)
from screening.config import Settings
from screening.engines.base import Engine
from screening.models import FailCode, PoolItem, ResultRow, failed_row
from screening.queue.cache import cache_key, decode_for, encode_row
from screening.queue.client import GROUP, LANES, TRANSIENT_ERRORS, JobQueue
from screening.queue.held import ActiveJob, BatchResult
from screening.queue.pace import PrepareChunks
from screening.queue.status import ACTIVE_STATES, JobStatus
from screening.screen.pipeline import Prepared, Screener

log = logging.getLogger("screening.worker")


class JobIntake:
    """Jobs held by one worker and everything Redis-side about them; the engine side subclasses it."""

    def __init__(self, settings: Settings, engine: Engine, name: str | None = None,
                 stop: threading.Event | None = None, exit_when_idle: bool = False) -> None:
        self.settings = settings
        self.rs = settings.redis
        self.ws = settings.worker
        self.engine = engine
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self.stop = stop or threading.Event()
        self.exit_when_idle = exit_when_idle
        self.q = JobQueue(self.rs.url, self.rs)
        self.r = self.q.r
        self.screener = Screener(engine, settings.engine, settings.batcher)
        self.jobs: dict[str, ActiveJob] = {}
        self.chunks = PrepareChunks(self.ws.prepare_chunk, self.ws.prepare_chunk_fast, self.ws.fast_cool_s)
        self.hb_key, self.stats_key = self.q.worker_keys(self.name)
        # renew leases well inside claim_idle_ms so a live worker's entries are never claimed
        self.lease_s = max(0.05, min(self.ws.heartbeat_s, self.rs.claim_idle_ms / 1000 / 3))
        self.claim_every_s = max(0.05, self.rs.claim_idle_ms / 1000 / 2)
        self._next_beat = self._next_claim = 0.0
        self.lanes = tuple(lane for lane in LANES if lane in self.ws.lanes)  # the streams this worker claims from

    def _retrying(self, max_s: float | None = None) -> Retrying:
        """Backoff on Redis outages; without ``max_s`` until Redis is back or we are told to stop.

        With ``max_s`` the stop event is ignored: a batch already generated is worth waiting
        for Redis a little, even during a SIGTERM.
        """
        stop = stop_when_event_set(self.stop) if max_s is None else stop_after_delay(max_s)
        return Retrying(
            retry=retry_if_exception_type(TRANSIENT_ERRORS),
            wait=wait_exponential(multiplier=0.1, max=3.0) + wait_random(0, 0.1),
            stop=stop, reraise=True, before_sleep=before_sleep_log(log, logging.WARNING),
        )

    def _recover(self) -> None:
        """(Re)connect: groups, registration, then this consumer's own pending entries first."""
        self.jobs.clear()
        for attempt in self._retrying():
            with attempt:
                self.q.ping()
                self.q.ensure_groups()
                pipe = self.r.pipeline(transaction=False)
                pipe.sadd(self.q.workers_key, self.name)
                pipe.hset(self.stats_key, mapping={"pid": os.getpid(), "host": socket.gethostname(),
                                                   "engine": self.engine.name, "model": self.engine.model_id,
                                                   "started_at": repr(time.time())})
                pipe.execute()
                self._beat()
                for lane in LANES:  # its own pending entries of every lane, whatever it claims now
                    resp = self.r.xreadgroup(GROUP, self.name, {self.q.stream(lane): "0"}, count=100_000)
                    self._adopt_response(resp)
                self._next_claim = 0.0

    def _pending_count(self, lane: str) -> int:
        return sum(len(j.pending) + len(j.unprepared) for j in self.jobs.values() if j.lane == lane)

    def _refill(self) -> None:
        now = time.monotonic()
        if now >= self._next_claim:
            self._next_claim = now + self.claim_every_s
            self._claim_idle()
        cap = self.ws.batch_stocks
        if "fast" in self.lanes and self._pending_count("fast") < cap:
            self._adopt_response(self.r.xreadgroup(GROUP, self.name, {self.q.stream("fast"): ">"}, count=64))
        if "bulk" in self.lanes and self._pending_count("fast") == 0 and self._pending_count("bulk") < cap:
            self._adopt_response(self.r.xreadgroup(GROUP, self.name, {self.q.stream("bulk"): ">"}, count=1))

    def _claim_idle(self) -> None:
        """Take over entries idle longer than claim_idle_ms: their worker is dead or hung."""
        for lane in self.lanes:
            stream = self.q.stream(lane)
            res = self.r.xautoclaim(stream, GROUP, self.name, min_idle_time=self.rs.claim_idle_ms,
                                    start_id="0-0", count=64)
            claimed = [(eid, f) for eid, f in res[1] if f]
            if claimed:
                log.info("worker %s: claimed %d idle %s entries", self.name, len(claimed), lane)
                self._adopt(lane, claimed)
            self._forget_dead_consumers(stream)

    def _forget_dead_consumers(self, stream: str) -> None:
        """Drop consumers that own nothing and were silent for long, so XINFO stays readable."""
        for c in self.r.xinfo_consumers(stream, GROUP):
            if (c["name"] != self.name and int(c.get("pending", 0)) == 0
                    and int(c.get("idle", 0)) > 10 * self.rs.claim_idle_ms):
                self.r.xgroup_delconsumer(stream, GROUP, c["name"])

    def _adopt_response(self, resp: Any) -> None:
        for stream, entries in resp or []:
            lane = stream.rsplit(":", 1)[-1]
            if entries:
                self._adopt(lane, [(eid, f) for eid, f in entries])

    def _adopt(self, lane: str, entries: list[tuple[str, dict[str, str] | None]]) -> None:
        """Explode stream entries into per-stock work, skipping indexes that already have rows.

        Cached rows and rows that need no engine (missing data) are written right away.
        """
        fresh: list[tuple[str, str]] = []
        junk: list[str] = []
        for eid, fields_ in entries:
            jid = (fields_ or {}).get("job")
            if not jid:
                junk.append(eid)
            elif jid in self.jobs:
                self.jobs[jid].entry_id = eid  # a re-delivery of a job we already hold
            else:
                fresh.append((eid, jid))
        if junk:
            self._ack(lane, junk)
        if not fresh:
            return
        pipe = self.r.pipeline(transaction=False)
        for _, jid in fresh:
            keys = self.q.job_keys(jid)
            pipe.hgetall(keys.meta)
            pipe.hgetall(keys.items)
            pipe.hkeys(keys.rows)
            pipe.hgetall(keys.attempts)
            pipe.hgetall(keys.alone)
        res = pipe.execute()
        finished_entries: list[str] = []
        new_jobs: list[ActiveJob] = []
        rows: dict[str, list[ResultRow]] = {}
        work: list[tuple[ActiveJob, int, Prepared]] = []
        for n, (eid, jid) in enumerate(fresh):
            meta, items, done_keys, attempts, alone = res[5 * n: 5 * n + 5]
            if not meta or meta.get("state") not in ACTIVE_STATES:
                finished_entries.append(eid)  # expired, done or cancelled: nothing to do
                continue
            job = ActiveJob(jid, meta.get("lane", lane), eid, meta.get("owner_key") or None,
                            float(meta.get("created_at", 0)))
            job.attempts = {int(k): int(v) for k, v in attempts.items()}
            job.alone = {int(k): int(v) for k, v in alone.items()}
            done = {int(k) for k in done_keys}
            job_rows = rows.setdefault(jid, [])
            job.unprepared = [(int(key), PoolItem.from_dict(json.loads(items[key])))
                              for key in sorted(items, key=int) if int(key) not in done]
            work += self._prepare_chunk(job, job_rows)
            known = done | {int(k) for k in items}
            for idx in range(int(meta.get("total", 0))):
                if idx not in known:  # should not happen; never leave a stock without a row
                    job_rows.append(failed_row(PoolItem(idx, ""), "item lost from the queue", FailCode.LOST,
                                               self.engine.name))
            new_jobs.append(job)
        finished_entries += [j.entry_id for j in self._take_in(new_jobs, work, rows, start=True)]
        if finished_entries:
            self._ack(lane, finished_entries)
        self._publish([j.job_id for j in new_jobs])

    def _prepare_chunk(self, job: ActiveJob, job_rows: list[ResultRow]) -> list[tuple[ActiveJob, int, Prepared]]:
        """The job's next chunk of stocks (``PrepareChunks``; 0: all): rows without the engine go to ``job_rows``
        (bad input, missing data), the others join ``job.pending`` and are returned for the cache lookup."""
        fast_held = any(j.lane == "fast" for j in self.jobs.values())
        size = self.chunks.size(fast_held, time.monotonic()) or len(job.unprepared)
        todo, job.unprepared = job.unprepared[:size], job.unprepared[size:]
        work: list[tuple[ActiveJob, int, Prepared]] = []
        for (idx, _), prepared in zip(todo, self._prepare(job.job_id, todo), strict=True):
            if isinstance(prepared, ResultRow):
                job_rows.append(prepared)
            else:
                job.pending[idx] = prepared
                work.append((job, idx, prepared))
        return work

    def _prepare_more(self, job: ActiveJob) -> None:
        """The next chunk of a held job: prepared, cached answers and rows without the engine written."""
        rows: dict[str, list[ResultRow]] = {job.job_id: []}
        work = self._prepare_chunk(job, rows[job.job_id])
        finished = self._take_in([job], work, rows, start=False)
        if finished:
            self._ack(job.lane, [job.entry_id])
        if rows[job.job_id] or finished:
            self._publish([job.job_id])

    def _take_in(self, jobs: list[ActiveJob], work: list[tuple[ActiveJob, int, Prepared]],
                 rows: dict[str, list[ResultRow]], *, start: bool) -> list[ActiveJob]:
        """Answer what the cache knows, write the rows that need no engine, hold the jobs with work left;
        ``start`` marks new claims running. Returns the finished jobs (all rows written, or ended elsewhere)."""
        hits = self._cache_lookup(work, rows)
        pipe = self.r.pipeline(transaction=False)
        if hits:
            pipe.hincrby(self.stats_key, "cache_hits", hits)
        n_rows = sum(len(r) for r in rows.values())
        if n_rows:
            pipe.hincrby(self.stats_key, "stocks_done", n_rows)
        if start:
            for job in jobs:
                self.q.start_job(job.job_id, client=pipe)
        write_jobs = [j for j in jobs if rows.get(j.job_id)]
        for job in write_jobs:
            self.q.write_rows(job.job_id, rows[job.job_id], owner_key=job.owner_key, lane=job.lane,
                              client=pipe)
        out = pipe.execute()
        _metrics.observe_rows([r for rs in rows.values() for r in rs], cache_hits=hits)  # ops metrics
        results = dict(zip([j.job_id for j in write_jobs], out[len(out) - len(write_jobs):], strict=True))
        finished: list[ActiveJob] = []
        for job in jobs:
            res_code = int(results[job.job_id][0]) if job.job_id in results else 0
            if res_code != 0 or not (job.pending or job.unprepared):
                finished.append(job)
                self.jobs.pop(job.job_id, None)
            else:
                self.jobs[job.job_id] = job
        return finished

    def _prepare(self, jid: str, todo: list[tuple[int, PoolItem]]) -> list[Prepared | ResultRow]:
        """The job's stocks in one batch; if that raises, one by one, so one bad item fails alone."""
        try:
            return self.screener.prepare_many([(item, f"{jid}:{idx}") for idx, item in todo])
        except Exception:  # one bad item must not crash-loop the worker
            log.exception("worker %s: batch prepare of %s failed; preparing one by one", self.name, jid)
        out: list[Prepared | ResultRow] = []
        for idx, item in todo:
            try:
                out.append(self.screener.prepare(item, f"{jid}:{idx}"))
            except Exception as exc:
                log.exception("worker %s: cannot prepare %s[%d]", self.name, jid, idx)
                out.append(failed_row(item, f"prepare failed: {type(exc).__name__}: {exc}", FailCode.PREPARE_FAILED,
                                      self.engine.name))
        return out

    def _cache_lookup(self, work: list[tuple[ActiveJob, int, Prepared]], rows: dict[str, list[ResultRow]]) -> int:
        """Answer just-prepared stocks from the same-day cache; returns the number of hits."""
        if not work:
            return 0
        keys = []
        for job, idx, prep in work:
            job.cache_keys[idx] = self._cache_key(prep.item)
            keys.append(job.cache_keys[idx])
        hits = 0
        for start in range(0, len(keys), 1000):
            values = self.r.mget(keys[start:start + 1000])
            for (job, idx, prep), raw in zip(work[start:start + 1000], values, strict=True):
                if raw:
                    rows[job.job_id].append(decode_for(prep.item, raw))
                    del job.pending[idx]
                    del job.cache_keys[idx]
                    hits += 1
        return hits

    def _cache_key(self, item: PoolItem) -> str:
        assert item.stock is not None
        return cache_key(self.rs.prefix, item.stock, self.engine.model_id, prompt_id=self.screener.cache_id)

    def _ack(self, lane: str, entry_ids: list[str]) -> None:
        stream = self.q.stream(lane)
        pipe = self.r.pipeline(transaction=False)
        pipe.xack(stream, GROUP, *entry_ids)
        pipe.xdel(stream, *entry_ids)
        pipe.execute()

    def _idle(self) -> bool:
        """Nothing held, nothing new, nobody else's entry pending (it may still be claimed)."""
        if self.jobs:
            return False
        for lane in self.lanes:
            stream = self.q.stream(lane)
            resp = self.r.xreadgroup(GROUP, self.name, {stream: ">"}, count=1)
            if resp and resp[0][1]:
                self._adopt_response(resp)
                return False
            if int(self.r.xpending(stream, GROUP)["pending"]) > 0:
                self._claim_idle()
                return False
        return True

    # -- heartbeat and leases --------------------------------------------------------------
    def _beat(self) -> None:
        """Heartbeat key, lease renewal of held entries, and dropping jobs finished elsewhere."""
        self._next_beat = time.monotonic() + self.lease_s
        _metrics.WORKER_HEALTH.beat(worker=self.name, jobs=len(self.jobs))  # ops: /healthz liveness
        _metrics.JOBS_IN_FLIGHT.set(len(self.jobs))
        ttl = max(2, int(3 * max(self.ws.heartbeat_s, self.lease_s)))
        beat = {"name": self.name, "pid": os.getpid(), "at": time.time(), "jobs": len(self.jobs)}
        pipe = self.r.pipeline(transaction=False)
        pipe.set(self.hb_key, json.dumps(beat), ex=ttl)
        pipe.hset(self.stats_key, "last_beat", repr(time.time()))
        ids = list(self.jobs)
        for jid in ids:
            pipe.hget(self.q.job_keys(jid).meta, "state")
        states = pipe.execute()[2:]
        for jid, state in zip(ids, states, strict=True):
            if state not in ACTIVE_STATES:  # cancelled, or finished by another worker
                job = self.jobs.pop(jid)
                self._ack(job.lane, [job.entry_id])
        for lane in LANES:
            held = {j.entry_id: j for j in self.jobs.values() if j.lane == lane}
            if not held:
                continue
            stream = self.q.stream(lane)
            mine = {p["message_id"] for p in self.r.xpending_range(stream, GROUP, min="-", max="+",
                                                                   count=100_000, consumername=self.name)}
            for eid, job in held.items():
                if eid not in mine:  # claimed by another worker after our lease lapsed
                    log.warning("worker %s: job %s was taken over; dropping it", self.name, job.job_id)
                    del self.jobs[job.job_id]
            renew = [eid for eid in held if eid in mine]
            if renew:  # XCLAIM to ourselves resets the idle time: the lease
                self.r.xclaim(stream, GROUP, self.name, 0, renew, justid=True)

    def _write(self, res: BatchResult) -> None:
        """Write the batch's rows, cache, stats and dead letters; ack finished jobs; publish.

        Retried through Redis outages: the generation is the expensive part and must not be
        thrown away because Redis restarted meanwhile.
        """
        by_job: dict[str, tuple[ActiveJob, list[ResultRow]]] = {}
        for job, row in res.rows:
            by_job.setdefault(job.job_id, (job, []))[1].append(row)
        ttl = self.rs.cache_ttl_s
        for attempt in self._retrying(max_s=60):
            with attempt:
                pipe = self.r.pipeline(transaction=False)
                pipe.hincrby(self.stats_key, "batches", 1)
                pipe.hincrby(self.stats_key, "engine_requests", res.requests)
                pipe.hincrby(self.stats_key, "stocks_done", len(res.rows))
                for job, item, row in res.fresh:
                    key = job.cache_keys.get(item.index) or self._cache_key(item)
                    pipe.set(key, encode_row(row), ex=ttl)
                for jid, (job, rows) in by_job.items():
                    self.q.write_rows(jid, rows, owner_key=job.owner_key, lane=job.lane, client=pipe)
                out = pipe.execute()
        written = out[len(out) - len(by_job):]
        dead_by_key = {(d["job"], d["index"]): d for d in res.dead}
        pipe = self.r.pipeline(transaction=False)
        acks: dict[str, list[str]] = {}
        for (jid, (job, rows)), result in zip(by_job.items(), written, strict=True):
            code, added = int(result[0]), {int(i) for i in result[1:]}
            for row in rows:
                job.pending.pop(row.index, None)
                job.cache_keys.pop(row.index, None)
                dead = dead_by_key.get((jid, row.index))
                if dead is not None and row.index in added:  # one dead letter per stock
                    pipe.xadd(self.q.dead_key, {k: str(v) for k, v in dead.items()}, maxlen=100_000,
                              approximate=True)
            if code != 0 or not (job.pending or job.unprepared):
                self.jobs.pop(jid, None)
                acks.setdefault(job.lane, []).append(job.entry_id)
        pipe.execute()
        for lane, ids in acks.items():
            self._ack(lane, ids)
        self._publish(list(by_job))

    def _publish(self, job_ids: list[str]) -> None:
        """One JobStatus per touched job on its channel: the bot edits one progress message."""
        if not job_ids:
            return
        statuses: list[JobStatus] = []
        for start in range(0, len(job_ids), 500):
            chunk = job_ids[start:start + 500]
            try:
                statuses += self.q.statuses(chunk)
            except KeyError:  # a job expired meanwhile; publish the others
                for jid in chunk:
                    try:
                        statuses.append(self.q.status(jid))
                    except KeyError:
                        pass
        self.q.publish(statuses)

    def _shutdown(self) -> None:
        """Hand held entries back (idle time set past claim_idle_ms) so another worker takes over now."""
        try:
            for lane in LANES:
                ids = [j.entry_id for j in self.jobs.values() if j.lane == lane]
                if ids:
                    self.r.xclaim(self.q.stream(lane), GROUP, self.name, 0, ids,
                                  idle=self.rs.claim_idle_ms + 1, justid=True)
            self.r.delete(self.hb_key)
        except TRANSIENT_ERRORS as exc:
            log.warning("worker %s: could not hand back entries (%s); they will be claimed when idle",
                        self.name, exc)
        self.jobs.clear()
        log.info("worker %s: stopped", self.name)
