"""The engine's settings as ``vllm.LLM`` arguments and as ``vllm serve`` flags: one source for both.

Pure functions, no engine: the GPU benchmark's server comparison is only fair when the server
gets exactly the worker's engine, and these pin the translation.
"""

from __future__ import annotations

import json

from screening.config import EngineSettings
from screening.engines.vllm_engine import llm_kwargs, serve_flags


def test_unset_knobs_are_left_to_vllm() -> None:
    kw = llm_kwargs(EngineSettings(), "/m")
    assert kw["model"] == "/m"
    for key in ("quantization", "max_num_batched_tokens", "max_num_seqs", "kv_cache_memory_bytes",
                "async_scheduling", "language_model_only"):
        assert key not in kw
    assert kw["structured_outputs_config"] == {"backend": "xgrammar", "disable_any_whitespace": True}


def test_gpu_settings_become_kwargs() -> None:
    es = EngineSettings(quantization="fp8", max_num_batched_tokens=32768, max_num_seqs=512, async_scheduling=True,
                        kv_cache_gib=1.5, language_model_only=True)
    kw = llm_kwargs(es, "/m")
    assert kw["quantization"] == "fp8" and kw["max_num_batched_tokens"] == 32768 and kw["max_num_seqs"] == 512
    assert kw["async_scheduling"] is True and kw["language_model_only"] is True
    assert kw["kv_cache_memory_bytes"] == int(1.5 * 2**30)


def _flag_value(flags: list[str], flag: str) -> str:
    return flags[flags.index(flag) + 1]


def test_serve_flags_carry_the_same_engine() -> None:
    es = EngineSettings(quantization="fp8", max_num_seqs=512, enable_prefix_caching=False, enforce_eager=True,
                        language_model_only=True, load_format="dummy", dtype="bfloat16", max_model_len=4096)
    flags = serve_flags(llm_kwargs(es, "/m"))
    assert "/m" not in flags and "--model" not in flags  # the caller names the model once
    assert _flag_value(flags, "--quantization") == "fp8"
    assert _flag_value(flags, "--max-num-seqs") == "512"
    assert _flag_value(flags, "--max-model-len") == "4096"
    assert _flag_value(flags, "--load-format") == "dummy"
    assert _flag_value(flags, "--dtype") == "bfloat16"
    assert "--no-enable-prefix-caching" in flags and "--enable-prefix-caching" not in flags
    assert "--enforce-eager" in flags and "--language-model-only" in flags
    assert json.loads(_flag_value(flags, "--structured-outputs-config"))["backend"] == "xgrammar"


def test_serve_flags_omit_false_switches_that_are_off_by_default() -> None:
    flags = serve_flags(llm_kwargs(EngineSettings(), "/m"))
    assert "--enforce-eager" not in flags and "--no-enforce-eager" not in flags
    assert "--enable-prefix-caching" in flags  # True is said explicitly; harmless, and visible in the log
    assert all(not f.startswith("--no-") for f in flags)


def test_async_scheduling_false_is_said_not_dropped() -> None:
    """vLLM 0.26 turns async scheduling on by itself, so a configured False must reach it, as a kwarg and a flag."""
    kw = llm_kwargs(EngineSettings(async_scheduling=False), "/m")
    assert kw["async_scheduling"] is False
    assert "--no-async-scheduling" in serve_flags(kw)
    assert "--async-scheduling" in serve_flags(llm_kwargs(EngineSettings(async_scheduling=True), "/m"))


def test_the_guided_backend_reaches_vllm_and_vllm_serve() -> None:
    """engine.guided_backend picks vLLM's structured-output backend, in process and for the server alike."""
    kw = llm_kwargs(EngineSettings(guided_backend="guidance"), "/m")
    assert kw["structured_outputs_config"] == {"backend": "guidance", "disable_any_whitespace": True}
    flags = serve_flags(kw)
    assert json.loads(_flag_value(flags, "--structured-outputs-config"))["backend"] == "guidance"


def test_auto_dtype_is_float32_only_on_a_cpu_without_bf16() -> None:
    """bf16 is emulated (slowly) on an AVX2-only CPU; a GPU, a bf16 CPU and a dtype the user set keep theirs."""
    from screening.engines.vllm_engine import dtype_for

    assert dtype_for("auto", on_cpu=True, cpu_bf16=False) == "float32"
    assert dtype_for("auto", on_cpu=True, cpu_bf16=True) == "auto"
    assert dtype_for("auto", on_cpu=False, cpu_bf16=False) == "auto"
    assert dtype_for("bfloat16", on_cpu=True, cpu_bf16=False) == "bfloat16"
