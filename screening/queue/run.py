"""``python -m screening worker``: load the engine once, then run the worker loop until told to stop."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from screening import metrics as _metrics  # ops: Prometheus counters and /healthz (screening/metrics.py)
from screening.config import Settings, load_settings
from screening.engines.base import Engine
from screening.engines.types import EngineDead
from screening.queue.client import LANES, JobQueue
from screening.queue.worker import Worker
from screening.runtime import logsafe
from screening.runtime.reaper import start_reaper

log = logging.getLogger("screening.worker")
EXIT_ENGINE_DEAD = 3  # the engine died (engines/types.py EngineDead): restart the worker, the jobs wait for it


def run_worker(settings: Settings, engine: Engine, name: str | None = None,
               stop: threading.Event | None = None, exit_when_idle: bool = False) -> None:
    """Run the worker loop until ``stop`` is set (or the queue is drained with exit_when_idle)."""
    Worker(settings, engine, name, stop, exit_when_idle).run()


def load_engine_factory(spec: str) -> Callable[[Settings], Engine]:
    """Resolve ``"module:function"``; the function takes Settings and returns an Engine."""
    module_name, sep, func_name = spec.partition(":")
    if not sep or not module_name or not func_name:
        raise ValueError(f"engine factory must look like module:function, got {spec!r}")
    factory = getattr(importlib.import_module(module_name), func_name, None)
    if not callable(factory):
        raise ValueError(f"{spec!r} is not a callable")
    return factory


def add_worker_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", choices=["vllm", "openai", "rules"], default=None,
                        help="engine kind (default: config engine.kind)")
    parser.add_argument("--engine-factory", metavar="MOD:FN", default=None,
                        help="build the engine with this function of Settings instead (tests, plugins)")
    parser.add_argument("--name", default=None, help="consumer name (default host-pid); reuse it to "
                        "resume this worker's pending entries at once after a restart")
    parser.add_argument("--exit-when-idle", action="store_true", help="exit once the queue is drained")
    parser.add_argument("--config", default=None, help="config.toml path")


def cmd_worker(args: argparse.Namespace) -> int:
    """Load the engine once, install SIGTERM/SIGINT to finish the batch in flight, run."""
    # force: `python -m screening` set WARNING before dispatching here, and the worker logs every batch at INFO
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    settings = load_settings(args.config)
    # ops: JSON logs, /metrics and /healthz when [metrics] asks for them (screening/metrics.py)
    ms = _metrics.metrics_settings(settings)
    _metrics.use_json_logs(ms.json_logs)
    logsafe.install([os.environ.get(settings.engine.api_key_env, "")], one_line_exit=False)
    start_reaper()  # before the engine exists: its processes die with this one, however it dies
    _metrics.WORKER_HEALTH.stale_after_s = max(30.0, settings.redis.claim_idle_ms / 1000)
    server = _metrics.start_metrics_server(ms.worker_port, ms.listen, _metrics.WORKER_HEALTH.check)
    load_started = time.perf_counter()
    if args.engine_factory:
        engine = load_engine_factory(args.engine_factory)(settings)
    else:
        from screening.engines import make_engine

        engine = make_engine(settings.engine, args.engine, continuous=True)
    _metrics.ENGINE_LOAD_S.set(getattr(engine, "load_seconds", None) or time.perf_counter() - load_started)
    _metrics.ENGINE_INFO.labels(engine.name, engine.model_id or "").set(1)
    if server is not None:
        _metrics.watch_queue(JobQueue(settings.redis.url, settings.redis), LANES)
    stop = threading.Event()

    def _on_signal(signum: int, _frame: Any) -> None:
        log.info("signal %d: finishing the requests in flight, then exiting", signum)
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    try:
        run_worker(settings, engine, args.name, stop, args.exit_when_idle)
    except EngineDead:
        return EXIT_ENGINE_DEAD  # the worker logged it in one line; its jobs are back in the queue
    finally:
        engine.close()
        if server is not None:
            server.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m screening worker", description=__doc__.split("\n")[0])
    add_worker_args(parser)
    return cmd_worker(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
