"""What a worker holds between rounds: the jobs it claimed and the rows, dead letters and cache entries it has
not written yet. Plain state, shared by the Redis side (intake.py) and the engine side (worker.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from screening.models import PoolItem, ResultRow
from screening.screen.pipeline import Prepared


@dataclass
class ActiveJob:
    """A claimed job as the worker sees it: the stocks still without a row."""

    job_id: str
    lane: str
    entry_id: str
    owner_key: str | None
    created_at: float
    pending: dict[int, Prepared] = field(default_factory=dict)  # index -> request, index order
    # claimed, not yet prepared (index order): a big job is prepared a chunk at a time (worker.prepare_chunk)
    unprepared: list[tuple[int, PoolItem]] = field(default_factory=list)
    cache_keys: dict[int, str] = field(default_factory=dict)  # computed once per stock
    attempts: dict[int, int] = field(default_factory=dict)  # generation starts, mirrored from Redis
    alone: dict[int, int] = field(default_factory=dict)  # of those, starts with nothing else in flight


@dataclass
class BatchResult:
    rows: list[tuple[ActiveJob, ResultRow]] = field(default_factory=list)
    dead: list[dict[str, Any]] = field(default_factory=list)
    fresh: list[tuple[ActiveJob, PoolItem, ResultRow]] = field(default_factory=list)  # rows to cache
    requests: int = 0
