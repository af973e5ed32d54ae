"""doctor's lanes check: which jobs this worker takes, and what a worker of one lane needs beside it.

Why: ``worker.lanes`` lets a second worker with an engine of its own serve /screen alone (docs/OPERATIONS.md).
A worker of one lane leaves the other lane's jobs queued, silently, unless another worker takes them; and two
vLLM engines on one GPU must each be given an explicit KV-cache size, or each would size its cache from a
memory profile the other one spoils.
"""

from __future__ import annotations

from screening.config import Settings
from screening.ops.findings import Finding

# the lane a worker leaves -> what waits in it
LEFT = {"fast": "small jobs (/screen, pools of a few stocks)",
        "bulk": "large pools, whole-market runs and the pre-market digest"}
RUN_OTHER = "start a worker with SCREENER_WORKER__LANES='[\"{lane}\"]' beside this one (docs/OPERATIONS.md)"


def check_lanes(settings: Settings) -> list[Finding]:
    lanes = settings.worker.lanes
    if set(lanes) >= set(LEFT):
        return [Finding("ok", "lanes", "this worker takes jobs of both lanes (fast and bulk)")]
    findings = [Finding("warn", "lanes", f"this worker takes only {', '.join(lanes)} jobs: {LEFT[lane]} wait in "
                        f"the queue until a worker with the {lane} lane runs", RUN_OTHER.format(lane=lane))
                for lane in LEFT if lane not in lanes]
    if settings.engine.kind == "vllm" and settings.engine.kv_cache_gib is None:
        findings.append(Finding("warn", "lanes", "a worker of one lane usually shares its GPU with another engine, "
                                "and engine.kv_cache_gib is unset: each engine would size its KV cache from a "
                                "memory profile the other spoils",
                                "set engine.kv_cache_gib for both (docs/OPERATIONS.md gives sizes for an H200)"))
    return findings
