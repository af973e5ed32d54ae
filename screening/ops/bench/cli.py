"""``python -m screening bench``: measured, never asserted. Appends a section to bench/RESULTS.md.

One process, one engine, the same pool for every variant, so the ratios compare like with
like: raw engine (``LLM.chat`` on pre-built prompts) vs the full screen path (rules,
prompt building, token counting, batching, validation, merging) with bucketing on and off.
``--queue`` adds the Redis path (enqueue -> worker process -> stored results) with the rules
engine against the direct rules engine, to show what the queue itself costs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from screening.config import load_settings
from screening.ops.bench.common import write_results
from screening.ops.bench.engine import bench_engine


def main(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    if getattr(args, "prepare", False):
        from screening.ops.bench.prepare import bench_prepare  # tokenizer only: loaded when asked

        p_timings, p_info = bench_prepare(settings)
        title = "CPU: preparing the whole market before the first engine call"
        print(write_results(Path(args.results), title, p_timings, p_info, "python -m screening bench --prepare"))
        return 0
    if getattr(args, "faults", False):
        from screening.ops.bench.faults import bench_faults  # worker processes and Redis restarts

        f_timings, f_info = bench_faults(settings)
        title = "Faults: load, worker kills, Redis restarts and an outage (every stock once?)"
        print(write_results(Path(args.results), title, f_timings, f_info, "python -m screening bench --faults"))
        return 0
    if getattr(args, "interactive", False):
        from screening.ops.bench.interactive import bench_interactive  # a worker process: loaded when asked

        i_timings, i_info = bench_interactive(settings, n=args.n, every_s=args.fast_every, min_jobs=args.fast_jobs)
        title = "CPU: interactive under load (fast jobs during a bulk job, real worker)"
        command = (f"python -m screening bench --interactive --n {args.n} --fast-every {args.fast_every} "
                   f"--fast-jobs {args.fast_jobs}")
        print(write_results(Path(args.results), title, i_timings, i_info, command))
        return 0
    command = f"python -m screening bench --n {args.n} --engine {args.engine}" + (" --queue" if args.queue else "")
    timings, info = bench_engine(settings, args.n, args.engine)
    print(write_results(Path(args.results), f"CPU: {args.engine} engine, raw vs screen path", timings, info, command))
    if args.queue:
        from screening.ops.bench.queue import bench_queue

        q_timings, q_info = bench_queue(settings)
        print(
            write_results(
                Path(args.results), "Queue: direct rules engine vs Redis queue + worker", q_timings, q_info, command
            )
        )
    return 0
