"""Lanes a worker claims from (``worker.lanes``): a /screen worker with an engine of its own beside the bulk one.

Why: on one GPU, a /screen request decoded in the bulk engine's steps pays for their prefills (bench/RESULTS.md,
runs 26-29); a second, small engine that only serves the fast lane never shares a step with the market. Real
Redis and the real worker loop: each worker takes only its lanes' jobs and leaves the rest queued.
"""

from __future__ import annotations

from concurrent.futures import Future

import pytest
from pydantic import ValidationError

from screening.config import Settings, WorkerSettings
from screening.engines.rules_engine import RulesEngine
from screening.engines.types import EngineOutput, EngineRequest
from screening.queue.client import JobQueue
from screening.queue.run import run_worker
from tests.fixtures_redis import make_items


class KeptRules(RulesEngine):
    """The real rules engine, keeping the key of every request it was handed."""

    continuous = True

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[str] = []

    def submit(self, request: EngineRequest, priority: int = 1, alone: bool = False) -> Future[EngineOutput]:
        self.keys.append(request.key)
        return super().submit(request, priority, alone)


def _with_lanes(settings: Settings, lanes: list[str]) -> Settings:
    return settings.model_copy(update={"worker": settings.worker.model_copy(update={"lanes": lanes})})


def test_a_fast_lane_worker_serves_screens_and_leaves_the_market_to_the_bulk_worker(
        queue_settings: Settings) -> None:
    q = JobQueue(queue_settings.redis.url, queue_settings.redis)
    market = q.submit(make_items(30, 500), lane="bulk")
    screen = q.submit(make_items(2, 600), lane="fast")

    fast_engine = KeptRules()
    run_worker(_with_lanes(queue_settings, ["fast"]), fast_engine, "fast-only", exit_when_idle=True)
    assert q.status(screen).state == "done" and len(q.results(screen)) == 2
    assert q.status(market).state == "queued"  # untouched: nobody claimed it
    assert len(fast_engine.keys) == 2

    bulk_engine = KeptRules()
    run_worker(_with_lanes(queue_settings, ["bulk"]), bulk_engine, "bulk-only", exit_when_idle=True)
    assert q.status(market).state == "done" and sorted(r.index for r in q.results(market)) == list(range(30))
    assert len(bulk_engine.keys) == 30 and not set(bulk_engine.keys) & set(fast_engine.keys)


def test_a_worker_claims_from_at_least_one_lane() -> None:
    assert WorkerSettings().lanes == ["fast", "bulk"]
    with pytest.raises(ValidationError):
        WorkerSettings(lanes=[])
    with pytest.raises(ValidationError):
        WorkerSettings(lanes=["slow"])  # type: ignore[list-item]


def test_doctor_says_what_a_worker_of_one_lane_leaves_queued() -> None:
    from screening.ops.doctor_lanes import check_lanes

    both = check_lanes(Settings())
    assert [f.level for f in both] == ["ok"]
    base = Settings()
    unsized = base.engine.model_copy(update={"kind": "vllm", "kv_cache_gib": None})
    bulk_only = base.model_copy(update={"worker": WorkerSettings(lanes=["bulk"]), "engine": unsized})
    found = check_lanes(bulk_only)
    assert found[0].level == "warn" and "/screen" in found[0].message and "LANES='[\"fast\"]'" in found[0].fix
    assert any("kv_cache_gib" in f.message for f in found)  # a vLLM engine without an explicit KV size
    sized = bulk_only.model_copy(update={"engine": bulk_only.engine.model_copy(update={"kv_cache_gib": 40.0})})
    assert not any("kv_cache_gib" in f.message for f in check_lanes(sized))


def test_doctor_names_the_list_and_its_variable_for_a_bad_lane(tmp_path, monkeypatch) -> None:
    from screening.ops.doctor import check_config

    cfg = tmp_path / "c.toml"
    cfg.write_text('[worker]\nlanes = ["fast", "slow"]\n')
    monkeypatch.delenv("SCREENER_WORKER__LANES", raising=False)
    settings, found = check_config(str(cfg))
    assert settings is None and found[0].level == "fail"
    assert found[0].message.startswith("worker.lanes.1:") and "'slow'" in found[0].message
    assert f"fix [worker] in {cfg}" in found[0].fix and found[0].fix.endswith("SCREENER_WORKER__LANES")
