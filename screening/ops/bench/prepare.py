"""``python -m screening bench --prepare``: the CPU side of a whole-market job before the first engine call.

The H200 pipeline lost 9 s of an 88 s whole-market run before its first engine call, preparing
5,400 prompts one by one (bench/RESULTS.md, 2026-12-03); this measures the three ways of doing
that work with the bundled model's tokenizer, on the whole synthetic market:
one stock at a time (``Screener.prepare``), the job in one batch (``Screener.prepare_many``, what
the worker does), and the render + encode that ``LLM.chat`` would do again inside vLLM if it were
handed messages instead of the worker's token ids.
"""

from __future__ import annotations

import time

from screening.config import Settings
from screening.data.synthetic import generate_market
from screening.engines.base import ChatTokenizerMixin, Engine
from screening.models import PoolItem
from screening.ops.bench.common import Timing
from screening.screen.pipeline import Prepared, Screener


class TokenizerOnly(ChatTokenizerMixin, Engine):
    """The vLLM engine's tokenizer side alone: preparing prompts needs no model."""

    name = "vllm"

    def __init__(self, path: str) -> None:
        super().__init__()
        from transformers import AutoTokenizer

        self.model_id = path
        self.tokenizer = AutoTokenizer.from_pretrained(path)

    def generate(self, requests):  # pragma: no cover - never called by this bench
        raise RuntimeError("the prepare bench does not generate")


def bench_prepare(settings: Settings, n: int = 5400) -> tuple[list[Timing], dict]:
    from screening.engines.embedded_model import ensure_embedded_model

    path = settings.engine.model or str(ensure_embedded_model())
    items = [PoolItem(i, s.code, s) for i, s in enumerate(generate_market(5400, seed=0)[:n])]
    screener = Screener(TokenizerOnly(path), settings.engine, settings.batcher)
    screener.prepare(items[0])  # the frame split and its check, once per system prompt
    t = time.perf_counter()
    single = [screener.prepare(i) for i in items]
    one_by_one = Timing("one stock at a time (Screener.prepare)", len(items), time.perf_counter() - t)
    t = time.perf_counter()
    batch = screener.prepare_many([(i, None) for i in items])
    many = Timing("the job in one batch (Screener.prepare_many, the worker)", len(items), time.perf_counter() - t)
    prepared = [p for p in batch if isinstance(p, Prepared)]
    tok = screener.engine.tokenizer  # type: ignore[attr-defined]
    t = time.perf_counter()
    for p in prepared:
        tok.encode(tok.apply_chat_template(p.request.messages, tokenize=False, add_generation_prompt=True),
                   add_special_tokens=False)
    chat = Timing("render + encode per prompt (what LLM.chat repeats without ids)", len(prepared),
                  time.perf_counter() - t)
    same = all(isinstance(a, Prepared) and list(a.request.prompt_ids or []) == list(b.request.prompt_ids or [])
               for a, b in zip(single, batch, strict=True) if isinstance(b, Prepared))
    return [one_by_one, many, chat], {"tokenizer": path, "stocks": len(items), "screenable": len(prepared),
                                      "batch ids equal one-by-one ids": same}
