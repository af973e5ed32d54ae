"""The command line: ``screen``, ``worker``, ``bench`` (and the wiring of each to its module).

Exit codes: 0 when the job ran (failed rows included), 2 for unusable input (the message on
stderr names the file, row, column or value), 1 for an internal error.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import tomllib
from pathlib import Path

from pydantic import ValidationError

from screening.config import config_problems, load_settings
from screening.data.load import load_pool
from screening.models import Pool, PoolRejected, ResultRow

log = logging.getLogger("screening")
def _progress_bar(total: int, enabled: bool):
    if not enabled or total < 20:
        return None, (lambda n: None), (lambda: None)
    from rich.progress import Progress

    bar = Progress(transient=True, console=__import__("rich.console").console.Console(stderr=True))
    task = bar.add_task("screening", total=total)
    bar.start()
    return bar, (lambda n: bar.advance(task, n)), bar.stop


def run_screen(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    try:
        pool = load_pool(args.inputs, settings)
    except PoolRejected as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not pool.items:
        print("error: nothing to screen", file=sys.stderr)
        return 2
    for w in pool.warnings:
        print(f"warning: {w}", file=sys.stderr)
    engine_kind = args.engine or settings.engine.kind
    started = time.perf_counter()
    show_bar = args.format == "table" and sys.stderr.isatty()
    rows: list[ResultRow]
    if args.via_queue:
        from screening.queue.client import submit_and_wait

        bar, _, stop = _progress_bar(len(pool.items), show_bar)
        done = [0]

        def progress(status) -> None:
            if bar is not None:
                bar.update(bar.task_ids[0], completed=status.done)
            done[0] = status.done

        try:
            rows = submit_and_wait(
                settings, pool.items, lane=args.lane, source=pool.source, progress=progress, timeout=args.timeout
            )
        finally:
            stop()
    else:
        from screening.engines import make_engine
        from screening.screen.pipeline import Screener

        engine = make_engine(settings.engine, engine_kind)
        bar, advance, stop = _progress_bar(len(pool.items), show_bar)
        try:
            rows = Screener(engine, settings.engine, settings.batcher).run(pool.items, advance)
        finally:
            stop()
            engine.close()
    elapsed = time.perf_counter() - started
    emit(rows, pool, args, elapsed, engine_kind)
    return 0


def emit(rows: list[ResultRow], pool: Pool, args: argparse.Namespace, elapsed: float, engine: str) -> None:
    from screening.output import report

    out_dir = Path(args.out) if args.out else None
    meta = {
        "source": pool.source,
        "engine": engine,
        "seconds": round(elapsed, 2),
        "generated_at": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    if args.format == "json":
        sys.stdout.write(report.to_json(rows) + "\n")
    elif args.format == "csv":
        text = report.to_csv(rows)
        if out_dir:
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / "screen.csv").write_text(text, encoding="utf-8-sig")
        else:
            sys.stdout.write(text)
    elif args.format == "xlsx":
        target = (out_dir or Path(".")) / "screen.xlsx"
        report.write_xlsx(rows, target, pool, meta)
        print(f"wrote {target}", file=sys.stderr)
    else:
        report.render_table(rows)
    if out_dir and args.format in ("table", "xlsx"):
        report.write_xlsx(rows, out_dir / "screen.xlsx", pool, meta)
        report.write_chart(rows, out_dir / "screen.png", title=pool.source)
        (out_dir / "screen.json").write_text(report.to_json(rows), encoding="utf-8")
        print(f"report written to {out_dir}/ (screen.xlsx, screen.png, screen.json)", file=sys.stderr)
    s = report.summary(rows)
    print(
        f"{s['total']} stocks in {elapsed:.1f} s with engine {engine}: {s['ok']} ok, {s['failed']} failed",
        file=sys.stderr,
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m screening", description=__doc__)
    p.add_argument("-v", "--verbose", action="store_true")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("screen", help="screen a pool file or a list of codes")
    s.add_argument("inputs", nargs="+", metavar="POOL_FILE|CODE")
    s.add_argument("--engine", choices=["vllm", "openai", "rules"])
    s.add_argument("--format", choices=["table", "json", "csv", "xlsx"], default="table")
    s.add_argument("--out", help="directory for the report files")
    s.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")
    s.add_argument("--via-queue", action="store_true", help="submit through Redis and wait for the worker")
    s.add_argument("--lane", choices=["fast", "bulk"], default="fast")
    s.add_argument("--timeout", type=float, default=None, help="seconds to wait for the worker")
    s.set_defaults(func=run_screen)

    try:
        from screening.queue.run import add_worker_args, cmd_worker

        w = sub.add_parser("worker", help="run the GPU worker (owns the engine, serves the Redis queue)")
        add_worker_args(w)
        w.set_defaults(func=cmd_worker)
    except ImportError:  # pragma: no cover - during development only
        pass

    from screening.digest.cli import add_digest_args, cmd_digest

    d = sub.add_parser("digest", help="render the pre-market digest without sending it")
    add_digest_args(d)
    d.set_defaults(func=cmd_digest)

    b = sub.add_parser("bench", help="CPU benchmark: raw engine vs the screen path, bucketing on/off")
    b.add_argument("--n", type=int, default=64)
    b.add_argument("--engine", choices=["vllm", "rules"], default="vllm")
    b.add_argument("--config")
    b.add_argument("--results", default="bench/RESULTS.md")
    b.add_argument("--queue", action="store_true", help="also measure the Redis queue path")
    b.add_argument("--prepare", action="store_true",
                   help="only the prompt preparation of the 5,400-stock market: one by one vs one batch")
    b.set_defaults(func=lambda a: __import__("screening.ops.bench.cli", fromlist=["main"]).main(a))

    # ops (screening/doctor.py, screening/verify_model.py); their heavy imports (torch, vllm) happen inside
    from screening.ops import doctor, verify_model

    d = sub.add_parser("doctor", help="check Redis, engine and model, GPU, bot token, push targets; say how to fix")
    doctor.add_args(d)
    d.set_defaults(func=doctor.main)
    vm = sub.add_parser("verify-model", help="weight checksums, config read-back, transformers vs vLLM greedy parity")
    verify_model.add_args(vm)
    vm.set_defaults(func=verify_model.main)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args) or 0)
    except (ValidationError, tomllib.TOMLDecodeError) as exc:  # bad config.toml or SCREENER_* variable
        for line in config_problems(exc, getattr(args, "config", None)):
            print(f"error: {line}", file=sys.stderr)
        return 2
