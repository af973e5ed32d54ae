"""The no-LLM engine: answers with the rule verdict itself, as the same JSON the model gives.

It exists so the whole product (queue, bot, digest, reports) runs without a GPU as a fast
deterministic pre-screen, and so queue benchmarks measure the plumbing rather than a model. It reads the
verdict the screen step already computed (``EngineRequest.floor``) instead of importing the rules: the
screen step calls engines, never the other way round.
"""

from __future__ import annotations

import json

from screening.engines.answer import REASON_MAX_CHARS
from screening.engines.base import Engine, EngineOutput, EngineRequest


class RulesEngine(Engine):
    name = "rules"
    model_id = "rules"
    uses_prompts = False
    is_model = False

    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        out = []
        for req in requests:
            floor = req.floor
            if floor is None:  # only the screen step builds requests, and it always sets the floor for us
                out.append(EngineOutput(req.key, "", None, error="no rule verdict handed to the rules engine"))
                continue
            answer = {"risk_level": floor.risk_level, "reason": floor.reason[:REASON_MAX_CHARS],
                      "score": floor.score}
            out.append(EngineOutput(req.key, json.dumps(answer, ensure_ascii=False), "stop"))
        self.stats.requests += len(requests)
        self.stats.calls += 1
        return out
