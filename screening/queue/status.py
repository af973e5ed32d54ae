"""A job's state and progress, as the queue stores them and the fronts show them.

``JobState`` is a ``str`` enum (arq's ``JobStatus`` idea): the values are what Redis holds in
the job hash's ``state`` field and what the Lua scripts compare, so the enum and the scripts
cannot drift apart silently.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"


ACTIVE_STATES = frozenset({JobState.QUEUED, JobState.RUNNING})
FINAL_STATES = frozenset({JobState.DONE, JobState.CANCELLED})


@dataclass
class JobStatus:
    """A job's progress as the bot shows it; ``done`` counts rows written, ok or failed."""

    job_id: str
    state: str  # a JobState value
    lane: str
    total: int
    done: int
    failed: int
    position: int | None  # unfinished jobs ahead in the lane, while queued
    created_at: float
    started_at: float | None
    finished_at: float | None
    eta_s: float | None
    source: str = ""
    owner: dict[str, Any] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.state in FINAL_STATES

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JobStatus:
        return cls(**data)


def status_from(job_id: str, meta: dict[str, str], rank: int | None) -> JobStatus:
        def f(key: str) -> float | None:
            return float(meta[key]) if meta.get(key) else None

        state = meta.get("state", JobState.QUEUED)
        total, done = int(meta.get("total", 0)), int(meta.get("done", 0))
        started = f("started_at")
        eta: float | None = None
        processed = done - int(meta.get("pre_failed", 0))
        if state == JobState.RUNNING and started is not None and processed > 0:
            elapsed = max(1e-6, time.time() - started)
            eta = (total - done) * elapsed / processed
        elif state in FINAL_STATES:
            eta = 0.0
        return JobStatus(
            job_id=job_id, state=state, lane=meta.get("lane", ""), total=total, done=done,
            failed=int(meta.get("failed", 0)), position=rank if state == JobState.QUEUED else None,
            created_at=float(meta.get("created_at", 0.0)), started_at=started,
            finished_at=f("finished_at"), eta_s=eta, source=meta.get("source", ""),
            owner=json.loads(meta.get("owner") or "{}"),
        )
