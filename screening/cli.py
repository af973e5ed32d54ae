"""The command line: one subcommand per job, each wired here to the module that does it.

``screen`` (screen_cli.py), ``universe`` (data/cli.py), ``worker`` (queue/run.py), ``digest``
(digest/cli.py), ``calendar`` (data/calendar_cli.py), ``bench`` (ops/bench/), ``finetune`` (finetune/cli.py),
``signals`` (signals_cli.py), ``doctor`` and ``verify-model`` (ops/).

Exit codes: 0 when the job ran (failed rows included), 2 for unusable input (the message on
stderr names the file, row, column or value), 1 for an internal error.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tomllib

from pydantic import ValidationError

from screening.config import ConfigKeyError, config_problems
from screening.data.cli import add_universe_args, cmd_universe
from screening.errors import explain
from screening.screen_cli import add_screen_args, run_screen

log = logging.getLogger("screening")



def _universe(args: argparse.Namespace) -> int:
    """``universe``, its refresh reading with the text reader which stored titles state a risk still open (kept past
    the announcement window: data/refresh_open_risks.py); data/ may not import screen/, so the wiring is here."""
    from screening.screen.open_risks import open_risk_titles

    return cmd_universe(args, open_risks=open_risk_titles)

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m screening", description=__doc__)
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--debug", action="store_true", help="show the traceback of a failure (anywhere on the line)")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("screen", help="screen a pool file or a list of codes")
    add_screen_args(s)
    s.set_defaults(func=run_screen)

    u = sub.add_parser("universe", help="the local market data: refresh from AKShare/Tushare, status, show, import")
    add_universe_args(u)
    u.set_defaults(func=_universe)

    from screening.queue.run import add_worker_args, cmd_worker

    w = sub.add_parser("worker", help="run the GPU worker (owns the engine, serves the Redis queue)")
    add_worker_args(w)
    w.set_defaults(func=cmd_worker)

    from screening.data.calendar_cli import add_calendar_args, cmd_calendar

    c = sub.add_parser("calendar", help="a year's closed and undecided (调休待定) weekdays; import the notice")
    add_calendar_args(c)
    c.set_defaults(func=cmd_calendar)

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
    b.add_argument("--faults", action="store_true",
                   help="only the reliability claims: load, worker SIGKILLs, Redis restarts and a 30 s outage")
    b.add_argument("--interactive", action="store_true",
                   help="only interactive under load: 2-stock fast jobs during an --n-stock bulk job, real worker")
    b.add_argument("--fast-every", type=float, default=3.0, help="with --interactive: seconds between fast jobs")
    b.add_argument("--fast-jobs", type=int, default=20, help="with --interactive: at least this many fast jobs")
    b.set_defaults(func=lambda a: __import__("screening.ops.bench.cli", fromlist=["main"]).main(a))

    from screening.signals_cli import add_signals_args, cmd_signals

    g = sub.add_parser("signals", help="the risk-text reader: eval recall and false escalations on a labelled set")
    add_signals_args(g)
    g.set_defaults(func=cmd_signals)

    from screening.finetune.cli import add_finetune_args, cmd_finetune

    f = sub.add_parser("finetune", help="LoRA recipe for the screening task: train, evaluate base vs adapter")
    add_finetune_args(f)
    f.set_defaults(func=cmd_finetune)

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
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv  # anywhere on the line: `screen 600519 --debug` as well as `--debug screen ...`
    args = build_parser().parse_args([a for a in argv if a != "--debug"])
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not args.verbose:  # vLLM's engine logs (60 lines for one stock, then ~20 of CPU-build warnings) only with -v
        os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    try:
        return int(args.func(args) or 0)
    except (ValidationError, ConfigKeyError, tomllib.TOMLDecodeError) as exc:  # bad config.toml or SCREENER_* variable
        for line in config_problems(exc, getattr(args, "config", None)):
            print(f"error: {line}", file=sys.stderr)
        return 2
    except (Exception, KeyboardInterrupt) as exc:  # one line in Chinese with the fix; the traceback with --debug
        if debug:
            raise
        code, line = explain(exc)
        print(line, file=sys.stderr)
        return code
