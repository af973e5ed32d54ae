"""The length-bucketing batcher: which requests go into one engine call, where there are calls.

What it does now (issue 17): the worker no longer makes calls. On a continuous engine (AsyncLLM, a
``vllm serve``) it submits every stock on its own as soon as it is prepared, bulk stocks in order of
(job age, prompt length) behind every fast one, at most ``worker.max_in_flight`` at a time; this
module is not involved. The length order is kept because the H200 runs with it were never worse
(pipeline 0.945-1.31x the raw engine fed the same prompts all at once in random order, 2026-12-03,
bench/RESULTS.md). The batcher still plans the calls of the batch-shaped paths: ``screen`` in
process (``Screener.run`` with ``LLM``), and a worker given a batch-shaped engine. For those:

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
  engine, 3 greedy calls (4,194,304) at 0.950x and 0.844x (2,700 + 2,449 + 251), 3 calls cut at
  equal token shares (2,221 + 1,826 + 1,353) at 0.985x. Every call ends in a tail where the batch
  drains, so the fewer and the more even the calls, the better; the budget exists only to bound how
  long the fast lane waits.
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
    @property
    def prompt_tokens(self) -> int: ...


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
    a call, it never drops a stock. Calls are as few as the limits allow and of near-equal
    prompt tokens: a greedy fill leaves a small last call (on the H200, 5,400 stocks under a
    4,194,304-token budget became 2,700 + 2,449 + 251, and the 251 longest prompts ran at half
    the rate), while three equal calls keep the engine full until each call's own tail.
    """
    ordered = sorted(items, key=lambda r: r.prompt_tokens) if plan.bucketing else list(items)
    batches: list[list[T]] = []
    for segment in _width_segments(ordered, plan):
        batches += _balanced(segment, plan)
    return batches


def _width_segments(ordered: list[T], plan: BatchPlan) -> list[list[T]]:
    """Runs of sorted items whose longest prompt stays within ``bucket_width`` x the shortest."""
    if not plan.bucketing:
        return [ordered] if ordered else []
    segments: list[list[T]] = []
    current: list[T] = []
    shortest = 0
    for item in ordered:
        n = max(1, item.prompt_tokens)
        if current and n > shortest * plan.bucket_width:
            segments.append(current)
            current = []
        if not current:
            shortest = n
        current.append(item)
    if current:
        segments.append(current)
    return segments


def _fits(batch: Sequence[T], plan: BatchPlan) -> bool:
    return len(batch) == 1 or (
        len(batch) <= plan.max_batch and sum(max(1, r.prompt_tokens) for r in batch) <= plan.token_budget
    )


def _greedy(items: list[T], plan: BatchPlan) -> list[list[T]]:
    """Fill each call up to the limits: the fewest calls for this order."""
    batches: list[list[T]] = []
    current: list[T] = []
    tokens = 0
    for item in items:
        n = max(1, item.prompt_tokens)
        if current and (tokens + n > plan.token_budget or len(current) >= plan.max_batch):
            batches.append(current)
            current, tokens = [], 0
        current.append(item)
        tokens += n
    if current:
        batches.append(current)
    return batches


def _balanced(items: list[T], plan: BatchPlan) -> list[list[T]]:
    """As many calls as the greedy fill needs, each cut at an equal share of the tokens still left.

    A call that reaches a limit first closes there and the rest is shared out again; if the
    shares would still break a limit (an oversized prompt), the greedy cut stands.
    """
    greedy = _greedy(items, plan)
    k = len(greedy)
    if k <= 1:
        return greedy
    left = sum(max(1, r.prompt_tokens) for r in items)
    batches: list[list[T]] = []
    current: list[T] = []
    tokens = 0
    for item in items:
        n = max(1, item.prompt_tokens)
        share = left / (k - len(batches))
        full = len(current) >= plan.max_batch or tokens + n > plan.token_budget
        # close the call when this item's midpoint lies past its share (never the last call)
        if current and len(batches) < k - 1 and (full or tokens + n / 2 > share):
            batches.append(current)
            left -= tokens
            current, tokens = [], 0
        current.append(item)
        tokens += n
    batches.append(current)
    if not all(_fits(b, plan) for b in batches):
        return greedy
    return batches
