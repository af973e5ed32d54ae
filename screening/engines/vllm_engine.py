"""The in-process vLLM engine: one ``vllm.LLM`` per worker, guided JSON, greedy decoding.

Params are constants built once (the vLLM structured-outputs example's shape): the schema
comes from ``ModelAnswer``; ``disable_any_whitespace`` keeps the JSON short, which matters
more than anything else for output-token cost at 5,400 stocks a morning.
"""

from __future__ import annotations

import json
import logging
import time

from screening.config import EngineSettings
from screening.engines.base import ChatTokenizerMixin, Engine, EngineOutput, EngineRequest
from screening.screen.prompt import ANSWER_SCHEMA

log = logging.getLogger(__name__)


def sampling_params(max_tokens: int, guided: bool = True, seed: int = 0):
    """Greedy sampling under the answer schema (``guided=False`` only for benchmarks)."""
    from vllm import SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    return SamplingParams(
        temperature=0.0,
        max_tokens=max_tokens,
        seed=seed,
        structured_outputs=StructuredOutputsParams(json=ANSWER_SCHEMA) if guided else None,
    )


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
        "dtype": settings.dtype,
        "seed": settings.seed,
        "load_format": settings.load_format,
        "structured_outputs_config": {"backend": "xgrammar", "disable_any_whitespace": True},
    }
    for key in ("quantization", "max_num_batched_tokens", "max_num_seqs", "gdn_prefill_backend"):
        if getattr(settings, key) is not None:
            kwargs[key] = getattr(settings, key)
    if settings.kv_cache_gib:
        kwargs["kv_cache_memory_bytes"] = int(settings.kv_cache_gib * 2**30)
    if settings.async_scheduling:
        kwargs["async_scheduling"] = True
    if settings.language_model_only:
        kwargs["language_model_only"] = True
    return kwargs


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
            if key == "enable_prefix_caching":  # on by default in vllm serve
                flags.append("--no-enable-prefix-caching")
        elif isinstance(value, dict):
            flags += [flag, json.dumps(value)]
        else:
            flags += [flag, str(value)]
    return flags


class VllmEngine(ChatTokenizerMixin, Engine):
    name = "vllm"

    def __init__(self, settings: EngineSettings, model_path: str) -> None:
        super().__init__()
        from vllm import LLM

        self.settings = settings
        self.model_id = model_path
        kwargs = llm_kwargs(settings, model_path)
        started = time.perf_counter()
        self.llm = LLM(**kwargs)
        self.load_seconds = time.perf_counter() - started
        log.info("vLLM engine loaded %s in %.1f s", model_path, self.load_seconds)
        self.tokenizer = self.llm.get_tokenizer()
        self.params = sampling_params(settings.max_output_tokens, seed=settings.seed)

    def generate(self, requests: list[EngineRequest], params=None) -> list[EngineOutput]:
        if not requests:
            return []
        if all(r.prompt_ids is not None for r in requests):
            # the pipeline's exact ids (it made them to plan the calls): vLLM would otherwise render
            # and tokenize every chat again, one by one in this process
            prompts = [{"prompt_token_ids": r.prompt_ids.tolist()} for r in requests]  # type: ignore[union-attr]
            results = self.llm.generate(prompts, params or self.params, use_tqdm=False)
        else:
            results = self.llm.chat([r.messages for r in requests], params or self.params, use_tqdm=False)
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

    def reset_cache(self) -> None:
        self.llm.reset_prefix_cache()

    def close(self) -> None:
        del self.llm
