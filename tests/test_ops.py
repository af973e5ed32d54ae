"""Operations: the worker's /metrics and /healthz after a real job (real redis-server, real worker
process with ``--engine rules``), JSON logs with job ids, queue depth at scrape time, and the
Telegram / push error counters.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest
from prometheus_client.parser import text_string_to_metric_families

from screening import metrics
from screening.config import Settings
from screening.models import PoolItem, StockInput
from screening.queue.client import LANES, JobQueue
from tests.fixtures_engine import free_port
from tests.fixtures_redis import REPO, make_items, worker_env


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        text = r.read().decode()
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def healthz(port: int) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_until(pred, timeout: float = 30.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            got = pred()
            if got:
                return got
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_worker_metrics_move_after_a_job(queue_settings: Settings, tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "worker.log"
    env = worker_env(queue_settings, SCREENER_METRICS__WORKER_PORT=str(port), SCREENER_METRICS__JSON_LOGS="true")
    with open(log_path, "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "screening", "worker", "--engine", "rules", "--name", "mw"],
                                cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    q = JobQueue(queue_settings.redis.url, queue_settings.redis)
    try:
        wait_until(lambda: healthz(port)[0] == 200, what=f"worker /healthz on {port}")
        body = healthz(port)[1]
        assert body["status"] == "ok" and body["worker"] == "mw"
        before = scrape(port)
        assert value(before, "screener_redis_up") == 1
        assert value(before, "screener_stocks_done_total", status="ok") == 0
        assert ("screener_engine_load_seconds", ()) in before
        assert value(before, "screener_engine_info", engine="rules", model="rules") == 1

        # 4 screenable stocks and one the rules cannot judge (no PE/ROE anywhere): a failed row
        items = make_items(4)
        items.append(PoolItem(index=4, raw_code="600000.SH", stock=StockInput(code="600000.SH", name="无数据")))
        job = q.submit(items, lane="fast", source="metrics-test")
        assert q.wait(job, timeout=30).finished
        rows = q.results(job)
        ok = sum(r.status == "ok" for r in rows)
        failed = len(rows) - ok
        assert failed >= 1

        def moved():
            s = scrape(port)
            done = value(s, "screener_stocks_done_total", status="ok") + value(s, "screener_stocks_done_total",
                                                                                status="failed")
            return s if done >= 5 else None

        after = wait_until(moved, what="stocks_done to reach 5")
        assert value(after, "screener_stocks_done_total", status="ok") == ok
        assert value(after, "screener_stocks_done_total", status="failed") == failed
        assert value(after, "screener_failures_total", reason="missing_data") == failed
        assert value(after, "screener_batches_total") >= 1
        assert value(after, "screener_stocks_per_second") > 0
        assert value(after, "screener_queue_jobs", lane="fast") == 0  # read from Redis at scrape time
        assert value(after, "screener_jobs_in_flight") == 0
        # the same figures the worker keeps in Redis (queue.worker_stats)
        assert q.worker_stats("mw")["stocks_done"] == 5
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        q.close()
    # JSON logs: one object per line; the batch line carries the job id
    lines = [json.loads(ln) for ln in log_path.read_text().splitlines() if ln.startswith("{")]
    assert lines and all({"ts", "level", "logger", "msg"} <= set(d) for d in lines)
    assert any(job in d.get("job_ids", []) or d.get("job_id") == job for d in lines), lines[-5:]


def test_queue_depth_and_health_in_process(queue_settings: Settings) -> None:
    """No worker under this prefix: a submitted job shows as depth 1 on the fast lane."""
    q = JobQueue(queue_settings.redis.url, queue_settings.redis)
    health = metrics.Health(stale_after_s=60)
    server = metrics.start_metrics_server(free_port(), "127.0.0.1", health.check)
    assert server is not None
    try:
        metrics.watch_queue(q, LANES)
        assert healthz(server.port)[0] == 503  # no beat yet: "starting"
        health.beat(worker="x")
        assert healthz(server.port) == (200, {"status": "ok", "last_beat_s": 0.0, "worker": "x"})
        q.submit(make_items(2), lane="fast")
        s = scrape(server.port)
        assert value(s, "screener_queue_jobs", lane="fast") == 1
        assert value(s, "screener_queue_entries", lane="fast") == 1
        assert value(s, "screener_queue_jobs", lane="bulk") == 0
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=5) as r:
            assert r.headers["Content-Type"].startswith("text/plain")
    finally:
        server.close()
        q.close()


def test_metrics_port_zero_is_off_and_busy_port_is_not_fatal() -> None:
    assert metrics.start_metrics_server(0) is None
    first = metrics.start_metrics_server(free_port())
    assert first is not None
    try:
        assert metrics.start_metrics_server(first.port) is None  # logged, not raised
    finally:
        first.close()


def test_settings_fallback_reads_toml_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from screening.config import load_settings

    cfg = tmp_path / "c.toml"
    cfg.write_text("[metrics]\nworker_port = 9301\njson_logs = true\n")
    monkeypatch.setenv("SCREENER_METRICS__BOT_PORT", "9302")
    ms = metrics.metrics_settings(load_settings(cfg))
    assert (ms.worker_port, ms.bot_port, ms.json_logs, ms.listen) == (9301, 9302, True, "127.0.0.1")


def test_json_formatter_job_ids() -> None:
    fmt = metrics.JsonFormatter()
    jid = "0123456789abcdef0123456789abcdef"
    rec = logging.LogRecord("screening.worker", logging.WARNING, __file__, 1, "worker w: %s[%d] failed",
                            (jid, 3), None)
    out = json.loads(fmt.format(rec))
    assert out["job_id"] == jid and out["level"] == "WARNING" and out["msg"] == f"worker w: {jid}[3] failed"
    rec = logging.LogRecord("x", logging.INFO, __file__, 1, "batch", (), None)
    rec.job_ids = ["a", "b"]
    assert json.loads(fmt.format(rec))["job_ids"] == ["a", "b"]
    rec = logging.LogRecord("x", logging.INFO, __file__, 1, "中文 no job", (), None)
    assert "job_id" not in json.loads(fmt.format(rec)) and "中文" in fmt.format(rec)


def test_failure_counts_use_the_code_set_where_the_row_was_made(queue_settings: Settings) -> None:
    """Rows carry a FailCode from where they are made; the failure counter is labelled by it, not by words."""
    from screening.config import BatcherSettings, EngineSettings
    from screening.engines.rules_engine import RulesEngine
    from screening.models import FailCode, InputProblem
    from screening.screen.pipeline import Screener

    items = [PoolItem(0, "600519", StockInput(code="600519.SH", name="无ROE")),
             PoolItem(1, "bad", error=InputProblem("command", "not a code", value="bad"))]
    rows = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(items)
    assert [r.fail_code for r in rows] == [FailCode.MISSING_DATA, FailCode.INPUT]
    q = JobQueue(queue_settings.redis.url, queue_settings.redis)
    try:
        job = q.submit([PoolItem(0, "600519", StockInput(code="600519.SH", name="x", roe=20.0, pe_ttm=10.0))],
                       lane="bulk")
        assert q.cancel(job)
        assert [r.fail_code for r in q.results(job)] == [FailCode.CANCELLED]
    finally:
        q.close()

    def count(code: str) -> float:
        return metrics.REGISTRY.get_sample_value("screener_failures_total", {"reason": code}) or 0.0

    before = count("missing_data"), count("input")
    metrics.observe_rows(rows)
    assert (count("missing_data"), count("input")) == (before[0] + 1, before[1] + 1)
    assert {c.value for c in FailCode} == {"input", "missing_data", "prompt_too_long", "prepare_failed",
                                            "engine_error", "worker_crash", "cancelled", "lost"}


def test_push_error_counter() -> None:
    from screening.push.base import SendOutcome, log_outcome

    before = metrics.PUSH_ERRORS.labels("feishu", "team")._value.get()
    digest = SimpleNamespace(date="2026-01-05", scope="all")
    log_outcome(SendOutcome("team", "feishu", 2, 0, 4, "HTTP 500"), digest)  # type: ignore[arg-type]
    log_outcome(SendOutcome("team", "feishu", 1, 1, 1), digest)  # type: ignore[arg-type]
    assert metrics.PUSH_ERRORS.labels("feishu", "team")._value.get() == before + 1


async def test_telegram_error_counter() -> None:
    """The bot's request class counts a rejected Bot API call by method and HTTP code."""
    from telegram import Bot
    from telegram.error import InvalidToken

    from bot.telegram.app import _request
    from tests.fake_bot_api import FakeBotAPI

    fake = await FakeBotAPI().start()
    try:
        before = metrics.TELEGRAM_ERRORS.labels("getMe", "401")._value.get()
        bot = Bot("1:wrong-token", base_url=fake.base_url, request=_request(2, 5.0, 0))
        with pytest.raises(InvalidToken):
            await bot.initialize()  # getMe
        assert metrics.TELEGRAM_ERRORS.labels("getMe", "401")._value.get() == before + 1
        good = Bot(fake.token, base_url=fake.base_url, request=_request(2, 5.0, 0))
        async with good:
            assert (await good.get_me()).username
        assert metrics.TELEGRAM_ERRORS.labels("getMe", "401")._value.get() == before + 1
    finally:
        await fake.stop()
