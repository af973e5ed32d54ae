"""The GPU bench's markdown report from jsonl records (pure: no engine, no GPU)."""

from __future__ import annotations

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
