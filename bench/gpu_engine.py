"""The GPU bench's engine side: building the engine, vLLM's counters, checking answers, recording phases."""

from __future__ import annotations

import argparse
import json
import subprocess
import time
import uuid
from pathlib import Path

from gpu_common import MARKET, append_jsonl, build_model_dir, log, spread


def make_engine(es, model_dir: Path, continuous: bool = True, extra_args: dict | None = None):
    """The worker's engine with vLLM's stat logging on, so the metrics have the prefix-cache counters.

    ``continuous`` (the default, what ``python -m screening worker`` runs): AsyncVllmEngine, one
    long-lived ``AsyncLLM`` with priority scheduling. Otherwise VllmEngine, the batch-shaped
    ``LLM``, which defaults to ``disable_log_stats=True``: that default is changed for this one
    construction only. ``extra_args`` (the kernels phase's profiler) reach the continuous engine only.
    """
    if continuous:
        from screening.engines.async_vllm import AsyncVllmEngine

        return AsyncVllmEngine(es, str(model_dir), log_stats=True, extra_args=extra_args)
    import vllm

    from screening.engines.vllm_engine import VllmEngine

    original = vllm.LLM

    def with_stats(*args, **kwargs):
        kwargs.setdefault("disable_log_stats", False)
        return original(*args, **kwargs)

    vllm.LLM = with_stats
    try:
        return VllmEngine(es, str(model_dir))
    finally:
        vllm.LLM = original


def prefix_counters(_engine=None) -> tuple[float, float] | None:
    """(hits, queries) in tokens from vLLM's Prometheus metrics (process-wide), or None without them.

    ``LLM.get_metrics()`` is this same snapshot; AsyncLLM has no such method, so the reader is used
    for both engines.
    """
    try:
        from vllm.v1.metrics.reader import get_metrics_snapshot

        metrics = get_metrics_snapshot()
    except Exception:  # an older layout, or stat logging off
        return None
    hits = queries = 0.0
    found = False
    for m in metrics:
        name = getattr(m, "name", "")
        if "external" in name or not hasattr(m, "value"):
            continue
        if name.endswith("prefix_cache_hits") or name.endswith("prefix_cache_hits_total"):
            hits += float(m.value)
            found = True
        elif name.endswith("prefix_cache_queries") or name.endswith("prefix_cache_queries_total"):
            queries += float(m.value)
            found = True
    return (hits, queries) if found else None


def cache_delta(before, after) -> dict:
    if before is None or after is None:
        return {"prefix_cache": "n/a"}
    hits, queries = after[0] - before[0], after[1] - before[1]
    return {"prefix_cache": {"hit_tokens": int(hits), "query_tokens": int(queries),
                             "hit_rate": round(hits / queries, 4) if queries else None}}


def reset_cache(engine) -> bool:
    """Empty the prefix cache of either engine; False (and a warning) when vLLM would not."""
    llm = getattr(engine, "llm", None)
    if llm is None:
        return False
    try:
        if getattr(engine, "continuous", False):
            return bool(engine._call(llm.reset_prefix_cache()))
        return bool(llm.reset_prefix_cache())
    except Exception as exc:  # not fatal: the record says so
        log.warning("reset_prefix_cache failed: %s", exc)
        return False


def chat_tokens(tokenizer, messages: list[dict]) -> int:
    """Prompt tokens with the chat template, whatever apply_chat_template returns.

    transformers 5 returns a BatchEncoding (a Mapping, not a dict) where 4.x returned a list.
    """
    from screening.engines.base import CHAT_TEMPLATE_KWARGS  # as the product renders: no <think> block

    ids = tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True, **CHAT_TEMPLATE_KWARGS)
    if hasattr(ids, "keys") and "input_ids" in ids.keys():
        ids = ids["input_ids"]
    return len(ids)


def check_outputs(outs) -> dict:
    from pydantic import ValidationError

    from screening.engines.answer import parse_answer

    valid = cut = 0
    for o in outs:
        if o.finish_reason == "length":
            cut += 1
        if o.error:
            continue
        try:
            parse_answer(o.text)
            valid += 1
        except (ValueError, ValidationError):
            pass
    n = len(outs)
    return {"valid": valid, "valid_pct": round(100.0 * valid / n, 2) if n else None, "cut_length": cut,
            "errors": sum(1 for o in outs if o.error),
            "output_tokens": spread([o.output_tokens for o in outs]),
            "prompt_tokens_engine": spread([o.prompt_tokens for o in outs])}


def gpu_info() -> dict:
    info: dict = {}
    try:
        import torch

        if torch.cuda.is_available():
            info["gpu"] = torch.cuda.get_device_name(0)
            info["gpu_memory_gib"] = round(torch.cuda.get_device_properties(0).total_memory / 2**30, 1)
    except Exception as exc:
        info["gpu_error"] = str(exc)
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        if smi.returncode == 0 and smi.stdout.strip():
            info["nvidia_smi"] = smi.stdout.strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError):
        pass
    if "gpu" not in info:
        from screening.ops.bench.common import machine

        info["gpu"] = "none (CPU): " + machine()
    return info


def recorder(a: argparse.Namespace, cfg: dict):
    """``record(phase, **fields)``: one jsonl line now (a later crash loses nothing), one log line."""
    jsonl = Path(a.out) / "results.jsonl"
    common = {"run_id": a.run_id, "config": a.config, "model": cfg["model"], "command": a.command}

    def record(phase: str, **fields) -> dict:
        rec = {**common, "phase": phase, "at": time.strftime("%Y-%m-%d %H:%M:%S"), "t_end": round(time.time(), 3),
               **fields}
        append_jsonl(jsonl, rec)
        short = {k: v for k, v in fields.items() if k in ("stocks", "seconds", "req_s", "valid_pct",
                                                         "prefix_cache", "skipped", "error", "load_s")}
        print(f"[gpu_bench] {a.config} {phase}: {json.dumps(short, ensure_ascii=False, default=str)}",
              flush=True)
        return rec

    return record


def child_settings(a: argparse.Namespace, cfg: dict):
    """(base settings, model folder, engine, batcher, worker settings) of one configuration."""
    from screening.config import BatcherSettings, EngineSettings, Settings, WorkerSettings, load_settings

    base = load_settings(a.base_config) if a.base_config else Settings()
    model_dir = build_model_dir(cfg["model"], Path(a.model_dir), Path(a.tokenizer_dir))
    # no LoRA unless the configuration names one: a base config's adapter (config.toml's "bundled") is
    # trained for another model than the shape benchmarked here
    es = EngineSettings(**{**base.engine.model_dump(), "kind": "vllm", "lora_adapter": "", **cfg["engine"],
                           "model": str(model_dir)})
    batcher = BatcherSettings(**{**base.batcher.model_dump(), **cfg["batcher"]})
    worker = WorkerSettings(**{**base.worker.model_dump(), **cfg["worker"]})
    return base, model_dir, es, batcher, worker


def market_items(n: int) -> list:
    from screening.data.synthetic import generate_market
    from screening.models import PoolItem

    return [PoolItem(i, s.code, s) for i, s in enumerate(generate_market(MARKET, seed=0)[:n])]


def salted_generate(engine, requests: list, params=None) -> list:
    """``engine.generate`` with a cache salt of its own per request: nothing is shared between requests.

    The engine keeps prefix caching on; what the salt turns off is exactly what caching buys this
    job (the system prompt reused by every stock), without a second engine start. The chat
    template is rendered the way the engines render it and handed over as text.
    """
    from screening.engines.base import CHAT_TEMPLATE_KWARGS, EngineOutput

    tok = engine.tokenizer
    prompts = [{"prompt": tok.apply_chat_template(r.messages, tokenize=False, add_generation_prompt=True,
                                                  **CHAT_TEMPLATE_KWARGS),
                "cache_salt": uuid.uuid4().hex} for r in requests]
    params = params or engine.params
    if getattr(engine, "continuous", False):
        import asyncio

        async def one(prompt: dict, rid: str):
            final = None
            async for out in engine.llm.generate(prompt, params, request_id=rid):
                final = out
            return final

        async def every():
            return await asyncio.gather(*(one(p, f"salted-{i}-{uuid.uuid4().hex[:6]}") for i, p in enumerate(prompts)))

        results = engine._call(every())
    else:
        results = engine.llm.generate(prompts, params, use_tqdm=False)
    return [EngineOutput(r.key, res.outputs[0].text, res.outputs[0].finish_reason,
                         prompt_tokens=len(res.prompt_token_ids or []), output_tokens=len(res.outputs[0].token_ids))
            for r, res in zip(requests, results, strict=True)]


