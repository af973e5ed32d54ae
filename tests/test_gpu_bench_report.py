"""The GPU bench's markdown report from jsonl records (pure: no engine, no GPU)."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "gpu_bench.py"


def _bench():
    spec = importlib.util.spec_from_file_location("gpu_bench_under_test", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


COMMON = {"run_id": "r1", "config": "moe-fp8-tuned", "model": "qwen3-30b-a3b", "command": "python bench/gpu_bench.py",
          "at": "2026-12-03 10:08:06"}


def test_serve_only_run_has_the_servers_header():
    """A run of only the serve phase has no in-process engine: GPU, versions and flags come from the server."""
    recs = [
        {**COMMON, "phase": "serve_load", "load_s": 266.1, "serve_command": "python -m vllm ...",
         "gpu": "NVIDIA H200", "nvidia_smi": "NVIDIA H200, 580.159.04, 143771 MiB",
         "versions": {"vllm": "0.26.0", "torch": "2.11.0"},
         "engine_settings": {"quantization": "fp8", "max_num_seqs": 512}},
        {**COMMON, "phase": "serve_batched", "stocks": 5400, "seconds": 71.95, "req_s": 75.05,
         "whole_market_s": 71.9, "valid": 5400, "valid_pct": 100.0, "concurrency": 1024},
        {**COMMON, "phase": "serve_serial", "stocks": 64, "seconds": 23.17, "req_s": 2.762,
         "whole_market_s": 1955.1, "valid": 64, "valid_pct": 100.0},
    ]
    text = _bench().render_section(recs)
    assert "- GPU: NVIDIA H200 (NVIDIA H200, 580.159.04, 143771 MiB)" in text
    assert "vllm 0.26.0" in text and "quantization=fp8" in text and "max_num_seqs=512" in text
    assert "batcher" not in text and "engine load" not in text  # no in-process engine, no pipeline here
    assert "vllm serve start: 266.1 s" in text
    assert "batched / serial, both through vllm serve: 27.2x" in text


def test_in_process_header_wins_and_shows_the_pipeline_settings():
    recs = [
        {**COMMON, "phase": "load", "load_s": 240.2, "gpu": "NVIDIA H200", "versions": {"vllm": "0.26.0"},
         "engine_settings": {"quantization": "fp8"}, "batcher": {"token_budget": 4194304, "max_batch": 2700},
         "worker": {"batch_stocks": 5400}},
        {**COMMON, "phase": "raw", "stocks": 5400, "seconds": 72.17, "req_s": 74.82, "valid": 5400,
         "valid_pct": 100.0},
        {**COMMON, "phase": "pipeline", "stocks": 5400, "rows": 5400, "seconds": 73.27, "req_s": 73.70,
         "valid": 5400, "valid_pct": 100.0, "engine_calls": 3, "failed_rows": 0, "finished": True},
    ]
    text = _bench().render_section(recs)
    assert "- engine load: 240.2 s" in text
    assert '- pipeline: batcher {"token_budget": 4194304, "max_batch": 2700}, worker batch_stocks 5400' in text
    assert "pipeline / raw, random order: 0.985" in text


def test_a_phase_with_failed_rows_gives_no_figure():
    """Run 34 (H100): the engine died mid-phase, 1,785 of 2,400 rows were written as failed in two seconds and
    the report said 163.41 stocks/s. Failed rows or a dead worker: the row says so and no rate is shown."""
    recs = [
        {**COMMON, "phase": "load", "load_s": 101.3, "gpu": "NVIDIA H100 80GB HBM3", "engine_settings": {}},
        {**COMMON, "phase": "interactive@chunk", "stocks": 2400, "bulk_rows": 615, "bulk_failed": 1785,
         "seconds": 14.69, "req_s": 163.41, "bulk_stocks_per_s": 163.41, "p95_s": 7.72,
         "worker_error": "EngineDead: vLLM's engine core died (EngineCore encountered an issue)"},
        {**COMMON, "phase": "pipeline@chunk", "stocks": 2400, "rows": 2400, "ok_rows": 2400, "failed_rows": 0,
         "seconds": 30.0, "req_s": 80.0, "valid": 2400, "valid_pct": 100.0, "finished": True},
    ]
    text = _bench().render_section(recs)
    assert "| interactive@chunk | **no figure**: 1785 failed row(s), worker error EngineDead" in text
    assert "163.41" not in text  # neither in the table nor in the notes
    assert "| pipeline@chunk | 2400 | 30.00 | 80.00 |" in text


def test_a_phase_cut_at_the_budget_says_so_and_stays_out_of_the_repeats():
    """Run 37 (H100, cold start): the budget stopped pipeline@chunk at 2,321 of 2,400 rows; its 85.31 stocks/s
    leaves out the job's slowest tail, so the row says cut and the median of repeats counts only whole jobs."""
    whole = {**COMMON, "phase": "pipeline@chunk", "stocks": 2400, "rows": 2400, "failed_rows": 0, "valid": 2400,
             "valid_pct": 100.0, "finished": True}
    recs = [
        {**COMMON, "phase": "load", "load_s": 442.2, "gpu": "NVIDIA H100 80GB HBM3", "engine_settings": {}},
        {**whole, "rows": 2321, "valid": 2321, "seconds": 27.21, "req_s": 85.31, "finished": False},
        {**whole, "seconds": 30.0, "req_s": 80.0},
        {**whole, "seconds": 32.0, "req_s": 75.0},
    ]
    text = _bench().render_section(recs)
    assert "| pipeline@chunk | 2321 of 2400, **cut at the budget** | 27.21 | 85.31 |" in text
    assert "repeats of pipeline@chunk: stocks/s median 77.50 (min 75.00, max 80.00, n=2)" in text


def test_bulk_with_fast_jobs_is_compared_with_the_median_of_bulk_alone():
    """Run 38's four pipeline@chunk jobs (84.39-89.51); the report compared its interactive phase's 77.09
    with whichever pipeline ran last (86.35: 0.893x). The median of the whole jobs is the comparison."""
    whole = {**COMMON, "phase": "pipeline@chunk", "stocks": 2400, "rows": 2400, "failed_rows": 0, "valid": 2400,
             "valid_pct": 100.0, "finished": True, "seconds": 28.0}
    recs = [
        {**COMMON, "phase": "load", "load_s": 97.5, "gpu": "NVIDIA H100 80GB HBM3", "engine_settings": {}},
        {**whole, "req_s": 84.39},
        {**COMMON, "phase": "interactive@chunk", "stocks": 2400, "bulk_rows": 2400, "bulk_failed": 0,
         "fast_failed": 0, "seconds": 31.13, "req_s": 77.09, "bulk_stocks_per_s": 77.09, "p95_s": 8.5,
         "fast_jobs": 30, "fast_finished": 30, "every_s": 1.0},
        {**whole, "req_s": 89.51},
        {**whole, "req_s": 81.03},
        {**whole, "req_s": 86.35},
    ]
    text = _bench().render_section(recs)
    assert "bulk 77.09 stocks/s = 0.903x the pipeline@chunk alone (median of 4)" in text


def test_decode_per_token_is_the_step_time_a_fast_job_saw():
    """38 tokens in 3.7 s is 100 ms a step (run 38's first jobs, beside a bulk admission's prefills); 36 in
    0.35 s is 10 ms (the bulk nearly done). A trace without vLLM's stamps or with one token is left out."""
    traces = [{"at": {"first_token": 4.68, "last_token": 8.38}, "output_tokens": 38},
              {"at": {"first_token": 1.0, "last_token": 1.35}, "output_tokens": 36},
              {"at": {"first_token": 1.0, "last_token": 1.05}, "output_tokens": 1},
              {"at": {"submit": 0.0}, "output_tokens": 40}]
    _bench()  # puts bench/ on sys.path
    report = importlib.import_module("gpu_report")
    line = report.decode_per_token(traces)
    assert line == "median 55 ms, p95 100 ms, min 10 ms (n=2; 1-40 output tokens a request)"
    assert report.decode_per_token([]) == ""


def test_read_records_reads_a_gzipped_run(tmp_path):  # type: ignore[no-untyped-def]
    """bench/gpu_runs keeps later runs as ``.jsonl.gz``: the report reads one by its plain name."""
    import gzip
    import json

    _bench()
    report = importlib.import_module("gpu_report")
    rec = {"run_id": "r1", "config": "c", "phase": "pipeline@chunk", "stocks": 2}
    (tmp_path / "run.jsonl.gz").write_bytes(gzip.compress((json.dumps(rec) + "\n").encode()))
    assert report.read_records(tmp_path / "run.jsonl") == {("r1", "c"): [rec]}
    assert report.read_records(tmp_path / "run.jsonl.gz") == {("r1", "c"): [rec]}
    assert report.read_records(tmp_path / "absent.jsonl") == {}


def test_inflight_lines_bin_the_decode_step_by_bulk_in_flight():
    """Two jobs handed over beside 250 bulk requests (50 and 40 ms a token), one beside 10 (5 ms); a trace
    without the in-flight count or vLLM's stamps is left out, and no trace at all gives no table."""
    def trace(n, first, last, tokens=41, total=2.0):
        return {"bulk_in_flight": n, "at": {"first_token": first, "last_token": last}, "output_tokens": tokens,
                "total_s": total}
    traces = [trace(250, 1.0, 3.0), trace(250, 1.0, 2.6, total=3.0), trace(10, 1.0, 1.2, total=0.5),
              {"at": {"first_token": 1.0, "last_token": 2.0}, "output_tokens": 41, "total_s": 1.0},
              {"bulk_in_flight": 100, "at": {"submit": 0.0}, "output_tokens": 41, "total_s": 1.0}]
    _bench()  # puts bench/ on sys.path
    report = importlib.import_module("gpu_report")
    lines = report.inflight_lines(traces)
    assert lines[2] == "| 0-63 | 1 | 5.0 | 5.0 | 0.50 | 0.50 |"
    assert lines[3] == "| >= 240 | 2 | 45.0 | 50.0 | 2.50 | 3.00 |" and len(lines) == 4
    assert report.inflight_lines([]) == []
