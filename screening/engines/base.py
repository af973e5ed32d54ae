"""The one engine interface that the pipeline, the worker and the benchmarks talk to.

Generation is synchronous and batch-shaped: the worker owns one engine and hands it a
whole bucket at a time, which is what vLLM's offline ``LLM.chat`` wants; the openai engine
fans the batch out to concurrent HTTP requests behind the same call.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from array import array
from dataclasses import dataclass, field
from typing import Any

from screening.models import StockInput


@dataclass
class EngineRequest:
    key: str  # unique within one generate() call, e.g. "<job>:<index>"
    messages: list[dict]
    prompt_tokens: int
    stock: StockInput
    report_cut: bool = False
    # the exact prompt token ids, when the pipeline made them (4 bytes a token, not a Python int's 28):
    # the in-process engine then hands vLLM ids instead of rendering and tokenizing the chat again
    prompt_ids: array | None = None


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

    def encode_many(self, texts: list[str]) -> list[list[int]]:
        """``encode`` for many texts; engines with a fast tokenizer do it in one parallel call."""
        return [self.encode(t) for t in texts]

    def prompt_ids_many(self, conversations: list[list[dict]]) -> list[list[int]]:
        """Token ids of whole chat prompts, template included, exactly as the engine sees them."""
        raise NotImplementedError

    @abstractmethod
    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        """One output per request, same order; a per-request failure goes into ``error``."""

    def reset_cache(self) -> None:  # noqa: B027 - optional hook
        """Forget cached prompt prefixes, so a benchmark phase does not ride on the previous one's."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the engine's memory; engines without resources need not override."""


USER_SLOT = "\x00user-message\x00"  # a marker that no template or prompt contains


class ChatTokenizerMixin:
    """Chat prompt token ids with an HF tokenizer and its chat template, shared by the LLM engines.

    Rendering and encoding the whole chat template per stock re-encodes the same ~800-token
    system prompt 5,400 times; on the H200 that preparation was 10 s of an 82 s whole-market run
    (bench/RESULTS.md). So the frame around the user message (system prompt, role markers,
    generation prompt) is encoded once per system prompt, the user messages in one batch call
    (the fast tokenizer spreads a batch over all cores), and the joined ids are checked once per
    frame against the full render: a template whose tokens do not split there is always rendered
    whole. The ids are then exact, so the engine can take them instead of tokenizing again.
    """

    tokenizer: Any

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False)

    def decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids)

    def encode_many(self, texts: list[str]) -> list[list[int]]:
        if not texts:
            return []
        backend = getattr(self.tokenizer, "backend_tokenizer", None)  # the Rust tokenizer of a fast one
        if backend is not None:
            return [e.ids for e in backend.encode_batch(texts, add_special_tokens=False)]
        return [self.encode(t) for t in texts]

    def prompt_ids_many(self, conversations: list[list[dict]]) -> list[list[int]]:
        out: list[list[int] | None] = [None] * len(conversations)
        split: list[tuple[int, tuple[list[int], list[int]]]] = []
        for n, messages in enumerate(conversations):
            frame = self._frame(messages)
            if frame is None:
                out[n] = self._exact_ids(messages)
            else:
                split.append((n, frame))
        users = self.encode_many([conversations[n][1]["content"] for n, _ in split])
        for (n, (head, tail)), ids in zip(split, users, strict=True):
            out[n] = head + ids + tail
        return out  # type: ignore[return-value]

    def _frame(self, messages: list[dict]) -> tuple[list[int], list[int]] | None:
        """(ids before, ids after) the user message for this system prompt, or None: render whole."""
        if not (len(messages) == 2 and messages[0]["role"] == "system" and messages[1]["role"] == "user"):
            return None
        frames: dict[str, tuple[list[int], list[int]] | None] = self.__dict__.setdefault("_frames", {})
        system = messages[0]["content"]
        if system not in frames:
            frames[system] = None
            text = self.tokenizer.apply_chat_template(
                [messages[0], {"role": "user", "content": USER_SLOT}], tokenize=False, add_generation_prompt=True
            )
            if isinstance(text, str) and text.count(USER_SLOT) == 1:
                before, after = text.split(USER_SLOT)
                frame = (self.encode(before), self.encode(after))
                if frame[0] + self.encode(messages[1]["content"]) + frame[1] == self._exact_ids(messages):
                    frames[system] = frame
        return frames[system]

    def _exact_ids(self, messages: list[dict]) -> list[int]:
        ids = self.tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True)
        if not isinstance(ids, list):  # transformers 5 returns a BatchEncoding (a Mapping, not a dict)
            ids = ids["input_ids"]
        return list(ids)
