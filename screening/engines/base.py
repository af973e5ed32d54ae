"""The one engine interface that the pipeline, the worker and the benchmarks talk to.

Generation is synchronous and batch-shaped: the worker owns one engine and hands it a
whole bucket at a time, which is what vLLM's offline ``LLM.chat`` wants; the openai engine
fans the batch out to concurrent HTTP requests behind the same call.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from ..models import StockInput


@dataclass
class EngineRequest:
    key: str  # unique within one generate() call, e.g. "<job>:<index>"
    messages: list[dict]
    prompt_tokens: int
    stock: StockInput
    report_cut: bool = False


@dataclass
class EngineOutput:
    key: str
    text: str
    finish_reason: str | None
    error: str | None = None  # the engine failed for this request (not a bad answer)
    prompt_tokens: int = 0
    output_tokens: int = 0


@dataclass
class EngineStats:
    requests: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    extra: dict = field(default_factory=dict)


class Engine(ABC):
    """A text generator with its own tokenizer; ``uses_prompts`` is False for the rules engine."""

    name: str = "base"
    model_id: str = ""
    uses_prompts: bool = True

    def __init__(self) -> None:
        self.stats = EngineStats()

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` in the engine's own tokenizer (no special tokens)."""
        raise NotImplementedError

    def decode(self, ids: list[int]) -> str:
        raise NotImplementedError

    def count_prompt_tokens(self, messages: list[dict]) -> int:
        """Tokens of the whole chat prompt, template included, as the engine will see it."""
        raise NotImplementedError

    @abstractmethod
    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        """One output per request, same order; a per-request failure goes into ``error``."""

    def reset_cache(self) -> None:  # noqa: B027 - optional hook
        """Forget cached prompt prefixes, so a benchmark phase does not ride on the previous one's."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the engine's memory; engines without resources need not override."""


class ChatTokenizerMixin:
    """Token counting with an HF tokenizer and its chat template, shared by the LLM engines."""

    tokenizer: Any

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False)

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids)

    def count_prompt_tokens(self, messages: list[dict]) -> int:
        """Prompt tokens, template included: the frame (system prompt, role markers) is counted once.

        Rendering and encoding the whole chat template per stock re-encodes the same ~800-token
        system prompt 5,400 times; on the H200 that preparation was 10 s of an 82 s whole-market run
        (bench/RESULTS.md). Frame + user message is within a token or two of the exact count
        (tests/test_vllm_engine.py checks it), which is all the batcher and the length limit need.
        """
        if len(messages) == 2 and messages[0]["role"] == "system" and messages[1]["role"] == "user":
            system = messages[0]["content"]
            frames: dict[str, int] = self.__dict__.setdefault("_frames", {})
            if system not in frames:
                frames[system] = self._exact_tokens([messages[0], {"role": "user", "content": ""}])
            return frames[system] + len(self.encode(messages[1]["content"]))
        return self._exact_tokens(messages)

    def _exact_tokens(self, messages: list[dict]) -> int:
        ids = self.tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True)
        if not isinstance(ids, list):  # transformers 5 returns a BatchEncoding (a Mapping, not a dict)
            ids = ids["input_ids"]
        return len(ids)
