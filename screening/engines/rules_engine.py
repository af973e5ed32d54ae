"""The no-LLM engine: answers with the rule verdict itself, as the same JSON the model gives.

It exists so the whole product (queue, bot, digest, reports) runs without a GPU as a fast
deterministic pre-screen, and so queue benchmarks measure the plumbing rather than a model.
"""

from __future__ import annotations

import json

from screening.engines.answer import REASON_MAX_CHARS
from screening.engines.base import Engine, EngineOutput, EngineRequest
from screening.screen.rules import MissingData, assess


class RulesEngine(Engine):
    name = "rules"
    model_id = "rules"
    uses_prompts = False
    is_model = False

    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        out = []
        for req in requests:
            try:
                verdict = assess(req.stock)
            except MissingData as exc:  # the pipeline filters these before; keep it total anyway
                out.append(EngineOutput(req.key, "", None, error=f"missing {exc}"))
                continue
            answer = {
                "risk_level": verdict.risk,
                "reason": verdict.reason[:REASON_MAX_CHARS],
                "score": verdict.score,
            }
            out.append(EngineOutput(req.key, json.dumps(answer, ensure_ascii=False), "stop"))
        self.stats.requests += len(requests)
        self.stats.calls += 1
        return out
