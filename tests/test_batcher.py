"""The length-bucketing batcher: every item exactly once, budgets respected, buckets narrow."""

from __future__ import annotations

import random
from dataclasses import dataclass

from screening.batcher import BatchPlan, plan_batches


@dataclass
class R:
    i: int
    prompt_tokens: int


def items(n=1000, seed=1):
    rng = random.Random(seed)
    return [R(i, int(rng.lognormvariate(6.5, 0.5))) for i in range(n)]


def test_every_item_once_and_budget_kept():
    xs = items()
    plan = BatchPlan(token_budget=20000, max_batch=64, bucket_width=1.5, bucketing=True)
    batches = plan_batches(xs, plan)
    assert sorted(x.i for b in batches for x in b) == list(range(len(xs)))
    for b in batches:
        assert len(b) <= 64
        assert sum(x.prompt_tokens for x in b) <= 20000 or len(b) == 1
        assert max(x.prompt_tokens for x in b) <= 1.5 * min(x.prompt_tokens for x in b)


def test_without_bucketing_keeps_arrival_order():
    xs = items(200)
    batches = plan_batches(xs, BatchPlan(token_budget=10**9, max_batch=50, bucketing=False))
    assert [x.i for b in batches for x in b] == list(range(200))
    assert [len(b) for b in batches] == [50, 50, 50, 50]


def test_oversized_item_gets_its_own_batch():
    xs = [R(0, 10), R(1, 50000), R(2, 12)]
    batches = plan_batches(xs, BatchPlan(token_budget=1000, max_batch=10, bucket_width=100))
    assert [[x.i for x in b] for b in batches] == [[0, 2], [1]]


def test_empty():
    assert plan_batches([], BatchPlan()) == []
