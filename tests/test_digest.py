"""The digest shows the day-over-day changes between two consecutive screening runs.

Run 1 (2026-10-08) and run 2 (2026-10-09) screen the same universe, between which the
fundamentals change: one stock's ROE collapses (低→高), one improves (中→低), one becomes
``*ST`` (newly ST), and one lacks ROE (a failed row, never a guessed one). Once through the
real worker on the bulk lane, once through ``python -m screening digest --engine rules``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

from openpyxl import load_workbook

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.stock_csv import read_stock_csv
from screening.data.universe import Universe
from screening.digest.build import make_digest
from screening.digest.cli import add_digest_args, cmd_digest
from screening.digest.render import render_json, render_markdown, render_telegram
from screening.models import StockInput
from screening.queue.client import JobQueue

REPO = Path(__file__).resolve().parent.parent
DAY1, DAY2 = dt.date(2026, 10, 8), dt.date(2026, 10, 9)


def write_universe(path: Path, day: int, as_of: str) -> None:
    """The sample universe; ``day`` 2 carries the changed fundamentals."""
    stocks = [s for s, _ in read_stock_csv(REPO / "examples" / "sample_pool.csv")]
    stocks.append(StockInput(code="600999.SH", name="缺ROE", industry="综合", pe_ttm=12.0))
    if day == 2:
        by = {s.code: s for s in stocks}
        by["600519.SH"] = replace(by["600519.SH"], roe=3.0)  # 低 -> 高
        by["600036.SH"] = replace(by["600036.SH"], roe=16.0)  # 中 -> 低
        by["002415.SZ"] = replace(by["002415.SZ"], name="*ST海康", st=True)  # newly ST, 低 -> 高
        stocks = list(by.values())
    for old in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        old.unlink(missing_ok=True)
    u = Universe(path)
    u.update(stocks, as_of=as_of)
    u.save()


def check_changes(d1, d2) -> None:
    assert d1.previous_date is None and not d1.changes
    assert d2.previous_date == DAY1
    moves = {c.code: (c.old_risk, c.new_risk) for c in d2.changes}
    assert moves == {"600519.SH": ("低", "高"), "002415.SZ": ("低", "高"), "600036.SH": ("中", "低")}
    assert [c.code for c in d2.changes][:2] == ["002415.SZ", "600519.SH"]  # the worst moves first
    assert [r.code for r in d2.new_st] == ["002415.SZ"]
    assert [r.code for r in d2.failed] == ["600999.SH"] and "缺少数据" in (d2.failed[0].error or "")
    assert d2.counts["total"] == 21 and d2.data_as_of == "2026-10-09"
    md = render_markdown(d2)
    assert "风险变化 3 只" in md and "对比 2026-10-08" in md and "新增 ST 1 只" in md and "＊ST海康" in md
    html = "\n".join(render_telegram(d2))
    assert "*ST海康" in html and "600519.SH" in html
    js = render_json(d2)
    assert {c["code"] for c in js["risk_changes"]} == set(moves) and js["previous_date"] == "2026-10-08"


def test_two_runs_through_the_worker_show_the_changes(queue_settings: Settings, spawn_worker, tmp_path) -> None:
    uni = tmp_path / "universe.sqlite"
    settings = queue_settings.model_copy(update={"universe": UniverseSettings(path=str(uni))})
    spawn_worker("tests.engine_factories:slow_rules", env={"SCREENER_TEST_SLEEP_S": "0"})
    q = JobQueue(settings.redis.url, settings.redis)
    ds = DigestSettings(screen_timeout_s=60)
    write_universe(uni, 1, "2026-10-08")
    d1 = make_digest(settings, DAY1, ds=ds, queue=q, out_dir=tmp_path / "out")
    write_universe(uni, 2, "2026-10-09")
    d2 = make_digest(settings, DAY2, ds=ds, queue=q, out_dir=tmp_path / "out")
    check_changes(d1, d2)
    assert d1.job_id and d2.job_id and {q.status(d.job_id).lane for d in (d1, d2)} == {"bulk"}  # low priority
    wb = load_workbook(d2.xlsx_path)
    assert {"结果", "汇总", "变化", "新增ST"} <= set(wb.sheetnames)
    assert wb["变化"].max_row == 4 and wb["结果"].max_row == 22
    assert d2.chart_path and d2.chart_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a re-run of day 2 still compares with day 1 (its own snapshot is replaced, not compared with)
    d2b = make_digest(settings, DAY2, ds=ds, queue=q, write=False)
    assert d2b.previous_date == DAY1 and len(d2b.changes) == 3


def test_cli_renders_without_sending(queue_settings: Settings, tmp_path, monkeypatch, capsys) -> None:
    uni = tmp_path / "universe.sqlite"
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(uni))
    monkeypatch.setenv("SCREENER_REDIS__URL", queue_settings.redis.url)
    monkeypatch.setenv("SCREENER_REDIS__PREFIX", queue_settings.redis.prefix)
    parser = argparse.ArgumentParser()
    add_digest_args(parser)

    def run(*argv: str) -> tuple[int, str]:
        rc = cmd_digest(parser.parse_args(["--engine", "rules", "--out", str(tmp_path / "o"), *argv]))
        return rc, capsys.readouterr().out

    write_universe(uni, 1, "2026-10-08")
    rc, out = run("--date", "2026-10-08", "--format", "json")
    assert rc == 0 and json.loads(out)["previous_date"] is None
    write_universe(uni, 2, "2026-10-09")
    rc, out = run("--date", "2026-10-09", "--format", "json")
    js = json.loads(out)
    assert rc == 0 and js["previous_date"] == "2026-10-08" and len(js["risk_changes"]) == 3
    assert [r["code"] for r in js["new_st"]] == ["002415.SZ"] and js["xlsx"].endswith(".xlsx")
    rc, out = run("--date", "2027-01-04", "--format", "md", "--no-files")
    assert rc == 0 and out.startswith("## A股盘前摘要 · 2027-01-04 周一") and "交易日历回退" in out
    assert "本期未生成 XLSX 文件" in out and "见 XLSX" not in out  # --no-files wrote none (a trial, 2026-12-07)
    # the queue path without a worker: a clear error, not a hang
    rc = cmd_digest(parser.parse_args(["--date", "2026-10-09", "--timeout", "0.5", "--no-files"]))
    assert rc == 1 and "is a worker running" in capsys.readouterr().err
