"""The one engine interface that the pipeline, the worker and the benchmarks talk to.

Generation is synchronous and batch-shaped: the worker owns one engine and hands it a
whole bucket at a time, which is what vLLM's offline ``LLM.chat`` wants; the openai engine
fans the batch out to concurrent HTTP requests behind the same call.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from concurrent.futures import Future
from typing import Any

from screening.engines.submit import BatchSubmitter
from screening.engines.types import EngineOutput, EngineRequest, EngineStats


class Engine(ABC):
    """A text generator with its own tokenizer; ``uses_prompts`` is False for the rules engine."""

    name: str = "base"
    model_id: str = ""
    uses_prompts: bool = True  # False: the engine needs no prompt text (rules), so none is built
    is_model: bool = True  # False: its answers are the rules' own, so a row reports no model verdict

    max_batch: int = 512  # the most requests one batch call takes when fed continuously
    continuous: bool = False  # True: requests are scheduled one by one (AsyncLLM, a server); False: calls

    def __init__(self) -> None:
        self.stats = EngineStats()
        self._submitter: BatchSubmitter | None = None

    def submit(self, request: EngineRequest, priority: int = 1, alone: bool = False) -> Future[EngineOutput]:
        """One request, answered by the future as soon as its call is done (the worker's path).

        Lower ``priority`` runs first. ``alone`` gives the request a call of its own (isolating a
        suspect). Batch-shaped engines are fed by a BatchSubmitter thread; AsyncLLM overrides this.
        """
        if self._submitter is None:
            self._submitter = BatchSubmitter(self.generate, self.max_batch)
        return self._submitter.submit(request, priority, alone)

    def admission_limit(self, wanted: int) -> int:
        """How many requests the worker should have submitted at once. A batch-shaped engine runs one call
        at a time, so only that call's requests are started (and counted as attempts); more would make
        every queued stock a crash suspect when the process dies."""
        return min(wanted, self.max_batch)

    def abort(self, keys: set[str]) -> None:
        """Forget submitted requests of these keys (a cancelled job); what is already running may finish."""
        if self._submitter is not None:
            self._submitter.abort(keys)

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

    def cache_block_size(self) -> int | None:
        """Tokens per KV-cache block of an in-process engine (prefixes are reused in whole blocks); None: unknown."""
        return None

    def scheduler(self) -> dict[str, object]:
        """The scheduler settings an in-process engine settled on (vLLM chooses some itself); {}: unknown."""
        return {}

    def reset_cache(self) -> None:  # noqa: B027 - optional hook
        """Forget cached prompt prefixes, so a benchmark phase does not ride on the previous one's."""

    def close(self) -> None:
        """Release the engine's memory and its submission thread; engines with resources extend this."""
        if self._submitter is not None:
            self._submitter.close()


USER_SLOT = "\x00user-message\x00"  # a marker that no template or prompt contains
# Qwen3/3.5 templates open a <think> block after the generation prompt unless told not to: the answer is one
# guided JSON object, not reasoning (templates without the variable ignore it)
CHAT_TEMPLATE_KWARGS = {"enable_thinking": False}


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
                [messages[0], {"role": "user", "content": USER_SLOT}], tokenize=False, add_generation_prompt=True,
                **CHAT_TEMPLATE_KWARGS)
            if isinstance(text, str) and text.count(USER_SLOT) == 1:
                before, after = text.split(USER_SLOT)
                frame = (self.encode(before), self.encode(after))
                if frame[0] + self.encode(messages[1]["content"]) + frame[1] == self._exact_ids(messages):
                    frames[system] = frame
        return frames[system]

    def _exact_ids(self, messages: list[dict]) -> list[int]:
        ids = self.tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True,
                                                 **CHAT_TEMPLATE_KWARGS)
        if not isinstance(ids, list):  # transformers 5 returns a BatchEncoding (a Mapping, not a dict)
            ids = ids["input_ids"]
        return list(ids)
