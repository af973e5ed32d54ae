"""Prometheus metrics, a tiny /healthz + /metrics HTTP server, and the JSON log formatter.

Why this shape:

* One process-wide set of metrics (prometheus_client's default registry), updated by the
  worker where batches finish and by the bot where Telegram sends fail. Counters only ever
  go up; Prometheus derives rates from them (``rate(screener_stocks_done_total[5m])``). The
  gauges ``screener_stocks_per_second`` / ``screener_tokens_per_second`` are the last batch's
  figures, for a dashboard that has no PromQL at hand.
* Queue depth is read from Redis at scrape time (a collector), so it is right even when the
  worker is busy inside a long engine call or when only the bot is running.
* ``/healthz`` answers 200 while the process's own loop is alive (the worker's heartbeat,
  the bot's Redis ping) and 503 with the reason otherwise; docker's healthcheck calls it.
* The server is a stdlib ThreadingHTTPServer in a daemon thread: no framework, nothing to
  await, and it dies with the process.

Config: the ``[metrics]`` section (``MetricsSettings`` below): ``worker_port``, ``bot_port``
(0 = off), ``listen`` and ``json_logs``.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Gauge, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from screening.config import MetricsSettings

log = logging.getLogger("screening.metrics")


def metrics_settings(settings: Any) -> MetricsSettings:
    """The ``[metrics]`` section (``MetricsSettings`` lives in config.py with the other sections)."""
    return settings.metrics


# ---------------------------------------------------------------------------------- the metrics
STOCKS_DONE = Counter("screener_stocks_done", "Rows written by this worker", ["status"])
BATCHES = Counter("screener_batches", "Engine batches finished by this worker")
CACHE_HITS = Counter("screener_cache_hits", "Rows answered from the same-day cache")
TOKENS = Counter("screener_tokens", "Tokens through the engine", ["kind"])
FAILURES = Counter("screener_failures", "Failed rows by reason", ["reason"])
STOCKS_PER_S = Gauge("screener_stocks_per_second", "Stocks per second of the last engine batch")
TOKENS_PER_S = Gauge("screener_tokens_per_second", "Prompt+output tokens per second of the last engine batch")
BATCH_SECONDS = Gauge("screener_last_batch_seconds", "Wall time of the last engine batch")
JOBS_IN_FLIGHT = Gauge("screener_jobs_in_flight", "Jobs this worker holds (claimed, not finished)")
ENGINE_LOAD_S = Gauge("screener_engine_load_seconds", "Seconds the engine took to load at start")
ENGINE_INFO = Gauge("screener_engine_info", "The engine this process runs (value 1)", ["engine", "model"])
TELEGRAM_ERRORS = Counter("screener_telegram_send_errors", "Failed Bot API requests", ["method", "code"])
PUSH_ERRORS = Counter("screener_push_send_errors", "Digest pushes not fully delivered", ["kind", "target"])

def observe_rows(rows: Iterable[Any], cache_hits: int = 0) -> None:
    """Rows written outside an engine batch (cache hits, rows that needed no engine)."""
    for row in rows:
        STOCKS_DONE.labels(row.status).inc()
        if row.status == "failed":  # the FailCode set where the row was made: a small fixed label set
            FAILURES.labels(row.fail_code or "unknown").inc()
    if cache_hits:
        CACHE_HITS.inc(cache_hits)


def observe_batch(rows: Iterable[Any], seconds: float, prompt_tokens: int = 0, output_tokens: int = 0) -> None:
    """One finished engine batch: its rows, wall time and tokens."""
    rows = list(rows)
    observe_rows(rows)
    BATCHES.inc()
    TOKENS.labels("prompt").inc(max(0, prompt_tokens))
    TOKENS.labels("output").inc(max(0, output_tokens))
    BATCH_SECONDS.set(seconds)
    if seconds > 0:
        STOCKS_PER_S.set(len(rows) / seconds)
        TOKENS_PER_S.set(max(0, prompt_tokens + output_tokens) / seconds)


def telegram_error(method: str, code: int | str) -> None:
    TELEGRAM_ERRORS.labels(method or "?", str(code)).inc()


def push_error(kind: str, target: str) -> None:
    PUSH_ERRORS.labels(kind or "?", target or "?").inc()


class QueueCollector(Collector):
    """Queue depth per lane, read from Redis at scrape time (jobs waiting or running, stocks left)."""

    def __init__(self, queue: Any, lanes: Sequence[str]) -> None:
        self.queue = queue
        self.lanes = tuple(lanes)

    def collect(self) -> Iterable[GaugeMetricFamily]:
        up = GaugeMetricFamily("screener_redis_up", "1 when Redis answered this scrape")
        jobs = GaugeMetricFamily("screener_queue_jobs", "Unfinished jobs per lane", labels=["lane"])
        entries = GaugeMetricFamily("screener_queue_entries", "Stream entries not yet delivered or acked",
                                    labels=["lane"])
        dead = GaugeMetricFamily("screener_dead_letters", "Entries in the dead-letter stream")
        try:
            pipe = self.queue.r.pipeline(transaction=False)
            for lane in self.lanes:
                pipe.zcard(self.queue.active_key(lane))
                pipe.xlen(self.queue.stream(lane))
            pipe.xlen(self.queue.dead_key)
            res = pipe.execute()
        except Exception as exc:  # a scrape must never raise; say Redis is down instead
            log.debug("queue collector: %s", exc)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        for i, lane in enumerate(self.lanes):
            jobs.add_metric([lane], res[2 * i])
            entries.add_metric([lane], res[2 * i + 1])
        dead.add_metric([], res[-1])
        yield from (up, jobs, entries, dead)


_queue_collector: QueueCollector | None = None


def watch_queue(queue: Any, lanes: Sequence[str]) -> None:
    """Report this queue's depth per lane at every scrape (idempotent: the last queue given wins).

    The lanes are handed in so that metrics need not import the queue (ops stays beside the flow).
    """
    global _queue_collector
    if _queue_collector is None:
        _queue_collector = QueueCollector(queue, lanes)
        REGISTRY.register(_queue_collector)
    else:
        _queue_collector.queue, _queue_collector.lanes = queue, tuple(lanes)


# ---------------------------------------------------------------------------------- health
class Health:
    """Liveness of a loop: ``beat()`` from the loop; stale after ``stale_after_s`` without a beat."""

    def __init__(self, stale_after_s: float = 30.0) -> None:
        self.stale_after_s = stale_after_s
        self.last = 0.0
        self.detail: dict[str, Any] = {}

    def beat(self, **detail: Any) -> None:
        self.last = time.monotonic()
        self.detail.update(detail)

    def check(self) -> tuple[bool, dict[str, Any]]:
        if self.last == 0.0:
            return False, {"status": "starting", **self.detail}
        age = time.monotonic() - self.last
        ok = age <= self.stale_after_s
        return ok, {"status": "ok" if ok else "stale", "last_beat_s": round(age, 1), **self.detail}


WORKER_HEALTH = Health()


class MetricsServer:
    """``GET /metrics`` (Prometheus text) and ``GET /healthz`` (JSON, 200 or 503) in a daemon thread."""

    def __init__(self, port: int, host: str = "127.0.0.1",
                 health: Callable[[], tuple[bool, dict[str, Any]]] | None = None) -> None:
        check: Callable[[], tuple[bool, dict[str, Any]]] = health or (lambda: (True, {"status": "ok"}))

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the stdlib handler method name
                path = self.path.split("?", 1)[0]
                if path == "/metrics":
                    body, ctype, code = generate_latest(REGISTRY), CONTENT_TYPE_LATEST, 200
                elif path in ("/healthz", "/health"):
                    try:
                        ok, detail = check()
                    except Exception as exc:  # a broken check is an unhealthy process, not a 500
                        ok, detail = False, {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
                    body = json.dumps(detail, ensure_ascii=False).encode()
                    ctype, code = "application/json", 200 if ok else 503
                else:
                    body, ctype, code = b"not found: try /metrics or /healthz\n", "text/plain", 404
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # scrapes are not news
                pass

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="metrics-http", daemon=True)
        self.thread.start()
        log.info("metrics on http://%s:%d/metrics, health on /healthz", host, self.port)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def start_metrics_server(port: int, host: str = "127.0.0.1",
                         health: Callable[[], tuple[bool, dict[str, Any]]] | None = None) -> MetricsServer | None:
    """Start the server when ``port`` > 0; a port already in use is logged, never fatal."""
    if port <= 0:
        return None
    try:
        return MetricsServer(port, host, health)
    except OSError as exc:
        log.error("metrics server not started on %s:%d: %s (set metrics.*_port to a free port, or 0)",
                  host, port, exc)
        return None


# ---------------------------------------------------------------------------------- JSON logs
_JOB_ID = re.compile(r"\b[0-9a-f]{32}\b")  # JobQueue.submit's uuid4().hex


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, job_id / job_ids, exc.

    Job ids come from the record's ``job_id`` / ``job_ids`` extra when the caller set them,
    otherwise from the message itself (the worker's log lines name the job).
    """

    def format(self, record: logging.LogRecord) -> str:
        msg = record.getMessage()
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "msg": msg,
        }
        ids = getattr(record, "job_ids", None)
        jid = getattr(record, "job_id", None)
        if jid:
            out["job_id"] = jid
        elif ids:
            out["job_ids"] = list(ids)
        else:
            found = list(dict.fromkeys(_JOB_ID.findall(msg)))
            if len(found) == 1:
                out["job_id"] = found[0]
            elif found:
                out["job_ids"] = found
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def use_json_logs(enabled: bool) -> None:
    """Switch every root handler to JSON lines (call after logging.basicConfig)."""
    if not enabled:
        return
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig()
    for handler in root.handlers:
        handler.setFormatter(JsonFormatter())
