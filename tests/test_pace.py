"""Bulk admission (queue/pace.py): the token bucket and the fast-lane hold on a hand-driven clock, the refill
floor as a pure function, then each in a real worker on real Redis."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import Future

import pytest

from screening.config import Settings, WorkerSettings
from screening.engines.rules_engine import RulesEngine
from screening.engines.types import EngineOutput, EngineRequest
from screening.queue.client import JobQueue
from screening.queue.pace import AdmissionPace, FastHold, refill_room
from screening.queue.run import run_worker
from screening.queue.worker import Worker
from tests.fixtures_redis import make_items


def test_unpaced_admits_everything() -> None:
    pace = AdmissionPace(rate=0, burst=8)
    assert pace.allowed(576, now=0.0) == 576
    pace.spend(576)
    assert pace.allowed(576, now=0.0) == 576 and pace.wait_s() == 0.0


def test_a_fresh_worker_starts_with_one_burst_then_the_rate() -> None:
    pace = AdmissionPace(rate=200, burst=16)
    assert pace.allowed(576, now=10.0) == 16
    pace.spend(16)
    assert pace.allowed(576, now=10.0) == 0
    assert pace.wait_s() == pytest.approx(1 / 200)
    assert pace.allowed(576, now=10.05) == 10  # 50 ms at 200 a second
    pace.spend(10)


def test_idle_time_never_saves_more_than_one_burst() -> None:
    pace = AdmissionPace(rate=200, burst=16)
    pace.spend(pace.allowed(16, now=0.0))
    assert pace.allowed(576, now=60.0) == 16


def test_over_a_second_the_rate_holds_whatever_the_rounds() -> None:
    pace = AdmissionPace(rate=150, burst=8)
    went, now = 0, 0.0
    while now < 2.0:
        n = pace.allowed(576, now)
        pace.spend(n)
        went += n
        now += 0.013
    assert 2 * 150 <= went <= 2 * 150 + 8


@pytest.mark.parametrize(("room", "in_bulk", "waiting", "floor", "admitted"), [
    (5, 491, 900, 0, 5),        # no floor: every free slot is refilled at once
    (5, 491, 900, 128, 0),      # five free slots wait for the floor
    (127, 369, 900, 128, 0),
    (128, 368, 900, 128, 128),  # the floor reached: the group goes together
    (300, 196, 900, 128, 300),
    (5, 491, 5, 128, 5),        # a job's tail smaller than the floor still goes
    (40, 456, 30, 128, 40),     # (room is an upper bound: the caller takes what waits)
    (496, 0, 60, 128, 496),     # nothing bulk in flight: the start is never held
])
def test_the_refill_floor_holds_small_groups_back_but_never_a_tail_or_a_start(
        room: int, in_bulk: int, waiting: int, floor: int, admitted: int) -> None:
    assert refill_room(room, in_bulk, waiting, floor) == admitted



class StampedRules(RulesEngine):
    """The real rules engine fed one request at a time (as AsyncLLM is), stamping when each was handed over."""

    continuous = True

    def __init__(self) -> None:
        super().__init__()
        self.handed: list[float] = []

    def submit(self, request: EngineRequest, priority: int = 1, alone: bool = False) -> Future[EngineOutput]:
        self.handed.append(time.monotonic())
        return super().submit(request, priority, alone)


def _handed(settings: Settings, rate: float, start: int) -> list[float]:
    """When each of 60 new stocks was handed over (``start``: none repeats, so none comes from the cache)."""
    ws = settings.worker.model_copy(update={"bulk_admit_per_s": rate, "bulk_admit_burst": 10})
    settings = settings.model_copy(update={"worker": ws})
    q = JobQueue(settings.redis.url, settings.redis)
    jid = q.submit(make_items(60, start), lane="bulk")
    engine = StampedRules()
    run_worker(settings, engine, f"paced-{rate:g}", exit_when_idle=True)
    assert q.status(jid).state == "done" and sorted(r.index for r in q.results(jid)) == list(range(60))
    return engine.handed


def test_a_paced_worker_hands_bulk_over_at_the_rate_and_finishes_the_job(queue_settings: Settings) -> None:
    """Real Redis and worker: unpaced, 60 bulk stocks go to the engine at once; at 100 a second in bursts
    of 10 their handing over takes at least half a second, and every row is still written once."""
    unpaced = _handed(queue_settings, 0.0, 0)
    assert len(unpaced) == 60 and unpaced[-1] - unpaced[0] < 0.2
    paced = _handed(queue_settings, 100.0, 100)
    assert len(paced) == 60 and paced[-1] - paced[0] >= (60 - 10) / 100 * 0.95
    for i, t in enumerate(paced):  # never more than a burst plus the rate's share in any 100 ms
        assert sum(1 for u in paced[i:] if u - t < 0.1) <= 10 + 10 + 1


class SlowRules(RulesEngine):
    """The real rules engine answering each request after its own delay, as a continuous engine does:
    answers come back one by one at different times, so slots free up a few at a time."""

    continuous = True

    def __init__(self, seed: int) -> None:
        super().__init__()
        self._rng = random.Random(seed)

    def submit(self, request: EngineRequest, priority: int = 1, alone: bool = False) -> Future[EngineOutput]:
        future: Future[EngineOutput] = Future()
        answer = self.generate([request])[0]
        threading.Timer(self._rng.uniform(0.005, 0.06), future.set_result, args=(answer,)).start()
        return future


def test_a_refill_floor_hands_bulk_over_in_groups_and_finishes_the_job(queue_settings: Settings) -> None:
    """Real Redis and worker, 20 bulk in flight, a floor of 8: after the first 20, every group handed to the
    engine is at least 8 requests but the job's tail, and all 90 rows are written once."""
    ws = queue_settings.worker.model_copy(update={"max_in_flight": 20, "bulk_refill_min": 8})
    settings = queue_settings.model_copy(update={"worker": ws})
    q = JobQueue(settings.redis.url, settings.redis)
    jid = q.submit(make_items(90, 300), lane="bulk")
    worker = Worker(settings, SlowRules(seed=3), "refill-8", exit_when_idle=True)
    worker.run()
    assert q.status(jid).state == "done" and sorted(r.index for r in q.results(jid)) == list(range(90))
    groups = list(worker.bulk_groups)
    assert sum(groups) == 90 and groups[0] == 20
    assert all(g >= 8 for g in groups[1:-1]), groups


def test_the_fast_lane_hold_is_bounded_so_the_bulk_job_progresses() -> None:
    """While a fast request is live bulk is capped, for at most max_s, then free for gap_s; off never caps."""
    assert FastHold(-1, 2.0, 1.0).cap(True, 0.0) is None
    h = FastHold(0, 2.0, 1.0)
    assert h.cap(False, 0.0) is None and not h.holding  # no fast request: no hold
    assert h.cap(True, 0.1) == 0 and h.holding  # a fast request: bulk held
    assert h.cap(True, 2.0) == 0
    assert h.cap(True, 2.1) is None and not h.holding  # the hold ran its length: the bulk job's turn
    assert h.cap(True, 3.0) is None  # still inside the gap
    assert h.cap(True, 3.2) == 0  # a new hold
    assert h.cap(False, 3.3) is None and h.cap(True, 3.4) == 0  # the fast request ended: the next one holds at once


def test_the_cooldown_keeps_bulk_narrow_for_its_seconds_after_the_last_fast_request() -> None:
    h = FastHold(-1, 2.0, 1.0, cool_bulk=256, cool_s=10.0)
    assert h.cap(False, 0.0) is None  # no fast request yet: full width
    assert h.cap(True, 1.0) == 256
    assert h.cap(False, 10.9) == 256  # 9.9 s after the fast request was last live
    assert h.cap(False, 11.0) is None  # its seconds are over: full width again
    assert h.cap(True, 20.0) == 256 and h.cap(False, 29.0) == 256
    both = FastHold(0, 2.0, 1.0, cool_bulk=256, cool_s=10.0)
    assert both.cap(True, 0.0) == 0  # the hold is the lower cap while it runs
    assert both.cap(True, 2.5) == 256  # the hold's gap admits bulk, up to the cooldown's cap only
    assert FastHold(-1, 2.0, 1.0, cool_bulk=0, cool_s=10.0).cap(True, 0.0) is None  # 0: off, never a cap of 0
    with pytest.raises(ValueError, match=r"(?s)fast_cool_bulk.*greater than or equal to 0"):
        WorkerSettings(fast_cool_bulk=-1)


def test_the_cooldowns_refill_floor_runs_with_the_cooldown_only() -> None:
    h = FastHold(-1, 2.0, 1.0, cool_bulk=192, cool_s=10.0, cool_refill_min=64)
    assert h.refill_min(0, 0.0) == 0  # no fast request yet: the base floor
    assert h.cap(True, 1.0) == 192 and h.refill_min(0, 1.0) == 64
    assert h.refill_min(0, 10.9) == 64  # 9.9 s after the fast request was last live
    assert h.refill_min(5, 11.0) == 5  # the cooldown is over: the base floor again
    off = FastHold(-1, 2.0, 1.0, cool_bulk=192, cool_s=10.0)
    assert off.cap(True, 0.0) == 192 and off.refill_min(5, 0.0) == 5  # 0: off
    with pytest.raises(ValueError, match=r"(?s)fast_refill_min.*greater than or equal to 0"):
        WorkerSettings(fast_refill_min=-1)


def _groups_beside_a_fast_job(settings: Settings, cool_bulk: int, start: int, refill: int = 0) -> list[int]:
    """Bulk groups handed over while a /screen job is queued beside a 60-stock bulk job (20 in flight)."""
    ws = settings.worker.model_copy(update={"max_in_flight": 20, "fast_hold_bulk": -1, "fast_cool_bulk": cool_bulk,
                                            "fast_cool_s": 60.0, "fast_refill_min": refill})
    settings = settings.model_copy(update={"worker": ws})
    q = JobQueue(settings.redis.url, settings.redis)
    fast = q.submit(make_items(2, start), lane="fast")
    bulk = q.submit(make_items(60, start + 2), lane="bulk")
    worker = Worker(settings, SlowRules(seed=5), f"cool-{cool_bulk}", exit_when_idle=True)
    worker.run()
    for jid, n in ((fast, 2), (bulk, 60)):
        assert q.status(jid).state == "done" and sorted(r.index for r in q.results(jid)) == list(range(n))
    return list(worker.bulk_groups)


def test_a_cooldown_keeps_the_bulk_batch_narrow_after_a_fast_job_and_finishes_it(queue_settings: Settings) -> None:
    """Real Redis and worker: without the cooldown the bulk job's first group fills all 20 slots; with a cap
    of 4 no group brings more than 4 into flight, and every row of both jobs is written once."""
    assert _groups_beside_a_fast_job(queue_settings, 0, 500)[0] == 20
    narrow = _groups_beside_a_fast_job(queue_settings, 4, 600)
    assert sum(narrow) == 60 and max(narrow) <= 4, narrow


def test_near_a_fast_job_the_cooldowns_floor_hands_bulk_over_in_groups(queue_settings: Settings) -> None:
    """Real Redis and worker: with the cooldown on (a cap of 20, all the slots) and its floor at 8, every bulk
    group after the first is at least 8 requests but the job's tail, and every row of both jobs is written once."""
    groups = _groups_beside_a_fast_job(queue_settings, 20, 700, refill=8)
    assert sum(groups) == 60 and all(g >= 8 for g in groups[1:-1]), groups
