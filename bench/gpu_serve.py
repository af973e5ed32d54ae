"""The GPU bench's serve child: the same engine behind `vllm serve`, through the product's openai engine."""

from __future__ import annotations

import argparse
import logging
import os
import random
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from gpu_common import MARKET, REPO, Clock, load_configs, log, versions
from gpu_engine import cache_delta, check_outputs, child_settings, gpu_info, market_items, recorder
from gpu_report import read_records

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

    from screening.engines.vllm_engine import llm_kwargs, serve_flags, use_moe_configs
    from screening.runtime.local_redis import free_port

    port = free_port()
    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir),
           "--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(port),
           *serve_flags(llm_kwargs(es, str(model_dir)))]
    log_path = Path(a.out) / "logs" / f"{a.config}-serve.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    use_moe_configs(es)  # the server gets the tuned fused-MoE tables as the in-process engine does
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

