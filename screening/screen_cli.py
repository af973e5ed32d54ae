"""``python -m screening screen``: a pool file or typed codes in, one row per stock out.

stdout carries only the format asked for (a JSON array, CSV, the table); every log line, warning
and the summary go to stderr, on every engine. Exit codes: 0 when the job ran (failed rows
included), 2 for unusable input or an unreachable queue (one line on stderr saying what to do).
A top-level command, not part of screen/: with ``--via-queue`` it reaches the queue, a layer below the
screen step in the flow, and screen/ itself knows no Redis.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from redis.exceptions import RedisError

from screening.config import Settings, load_settings
from screening.data.load import is_demo_pool, open_universe
from screening.data.load import load_pool as load_inputs
from screening.data.universe import UniverseInfo
from screening.errors import check_model_folder
from screening.models import Pool, PoolRejected, ResultRow
from screening.output import report
from screening.output.chart import draw_chart
from screening.output.out_dir import out_dir_problem
from screening.output.xlsx import write_workbook
from screening.queue.status import JobStatus
from screening.screen.unread_text import admit_pool

DEMO_BANNER = "演示数据 (demo data): 合成市场与 examples/ 的示例数字, 不是真实行情, 不能据此交易"


def add_screen_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("inputs", nargs="+", metavar="POOL_FILE|CODE")
    s.add_argument("--engine", choices=["vllm", "openai", "rules"])
    s.add_argument("--format", choices=["table", "json", "csv", "xlsx"], default="table")
    s.add_argument("--out", help="directory for the report files")
    s.add_argument("--config", help="config file (default: $SCREENER_CONFIG, ./config.toml, "
                   "then ~/.config/ashare-screener/config.toml)")
    s.add_argument("--demo", action="store_true",
                   help="screen against the synthetic demo market (every output says 演示数据)")
    s.add_argument("--via-queue", action="store_true", help="submit through Redis and wait for the worker")
    s.add_argument("--lane", choices=["fast", "bulk"], default="fast")
    s.add_argument("--timeout", type=float, default=None, help="seconds to wait for the worker")


def settings_for(args: argparse.Namespace) -> Settings:
    """Settings from config and environment, with ``--demo`` switched on when given."""
    settings = load_settings(getattr(args, "config", None))
    if getattr(args, "demo", False):
        settings.universe.demo = True
    return settings


def _progress_bar(total: int, enabled: bool) -> tuple[Any, Callable[[int], None], Callable[[], None]]:
    if not enabled or total < 20:
        return None, (lambda n: None), (lambda: None)
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(transient=True, console=Console(stderr=True))
    task = bar.add_task("screening", total=total)
    bar.start()
    return bar, (lambda n: bar.advance(task, n)), bar.stop


def _via_queue(settings: Settings, pool: Pool, args: argparse.Namespace, show_bar: bool) -> list[ResultRow]:
    from screening.queue.client import submit_and_wait

    bar, _, stop = _progress_bar(len(pool.items), show_bar)

    def progress(status: JobStatus) -> None:
        if bar is not None:
            bar.update(bar.task_ids[0], completed=status.done)

    def no_worker(job_id: str) -> None:
        print(f"注意: {settings.redis.no_worker_s:g} s 内没有在运行的 worker (Redis 前缀 {settings.redis.prefix!r}): "
              f"任务 {job_id} 在排队; 另开终端运行 `python -m screening worker` (正在加载模型的 worker 加载完才算), "
              "或 Ctrl-C 后去掉 --via-queue 在本进程筛选", file=sys.stderr)

    try:
        return submit_and_wait(settings, pool.items, lane=args.lane, source=pool.source, progress=progress,
                               timeout=args.timeout, no_worker=no_worker)
    finally:
        stop()


def _in_process(settings: Settings, pool: Pool, kind: str, show_bar: bool) -> list[ResultRow]:
    from screening.engines import make_engine
    from screening.screen.pipeline import Screener

    if kind == "vllm":
        check_model_folder(settings.engine.model)  # before vLLM tries the hub in a subprocess
    engine = make_engine(settings.engine, kind)
    _, advance, stop = _progress_bar(len(pool.items), show_bar)
    try:
        return Screener(engine, settings.engine, settings.batcher).run(pool.items, advance)
    finally:
        stop()
        engine.close()


def run_screen(args: argparse.Namespace) -> int:
    settings = settings_for(args)
    try:
        universe = open_universe(settings)
        pool = load_inputs(args.inputs, settings, universe=universe)
    except PoolRejected as exc:
        print(f"错误: {exc}", file=sys.stderr)
        return 2
    if not pool.items:
        print("错误: 没有可筛选的股票", file=sys.stderr)
        return 2
    problem = out_dir_problem(Path(args.out)) if args.out else None
    if problem:  # before the screen, not after it: a long job must not end in an unwritable folder
        print(f"错误: {problem}", file=sys.stderr)
        return 2
    if universe.info.demo or is_demo_pool(pool):
        print(f"注意: {DEMO_BANNER}", file=sys.stderr)
    # unknown columns' risk text, read for the whole pool here so stderr names each column once (a queue worker
    # or the screen step would otherwise read it row by row, with no one to tell)
    pool.warnings += admit_pool(pool.items, pool.source)
    for w in pool.warnings:
        print(f"注意: {w}", file=sys.stderr)
    started = time.perf_counter()
    show_bar = args.format == "table" and sys.stderr.isatty()
    try:
        if args.via_queue:
            rows = _via_queue(settings, pool, args, show_bar)
        else:
            rows = _in_process(settings, pool, args.engine or settings.engine.kind, show_bar)
    except RedisError as exc:
        print(f"错误: 连不上 Redis {settings.redis.url} ({type(exc).__name__}: {exc}): 启动 redis-server "
              "(见 README), 或改 redis.url / SCREENER_REDIS__URL", file=sys.stderr)
        return 2
    except KeyError as exc:  # the job's keys vanished while we waited (expired, or deleted by hand)
        print(f"错误: {exc.args[0] if exc.args else exc}: 任务已不在 Redis 中 (过期或被删除), 请重新提交",
              file=sys.stderr)
        return 2
    except TimeoutError as exc:
        print(f"错误: {exc}; worker 在运行吗 (`python -m screening worker`)?", file=sys.stderr)
        return 2
    emit(rows, pool, args, time.perf_counter() - started, universe.info)
    return 0


def engines_of(rows: list[ResultRow]) -> str:
    """The engines that made these rows, as the rows say (a rules worker's rows are rules rows)."""
    counts = Counter(r.engine or "none" for r in rows)
    return ", ".join(name for name, _ in counts.most_common())


def emit(rows: list[ResultRow], pool: Pool, args: argparse.Namespace, elapsed: float, info: UniverseInfo) -> None:
    """stdout: the format asked for (xlsx: a file). ``--out DIR``: the same four files whatever the format."""
    out_dir = Path(args.out) if args.out else None
    engine = engines_of(rows)
    title = table_title(pool, info)
    meta = {"source": pool.source, "data": info.label(), "engine": engine, "seconds": round(elapsed, 2),
            "generated_at": time.strftime("%Y-%m-%d %H:%M:%S")}
    if args.format == "json":
        sys.stdout.write(report.to_json(rows) + "\n")
    elif args.format == "csv":
        to_file = stdout_is_a_file()  # Excel's file: the byte-order mark, and codes kept as text
        sys.stdout.write(("\ufeff" if to_file else "") + report.to_csv(rows, excel=to_file))
    elif args.format == "xlsx" and out_dir is None:
        target = Path("screen.xlsx")
        write_workbook(rows, target, pool, meta, demo=info.demo)
        print(f"wrote {target}", file=sys.stderr)
    elif args.format == "table":
        report.render_table(rows, title=title)
    if out_dir:
        write_workbook(rows, out_dir / "screen.xlsx", pool, meta, demo=info.demo)
        draw_chart(rows, out_dir / "screen.png", title=title)
        (out_dir / "screen.json").write_text(report.to_json(rows), encoding="utf-8")
        (out_dir / "screen.csv").write_text(report.to_csv(rows, excel=True), encoding="utf-8-sig")
        print(f"报告已写入 {out_dir}/ (screen.xlsx, screen.png, screen.json, screen.csv)", file=sys.stderr)
    s = report.summary(rows)
    print(f"{s['total']} 只, 用时 {elapsed:.1f} s, 引擎 {engine}: 成功 {s['ok']}, 失败 {s['failed']}; "
          f"{report.demo_title(rows, info.label())}", file=sys.stderr)  # a demo pool on a real universe says so


def stdout_is_a_file() -> bool:
    """True when stdout was redirected into a regular file (``> out.csv``), not a pipe or a terminal.

    Why: Excel on Chinese Windows reads a CSV without a byte-order mark as the local code page, so every Chinese
    cell of ``screen … --format csv > out.csv`` opened there was mojibake (the ``--out`` copy has the mark). A
    file gets the mark, as that copy does, and its all-digit codes written ``="000001"`` (Excel showed 1); a pipe gets
    neither, since the program reading it may not strip them.
    """
    try:
        return stat.S_ISREG(os.fstat(sys.stdout.fileno()).st_mode)
    except (OSError, ValueError):  # no descriptor (a captured stdout): not a file
        return False


def table_title(pool: Pool, info: UniverseInfo) -> str:
    """The pool's own count and source first; the universe only as where missing figures came from."""
    return f"{pool.source} · {len(pool.items)} 只 · 补充数据: {info.label()}"
