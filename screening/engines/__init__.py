"""Engine construction from settings; heavy imports happen only for the engine asked for."""

from __future__ import annotations

from screening.config import EngineSettings
from screening.engines.base import Engine, EngineOutput, EngineRequest


def make_engine(settings: EngineSettings, kind: str | None = None, *, continuous: bool = False) -> Engine:
    """Build the configured engine (``kind`` overrides ``settings.kind``).

    ``continuous`` (the worker): vLLM as a long-lived AsyncLLM fed request by request with priorities;
    otherwise (the CLI, verify-model) the batch-shaped ``LLM``.
    """
    kind = kind or settings.kind
    if kind == "rules":
        from screening.engines.rules_engine import RulesEngine

        return RulesEngine()
    from screening.engines.embedded_model import resolve_model

    if kind == "vllm" and continuous:
        from screening.engines.async_vllm import AsyncVllmEngine

        return AsyncVllmEngine(settings, resolve_model(settings.model))
    if kind == "vllm":
        from screening.engines.vllm_engine import VllmEngine

        return VllmEngine(settings, resolve_model(settings.model))
    if kind == "openai":
        from screening.engines.openai_engine import OpenAIEngine

        return OpenAIEngine(settings, tokenizer_path=resolve_model(settings.model))
    raise ValueError(f"unknown engine {kind!r}: use vllm, openai or rules (config key engine.kind)")


__all__ = ["Engine", "EngineOutput", "EngineRequest", "make_engine"]
