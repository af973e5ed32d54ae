"""``python -m screening digest``: render today's digest to stdout; never sends anything."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

from screening.config import load_settings
from screening.data.day_args import day_argument
from screening.digest.build import make_digest
from screening.digest.render import render_json, render_markdown, render_telegram
from screening.models import PoolRejected


def add_digest_args(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``python -m screening digest`` (renders one; never sends)."""
    parser.add_argument("--date", help="digest date YYYY-MM-DD (default: today, Shanghai)")
    parser.add_argument("--format", choices=["md", "json", "html"], default="md",
                        help="md (WeCom/DingTalk markdown), json, or html (Telegram)")
    parser.add_argument("--pool", help="a pool file (CSV/XLSX) instead of the whole universe")
    parser.add_argument("--engine", choices=["rules"],
                        help="screen in process with this engine instead of through the queue (no worker needed)")
    parser.add_argument("--out", help="directory for the XLSX and chart (default: [digest].out_dir)")
    parser.add_argument("--no-files", action="store_true", help="skip the XLSX and chart")
    parser.add_argument("--no-history", action="store_true",
                        help="neither read nor store the per-day snapshot in Redis (no day-over-day changes)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds to wait for the worker")
    parser.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")
    # as `screen --demo` (README: the CLI): a user trying the digest with no data types it and got the top-level
    # usage error (a trial, 2026-12-07); the digest then says 演示数据 in its head, and is never pushed by this command
    parser.add_argument("--demo", action="store_true",
                        help="digest the synthetic demo market (every output says 演示数据)")


def cmd_digest(args: argparse.Namespace) -> int:
    """Render a digest to stdout. 0 ok, 2 bad input, 1 when screening failed (no worker, timeout)."""
    day, refusal = day_argument(args.date, "--date") if args.date is not None else (None, None)
    if refusal is not None:
        print(refusal, file=sys.stderr)
        return 2
    settings = load_settings(getattr(args, "config", None))
    if getattr(args, "demo", False):
        settings.universe.demo = True
    ds = settings.digest
    day = day or dt.datetime.now(ds.tz).date()
    if args.timeout is not None:
        ds = ds.model_copy(update={"screen_timeout_s": args.timeout})
    try:
        d = make_digest(settings, day, ds=ds, pool_file=args.pool, engine=args.engine,
                        use_history=not args.no_history, out_dir=Path(args.out) if args.out else None,
                        write=not args.no_files)
    except PoolRejected as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (TimeoutError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # redis down on the queue path, etc.
        print(f"error: digest failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if args.format == "json":
        sys.stdout.write(json.dumps(render_json(d), ensure_ascii=False, indent=1) + "\n")
    elif args.format == "html":
        sys.stdout.write("\n\n----\n\n".join(render_telegram(d, ds)) + "\n")
    else:
        sys.stdout.write(render_markdown(d, ds) + "\n")
    for w in d.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if d.empty:  # nothing screened: the text says how to get data; a script sees the exit code
        print("错误: 没有可筛选的数据; 先运行 `python -m screening universe refresh`", file=sys.stderr)
        return 1
    if d.xlsx_path:
        print(f"wrote {d.xlsx_path} and {d.chart_path}", file=sys.stderr)
    return 0
