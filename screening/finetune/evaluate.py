"""Base vs adapter on the held-out stocks, through the real pipeline: vLLM engine, ``Screener.run``, merge.

One engine serves both: it is built with the adapter enabled, and the base run sends no ``LoRARequest``
(vLLM then computes the base model alone). Every number comes from what the product does with the
answer: the raw JSON the engine returned (recorded on its way through), and the row ``Screener`` made.

The measures, each over the held-out stocks it applies to:
- valid_json: the answer parsed under the schema (guided decoding makes this ~1.0 for both; a drop
  would mean the adapter fights the grammar).
- reason_valid: the model's own reason passes ``reason_problem`` (no bare number, no prompt phrase, no
  markup or instruction words), so the row shows it instead of the rule's.
- reason_decisive: valid and names what decided: the signal when a risk title is visible, else the
  figure behind the rule tier (the ROE, the PE, "ST", the losses).
- escalation_recall / escalation_precision: the model raised the risk above the rule floor exactly where
  a visible planted title justifies it; false_escalations counts the raises without one.
- rule_agreement: where no risk title is visible, the model's risk equals the rule's.
- score_exact: the model's score equals the formula's.
- final_risk_correct: the row's final risk (after merge) equals the right answer by construction.
The identity-flag rate of the issue is gone by design: the v2 answer carries no code or name.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from screening.config import BatcherSettings, EngineSettings
from screening.engines.answer import ModelAnswer, parse_answer
from screening.engines.base import Engine
from screening.engines.types import EngineOutput, EngineRequest
from screening.finetune.dataset import Example
from screening.finetune.targets import names_decisive
from screening.models import RISK_ORDER, PoolItem, ResultRow
from screening.screen.merge import reason_problem
from screening.screen.pipeline import Screener

log = logging.getLogger(__name__)

RATE_KEYS = ("valid_json", "reason_valid", "reason_decisive", "escalation_recall", "escalation_precision",
             "rule_agreement", "score_exact", "final_risk_correct")


class RecordingEngine(Engine):
    """Passes everything to the real engine and keeps each request's last raw answer."""

    def __init__(self, inner: Engine) -> None:
        super().__init__()
        self.inner = inner
        self.name = inner.name
        self.model_id = inner.model_id
        self.answers: dict[str, EngineOutput] = {}

    def encode(self, text: str) -> list[int]:
        return self.inner.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self.inner.decode(ids)

    def encode_many(self, texts: list[str]) -> list[list[int]]:
        return self.inner.encode_many(texts)

    def prompt_ids_many(self, conversations: list[list[dict]]) -> list[list[int]]:
        return self.inner.prompt_ids_many(conversations)

    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        outputs = self.inner.generate(requests)
        for out in outputs:
            self.answers[out.key] = out
        return outputs


@dataclass
class Outcome:
    """One held-out stock: its example, the model's raw answer (None: unparsable) and the product's row."""

    example: Example
    answer: ModelAnswer | None
    row: ResultRow


def screen(engine: Engine, settings: EngineSettings, examples: list[Example]) -> list[Outcome]:
    """The held-out stocks through ``Screener.run`` (prepare, batch, generate, retry, merge)."""
    recorder = RecordingEngine(engine)
    screener = Screener(recorder, settings, BatcherSettings())
    rows = screener.run([PoolItem(i, e.stock.code, e.stock) for i, e in enumerate(examples)])
    out = []
    for i, (example, row) in enumerate(zip(examples, rows, strict=True)):
        raw = recorder.answers.get(str(i))
        answer = None
        if raw is not None:
            try:
                answer = parse_answer(raw.text)
            except ValueError:
                answer = None
        out.append(Outcome(example, answer, row))
    return out


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def scores(outcomes: list[Outcome]) -> dict[str, Any]:
    """The measures of the module docstring, with the counts behind each rate."""
    n = len(outcomes)
    parsed = [o for o in outcomes if o.answer is not None]
    should = [o for o in outcomes if o.example.target.escalates]
    raised = [o for o in parsed
              if RISK_ORDER[o.answer.risk_level] > RISK_ORDER[o.example.verdict.figure_risk]]  # type: ignore[union-attr]
    right_raises = [o for o in raised if o.example.target.escalates]
    unplanted = [o for o in parsed if o.example.signal is None]
    counts = {
        "n": n,
        "parsed": len(parsed),
        "reason_valid": sum(reason_problem(o.answer.reason) is None for o in parsed),  # type: ignore[union-attr]
        "reason_decisive": sum(names_decisive(o.answer.reason, o.example.target.decisive)  # type: ignore[union-attr]
                               for o in parsed),
        "should_escalate": len(should),
        "escalated": len(raised),
        "escalated_right": len(right_raises),
        "false_escalations": len(raised) - len(right_raises),
        "unplanted": len(unplanted),
        "rule_agreement": sum(o.answer.risk_level == o.example.verdict.figure_risk for o in unplanted),  # type: ignore[union-attr]
        "score_exact": sum(o.answer.score == o.example.verdict.score for o in parsed),  # type: ignore[union-attr]
        "final_risk_correct": sum(o.row.risk_level == o.example.target.risk_level for o in outcomes),
    }
    rates = {
        "valid_json": _rate(len(parsed), n),
        "reason_valid": _rate(counts["reason_valid"], n),
        "reason_decisive": _rate(counts["reason_decisive"], n),
        "escalation_recall": _rate(len(right_raises), len(should)),
        "escalation_precision": _rate(len(right_raises), len(raised)),
        "rule_agreement": _rate(counts["rule_agreement"], len(unplanted)),
        "score_exact": _rate(counts["score_exact"], n),
        "final_risk_correct": _rate(counts["final_risk_correct"], n),
    }
    return {**rates, "counts": counts}


def samples(outcomes: list[Outcome], k: int = 6) -> list[dict[str, Any]]:
    """A few answers to show in the model card: the first escalations due, then ordinary rows."""
    chosen = [o for o in outcomes if o.example.target.escalates][: k // 2]
    chosen += [o for o in outcomes if o not in chosen][: k - len(chosen)]
    return [{"code": o.example.stock.code, "rule": o.example.verdict.figure_risk,
             "signal": o.example.signal.name if o.example.signal else None,
             "target": o.example.target.json(),
             "model": o.answer.model_dump_json() if o.answer else None,
             "row": {"risk_level": o.row.risk_level, "score": o.row.score, "reason": o.row.reason}}
            for o in chosen]


def compare(engine: Any, settings: EngineSettings, examples: list[Example]) -> dict[str, Any]:
    """Base and adapter on the same engine: the base run sends no LoRARequest."""
    adapter = engine.lora_request
    if adapter is None:
        raise ValueError("the engine has no LoRA adapter configured (engine.lora_adapter): nothing to compare")
    try:
        engine.lora_request = None
        base = screen(engine, settings, examples)
    finally:
        engine.lora_request = adapter
    tuned = screen(engine, settings, examples)
    return {"base": scores(base), "adapter": scores(tuned),
            "samples": {"base": samples(base), "adapter": samples(tuned)},
            "answers": {"base": answers(base), "adapter": answers(tuned)}}


def answers(outcomes: list[Outcome]) -> list[list[str | None]]:
    """[code, the model's raw answer as parsed JSON (None: unparsable)] per stock, in held-out order: what a
    later run is compared with stock by stock (tests/test_finetune.py), cheaper than all the rates."""
    return [[o.example.stock.code, o.answer.model_dump_json() if o.answer else None] for o in outcomes]


def table(result: dict[str, Any]) -> str:
    """The held-out table as markdown (model card, bench/RESULTS.md)."""
    base, tuned = result["base"], result["adapter"]
    lines = ["| measure (held-out) | base | adapter |", "| --- | --- | --- |"]
    for key in RATE_KEYS:
        lines.append(f"| {key} | {_fmt(base[key])} | {_fmt(tuned[key])} |")
    for key in ("false_escalations", "should_escalate", "unplanted", "n"):
        lines.append(f"| {key} (count) | {base['counts'][key]} | {tuned['counts'][key]} |")
    return "\n".join(lines)


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def build_engine(settings: EngineSettings, model_path: str) -> Any:
    from screening.engines.vllm_engine import VllmEngine

    return VllmEngine(settings, model_path)
