"""The engine bench: raw engine (pre-built prompts, one call) vs the full screen path, bucketing on and off.

One process, one engine, the same pool for every variant, so the ratios compare like with like.
"""

from __future__ import annotations

import statistics
import time

from screening.config import Settings
from screening.ops.bench.common import Timing, sample_pool
from screening.screen.pipeline import Prepared, Screener


def bench_engine(settings: Settings, n: int, kind: str) -> tuple[list[Timing], dict]:
    from screening.engines import make_engine

    items = sample_pool(n)
    t0 = time.perf_counter()
    engine = make_engine(settings.engine, kind)
    load_s = time.perf_counter() - t0
    try:
        on = Screener(engine, settings.engine, settings.batcher.model_copy(update={"enabled": True}))
        off = Screener(engine, settings.engine, settings.batcher.model_copy(update={"enabled": False}))
        prepared = [p for p in (on.prepare(i) for i in items) if isinstance(p, Prepared)]
        tokens = sorted(p.prompt_tokens for p in prepared)
        warm = prepared[: min(8, len(prepared))]
        engine.generate([p.request for p in warm])  # warm-up: first-call costs
        timings = []
        # every phase starts with an empty prefix cache: the same prompts run three times, and a
        # phase must not be served from the cache its predecessor filled (the system prompt is
        # still shared within a phase, as in production)
        engine.reset_cache()
        t = time.perf_counter()
        engine.generate([p.request for p in prepared])
        timings.append(Timing("raw engine (pre-built prompts, one call)", len(prepared), time.perf_counter() - t))
        for label, screener in (("screen path, bucketing on", on), ("screen path, bucketing off", off)):
            engine.reset_cache()
            t = time.perf_counter()
            rows = screener.run(items)
            timings.append(Timing(label, len(rows), time.perf_counter() - t))
        info = {
            "engine": kind,
            "model": engine.model_id,
            "load_s": load_s,
            "stocks": len(items),
            "screenable": len(prepared),
            "prompt_tokens": (tokens[0], int(statistics.median(tokens)), tokens[-1]) if tokens else (0, 0, 0),
            "mean_prompt_tokens": statistics.fmean(tokens) if tokens else 0,
        }
        return timings, info
    finally:
        engine.close()
