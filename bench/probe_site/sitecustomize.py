"""Where a vLLM engine step's wall time goes: timers around the engine core's own calls (bench only).

Why: run 24 measured guided JSON at 0.570x unguided on the raw engine (72.50 vs 127.26 stocks/s),
and the token mask's fill explains ~1.5 s of the 14.2 s gap (run 25). What the rest is, is read off
the engine core's loop itself: how long it waits for the GPU, and how long it spends in the
scheduler, the grammar (accepting tokens, filling masks), the runner's input preparation and
sampling launch. The engine core is a process of vLLM's own (AsyncLLM), so the timers go in through
this ``sitecustomize``: ``bench/gpu_bench.py --probe`` puts this folder first on the child's
PYTHONPATH and sets ``STEP_PROBE_DIR``; every Python process started from it (the engine core too,
forked or spawned) wraps the named methods when their module is imported, and dumps per-second sums
to ``STEP_PROBE_DIR/probe-<pid>.json`` once a second. ``bench/step_probe.py`` reads them against the
phases of ``results.jsonl``. Nothing here runs unless ``STEP_PROBE_DIR`` is set; vLLM is not changed,
only timed (a ``perf_counter`` pair per call).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import sys
import threading
import time

# module -> (attribute path, probe name): the engine core's loop, the scheduler, the grammar, the runner
TARGETS: dict[str, list[tuple[str, str]]] = {
    "vllm.v1.engine.core": [
        ("EngineCore.step_with_batch_queue", "step"),
        ("EngineCore.step", "step"),
        ("EngineCoreProc._process_input_queue", "input_queue"),
    ],
    "vllm.v1.core.sched.scheduler": [
        ("Scheduler.schedule", "schedule"),
        ("Scheduler.update_from_output", "update_from_output"),
        ("Scheduler.get_grammar_bitmask", "grammar_bitmask"),
    ],
    "vllm.v1.structured_output.backend_xgrammar": [
        ("XgrammarGrammar.accept_tokens", "accept_tokens"),
    ],
    "vllm.v1.structured_output.backend_guidance": [
        ("GuidanceGrammar.accept_tokens", "accept_tokens"),
    ],
    "vllm.v1.worker.gpu_model_runner": [
        ("GPUModelRunner.execute_model", "execute_model"),
        ("GPUModelRunner.sample_tokens", "sample_tokens"),
        ("GPUModelRunner._sample", "sampler"),
        ("apply_grammar_bitmask", "apply_bitmask"),
        ("AsyncGPUModelRunnerOutput.get_output", "wait_gpu"),
    ],
}

_lock = threading.Lock()
_sums: dict[str, dict[int, list[float]]] = {}  # name -> epoch second -> [seconds, calls]
_state: dict = {"pid": 0, "kind": "decode"}  # kind: of the step the scheduler last built


def _add(name: str, started_wall: float, seconds: float) -> None:
    """Add a call to its second, once under its own name and once as ``name|decode`` or ``name|prefill``."""
    sec = int(started_wall)
    with _lock:
        if _state["pid"] != os.getpid():  # first call in this process (or after a fork): start its dumper
            _state["pid"] = os.getpid()
            _sums.clear()
            threading.Thread(target=_dump_loop, name="step-probe", daemon=True).start()
        for key in (name, f"{name}|{_state['kind']}"):
            cell = _sums.setdefault(key, {}).setdefault(sec, [0.0, 0])
            cell[0] += seconds
            cell[1] += 1


def _note_schedule(output) -> None:
    """A step carries prefill when some request is given more than one token (vLLM's SchedulerOutput)."""
    try:
        per_request = output.num_scheduled_tokens
        total = int(output.total_num_scheduled_tokens)
    except AttributeError:
        return
    if not per_request:
        return
    prefill = total - len(per_request)  # tokens beyond one per request: prompt tokens computed this step
    _state["kind"] = "prefill" if prefill > 0 else "decode"
    if prefill > 0:
        _add("prefill_tokens", time.time(), float(prefill))


def _dump_loop() -> None:
    out = os.environ["STEP_PROBE_DIR"]
    pid = os.getpid()
    path = os.path.join(out, f"probe-{pid}.json")
    while True:
        time.sleep(1.0)
        with _lock:
            data = {name: [[s, round(v[0], 6), v[1]] for s, v in sorted(cells.items())]
                    for name, cells in _sums.items()}
        tmp = path + ".tmp"
        try:
            with open(tmp, "w") as fh:
                json.dump({"pid": pid, "argv": sys.argv[:3], "sums": data}, fh)
            os.replace(tmp, path)
        except OSError:
            pass


def _timed(name: str, fn):
    perf, wall = time.perf_counter, time.time

    def probed(*args, **kwargs):
        w, t = wall(), perf()
        result = None
        try:
            result = fn(*args, **kwargs)
            return result
        finally:
            if name == "schedule" and result is not None:
                _note_schedule(result)
            _add(name, w, perf() - t)

    probed.__wrapped__ = fn  # type: ignore[attr-defined]
    probed.__name__ = getattr(fn, "__name__", name)
    return probed


def _patch(module) -> None:
    for path, name in TARGETS.get(module.__name__, []):
        owner = module
        *parents, attr = path.split(".")
        try:
            for part in parents:
                owner = getattr(owner, part)
            original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
        except (AttributeError, KeyError):
            print(f"[step_probe] {module.__name__}.{path} not found: not timed", file=sys.stderr, flush=True)
            continue
        setattr(owner, attr, _timed(name, original))


class _Loader(importlib.abc.Loader):
    def __init__(self, inner) -> None:
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module) -> None:
        self.inner.exec_module(module)
        _patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname not in TARGETS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


if os.environ.get("STEP_PROBE_DIR"):
    os.makedirs(os.environ["STEP_PROBE_DIR"], exist_ok=True)
    sys.meta_path.insert(0, _Finder())
