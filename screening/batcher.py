"""The length-bucketing batcher: which requests go into one engine call.

vLLM batches continuously inside one ``LLM.chat`` call, so the batcher's job is coarser:
keep each call under a prompt-token budget (bounded memory and latency per call, so the
worker can heartbeat, ack and let the fast lane in between calls), and, with bucketing on,
sort by prompt length and start a new call when the longest prompt would exceed
``bucket_width`` times the shortest, so a call's requests finish at similar times instead of
one long report holding a nearly empty batch.

Measured (bench/RESULTS.md), and what the defaults keep:
- H200, vLLM 0.26.0, Qwen3-30B-A3B fp8, 5,400 stocks in one call: sorted by length 79.05 stocks/s
  vs random order 78.36 (+0.9%); the earlier raw runs in the brief saw +4-12%.
- H200, the full pipeline: 8 calls of ~690 stocks (token budget 1,048,576) ran at 0.887x the raw
  engine, 3 calls (4,194,304) at 0.950x. Every call ends in a tail where the batch drains, so the
  fewer the calls, the better; the budget exists only to bound how long the fast lane waits.
- 2-core CPU, SmolLM2-135M, 64 stocks: bucketing on with width 1.5 (more, narrower calls) ran at
  0.908x the raw engine, off at 1.012x.
So the default sorts (never worse) but does not split on width (``bucket_width = 100``): narrow
buckets cost more in call tails than they save in padding, because vLLM batches continuously.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar


class HasTokens(Protocol):
    prompt_tokens: int


T = TypeVar("T", bound=HasTokens)


@dataclass(frozen=True)
class BatchPlan:
    token_budget: int = 65536
    max_batch: int = 512
    bucket_width: float = 1.5
    bucketing: bool = True


def plan_batches(items: Sequence[T], plan: BatchPlan) -> list[list[T]]:
    """Split ``items`` into engine calls; every item lands in exactly one batch.

    A single prompt larger than the budget still gets a batch of its own: the budget bounds
    a call, it never drops a stock.
    """
    ordered = sorted(items, key=lambda r: r.prompt_tokens) if plan.bucketing else list(items)
    batches: list[list[T]] = []
    current: list[T] = []
    tokens = 0
    shortest = 0
    for item in ordered:
        n = max(1, item.prompt_tokens)
        too_wide = plan.bucketing and current and n > shortest * plan.bucket_width
        if current and (tokens + n > plan.token_budget or len(current) >= plan.max_batch or too_wide):
            batches.append(current)
            current, tokens = [], 0
        if not current:
            shortest = n
        current.append(item)
        tokens += n
    if current:
        batches.append(current)
    return batches
