"""bench/gpu_kernels.py: a PyTorch profiler trace reduced to GPU time per kind of step and kernel family."""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _mod():  # type: ignore[no-untyped-def]
    if str(BENCH) not in sys.path:  # gpu_kernels imports its siblings lazily, as the bench does
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("gpu_kernels_under_test", BENCH / "gpu_kernels.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _x(cat: str, name: str, ts: float, dur: float) -> dict:
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur}


# two steps as vLLM 0.26 annotates them: one carrying 1,000 prompt tokens of 4 requests beside 2 decoding,
# one decode-only step of 6 requests; kernels inside each GPU span, one sampler kernel between them
TRACE = [
    _x("user_annotation", "execute_context_4(1000)_generation_2(2)", 0, 400),
    _x("gpu_user_annotation", "execute_context_4(1000)_generation_2(2)", 100, 500),
    _x("kernel", "fused_moe_kernel", 110, 200),
    _x("kernel", "chunk_gated_delta_rule_fwd_kernel_h", 320, 100),
    _x("kernel", "flash_fwd_kernel", 430, 50),
    _x("kernel", "triton_red_fused_add_mean_mul_pow_rsqrt_0", 490, 10),
    _x("kernel", "some_new_kernel", 505, 20),
    _x("kernel", "apply_token_bitmask_inplace_kernel", 620, 15),  # between the two spans
    _x("user_annotation", "execute_context_0(0)_generation_6(6)", 650, 30),
    _x("gpu_user_annotation", "execute_context_0(0)_generation_6(6)", 700, 40),
    _x("kernel", "fused_moe_kernel", 705, 20),
    _x("kernel", "fused_recurrent_gated_delta_rule_fwd_kernel", 726, 10),
    _x("cpu_op", "aten::mm", 0, 5),  # not a kernel: ignored
]


def test_family_table_first_match_wins_and_unknowns_are_other() -> None:
    m = _mod()
    assert m.family("fused_moe_kernel") == "moe"
    assert m.family("chunk_gated_delta_rule_fwd_kernel_h") == "gdn"
    assert m.family("flash_fwd_splitkv_kernel") == "attention"
    assert m.family("sm90_xmma_gemm_e4m3") == "gemm"
    assert m.family("triton_poi_fused_copy_0") == "inductor_fused"
    assert m.family("some_new_kernel") == "other"
    # run 34's two kernels of the fp8 activation scale: not the GEMM they feed
    assert m.family("triton_red_fused__to_copy__unsafe_view_abs_add_clamp_clone_cutlass_scaled_mm_0") == "fp8_scale"
    assert m.family("void vllm::segmented_max_reduction_strided<c10::BFloat16, c10::Float8_e4m3fn>") == "fp8_scale"
    assert m.family("void cutlass::device_kernel<vllm::cutlass_3x_gemm_sm90_fp8<cutlass::float_e4m3_t>>") == "gemm"


def test_summary_splits_prefill_and_decode_steps() -> None:
    m = _mod()
    s = m.summarize_trace(TRACE)
    assert s["steps"] == 2 and s["spans_from"] == "gpu"
    pre, dec = s["by_kind"]["prefill"], s["by_kind"]["decode"]
    assert pre["steps"] == 1 and pre["ctx_tokens_per_step"] == 1000
    assert pre["gpu_busy_ms"] == 0.38  # 200 + 100 + 50 + 10 + 20 µs
    assert pre["gpu_span_ms"] == 0.5 and pre["cpu_wall_ms"] == 0.4
    assert pre["gpu_busy_share_of_span"] == 0.76
    assert pre["busy_us_per_prompt_token"] == 0.38
    assert pre["families_ms"] == {"moe": 0.2, "gdn": 0.1, "attention": 0.05, "other": 0.02, "inductor_fused": 0.01}
    assert dec["gpu_busy_ms"] == 0.03 and dec["families_ms"] == {"moe": 0.02, "gdn": 0.01}
    assert "busy_us_per_prompt_token" not in dec
    assert s["kernel_us_outside_steps"] == 15.0  # the sampler kernel ran between the spans
    top = {k["name"]: k for k in s["top_kernels"]}
    assert top["fused_moe_kernel"]["calls"] == 2 and top["fused_moe_kernel"]["ms_in_prefill_steps"] == 0.2


def test_load_trace_reads_the_gzipped_file_the_profiler_writes(tmp_path: Path) -> None:
    m = _mod()
    path = tmp_path / "rank0.pt.trace.json.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump({"traceEvents": TRACE, "deviceProperties": []}, fh)
    assert m.summarize_trace(m.load_trace(path)) == m.summarize_trace(TRACE)


def test_no_annotations_means_no_steps_not_a_crash() -> None:
    m = _mod()
    s = m.summarize_trace([_x("kernel", "fused_moe_kernel", 0, 5)])
    assert s["steps"] == 0 and s["by_kind"] == {} and s["kernel_us_outside_steps"] == 5.0


def test_a_cpu_trace_counts_its_steps_by_the_cpu_annotations() -> None:
    m = _mod()
    cpu_only = [e for e in TRACE if e["cat"] == "user_annotation"]
    s = m.summarize_trace(cpu_only)
    assert s["spans_from"] == "cpu" and s["steps"] == 2
    assert s["by_kind"]["prefill"]["cpu_wall_ms"] == 0.4 and s["by_kind"]["prefill"]["gpu_busy_ms"] == 0.0


def test_report_lines_show_each_step_kind_and_the_biggest_kernels() -> None:
    m = _mod()
    rec = {"phase": "kernels", "stocks": 6, "trace_mb": 1.0, "kernels": m.summarize_trace(TRACE)}
    text = "\n".join(m.kernel_lines([rec, {"phase": "kernels", "skipped": "not continuous"}]))
    assert "| prefill | 1 | 1000.0 | 0.4 | 0.5 | 0.38 (0.76) | 0.38 | moe 0.2, gdn 0.1" in text
    assert "| decode | 1 | 0.0 |" in text
    assert "`fused_moe_kernel` (moe) 0.22 (0.2)" in text
    assert "- kernels: not continuous" in text


def test_runner_wall_matches_steps_by_content_when_the_timelines_are_cut_differently() -> None:
    """Run 34: the profiler's window held one CPU span more than GPU spans, and the runner wall read 0.0."""
    m = _mod()
    extra = [_x("user_annotation", "execute_context_3(900)_generation_0(0)", -200, 90)]  # its GPU part fell outside
    s = m.summarize_trace(extra + TRACE + [_x("user_annotation", "execute_context_0(0)_generation_6(6)", 800, 25)])
    assert s["steps"] == 2
    assert s["by_kind"]["prefill"]["cpu_wall_ms"] == 0.4 and s["by_kind"]["decode"]["cpu_wall_ms"] == 0.03
    unmatched = m.summarize_trace([e for e in TRACE if e["cat"] != "user_annotation"])
    assert unmatched["by_kind"]["prefill"]["cpu_wall_ms"] is None  # unknown, never 0
    assert "| prefill | 1 | 1000.0 | - |" in "\n".join(m.kernel_lines([{"phase": "kernels", "stocks": 4,
                                                                     "kernels": unmatched}]))
