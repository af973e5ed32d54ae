"""Which tests the quick loop leaves out, and how the full run shares two cores: decided by what a test
uses rather than by hand.

Markers: ``bash scripts/test.sh --quick`` runs ``-m "not slow"``. A new test that takes the session's
vLLM engine but forgets ``@pytest.mark.vllm`` would silently make the quick loop minutes longer, so a
test is marked from its fixtures (the whole closure: a fixture built on ``vllm_engine`` counts too).
Any fixture in ``VLLM_FIXTURES`` makes it ``vllm``, and every ``vllm`` test is also ``slow``. Tests
that start the engine in a subprocess of their own (the CLI, a benchmark script, a worker with
``--engine vllm``) carry the marker by hand; the run names, at its end, any test without ``slow``
that took longer than ``SLOW_S``, so a missing marker shows up the first time it costs anything.

Two cores (``scripts/test.sh`` runs pytest-xdist, ``-n 2 --dist loadgroup``): vLLM on the CPU binds
its engine to one core and leaves the other to its front end, so one vLLM test at a time leaves a
core idle. Each xdist worker gets cores of its own for its engines (``VLLM_CPU_OMP_THREADS_BIND``),
the tests that share an in-process engine stay on one worker (``xdist_group``: the engine is paid
once), any other vLLM test is a unit of its own, every other module is one unit (its module fixtures
are paid once), and the units go out heaviest class first (vLLM, then slow, then the rest), so the
long ones do not end up last.
"""

from __future__ import annotations

import os

import pytest

# fixtures that load the real vLLM engine (in process, in a worker process, or behind `vllm serve`)
VLLM_FIXTURES = frozenset({"vllm_engine", "vllm_screener", "vllm_server", "lora_engine"})
# in-process engines: every test that uses one runs on the xdist worker that holds it
ENGINE_GROUPS = {"lora_engine": "vllm-lora", "vllm_engine": "vllm-session"}
SLOW_S = 5.0  # setup + call + teardown of one test, on two cores, above which it belongs to the full run

_durations: dict[str, float] = {}


def pytest_configure(config: pytest.Config) -> None:
    """In an xdist worker: this worker's share of the CPUs for the vLLM engines it (or its children) start."""
    worker, count = os.environ.get("PYTEST_XDIST_WORKER"), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if worker is None or count < 2 or "VLLM_CPU_OMP_THREADS_BIND" in os.environ:
        return
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < count:
        return
    mine = cpus[int(worker.removeprefix("gw")) % count::count]
    os.environ["VLLM_CPU_OMP_THREADS_BIND"] = ",".join(str(c) for c in mine)


def _group(item: pytest.Item) -> str:
    """The xdist unit: the in-process engine's tests together, any other vLLM test alone (they are the long
    ones: alone, they spread over the workers), every other module whole (its module fixtures paid once)."""
    names = getattr(item, "fixturenames", ())
    for fixture, group in ENGINE_GROUPS.items():
        if fixture in names:
            return group
    if item.get_closest_marker("vllm") is not None:
        return item.nodeid.replace("/", ".").replace("::", ".")
    return item.nodeid.split("::", 1)[0].replace("/", ".")


def _rank(item: pytest.Item) -> int:
    if item.get_closest_marker("vllm") is not None:
        return 0
    return 1 if item.get_closest_marker("slow") is not None else 2


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group markers
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if VLLM_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.vllm)
        if item.get_closest_marker("vllm") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(_group(item)))
    # a unit's rank is its heaviest test's; sorted is stable, so files keep their order within a rank
    unit_rank: dict[str, int] = {}
    for item in items:
        group = _group(item)
        unit_rank[group] = min(unit_rank.get(group, 2), _rank(item))
    items.sort(key=lambda item: unit_rank[_group(item)])


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "slow" not in report.keywords:  # keywords travel with the report from an xdist worker
        _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    slow = sorted(((s, n) for n, s in _durations.items() if s > SLOW_S), reverse=True)
    if slow:
        terminalreporter.write_sep("-", f"tests without a slow marker that took over {SLOW_S:.0f} s")
        for seconds, nodeid in slow:
            terminalreporter.write_line(f"{seconds:6.1f} s  {nodeid}  (mark it @pytest.mark.slow)")
