"""The worker's engine processes die with it, however it dies: a small reaper process watches it.

vLLM runs its engine core and model workers as separate processes. When the worker is SIGKILLed
(OOM killer, an operator, a crash test), they are re-parented to init and keep running: on the CPU
a killed worker's ``VLLM::EngineCore`` spun and its ``VLLM::Worker`` kept 3 GB each, twenty minutes
later; on a GPU they would keep the GPU's memory, so the next worker could not load and the crash
recovery the README promises would fail on the second crash.

``start_reaper()`` (called by the worker before it loads the engine) starts ``python -m
screening.runtime.reaper PID``. The reaper records every descendant of the worker (with its start
time, so a recycled pid is never touched) twice a second; once the worker is gone it terminates
them, then kills whatever survives a few seconds later, and exits. It ignores SIGINT/SIGTERM/SIGHUP
(a Ctrl-C or ``docker stop`` reaches the whole group; the reaper must outlive the worker to work).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time

import psutil

log = logging.getLogger("screening.reaper")
POLL_S = 0.5
GRACE_S = 3.0


def start_reaper() -> subprocess.Popen[bytes] | None:
    """Start the reaper for this process; None (logged) if it cannot start: the worker still runs."""
    try:
        return subprocess.Popen([sys.executable, "-m", "screening.runtime.reaper", str(os.getpid())],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=None)
    except OSError as exc:
        log.warning("engine-process reaper not started (%s): a SIGKILLed worker may leave vLLM processes", exc)
        return None


def _descendants(parent: psutil.Process, me: int) -> dict[int, float]:
    out: dict[int, float] = {}
    for child in parent.children(recursive=True):
        if child.pid != me:
            try:
                out[child.pid] = child.create_time()
            except psutil.Error:
                continue
    return out


def _same(pid: int, created: float) -> psutil.Process | None:
    try:
        p = psutil.Process(pid)
        return p if abs(p.create_time() - created) < 1e-3 else None
    except psutil.Error:
        return None


def reap(seen: dict[int, float]) -> int:
    """Terminate, then kill, the recorded processes that still exist; returns how many were found."""
    alive = [p for pid, t in seen.items() if (p := _same(pid, t)) is not None]
    for p in alive:
        try:
            p.terminate()
        except psutil.Error:
            pass
    _, survivors = psutil.wait_procs(alive, timeout=GRACE_S)
    for p in survivors:
        try:
            p.kill()
        except psutil.Error:
            pass
    return len(alive)


def watch(pid: int) -> int:
    """Record ``pid``'s descendants until it is gone, then reap them."""
    me = os.getpid()
    try:
        parent = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return 0
    seen: dict[int, float] = {}
    while True:
        try:
            if os.getppid() != pid or not parent.is_running() or parent.status() == psutil.STATUS_ZOMBIE:
                break
            seen.update(_descendants(parent, me))
        except psutil.NoSuchProcess:
            break
        time.sleep(POLL_S)
    return reap(seen)


def main(argv: list[str] | None = None) -> int:
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    args = sys.argv[1:] if argv is None else argv
    n = watch(int(args[0]))
    if n:
        print(f"screening reaper: ended {n} process(es) the worker {args[0]} left behind", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
