"""A fast job's legs (screening/queue/fast_trace.py) and the GPU bench's breakdown report (pure functions)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from screening.queue.fast_trace import JobClock, leg_summary, legs, pct

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "gpu_bench.py"


def _bench():
    spec = importlib.util.spec_from_file_location("gpu_bench_under_test_trace", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_legs_follow_the_request_and_add_up_to_the_total():
    clock = JobClock("j1", submit=100.0, claimed=100.2, prepared=100.25, bulk_age_s=7.5)
    clock.stocks[0] = {"handed": 100.3, "loop": 100.31, "queued": 100.33, "scheduled": 100.5,
                       "first_token": 100.7, "last_token": 102.7, "answered": 102.72, "collected": 102.8,
                       "stored": 102.85}
    clock.stocks[1] = {"handed": 100.3, "collected": 101.0, "stored": 101.1}  # answered first: not the job's legs
    clock.info[0] = {"bulk_in_flight": 576, "hold": True, "output_tokens": 38}
    rec = clock.record(done=102.9)
    assert rec["total_s"] == 2.9 and rec["bulk_age_s"] == 7.5 and rec["bulk_in_flight"] == 576
    assert rec["legs"]["claim"] == 0.2 and rec["legs"]["vllm_queue"] == 0.17 and rec["legs"]["decode"] == 2.0
    assert abs(sum(rec["legs"].values()) - rec["total_s"]) < 1e-3
    assert rec["at"]["scheduled"] == 0.5 and rec["at"]["done"] == 2.9


def test_an_engine_without_timing_leaves_its_legs_out_and_the_sum_stays_whole():
    got = legs({"submit": 0.0, "claimed": 0.1, "prepared": 0.2, "handed": 0.3, "collected": 1.3, "stored": 1.4,
                "done": 1.5})
    assert got == {"claim": 0.1, "prepare": 0.1, "to_engine": 0.1, "collect": 1.0, "store": 0.1, "finish": 0.1}


def test_p95_is_the_nearest_rank_and_the_summary_has_every_leg():
    assert pct(list(range(1, 21)), 0.95) == 19 and pct([3.0], 0.95) == 3.0 and pct([], 0.5) is None
    recs = [{"legs": {"decode": float(i), "claim": 0.1}, "total_s": float(i) + 0.1} for i in range(1, 21)]
    s = leg_summary(recs)
    assert s["decode"] == {"n": 20, "median": 10.5, "p95": 19.0, "max": 20.0} and s["total"]["p95"] == 19.1
    assert "prefill" not in s


COMMON = {"run_id": "r2", "config": "moe35-fp8", "model": "qwen3.5-35b-a3b", "command": "python bench/gpu_bench.py",
          "at": "2026-12-04 09:30:00"}


def test_report_shows_variants_repeats_and_the_breakdown():
    legs_ = {"vllm_queue": {"n": 20, "median": 0.01, "p95": 0.03, "max": 0.05},
             "decode": {"n": 20, "median": 1.2, "p95": 2.1, "max": 2.4}}
    inter = {"stocks": 2400, "bulk_rows": 2400, "seconds": 30.0, "fast_jobs": 25, "fast_finished": 25,
             "fast_submitted_during_bulk": 25, "every_s": 1.0, "p50_s": 1.5, "p95_s": 2.5, "max_s": 2.8,
             "worker_settings": {"max_in_flight": 576, "fast_hold_bulk": 0}, "breakdown_under_load": legs_}
    recs = [
        {**COMMON, "phase": "load", "load_s": 100.0, "engine_settings": {"max_num_seqs": 512}},
        {**COMMON, "phase": "pipeline", "stocks": 2400, "rows": 2400, "seconds": 20.0, "req_s": 120.0},
        {**COMMON, "phase": "pipeline@shallow", "stocks": 2400, "rows": 2400, "seconds": 20.0, "req_s": 110.0},
        {**COMMON, "phase": "interactive@shallow", **inter, "req_s": 88.0},
        {**COMMON, "phase": "interactive@shallow", **inter, "req_s": 99.0, "p95_s": 3.5},
        {**COMMON, "phase": "interactive@shallow", **inter, "req_s": 90.0, "p95_s": 2.0},
    ]
    text = _bench().render_section(recs)
    assert "| pipeline@shallow | 2400 |" in text and "| interactive@shallow #3 | 2400 |" in text
    assert ("repeats of interactive@shallow: stocks/s median 90.00 (min 88.00, max 99.00, n=3); "
            "fast-job p95 median 2.50 (min 2.00, max 3.50, n=3) s") in text
    assert "bulk 88.00 stocks/s = 0.800x the pipeline@shallow alone" in text
    assert "| decode | 20 | 1.200 | 2.100 | 2.400 |" in text


def test_a_phase_name_carries_its_cadence_size_and_variant():
    _bench()  # puts bench/ on sys.path for the sibling module
    from gpu_phases import phase_base, phase_every, phase_size

    assert (phase_base("interactive:3/5400@pace"), phase_every("interactive:3/5400@pace"),
            phase_size("interactive:3/5400@pace")) == ("interactive", 3.0, 5400)
    assert (phase_base("pipeline/5400"), phase_every("pipeline/5400"), phase_size("pipeline/5400")) == \
        ("pipeline", None, 5400)
    assert (phase_base("interactive@chunk"), phase_every("interactive@chunk"), phase_size("interactive@chunk")) == \
        ("interactive", None, None)


def test_every_worker_variant_names_real_settings_with_valid_values():
    """A variant is applied with model_copy(update=...), which takes a misspelt key silently: a phase would
    then measure the default while its name says otherwise. Each variant must validate as WorkerSettings."""
    import json

    from screening.config import WorkerSettings

    variants = json.loads((SCRIPT.parent / "gpu_models" / "configs.json").read_text(encoding="utf-8"))["_variants"]
    for name, update in variants.items():
        if name == "_doc":
            continue
        assert set(update) <= set(WorkerSettings.model_fields), (name, set(update) - set(WorkerSettings.model_fields))
        WorkerSettings(**update)
