"""Read a ``gpu_bench.py --probe`` run: per phase, where the vLLM engine core's wall time went.

    python bench/step_probe.py OUT [OUT ...]

OUT holds ``results.jsonl`` (each phase's ``t_end`` and ``seconds``) and ``probe/probe-<pid>.json``
(per-second sums from bench/probe_site/sitecustomize.py). For every phase and every process that ran
engine steps it prints, over the whole seconds inside the phase, each timed call's share of the wall
time and its milliseconds per engine step. Reading it: ``step`` is the engine core's loop body;
``wait_gpu`` inside it is the engine core blocked on the GPU (the GPU ahead of the CPU); the
scheduler, grammar and runner rows are CPU time on the engine core's thread, which the GPU waits
for whenever it runs out of queued work. A guided phase that spends more per step on the CPU rows
than an unguided one, with less ``wait_gpu``, is bound by the CPU, not by the GPU's kernels.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

ORDER = ["step", "wait_gpu", "schedule", "execute_model", "grammar_bitmask", "sample_tokens", "apply_bitmask",
         "sampler", "update_from_output", "accept_tokens", "input_queue"]
NESTED = {"wait_gpu": "step", "schedule": "step", "execute_model": "step", "grammar_bitmask": "step",
          "sample_tokens": "step", "update_from_output": "step", "apply_bitmask": "sample_tokens",
          "sampler": "sample_tokens", "accept_tokens": "update_from_output"}


def phases(out: Path) -> list[dict]:
    recs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    return [r for r in recs if r.get("t_end") and isinstance(r.get("seconds"), (int, float))
            and r["phase"] not in ("load", "warmup", "prompts")]


def probes(out: Path) -> dict | None:
    """Every process's sums in one: the engine core and, where vLLM runs it apart, the model runner."""
    merged: dict[str, list] = {}
    for path in sorted((out / "probe").glob("probe-*.json")):
        for name, cells in json.loads(path.read_text())["sums"].items():
            merged.setdefault(name, []).extend(cells)
    return {"sums": merged} if "step" in merged else None


def window_sums(probe: dict, start: float, end: float) -> tuple[int, dict[str, tuple[float, int]]]:
    """Whole seconds inside [start, end] and, per timed call, (seconds, calls) begun in them."""
    first, last = math.ceil(start), math.floor(end) - 1
    sums = {}
    for name, cells in probe["sums"].items():
        secs = sum(c[1] for c in cells if first <= c[0] <= last)
        calls = sum(c[2] for c in cells if first <= c[0] <= last)
        sums[name] = (secs, calls)
    return max(0, last - first + 1), sums


def report(out: Path) -> list[str]:
    lines = [f"### {out.name}", ""]
    probe = probes(out)
    if probe is None:
        return [*lines, "no probe data (was the run made with --probe?)", ""]
    for rec in phases(out):
        end, secs = float(rec["t_end"]), float(rec["seconds"])
        covered, sums = window_sums(probe, end - secs, end)
        steps = sums.get("execute_model", (0.0, 0))[1]
        if covered < 2 or not steps:
            continue
        lines.append(f"{rec['config']} {rec['phase']}: {secs:.1f} s, {rec.get('req_s')} stocks/s; "
                     f"{covered} whole seconds timed, {steps} engine steps ({1000 * covered / steps:.1f} ms each)")
        lines += ["", "| call | inside | share of wall | ms per step | calls |", "|---|---|---:|---:|---:|"]
        for name in ORDER:
            if name not in sums or not sums[name][1]:
                continue
            s, n = sums[name]
            lines.append(f"| {name} | {NESTED.get(name, '-')} | {100 * s / covered:.1f}% | "
                         f"{1000 * s / steps:.2f} | {n} |")
        lines.append("")
    return lines


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    for arg in argv:
        print("\n".join(report(Path(arg))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
