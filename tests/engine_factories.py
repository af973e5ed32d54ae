"""Fault injection around the real rules engine, loaded by the worker via ``--engine-factory``.

The Redis server and the worker process in the tests are real; only the engine's timing and
failures are staged here, because the rules engine is too fast for a kill to land mid-batch
and never fails on its own.
"""

from __future__ import annotations

import os
import time

from screening.config import Settings
from screening.engines.base import Engine, EngineOutput, EngineRequest
from screening.engines.rules_engine import RulesEngine

SLEEP_ENV = "SCREENER_TEST_SLEEP_S"
POISON_ENV = "SCREENER_TEST_POISON"


class SlowRulesEngine(RulesEngine):
    """Sleeps per stock (simulated GPU time) so that kills and restarts land mid-batch."""

    def __init__(self, per_stock_s: float) -> None:
        super().__init__()
        self.per_stock_s = per_stock_s

    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        time.sleep(self.per_stock_s * len(requests))
        return super().generate(requests)


class PoisonRulesEngine(SlowRulesEngine):
    """Raises on every batch that contains the poison code, like a kernel crash on one prompt."""

    def __init__(self, per_stock_s: float, poison: set[str]) -> None:
        super().__init__(per_stock_s)
        self.poison = poison

    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        bad = sorted({r.stock.code for r in requests} & self.poison)
        if bad:
            raise RuntimeError(f"CUDA error: illegal memory access (poison {bad[0]})")
        return super().generate(requests)


def _sleep_s(default: float) -> float:
    return float(os.environ.get(SLEEP_ENV, default))


def slow_rules(settings: Settings) -> Engine:
    return SlowRulesEngine(_sleep_s(0.02))


def poison_rules(settings: Settings) -> Engine:
    poison = {c.strip() for c in os.environ.get(POISON_ENV, "").split(",") if c.strip()}
    return PoisonRulesEngine(_sleep_s(0.0), poison)
