"""The records that cross the engine boundary: a request (prompt and ids), its output, the counters."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

from screening.models import StockInput


class EngineDead(RuntimeError):
    """The engine itself is gone (vLLM's engine core died: a CUDA out-of-memory, a crashed kernel, a kill).

    Not a stock's failure: every request in this process fails from now on, so no row may be written as
    failed for it. The worker stops and hands its jobs back; the next worker, with a fresh engine, finishes
    them (the stocks that were in flight count one death, as after a SIGKILL: queue/worker.py). Seen on an
    H100 on 2026-12-05 (run 34): one out-of-memory in a 32k-token prefill step, and the old worker failed the
    other 1,785 stocks of a 2,400-stock job "for good" within two seconds, three instant retries each.
    """


@dataclass(frozen=True)
class FloorAnswer:
    """The rules' own answer for a stock (risk, reason, score), computed once by the screen step: the rules
    engine returns it as its answer, so engines/ needs nothing from screen/ (the flow runs one way)."""

    risk_level: str
    reason: str
    score: int


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
    floor: FloorAnswer | None = None  # set for an engine that reads no prompt (the rules engine)


@dataclass
class EngineOutput:
    key: str
    text: str
    finish_reason: str | None
    error: str | None = None  # the engine failed for this request (not a bad answer)
    prompt_tokens: int = 0
    output_tokens: int = 0
    # wall-clock seconds (time.time()) of the request's legs inside the engine, when the engine keeps them:
    # handed, arrival, queued, scheduled, first_token, last_token, answered (engines/async_vllm.py)
    timing: dict[str, float] | None = None


@dataclass
class EngineStats:
    requests: int = 0
    prompt_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    extra: dict = field(default_factory=dict)
