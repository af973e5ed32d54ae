"""The Redis job queue: jobs in Streams, per-stock results in hashes, progress over pub/sub.

Why this shape:

* A stream entry is only a job id. The job's items and its rows live in hashes keyed by job
  id and stock index, so a redelivered entry (a worker died, Redis restarted) never
  duplicates work already written: rows are written with HSETNX inside one Lua script that
  also bumps the counters, so "written twice" leaves one row and correct counts.
* Two lanes, each a stream with its own consumer group: ``fast`` for a chat user's few
  stocks, ``bulk`` for a whole-market run. The worker looks at ``fast`` before every engine
  call, which is what keeps a ``/screen`` of three stocks from waiting behind 5,400.
* Every stock ends as a row: items that could not be parsed become failed rows at submit
  time, a cancel turns the unfinished ones into failed rows "cancelled", the worker turns a
  poison stock into a failed row and a dead letter. A job is finished exactly when it has
  ``total`` rows, and the Lua script is the one place that decides it.
* Finished jobs get a TTL (``result_ttl_s``); the bot reads results well within it.

Key layout (``P`` = ``settings.prefix``)::

    P:stream:{lane}          stream of {"job": id}; group "workers"
    P:job:{id}               hash: lane state total done failed pre_failed created_at ...
    P:job:{id}:items         hash index -> PoolItem json
    P:job:{id}:rows          hash index -> ResultRow json
    P:job:{id}:attempts      hash index -> generation attempts started (the worker's)
    P:job:{id}:alone         hash index -> of those, starts with nothing else in flight
    P:job:{id}:events        pub/sub channel, a JobStatus json per progress change
    P:active:{lane}          zset of unfinished jobs by created_at (queue position)
    P:owner:{user}           set of the owner's unfinished jobs (per-user limits)
    P:dead                   dead-letter stream
    P:cache:{date}:{code}:{sha}  same-day result cache (see ``result_cache``)
    P:worker:{name}:hb / :stats  heartbeat (TTL) and counters of one worker
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import redis
from redis.backoff import ExponentialBackoff
from redis.exceptions import BusyLoadingError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from screening.config import RedisSettings, Settings
from screening.models import FailCode, PoolItem, ResultRow, failed_row
from screening.queue.scripts import START_JOB, WRITE_ROWS
from screening.queue.status import ACTIVE_STATES, JobState, JobStatus, status_from

LANES = ("fast", "bulk")
GROUP = "workers"
# the counters each worker keeps in P:worker:{name}:stats (the worker bumps them, worker_stats sums them)
WORKER_COUNTERS = ("batches", "engine_requests", "cache_hits", "stocks_done")
# Errors that mean "Redis is away for a moment" rather than "the request is wrong".
TRANSIENT_ERRORS: tuple[type[Exception], ...] = (RedisConnectionError, RedisTimeoutError, BusyLoadingError)

@dataclass(frozen=True)
class JobKeys:
    """All Redis keys of one job, so the queue and the worker cannot disagree on names."""

    meta: str
    items: str
    rows: str
    attempts: str
    events: str
    alone: str  # hash index -> starts with nothing else in flight (what can fail a stock for good)


def owner_key_of(owner: dict[str, Any] | None) -> str | None:
    """The per-user limit key: ``owner["user"]`` as str, or None for jobs without a user."""
    if owner and owner.get("user") is not None:
        return str(owner["user"])
    return None


def make_client(url: str) -> redis.Redis:
    """A sync client that retries transient connection errors itself, with backoff.

    Short Redis blips (a restart with AOF, a failover) are absorbed here; the worker adds a
    tenacity loop on top for outages longer than these retries.
    """
    retry = Retry(ExponentialBackoff(cap=1.0, base=0.02), retries=6)
    return redis.Redis.from_url(
        url,
        decode_responses=True,
        retry=retry,
        retry_on_error=[RedisConnectionError, RedisTimeoutError, BusyLoadingError],
        health_check_interval=30,
        socket_keepalive=True,
    )


def row_fields(row: ResultRow) -> tuple[str, str, str]:
    """(index, row json, failed flag): the argument triple of the write script."""
    failed = "1" if row.status == "failed" else "0"
    return str(row.index), row.to_json(), failed


class JobQueue:
    """The client side of the queue (bot, CLI, tests) plus the key helpers the worker shares."""

    def __init__(self, url: str, settings: RedisSettings, client: redis.Redis | None = None) -> None:
        self.url = url
        self.settings = settings
        self.prefix = settings.prefix
        # Any: with decode_responses=True every reply is str, which redis-py's annotations (bytes | str) cannot say
        self.r: Any = client or make_client(url)
        self._write_rows = self.r.register_script(WRITE_ROWS)
        self._start_job = self.r.register_script(START_JOB)

    # -- key names -----------------------------------------------------------------------
    def stream(self, lane: str) -> str:
        return f"{self.prefix}:stream:{lane}"

    def job_keys(self, job_id: str) -> JobKeys:
        base = f"{self.prefix}:job:{job_id}"
        return JobKeys(base, f"{base}:items", f"{base}:rows", f"{base}:attempts", f"{base}:events", f"{base}:alone")

    def active_key(self, lane: str) -> str:
        return f"{self.prefix}:active:{lane}"

    def owner_set(self, owner_key: str | None) -> str:
        return f"{self.prefix}:owner:{owner_key if owner_key is not None else '-'}"

    @property
    def dead_key(self) -> str:
        return f"{self.prefix}:dead"

    @property
    def workers_key(self) -> str:
        return f"{self.prefix}:workers"

    def worker_keys(self, name: str) -> tuple[str, str]:
        return f"{self.prefix}:worker:{name}:hb", f"{self.prefix}:worker:{name}:stats"

    # -- setup ---------------------------------------------------------------------------
    def ping(self) -> bool:
        return bool(self.r.ping())

    def ensure_groups(self) -> None:
        """Create both lane streams and their consumer group; idempotent (BUSYGROUP is fine)."""
        for lane in LANES:
            try:
                self.r.xgroup_create(self.stream(lane), GROUP, id="0", mkstream=True)
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    # -- submit --------------------------------------------------------------------------
    def submit(self, items: list[PoolItem], *, lane: str = "fast", source: str = "",
               owner: dict[str, Any] | None = None, job_id: str | None = None) -> str:
        """Store the job and enqueue it; returns the job id (``job_id`` when the caller chose it first: the bot
        records the job under its id before it exists, so a crash between the two loses nothing).

        Items without a stock become failed rows right here, so the worker only ever sees
        screenable items and every input stock still ends as a row.
        """
        if lane not in LANES:
            raise ValueError(f"unknown lane {lane!r}: use one of {LANES}")
        indexes = [i.index for i in items]
        if len(set(indexes)) != len(indexes):
            raise ValueError("item indexes must be unique within a job")
        job_id = job_id or uuid.uuid4().hex
        keys = self.job_keys(job_id)
        now = time.time()
        pre_failed = [failed_row(i, str(i.error) if i.error else "无法使用的输入", FailCode.INPUT) for i in items
                      if i.stock is None]
        total, todo = len(items), len(items) - len(pre_failed)
        owner_key = owner_key_of(owner)
        meta: dict[str, Any] = {
            "job_id": job_id, "lane": lane, "state": JobState.QUEUED if todo else JobState.DONE,
            "total": total, "done": len(pre_failed), "failed": len(pre_failed),
            "pre_failed": len(pre_failed), "created_at": repr(now), "source": source,
            "owner": json.dumps(owner or {}, ensure_ascii=False), "owner_key": owner_key or "",
        }
        if not todo:
            meta["finished_at"] = repr(now)
        ttl = self.settings.result_ttl_s
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(keys.meta, mapping=meta)
        for chunk in _chunks([(str(i.index), json.dumps(i.to_dict(), ensure_ascii=False)) for i in items]):
            pipe.hset(keys.items, mapping=dict(chunk))
        for chunk in _chunks([row_fields(r)[:2] for r in pre_failed]):
            pipe.hset(keys.rows, mapping=dict(chunk))
        if todo:
            pipe.zadd(self.active_key(lane), {job_id: now})
            if owner_key is not None:
                pipe.sadd(self.owner_set(owner_key), job_id)
            pipe.xadd(self.stream(lane), {"job": job_id})
        else:
            for key in (keys.meta, keys.items, keys.rows):
                pipe.expire(key, ttl)
        pipe.execute()
        return job_id

    # -- reading -------------------------------------------------------------------------
    def status(self, job_id: str) -> JobStatus:
        """The job's current status; KeyError when the job is unknown or expired."""
        return self.statuses([job_id])[0]

    def statuses(self, job_ids: list[str]) -> list[JobStatus]:
        """Several statuses in one round trip (the worker publishes many per batch)."""
        pipe = self.r.pipeline(transaction=False)
        for jid in job_ids:
            pipe.hgetall(self.job_keys(jid).meta)
        metas = pipe.execute()
        pipe = self.r.pipeline(transaction=False)
        for jid, meta in zip(job_ids, metas, strict=True):
            if not meta:
                raise KeyError(f"unknown or expired job {jid}")
            pipe.zrank(self.active_key(meta.get("lane", "fast")), jid)
        ranks = pipe.execute()
        return [status_from(jid, m, rank) for jid, m, rank in zip(job_ids, metas, ranks, strict=True)]

    def results(self, job_id: str) -> list[ResultRow]:
        """The rows written so far, in index order (all of them once the job is finished)."""
        raw = self.r.hgetall(self.job_keys(job_id).rows)
        return [ResultRow.from_dict(json.loads(raw[k])) for k in sorted(raw, key=int)]

    def items(self, job_id: str) -> list[PoolItem]:
        raw = self.r.hgetall(self.job_keys(job_id).items)
        return [PoolItem.from_dict(json.loads(raw[k])) for k in sorted(raw, key=int)]

    def jobs_of(self, owner_key: str) -> list[str]:
        """Unfinished jobs of one user, oldest first (the bot's per-user job limit)."""
        ids = list(self.r.smembers(self.owner_set(str(owner_key))))
        if not ids:
            return []
        pipe = self.r.pipeline(transaction=False)
        for jid in ids:
            pipe.hmget(self.job_keys(jid).meta, ["state", "created_at"])
        alive = [(float(c or 0), jid) for jid, (s, c) in zip(ids, pipe.execute(), strict=True)
                 if s in ACTIVE_STATES]
        return [jid for _, jid in sorted(alive)]

    def dead_letters(self, count: int = 100) -> list[dict[str, Any]]:
        """The newest dead letters first: job, index, code, reason, attempts, worker, at."""
        out = []
        for entry_id, fields_ in self.r.xrevrange(self.dead_key, count=count):
            d: dict[str, Any] = {"id": entry_id, **fields_}
            for k in ("index", "attempts"):
                if k in d:
                    d[k] = int(d[k])
            out.append(d)
        return out

    def workers(self) -> list[dict[str, Any]]:
        """Known workers with their counters and whether their heartbeat key is alive."""
        names = sorted(self.r.smembers(self.workers_key))
        pipe = self.r.pipeline(transaction=False)
        for name in names:
            hb, stats = self.worker_keys(name)
            pipe.exists(hb)
            pipe.hgetall(stats)
        res = pipe.execute()
        out = []
        for i, name in enumerate(names):
            counters = {k: _num(v) for k, v in res[2 * i + 1].items()}
            out.append({"name": name, "alive": bool(res[2 * i]), **counters})
        return out

    def worker_stats(self, name: str | None = None) -> dict[str, float]:
        """Counters summed over all workers (or one): batches, engine_requests, cache_hits, stocks_done."""
        total: dict[str, float] = dict.fromkeys(WORKER_COUNTERS, 0)
        for w in self.workers():
            if name is None or w["name"] == name:
                for k in total:
                    total[k] += w.get(k, 0)
        return total

    # -- writing (shared with the worker) ------------------------------------------------
    def write_rows(self, job_id: str, rows: Iterable[ResultRow], *, owner_key: str | None, lane: str,
                   mode: str = "write", client: Any = None) -> list[Any]:
        """Write rows idempotently; returns [state_code, added indexes...] (see scripts.WRITE_ROWS).

        With ``client`` a pipeline, the call is queued there and its result comes from
        ``execute()``.
        """
        keys = self.job_keys(job_id)
        args: list[Any] = [job_id, mode, repr(time.time()), self.settings.result_ttl_s]
        for row in rows:
            args.extend(row_fields(row))
        return self._write_rows(
            keys=[keys.meta, keys.rows, keys.items, keys.attempts, self.active_key(lane),
                  self.owner_set(owner_key), keys.alone],
            args=args, client=client if client is not None else self.r,
        )

    def start_job(self, job_id: str, client: Any = None) -> Any:
        return self._start_job(keys=[self.job_keys(job_id).meta], args=[repr(time.time())],
                               client=client if client is not None else self.r)

    def publish(self, statuses: list[JobStatus]) -> None:
        if not statuses:
            return
        pipe = self.r.pipeline(transaction=False)
        for st in statuses:
            pipe.publish(self.job_keys(st.job_id).events, json.dumps(st.to_dict(), ensure_ascii=False))
        pipe.execute()

    # -- cancel --------------------------------------------------------------------------
    def cancel(self, job_id: str) -> bool:
        """Fail every unfinished stock as "cancelled" and end the job; False if already finished."""
        keys = self.job_keys(job_id)
        meta = self.r.hgetall(keys.meta)
        if not meta or meta.get("state") not in ACTIVE_STATES:
            return False
        done = set(self.r.hkeys(keys.rows))
        rows = [failed_row(item, JobState.CANCELLED.value, FailCode.CANCELLED) for item in self.items(job_id)
                if str(item.index) not in done]
        res = self.write_rows(job_id, rows, owner_key=meta.get("owner_key") or None, lane=meta["lane"],
                              mode="cancel")
        if int(res[0]) != 1:
            return False
        self.publish([self.status(job_id)])
        return True

    # -- waiting -------------------------------------------------------------------------
    def wait(self, job_id: str, timeout: float | None = None,
             on_progress: Callable[[JobStatus], None] | None = None, poll_s: float = 1.0) -> JobStatus:
        """Block until the job is finished or ``timeout`` passes; returns the last status seen.

        Event-driven through the job's pub/sub channel; the channel is subscribed before the
        first status read so no event is missed, and a status is read every ``poll_s`` anyway
        (pub/sub is fire-and-forget: a Redis restart drops messages and the subscription).
        On timeout the returned status is simply not finished; the caller decides.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        channel = self.job_keys(job_id).events
        pubsub = None
        last_key: tuple[Any, ...] | None = None
        st: JobStatus | None = None
        try:
            while True:
                if pubsub is None:
                    try:
                        pubsub = self.r.pubsub(ignore_subscribe_messages=True)
                        pubsub.subscribe(channel)
                    except TRANSIENT_ERRORS:
                        pubsub = None
                try:
                    st = self.status(job_id)
                except TRANSIENT_ERRORS:
                    if st is None:
                        time.sleep(poll_s)
                        continue
                key = (st.state, st.done, st.failed, st.position)
                if key != last_key:
                    last_key = key
                    if on_progress:
                        on_progress(st)
                if st.finished:
                    return st
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return st
                step = poll_s if left is None else min(poll_s, left)
                if pubsub is None:
                    time.sleep(step)
                    continue
                try:
                    # one message is enough to re-read; drain the burst so we read once
                    msg = pubsub.get_message(timeout=step)
                    while msg is not None:
                        msg = pubsub.get_message(timeout=0)
                except TRANSIENT_ERRORS:
                    _close_quietly(pubsub)
                    pubsub = None
                    time.sleep(min(step, 0.2))
        finally:
            if pubsub is not None:
                _close_quietly(pubsub)

    def close(self) -> None:
        self.r.close()


def _close_quietly(pubsub: Any) -> None:
    try:
        pubsub.close()
    except Exception:  # closing a broken connection must not mask the result
        pass


def _num(v: str) -> float | int | str:
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


def _chunks(pairs: list[tuple[str, str]], size: int = 1000) -> Iterable[list[tuple[str, str]]]:
    for i in range(0, len(pairs), size):
        yield pairs[i:i + size]


def submit_and_wait(settings: Settings, items: list[PoolItem], *, lane: str = "fast", source: str = "",
                    progress: Callable[[JobStatus], None] | None = None,
                    timeout: float | None = None, no_worker: Callable[[str], None] | None = None) -> list[ResultRow]:
    """Submit through Redis and wait for a worker; the rows in index order (``screen --via-queue``).

    Raises TimeoutError when the job is not finished within ``timeout`` (the job stays queued). When no live
    worker is seen after ``redis.no_worker_s``, ``no_worker(job_id)`` is told once: without it the command
    waited in silence forever (a worker still loading its model has no heartbeat yet, so it keeps waiting).
    """
    q = JobQueue(settings.redis.url, settings.redis)
    try:
        job_id = q.submit(items, lane=lane, source=source)
        deadline = None if timeout is None else time.monotonic() + timeout
        first = settings.redis.no_worker_s if timeout is None else min(settings.redis.no_worker_s, timeout)
        st = q.wait(job_id, timeout=first, on_progress=progress)
        if not st.finished and no_worker is not None and not any(w.get("alive") for w in q.workers()):
            no_worker(job_id)
        if not st.finished:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            st = q.wait(job_id, timeout=left, on_progress=progress)
        if not st.finished:
            raise TimeoutError(f"job {job_id} not finished after {timeout} s: {st.done}/{st.total}")
        return q.results(job_id)
    finally:
        q.close()
