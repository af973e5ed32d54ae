"""The GPU bench's child: one configuration, one engine, every phase (raw, pipeline, interactive, serial)."""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path

from gpu_common import MARKET, Clock, load_configs, load_variants, log, spread, versions
from gpu_engine import (
    cache_delta,
    chat_tokens,
    check_outputs,
    child_settings,
    gpu_info,
    make_engine,
    market_items,
    prefix_counters,
    recorder,
    reset_cache,
    salted_generate,
)
from gpu_kernels import profiler_args, run_kernels


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
    sizes = [n for n in (phase_size(p) for p in phases) if n]
    market = market_items(max([a.n, *sizes]))  # the first --n stocks are the same for every size
    items = market[: a.n]

    extra_args = None
    profile_dir = Path(a.out) / "profile" / a.config
    if "kernels" in phases:  # vLLM's profiler, armed for the kernels phase only (bench/gpu_kernels.py)
        profile_dir.mkdir(parents=True, exist_ok=True)
        extra_args = profiler_args(profile_dir, a.profile_steps)
    t0 = time.perf_counter()
    try:
        engine = make_engine(es, model_dir, continuous=cfg.get("continuous", True), extra_args=extra_args)
    except Exception as exc:
        record("load", error=f"{type(exc).__name__}: {exc}"[:2000], seconds=round(time.perf_counter() - t0, 1),
               engine_settings=es.model_dump())
        raise
    load_s = time.perf_counter() - t0
    fast_engine = None
    if cfg.get("fast_engine"):  # a second engine for the fast lane alone, on the same GPU, started after the first
        t = time.perf_counter()
        fast_es = es.model_copy(update=cfg["fast_engine"])
        try:
            fast_engine = make_engine(fast_es, model_dir)
        except Exception as exc:
            record("load", error=f"fast engine: {type(exc).__name__}: {exc}"[:2000],
                   fast_engine_settings=fast_es.model_dump())
            raise
        record("fast_engine", load_s=round(time.perf_counter() - t, 1), fast_engine_settings=fast_es.model_dump())
    header = record(
        "load", load_s=round(load_s, 1), engine_load_s=round(engine.load_seconds, 1), **gpu_info(),
        versions=versions(), engine_settings=es.model_dump(), batcher=batcher.model_dump(),
        worker=worker.model_dump(), stats_available=prefix_counters() is not None,
        engine_class=type(engine).__name__, cache_block_size=engine.cache_block_size(), scheduler=engine.scheduler(),
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

    # 16 by default (what runs 1-29 did); --warmup 512 gives the engine a full batch's shapes first (run 26:
    # the first phase after a cold start ran its prefill-carrying steps at 315 ms, 183 ms in the next start)
    warm = prepared[: min(a.warmup, max(2, len(prepared) // 4))]
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

    for i, phase in enumerate(phases):
        if any(getattr(getattr(e, "llm", None), "errored", False) for e in (engine, fast_engine) if e is not None):
            for rest in phases[i:]:  # vLLM's engine core is dead (run 34: a CUDA OOM): nothing more can run
                record(rest, skipped="the engine died in an earlier phase")
            break
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
            elif phase_base(phase) == "pipeline":
                run_pipeline(a, base, es, batcher, variant_worker(worker, phase), engine,
                             market[: phase_size(phase) or a.n], prepare_s, clock, record, label=phase,
                             fast_engine=fast_engine)
            elif phase_base(phase) == "interactive":
                run_interactive_phase(a, base, es, batcher, variant_worker(worker, phase), engine,
                                      market[: phase_size(phase) or a.n], prepare_s, clock, record, label=phase,
                                      fast_engine=fast_engine)
            elif phase == "kernels":
                if clock.left() < 60:  # 512 requests plus writing and reading the trace
                    record(phase, skipped=f"{clock.left():.0f} s left")
                    continue
                order = list(prepared)
                random.Random(3).shuffle(order)
                run_kernels(engine, [p.request for p in order[1:513]], order[0].request, profile_dir, record)
            elif phase == "serial":
                run_serial(a, es, engine, prepared, model_dir, clock, record)
            else:
                record(phase, error=f"unknown phase {phase!r}")
        except Exception as exc:  # one phase failing must not lose the others
            log.exception("phase %s failed", phase)
            record(phase, error=f"{type(exc).__name__}: {exc}"[:2000])
    for each in (fast_engine, engine):
        try:
            if each is not None:
                each.close()
        except Exception:
            pass
    return 0


class BenchQueue:
    """A worker thread on the bench's engine, serving a queue of its own keys, for the pipeline phases."""

    def __init__(self, a, base, es, batcher, worker_settings, engine, fast_engine=None) -> None:
        from screening.config import RedisSettings
        from screening.queue.client import JobQueue

        self.prefix = f"gb{uuid.uuid4().hex[:10]}"  # own keys: the same-day result cache can never hit
        rs = RedisSettings(**{**base.redis.model_dump(), "url": a.redis_url, "prefix": self.prefix})
        self.settings = base.model_copy(update={"engine": es, "batcher": batcher, "worker": worker_settings,
                                                "redis": rs})
        self.engine = engine
        self.stop = threading.Event()
        self.failure: list[BaseException] = []
        self.worker = None  # the Worker, once its thread built it (its fast_traces are read after the phase)
        self.fast_worker = None  # with a fast engine: the second worker, claiming the fast lane only
        self.queue = JobQueue(rs.url, rs)
        self.fast_engine, self.fast_thread = fast_engine, None
        if fast_engine is not None:  # the bulk worker leaves the fast lane to the fast engine's worker
            self.fast_thread = threading.Thread(target=self._work, args=(self._lanes(["fast"]), fast_engine,
                                                                         "fast_worker"),
                                                name="gpu-bench-fast-worker", daemon=True)
            self.settings = self._lanes(["bulk"])
        self.thread = threading.Thread(target=self._work, args=(self.settings, engine, "worker"),
                                       name="gpu-bench-worker", daemon=True)

    def _lanes(self, lanes: list[str]):
        return self.settings.model_copy(update={"worker": self.settings.worker.model_copy(update={"lanes": lanes})})

    def _work(self, settings, engine, slot: str) -> None:
        """Build a Worker in this thread, keep it in ``slot`` (its traces are read after the phase), run it."""
        from screening.queue.worker import Worker

        try:
            worker = Worker(settings, engine, f"bench-{slot}-{self.prefix}", self.stop)
            setattr(self, slot, worker)
            worker.run()
        except BaseException as exc:  # reported by the phase
            self.failure.append(exc)

    def alive(self) -> bool:
        """No worker thread has died (a dead engine ends the phase now, not at the budget)."""
        return not self.failure

    @property
    def traced(self):
        """The worker whose fast_traces tell the /screen legs: the fast engine's, when there is one."""
        return self.fast_worker if self.fast_thread is not None else self.worker

    def __enter__(self) -> BenchQueue:
        self.reset = reset_cache(self.engine)
        if self.fast_engine is not None:
            reset_cache(self.fast_engine)
        self.before = prefix_counters()
        self.calls, self.requests = self.engine.stats.calls, self.engine.stats.requests
        self.thread.start()
        if self.fast_thread is not None:
            self.fast_thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=60)
        if self.fast_thread is not None:
            self.fast_thread.join(timeout=60)
        self.queue.close()

    def fields(self) -> dict:
        """What every pipeline phase records about the engine and the worker."""
        return {"engine_calls": self.engine.stats.calls - self.calls,
                "engine_requests": self.engine.stats.requests - self.requests, "cache_reset": self.reset,
                "worker_error": f"{type(self.failure[0]).__name__}: {self.failure[0]}" if self.failure else None,
                "worker_alive_after": self.thread.is_alive(), "fast_engine": self.fast_thread is not None,
                **cache_delta(self.before, prefix_counters()),
                # the sizes of the bulk groups the worker handed over (worker.bulk_refill_min shapes them)
                "bulk_groups": {"count": len(self.worker.bulk_groups), **spread(list(self.worker.bulk_groups))}
                if self.worker is not None else None}


def pipeline_fits(a, items, prepare_s, clock, record, label: str) -> bool:
    if not a.redis_url:
        record(label, skipped="no redis server (give --redis-server PATH or put redis-server on PATH)")
        return False
    ok, why = clock.fits(clock.estimate(len(items), factor=1.3, extra=prepare_s + 15))
    if not ok:
        record(label, skipped=why)
    return ok


def run_pipeline(a, base, es, batcher, worker_settings, engine, items, prepare_s, clock, record,
                 label: str = "pipeline", fast_engine=None) -> None:
    """Enqueue the market as one bulk job, a worker thread on the same engine, wait for every row."""
    from screening.ops.bench.interactive import wait_alive
    from screening.screen.rules import FLAG_UNPARSABLE

    if not pipeline_fits(a, items, prepare_s, clock, record, label):
        return
    with BenchQueue(a, base, es, batcher, worker_settings, engine, fast_engine) as bq:
        t = time.perf_counter()
        job_id = bq.queue.submit(items, lane="bulk", source="gpu-bench")
        st = wait_alive(bq.queue, job_id, max(10.0, clock.left() - 5), bq.alive, poll_s=0.5)
        secs = time.perf_counter() - t
        rows = bq.queue.results(job_id)
    ok_rows = [r for r in rows if r.status == "ok"]
    valid = [r for r in ok_rows if FLAG_UNPARSABLE not in r.flags]
    rate = len(ok_rows) / secs if secs else 0.0  # failed rows are no throughput (gpu_report.spoilt)
    record(label, stocks=len(items), rows=len(rows), worker_settings=worker_settings.model_dump(),
           finished=st.finished, state=st.state,
           seconds=round(secs, 2), req_s=round(rate, 2), whole_market_s=round(MARKET / rate, 1) if rate else None,
           ok_rows=len(ok_rows), valid=len(valid), valid_pct=round(100.0 * len(valid) / len(rows), 2) if rows else None,
           failed_rows=len(rows) - len(ok_rows),
           ratio_to_best_raw=round(rate / clock.rate, 3) if clock.rate and rate else None, **bq.fields())


def run_interactive_phase(a, base, es, batcher, worker_settings, engine, items, prepare_s, clock, record,
                          label: str = "interactive", fast_engine=None) -> None:
    """The pipeline's bulk job again, with a two-stock fast-lane job every ``--fast-every`` seconds
    (or the cadence the phase names, ``interactive:3``), and each fast job's legs from the worker."""
    from screening.ops.bench.interactive import run_interactive
    from screening.queue.fast_trace import leg_summary

    if not pipeline_fits(a, items, prepare_s, clock, record, label):
        return
    every = phase_every(label) or a.fast_every
    with BenchQueue(a, base, es, batcher, worker_settings, engine, fast_engine) as bq:
        res = run_interactive(bq.queue, items, every_s=every, min_jobs=a.fast_jobs, max_waiting=a.fast_max_waiting,
                              timeout_s=max(10.0, clock.left() - 10), alive=bq.alive)
    summary = res.summary()
    traces = list(bq.traced.fast_traces) if bq.traced is not None else []  # in the order the jobs finished
    traces.sort(key=lambda t: t["submit_wall"])  # submission order, as the jobs came: not sorted by latency
    under = [t for t in traces if t.get("bulk_age_s") is not None]
    record(label, stocks=len(items), every_s=every, **summary, seconds=summary["bulk_seconds"],
           req_s=summary["bulk_stocks_per_s"], worker_settings=worker_settings.model_dump(),
           whole_market_s=round(MARKET / res.bulk_rate, 1) if res.bulk_rate else None,
           ratio_to_best_raw=round(res.bulk_rate / clock.rate, 3) if clock.rate and res.bulk_rate else None,
           latencies_s=[round(x, 2) for x in res.latencies], breakdown_under_load=leg_summary(under),
           breakdown_idle=leg_summary([t for t in traces if t.get("bulk_age_s") is None]),
           fast_traces=traces, **bq.fields())


def phase_base(phase: str) -> str:
    """``interactive:3/5400@hold`` -> ``interactive``: the phase without its cadence, size and worker variant."""
    return phase.split("@", 1)[0].split("/", 1)[0].split(":", 1)[0]


def phase_every(phase: str) -> float | None:
    """The cadence a phase names (``interactive:3`` -> 3.0 s), else None (``--fast-every``)."""
    head = phase.split("@", 1)[0].split("/", 1)[0]
    return float(head.split(":", 1)[1]) if ":" in head else None


def phase_size(phase: str) -> int | None:
    """The bulk job's size a phase names (``interactive:3/5400`` -> 5,400 stocks), else None (``--n``).

    Why: the issue's realistic morning is a few /screen calls during a whole-market (5,400-stock) job,
    while the pipeline's throughput phases stay at ``--n`` to fit a lease's time.
    """
    head = phase.split("@", 1)[0]
    return int(head.split("/", 1)[1]) if "/" in head else None


def variant_worker(worker, phase: str):
    """The worker settings of the variant a phase names (``pipeline@hold``: configs.json ``_variants``)."""
    if "@" not in phase:
        return worker
    name = phase.split("@", 1)[1]
    variants = load_variants()
    if name not in variants:
        raise ValueError(f"unknown worker variant {name!r}; known: {', '.join(variants)}")
    return worker.model_copy(update=variants[name])


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

