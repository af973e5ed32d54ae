"""``python -m screening bench``: measured, never asserted. Appends a section to bench/RESULTS.md.

One process, one engine, the same pool for every variant, so the ratios compare like with
like: raw engine (``LLM.chat`` on pre-built prompts) vs the full screen path (rules,
prompt building, token counting, batching, validation, merging) with bucketing on and off.
``--queue`` adds the Redis path (enqueue -> worker process -> stored results) with the rules
engine against the direct rules engine, to show what the queue itself costs.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from .config import Settings, load_settings
from .models import PoolItem, StockInput
from .pipeline import Prepared, Screener
from .synthetic import generate_market


@dataclass
class Timing:
    label: str
    stocks: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.stocks / self.seconds if self.seconds else float("inf")


def sample_pool(n: int, seed: int = 7) -> list[PoolItem]:
    """A random slice of the synthetic market (stable for a given n), so report lengths vary."""
    market = generate_market(5400, seed=0)
    picked: list[StockInput] = random.Random(seed).sample(market, min(n, len(market)))
    return [PoolItem(i, s.code, s) for i, s in enumerate(picked)]


def _version(pkg: str) -> str:
    for name in (pkg, f"{pkg}-cpu"):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return "-"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, {platform.system()} {platform.release()}"


def bench_engine(settings: Settings, n: int, kind: str) -> tuple[list[Timing], dict]:
    from .engines import make_engine

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


def write_results(path: Path, title: str, timings: list[Timing], info: dict, command: str) -> str:
    lines = [
        f"\n## {title} ({time.strftime('%Y-%m-%d %H:%M')})",
        "",
        f"- command: `{command}`",
        f"- machine: {machine()}",
        f"- versions: python {platform.python_version()}, vllm {_version('vllm')}, "
        f"torch {_version('torch')}, transformers {_version('transformers')}, redis-py {_version('redis')}",
    ]
    for key, value in info.items():
        lines.append(f"- {key}: {value:.1f}" if isinstance(value, float) else f"- {key}: {value}")
    lines += ["", "| variant | stocks | seconds | stocks/s |", "|---|---:|---:|---:|"]
    lines += [f"| {t.label} | {t.stocks} | {t.seconds:.2f} | {t.rate:.2f} |" for t in timings]
    if len(timings) >= 2:
        base = timings[0]
        lines.append("")
        for t in timings[1:]:
            lines.append(f"- ratio {t.label} / {base.label}: {t.rate / base.rate:.3f}")
    text = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(
            "# Benchmark results\n\nAppended by `python -m screening bench`; "
            "every figure with the command and machine that produced it.\n"
        )
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)
    return text


def main(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    if getattr(args, "prepare", False):
        from .bench_prepare import bench_prepare

        p_timings, p_info = bench_prepare(settings)
        title = "CPU: preparing the whole market before the first engine call"
        print(write_results(Path(args.results), title, p_timings, p_info, "python -m screening bench --prepare"))
        return 0
    command = f"python -m screening bench --n {args.n} --engine {args.engine}" + (" --queue" if args.queue else "")
    timings, info = bench_engine(settings, args.n, args.engine)
    print(write_results(Path(args.results), f"CPU: {args.engine} engine, raw vs screen path", timings, info, command))
    if args.queue:
        from .bench_queue import bench_queue

        q_timings, q_info = bench_queue(settings)
        print(
            write_results(
                Path(args.results), "Queue: direct rules engine vs Redis queue + worker", q_timings, q_info, command
            )
        )
    return 0
