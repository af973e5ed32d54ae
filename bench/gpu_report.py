"""The GPU bench's report: markdown sections for bench/RESULTS.md from results.jsonl."""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from gpu_common import read_kept
from gpu_kernels import kernel_lines

from screening.queue.fast_trace import pct


# --------------------------------------------------------------------------------------------
# markdown
# --------------------------------------------------------------------------------------------
def _fmt(v, digits: int = 2) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _hit(rec: dict) -> str:
    pc = rec.get("prefix_cache")
    if isinstance(pc, dict):
        return "-" if pc.get("hit_rate") is None else f"{100 * pc['hit_rate']:.1f}%"
    return pc or "n/a"


SERVE_HEADER = ("gpu", "nvidia_smi", "versions", "engine_settings")  # serve_load fields a section header shows


def spoilt(r: dict) -> str | None:
    """Why a pipeline or interactive phase's throughput is no figure: failed rows or a worker that died.

    Run 34 (H100, 2026-12-05) reported 163.41 stocks/s for a phase in which the engine died and 1,785 of its
    2,400 rows were written as failed within two seconds.
    """
    failed = r.get("failed_rows") or r.get("bulk_failed") or r.get("fast_failed") or 0
    err = r.get("worker_error")
    if not failed and not err:
        return None
    return ", ".join(x for x in (f"{failed} failed row(s)" if failed else "",
                                 f"worker error {' '.join(str(err).split())[:200]}" if err else "") if x)


def render_section(recs: list[dict]) -> str:
    """One markdown section for one configuration of one run, from its jsonl records."""
    by: dict[str, dict] = {}
    for r in recs:
        if not spoilt(r):  # a phase whose rows failed gives no figure to the notes either
            by.setdefault(r["phase"], r)
    first = recs[0]
    # the in-process engine's header; a serve-only run has the server's instead (no batcher there)
    load = by.get("load") or {k: v for k, v in by.get("serve_load", {}).items() if k in SERVE_HEADER}
    prompts = by.get("prompts", {})
    eng = load.get("engine_settings") or {}
    keys = ("dtype", "quantization", "max_num_batched_tokens", "max_num_seqs", "async_scheduling", "guided_backend",
            "enable_prefix_caching", "enforce_eager", "max_model_len", "gpu_memory_utilization", "kv_cache_gib",
            "load_format")
    lines = [
        f"\n## GPU bench: {first['config']} ({first['model']}), {first['at'][:16]}",
        "",
        f"- command: `{first['command']}`",
        f"- run id: {first['run_id']}",
        f"- GPU: {load.get('gpu', '?')}" + (f" ({load['nvidia_smi']})" if load.get("nvidia_smi") else ""),
        "- versions: " + ", ".join(f"{k} {v}" for k, v in (load.get("versions") or {}).items())
        + (f", {load['redis']}" if load.get("redis") else ""),
        "- engine: " + ", ".join(f"{k}={eng.get(k)}" for k in keys if k in eng),
    ]
    if load.get("scheduler"):  # what vLLM settled on; a None above is vLLM's own choice (runs before 19: not kept)
        lines.append("- vLLM scheduler at start: " + ", ".join(f"{k}={v}" for k, v in load["scheduler"].items()))
    if load.get("batcher"):
        lines.append("- pipeline: batcher " + json.dumps(load["batcher"]) + ", worker batch_stocks "
                     + str((load.get("worker") or {}).get("batch_stocks", "?")))
    if "error" in load:
        lines.append(f"- **engine failed to start**: {load['error'][:600]}")
    elif "load" in by:
        lines.append(f"- engine load: {_fmt(load.get('load_s'), 1)} s")
    if prompts:
        pt = prompts.get("prompt_tokens") or {}
        lines.append(
            f"- prompts: {prompts.get('stocks')} stocks, {prompts.get('screenable')} screenable; prompt tokens "
            f"min/median/p90/max {pt.get('min')}/{pt.get('median')}/{pt.get('p90')}/{pt.get('max')} "
            f"(mean {pt.get('mean')}); system prompt {prompts.get('system_prompt_tokens')} tokens; "
            f"prepare (rules + prompt + token count) {_fmt(prompts.get('prepare_s'))} s"
        )
        sp = prompts.get("shared_prefix")
        if sp:
            lines.append(f"- shared prefix (risk_signals={prompts.get('risk_signals')}): {sp['prefix_tokens']} tokens"
                         " = "
                         f"{sp['full_blocks']} cache block(s) of {sp['block_size']} (block size read from the engine; "
                         f"{sp['reused_tokens']} reusable per stock, {sp['spare_tokens']} recomputed)")
        if prompts.get("product_count_matches") is False:
            pc = prompts.get("product_count_prompt_tokens") or {}
            lines.append(f"- **the product's prompt ids disagree**: min/median/max "
                         f"{pc.get('min')}/{pc.get('median')}/{pc.get('max')} (the batcher plans with it)")
    lines += ["", "| phase | stocks | seconds | stocks/s | whole market (5,400) s | valid JSON | cut (length) "
              "| output tokens mean | prefix-cache hit |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    seen: dict[str, int] = {}
    for r in (r for r in recs if _base(r["phase"]) in TABLE_PHASES):  # in the order they ran (order matters)
        phase = r["phase"]
        seen[phase] = seen.get(phase, 0) + 1
        if seen[phase] > 1:
            phase = f"{phase} #{seen[phase]}"
        if r.get("skipped") or r.get("error") or spoilt(r):
            why = (f"skipped: {r['skipped']}" if r.get("skipped") else f"error: {r['error'][:200]}" if r.get("error")
                   else f"**no figure**: {spoilt(r)}")
            lines.append(f"| {phase} | {why} | | | | | | | |")
            continue
        n = r.get("rows", r.get("bulk_rows", r.get("stocks")))
        valid = f"{r.get('valid')}/{n} ({_fmt(r.get('valid_pct'))}%)" if r.get("valid") is not None else "-"
        out_mean = (r.get("output_tokens") or {}).get("mean")
        shown = f"{n} of {r.get('stocks')}, **cut at the budget**" if cut(r) else n
        lines.append(f"| {phase} | {shown} | {_fmt(r.get('seconds'))} | {_fmt(r.get('req_s'))} | "
                     f"{_fmt(r.get('whole_market_s'), 1)} | {valid} | {_fmt(r.get('cut_length'))} | "
                     f"{_fmt(out_mean, 1)} | {_hit(r)} |")
    rate = {p: by[p]["req_s"] for p in by if by[p].get("req_s")}
    notes = []
    it = by.get("interactive")
    if it and not it.get("skipped") and not it.get("error"):
        rate["interactive"] = it.get("bulk_stocks_per_s")
        notes.append(f"interactive under load: {it.get('fast_finished')}/{it.get('fast_jobs')} two-stock fast jobs "
                     f"(one every {it.get('every_s')} s, {it.get('fast_submitted_during_bulk')} while the bulk job "
                     "ran), "
                     f"submit -> last row p50 {_fmt(it.get('p50_s'))} s, p95 {_fmt(it.get('p95_s'))} s, "
                     f"max {_fmt(it.get('max_s'))} s; bulk {_fmt(it.get('bulk_stocks_per_s'))} stocks/s"
                     + (f" = {rate['interactive'] / rate['pipeline']:.3f}x the pipeline without them"
                        if rate.get("pipeline") and rate.get("interactive") else ""))
    if "raw" in rate and "sorted" in rate:
        notes.append(f"sorted / random order: {rate['sorted'] / rate['raw']:.3f}")
    if "pipeline" in rate:
        for p, what in (("raw", "raw, random order"), ("sorted", "raw, sorted by length"),
                        ("raw_ids", "raw given token ids")):
            if p in rate:
                notes.append(f"pipeline / {what}: {rate['pipeline'] / rate[p]:.3f}")
        pr = by["pipeline"]
        werr = f", worker error {pr['worker_error']}" if pr.get("worker_error") else ""
        feed = (f"{pr.get('engine_requests')} requests fed one by one (AsyncLLM)" if not pr.get("engine_calls")
                else f"{pr.get('engine_calls')} engine calls")
        notes.append(f"pipeline: {feed}, {pr.get('failed_rows')} failed rows, "
                     f"finished={pr.get('finished')}{werr}")
    best = max((rate[p] for p in ("raw", "sorted") if p in rate), default=None)
    for p in ("serial", "serial_openai"):
        if best and p in rate:
            notes.append(f"batched (best raw) / {p}: {best / rate[p]:.1f}x")
    if "nocache" in rate and "raw" in rate:
        notes.append(f"prefix reuse on / off (a cache salt per request, random order): "
                     f"{rate['raw'] / rate['nocache']:.3f}")
    if "serve_batched" in rate:
        if best:
            notes.append(f"vllm serve through the openai engine (concurrency {by['serve_batched'].get('concurrency')})"
                         f" / in-process best raw: {rate['serve_batched'] / best:.3f}")
        if "serve_serial" in rate:
            ratio = rate["serve_batched"] / rate["serve_serial"]
            notes.append(f"batched / serial, both through vllm serve: {ratio:.1f}x")
    if by.get("serve_load"):
        sl = by["serve_load"]
        notes.append(f"vllm serve start: {_fmt(sl.get('load_s'), 1)} s" if "error" not in sl
                     else f"**vllm serve failed**: {sl['error'][-400:]}")
    if "unguided" in rate and "raw" in rate:
        notes.append(f"guided / unguided (random order, max_tokens {by['unguided'].get('max_tokens')}): "
                     f"{rate['raw'] / rate['unguided']:.3f}")
    if notes:
        lines.append("")
        lines += [f"- {n}" for n in notes]
    lines += repeat_lines(recs) + breakdown_lines(recs) + kernel_lines(recs)
    fails = [r for r in recs if r["phase"] == "child"]
    for r in fails:
        step = f" ({r['step']})" if r.get("step") else ""
        lines.append(f"- child process{step}: {r.get('status')}" + (f"; log tail: `{r.get('tail', '')[-300:]}`"
                                                               if r.get("status") != "ok" else ""))
    return "\n".join(lines) + "\n"


TABLE_PHASES = ("raw", "sorted", "raw_ids", "pipeline", "interactive", "serial", "serial_openai", "unguided",
                "nocache", "serve_batched", "serve_serial")


def _base(phase: str) -> str:
    return phase.split("@", 1)[0].split(":", 1)[0]


def cut(r: dict) -> bool:
    """A pipeline phase the budget stopped before its job finished (run 37: 2,321 of 2,400 rows in 27 s).

    Its rate leaves out the job's slowest tail, so it is shown as cut and kept out of the repeats' median.
    """
    return r.get("finished") is False


def _ok(r: dict) -> bool:
    return not r.get("skipped") and not r.get("error") and not spoilt(r)


def _median_range(values: list[float], digits: int = 2) -> str:
    v = sorted(values)
    return f"median {statistics.median(v):.{digits}f} (min {v[0]:.{digits}f}, max {v[-1]:.{digits}f}, n={len(v)})"


def repeat_lines(recs: list[dict]) -> list[str]:
    """Phases run more than once in this engine (``--phases pipeline,pipeline,pipeline``): median and spread."""
    groups: dict[str, list[dict]] = {}
    for r in recs:
        whole = _ok(r) and not cut(r) and r.get("req_s")
        if _base(r["phase"]) in ("pipeline", "interactive", "raw", "raw_ids", "sorted") and whole:
            groups.setdefault(r["phase"], []).append(r)
    out = []
    for phase, rs in groups.items():
        if len(rs) < 2:
            continue
        line = f"repeats of {phase}: stocks/s {_median_range([r['req_s'] for r in rs])}"
        if _base(phase) == "interactive":
            p95 = [r["p95_s"] for r in rs if r.get("p95_s") is not None]
            if p95:
                line += f"; fast-job p95 {_median_range(p95)} s"
        out.append(f"- {line}")
    return out


def breakdown_lines(recs: list[dict]) -> list[str]:
    """Each interactive phase: its fast jobs' legs (median / p95 / max s) under load, from the worker's traces."""
    out: list[str] = []
    # bulk alone: the median of this engine run's whole pipeline jobs of the same variant (before, the last
    # one that ran, whichever it was: run 38's 0.893x was against the fastest of its four, 86.35)
    pipeline: dict[str, list[float]] = {}
    for r in recs:
        if _base(r["phase"]) == "pipeline" and _ok(r) and not cut(r) and r.get("req_s"):
            pipeline.setdefault(r["phase"].split("@", 1)[-1] if "@" in r["phase"] else "", []).append(r["req_s"])
    for r in recs:
        if _base(r["phase"]) != "interactive" or not _ok(r):
            continue
        variant = r["phase"].split("@", 1)[1] if "@" in r["phase"] else ""
        rates = pipeline.get(variant)
        ratio = (f" = {r['req_s'] / statistics.median(rates):.3f}x the pipeline{'@' + variant if variant else ''} "
                 f"alone (median of {len(rates)})" if rates else "")
        ws = r.get("worker_settings") or {}
        pace = f", bulk paced {ws['bulk_admit_per_s']:g}/s" if ws.get("bulk_admit_per_s") else ""
        pace += f", bulk refilled in groups of >= {ws['bulk_refill_min']}" if ws.get("bulk_refill_min") else ""
        pace += ", /screen on an engine of its own (fast_engine)" if r.get("fast_engine") else ""
        out.append(f"- {r['phase']} (max_in_flight {ws.get('max_in_flight')}, fast_hold_bulk "
                   f"{ws.get('fast_hold_bulk')}{pace}): {r.get('fast_finished')}/{r.get('fast_jobs')} fast jobs, "
                   f"one every "
                   f"{r.get('every_s')} s, {r.get('fast_submitted_during_bulk')} during the bulk job; submit -> last "
                   f"row p50 {_fmt(r.get('p50_s'))} s, p95 {_fmt(r.get('p95_s'))} s, max {_fmt(r.get('max_s'))} s; "
                   f"bulk {_fmt(r.get('req_s'))} stocks/s{ratio}")
        legs = r.get("breakdown_under_load") or {}
        if not legs:
            continue
        out += ["", f"  legs of the fast jobs claimed while the bulk job ran ({r['phase']}; seconds, slowest stock "
                    "of each job):", "",
                "  | leg | n | median | p95 | max |", "  |---|---:|---:|---:|---:|"]
        out += [f"  | {name} | {v['n']} | {_fmt(v['median'], 3)} | {_fmt(v['p95'], 3)} | {_fmt(v['max'], 3)} |"
                for name, v in legs.items()]
        per_token = decode_per_token(r.get("fast_traces") or [])
        if per_token:
            out += ["", f"  decode per output token (the engine's step time as each fast job saw it): {per_token}"]
        out.append("")
    return out


def decode_per_token(traces: list[dict]) -> str:
    """Median and p95 of (last token - first token) / (output tokens - 1) over a phase's fast jobs.

    Why: a /screen answer is ~40 tokens, so its decode leg is 40 engine steps; this says how long one step
    was while the bulk job ran (run 38, H100: 65 ms median, 137 ms p95, against ~13 ms once the bulk ended).
    """
    ms = sorted(1000 * (t["at"]["last_token"] - t["at"]["first_token"]) / (t["output_tokens"] - 1)
                for t in traces if t.get("output_tokens", 0) > 1 and {"first_token", "last_token"} <= set(t["at"]))
    if not ms:
        return ""
    tokens = [t["output_tokens"] for t in traces if t.get("output_tokens")]
    p95 = pct(ms, 0.95) or 0.0  # the nearest rank, as the legs' p95
    return (f"median {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, min {ms[0]:.0f} ms (n={len(ms)}; "
            f"{min(tokens)}-{max(tokens)} output tokens a request)")


# bulk requests in flight when a fast job was handed to the engine: the bins of ``inflight_lines``
INFLIGHT_BINS = ((0, 64), (64, 128), (128, 192), (192, 240), (240, 10**6))


def inflight_lines(traces: list[dict]) -> list[str]:
    """A markdown table: the fast jobs' decode step (ms a token) and total by bulk requests in flight at hand-over.

    Why: what a /screen's ~40 decode steps cost depends on what each step carries. If it is the bulk sequences
    in flight, fewer of them only near a /screen (the cooldown, ``worker.fast_cool_bulk``) is the lever; if not,
    it is not. Runs 51-53 (H100 machine T) put it at 5 ms a token below 64 in flight and 46 ms at 240-256.
    """
    rows = []
    for lo, hi in INFLIGHT_BINS:
        ms, total = [], []
        for t in traces:
            n, at = t.get("bulk_in_flight"), t.get("at") or {}
            if n is None or not lo <= n < hi or t.get("output_tokens", 0) <= 1 \
                    or not {"first_token", "last_token"} <= set(at):
                continue
            ms.append(1000 * (at["last_token"] - at["first_token"]) / (t["output_tokens"] - 1))
            total.append(t["total_s"])
        if ms:
            ms.sort()
            total.sort()
            label = f"{lo}-{hi - 1}" if hi < 10**6 else f">= {lo}"
            rows.append(f"| {label} | {len(ms)} | {statistics.median(ms):.1f} | {pct(ms, 0.9) or 0:.1f} | "
                        f"{statistics.median(total):.2f} | {pct(total, 0.95) or 0:.2f} |")
    if not rows:
        return []
    return ["| bulk in flight at hand-over | fast jobs | decode ms/token median | p90 | total s median | p95 |",
            "|---|---:|---:|---:|---:|---:|", *rows]


def cmd_inflight(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gpu_bench.py inflight",
                                description="fast jobs' decode step by bulk in flight, over runs' interactive phases")
    p.add_argument("jsonl", nargs="+")
    p.add_argument("--phase", default="interactive", help="phases whose name contains this (default: interactive)")
    a = p.parse_args(argv)
    traces = [t for path in a.jsonl for recs in read_records(Path(path)).values() for r in recs
              if a.phase in str(r.get("phase", "")) and _ok(r) for t in r.get("fast_traces") or []]
    print("\n".join(inflight_lines(traces)) or "no fast-job traces with bulk_in_flight in these runs")
    return 0


def append_markdown(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text("# Benchmark results\n\nEvery figure with the command and machine that produced it.\n",
                        encoding="utf-8")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)


def read_records(jsonl: Path, run_id: str | None = None) -> dict[tuple[str, str], list[dict]]:
    groups: dict[tuple[str, str], list[dict]] = {}
    if not jsonl.exists() and not jsonl.with_name(jsonl.name + ".gz").exists():
        return groups
    for line in read_kept(jsonl).splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        if run_id and rec.get("run_id") != run_id:
            continue
        groups.setdefault((rec["run_id"], rec["config"]), []).append(rec)
    return groups


def cmd_report(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gpu_bench.py report", description="markdown sections from results.jsonl")
    p.add_argument("jsonl")
    p.add_argument("--results", default=None, help="append here (default: print only)")
    p.add_argument("--run-id", default=None)
    a = p.parse_args(argv)
    for recs in read_records(Path(a.jsonl), a.run_id).values():
        text = render_section(recs)
        print(text)
        if a.results:
            append_markdown(Path(a.results), text)
    return 0

