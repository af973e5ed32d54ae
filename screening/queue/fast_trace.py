"""Where a fast-lane job's time goes: one record per job, from the worker's clocks and vLLM's.

Why it exists: the /screen goal is a latency (p95 <= 3 s while the whole market runs), and the
lever depends on which leg is long. The job's total alone (what the bench kept before) could not say
whether a /screen waits to be claimed, waits in vLLM's queue, or decodes slowly in steps shared with
bulk prefills. The worker (queue/worker.py) stamps its legs; the engine adds its own when it keeps
them (engines/async_vllm.py, from vLLM's per-request ``RequestStateStats``, only with stat logging on).

Every stamp is wall-clock seconds (``time.time()``): the job's ``created_at`` comes from the client,
vLLM's engine-core stamps are ``time.monotonic()`` in another process, converted by the engine (on
Linux CLOCK_MONOTONIC is one clock for the whole machine). A job's legs are those of its slowest
stock (the row that came last): the user waits for that one.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

# (leg name, from stamp, to stamp), in the order a request lives them
LEGS: tuple[tuple[str, str, str], ...] = (
    ("claim", "submit", "claimed"),  # in the Redis stream until the worker read it
    ("prepare", "claimed", "prepared"),  # rules, prompt, token ids
    ("to_engine", "prepared", "handed"),  # waiting in the worker for admission
    ("event_loop", "handed", "loop"),  # until AsyncLLM's event loop ran the request's coroutine
    ("input", "loop", "queued"),  # vLLM's input processing and the hop to the engine core
    ("vllm_queue", "queued", "scheduled"),  # in vLLM's waiting queue
    ("prefill", "scheduled", "first_token"),  # first scheduled -> first token
    ("decode", "first_token", "last_token"),  # the answer's other tokens
    ("output", "last_token", "answered"),  # vLLM's output processing until the future resolved
    ("collect", "answered", "collected"),  # until the worker loop picked the answer up
    ("store", "collected", "stored"),  # until its row was written to Redis
    ("finish", "stored", "done"),  # until the job was finished (its last row written)
)


@dataclass
class JobClock:
    """The stamps of one fast job while it runs; ``stocks`` holds each stock's request stamps."""

    job_id: str
    submit: float
    claimed: float
    prepared: float
    bulk_age_s: float | None  # age of the oldest bulk job the worker held when this job was claimed
    stocks: dict[int, dict[str, float]] = field(default_factory=dict)
    info: dict[int, dict[str, Any]] = field(default_factory=dict)  # per stock: bulk in flight, hold, tokens

    def record(self, done: float) -> dict[str, Any]:
        """The job's record: stamps as seconds after submit, legs of its slowest stock, the total."""
        last = max(self.stocks, key=lambda i: self.stocks[i].get("collected", 0.0), default=None)
        stamps: dict[str, float] = {"submit": self.submit, "claimed": self.claimed, "prepared": self.prepared}
        if last is not None:
            stamps.update(self.stocks[last])
        stamps["done"] = done
        return {"job": self.job_id, "stocks": len(self.stocks), "submit_wall": round(self.submit, 3),
                "bulk_age_s": None if self.bulk_age_s is None else round(self.bulk_age_s, 3),
                "at": {k: round(v - self.submit, 4) for k, v in stamps.items()},
                "legs": legs(stamps), "total_s": round(done - self.submit, 4),
                **(self.info.get(last, {}) if last is not None else {})}


def legs(stamps: dict[str, float]) -> dict[str, float]:
    """Seconds of each leg whose two ends were stamped (an engine without timing leaves its legs out).

    A leg whose start was not stamped is measured from the last stamp there is and named after its
    end (without engine timing, ``collect`` runs from ``handed``), so the legs always add up to the total.
    """
    order = ["submit", *(b for _, _, b in LEGS)]
    names = {b: name for name, _, b in LEGS}
    out: dict[str, float] = {}
    prev = "submit"
    for stamp in order[1:]:
        if stamp in stamps and prev in stamps:
            out[names[stamp]] = round(stamps[stamp] - stamps[prev], 4)
            prev = stamp
    return out


def pct(values: list[float], q: float) -> float | None:
    """The q-quantile by the nearest-rank rule (p95 of 20 values is the 19th), None when empty."""
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, math.ceil(q * len(v) - 1e-9) - 1))]


def leg_summary(records: list[dict[str, Any]]) -> dict[str, dict[str, float | int | None]]:
    """Median, p95 and max of each leg and of the total over job records (the bench's breakdown)."""
    out: dict[str, dict[str, float | int | None]] = {}
    for name in [*(n for n, _, _ in LEGS), "total"]:
        vals = [r["total_s"] if name == "total" else r["legs"][name] for r in records
                if name == "total" or name in r.get("legs", {})]
        if vals:
            out[name] = {"n": len(vals), "median": round(statistics.median(vals), 3),
                         "p95": round(pct(vals, 0.95) or 0.0, 3), "max": round(max(vals), 3)}
    return out
