"""``python -m screening signals eval [FILE] [--engine rules|vllm|openai]``: how well risk text is read.

``--engine rules`` (the default) measures the rules floor alone (screen/signals.py). A model engine is
measured on the same items by its own reading: each item becomes one stock whose figures put it at 低
(``NEUTRAL_ROE``, ``NEUTRAL_PE``) and whose report text is that one title or sentence; the prompt shows the figures'
floor, as the product does, so the tier the model answers is the tier it read. The two printouts side by
side are what the model adds over the floor (and where it cries wolf). A top-level command because it
reaches the engines; the scoring itself is screen/signals_eval.py.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from screening.config import load_settings
from screening.models import PoolItem, StockInput
from screening.screen.signals_eval import DEFAULT_SET, EvalItem, EvalSetError, evaluate, load_set

log = logging.getLogger(__name__)
# figures that put a stock at 低 by the rules (ROE 20%, PE-TTM 20): whatever the model raises it to, it read
NEUTRAL_PE, NEUTRAL_ROE = 20.0, 20.0


def add_signals_args(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="signals_command", required=True)
    e = sub.add_parser("eval", help="recall per tier, false escalations and misses on a labelled set")
    e.add_argument("file", nargs="?", default=str(DEFAULT_SET),
                   help=f"TSV: kind date text tier category note (default {DEFAULT_SET.name})")
    e.add_argument("--engine", choices=["rules", "vllm", "openai"], default="rules",
                   help="rules: the floor alone; vllm/openai: the configured model's own reading")
    e.add_argument("--config")
    e.add_argument("--no-misses", action="store_true", help="print the figures only")


def _stocks(items: Sequence[EvalItem]) -> list[PoolItem]:
    return [PoolItem(i, "600000.SH", StockInput(code="600000.SH", name="评测样本", industry="评测",
                                               pe_ttm=NEUTRAL_PE, roe=NEUTRAL_ROE, eps=1.0,
                                               report_text=item.report_text()))
            for i, item in enumerate(items)]


def model_tiers(items: Sequence[EvalItem], args: argparse.Namespace) -> list[str]:
    """The tier the configured model answers for each item ('无' where it stays at the figures' 低)."""
    from screening.engines import make_engine
    from screening.screen.pipeline import Screener

    settings = load_settings(args.config)
    engine = make_engine(settings.engine, args.engine)
    try:
        rows = Screener(engine, settings.engine, settings.batcher).run(_stocks(items))
    finally:
        engine.close()
    out = []
    for row in rows:
        tier = row.model_risk or "无"  # unparsable: the model read nothing
        out.append("无" if tier == "低" else tier)
    return out


def cmd_signals(args: argparse.Namespace) -> int:
    path = Path(args.file)
    try:
        items = load_set(path)
    except (OSError, EvalSetError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.engine == "rules":
        scores = evaluate(items, "rules floor (screen/signals.py)")
    else:
        scores = evaluate(items, f"model via --engine {args.engine}", lambda its: model_tiers(its, args))
    lines = scores.lines()
    if args.no_misses:
        lines = [line for line in lines if not line.startswith("  miss:")]
    print(f"set: {path} ({len(items)} items)")
    print("\n".join(lines))
    return 0
