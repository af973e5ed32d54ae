"""Training and held-out examples: synthetic stocks, prompts exactly as the product renders them, right answers.

SYNTHETIC DATA. The stocks come from ``generate_market`` (invented names and figures). Some report texts are
rebuilt the way the real universe composes them (a short report, then ``近30日公告（新→旧）：`` and dated
titles, as ``data/providers/report_text.py`` writes it), with a planted risk title, benign titles or
look-alikes. The split is by stock: a held-out stock never appears in training, under any variant.

REAL DATA, where present: with ``real_stocks`` the refreshed universe's stocks are added as they are stored
(real figures, real announcement titles), split by the same hash of the code. Their right answer is built
the same way: the rule verdict on the real figures, escalated only by a risk title the prompt shows.

Prompts go through ``Screener.prepare_many`` with the engine's own tokenizer, so the training ids are the
ids vLLM is handed in production (system prompt, report cut by tokens, chat template and all). Whether a
planted title counts is decided on the rendered prompt: a title the token cut removed is invisible, and
its stock's right answer is the rule verdict.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from screening.config import BatcherSettings, EngineSettings
from screening.data.synthetic import generate_market
from screening.data.universe import Universe
from screening.engines.base import ChatTokenizerMixin, Engine
from screening.engines.types import EngineOutput, EngineRequest
from screening.finetune.signals import BENIGN_TITLES, LOOKALIKE_TITLES, SIGNALS, Signal, shown_data, visible_signal
from screening.finetune.targets import Target, target_for
from screening.models import RISK_ORDER, PoolItem, StockInput
from screening.screen.pipeline import Prepared, Screener
from screening.screen.rules import MissingData, RuleVerdict, assess
from screening.screen.signals import SignalHit

ANNOUNCEMENT_DAYS = 30
AS_OF = dt.date(2026, 12, 1)  # the planted titles' dates lie in the 30 days before this


@dataclass(frozen=True)
class DataSpec:
    """Everything that decides the data set; the model card records it so a run can be reproduced."""

    n_train: int = 240
    n_heldout: int = 100
    market_size: int = 2000  # the synthetic market the stocks are drawn from
    seed: int = 19
    full_share: float = 0.1  # stocks keeping the long generated report (cut by tokens when too long)
    announced_share: float = 0.6  # stocks whose short report is followed by dated announcement titles
    quiet_share: float = 0.15  # stocks whose short report ends "近30日无公告。"; the rest carry no block at all
    risk_share: float = 0.6  # of the announced, the share with one planted risk title
    high_share: float = 0.6  # of the planted, the share drawn from the 高 signals (the others: the 中 ones)
    lookalike_share: float = 0.35  # of the announced, the share with a benign look-alike title
    # Balance per floor (None: the draw above, one risk share for every floor). With it, of the announced
    # stocks at each figure floor, ``raise_share`` get a title whose tier is above the floor, ``still_share``
    # one at or below it (none exists at 低), the rest none: a model then sees as many clean stocks at a 低
    # floor as raised ones, instead of learning "低 floor -> raise" (the 2026-12-04 retrain's shortcut).
    raise_share: float | None = None
    still_share: float = 0.25
    real_stocks: int = 0  # stocks of the refreshed real universe added, split by the same hash of the code
    universe: str = ""  # that universe's SQLite file (its provider and dates go on the model card)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class Example:
    """One stock as the product prepares it, and its right answer."""

    stock: StockInput
    verdict: RuleVerdict
    prompt_ids: list[int]
    messages: list[dict[str, str]]
    planted: Signal | None  # the group of the risk title put into the report, visible or not
    signal: SignalHit | None  # the risk the model can see in the prompt, as the product's reader reads it
    target: Target
    real: bool = False  # from the refreshed real universe: real figures and real announcement titles


class TokenizerEngine(ChatTokenizerMixin, Engine):
    """The LLM engines' tokenizer side alone: preparing prompts needs no model loaded."""

    name = "vllm"

    def __init__(self, model_path: str) -> None:
        super().__init__()
        from transformers import AutoTokenizer

        self.model_id = model_path
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)

    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        raise RuntimeError("a tokenizer-only engine does not generate")


def split_of(code: str, seed: int, heldout_share: float) -> str:
    """'heldout' or 'train', from a hash of the code: stable whatever else the spec changes."""
    h = int(hashlib.sha256(f"{seed}:{code}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "heldout" if h < heldout_share else "train"


def _short_body(rng: random.Random, text: str) -> str:
    """The first one to three sentences of a synthetic report: real report texts are short."""
    sentences = [s + "。" for s in text.split("。") if s.strip()]
    return "".join(sentences[: rng.randint(1, 3)])


def announcement_block(rng: random.Random, titles: list[str]) -> str:
    """Dated titles, newest first, in the universe's format."""
    days = sorted(rng.sample(range(ANNOUNCEMENT_DAYS), len(titles)))
    lines = [f"近{ANNOUNCEMENT_DAYS}日公告（新→旧）："]
    lines += [f"{(AS_OF - dt.timedelta(days=d)).isoformat()} {t}" for d, t in zip(days, titles, strict=True)]
    return "\n".join(lines)


def draw_signal(rng: random.Random, stock: StockInput, spec: DataSpec) -> Signal | None:
    """The risk group planted in an announced stock, or None (see ``DataSpec.raise_share``)."""
    if spec.raise_share is None:
        if rng.random() >= spec.risk_share:
            return None
        high = rng.random() < spec.high_share
        return rng.choice([s for s in SIGNALS if (s.tier == "高") == high])
    try:
        floor = RISK_ORDER[assess(stock).figure_risk]
    except MissingData:
        return None
    raising = [s for s in SIGNALS if RISK_ORDER[s.tier] > floor]
    still = [s for s in SIGNALS if RISK_ORDER[s.tier] <= floor]
    roll = rng.random()
    if roll < spec.raise_share:
        return rng.choice(raising) if raising else None
    if roll < spec.raise_share + spec.still_share and still:
        return rng.choice(still)
    return None


def plant(rng: random.Random, stock: StockInput, spec: DataSpec) -> tuple[StockInput, Signal | None]:
    """A variant of the stock: its long report as generated, or a short one as the universe writes it,
    followed by announcements (maybe with a risk title), by "no announcements", or by nothing."""
    roll = rng.random()
    if roll < spec.full_share:
        return stock, None
    body = _short_body(rng, stock.report_text or "")
    signal = None
    if roll < spec.full_share + spec.announced_share:
        titles = rng.sample(BENIGN_TITLES, rng.randint(1, 3))
        signal = draw_signal(rng, stock, spec)
        if signal is not None:
            titles.insert(rng.randint(0, len(titles)), rng.choice(signal.titles))
        if rng.random() < spec.lookalike_share:
            titles.insert(rng.randint(0, len(titles)), rng.choice(LOOKALIKE_TITLES))
        text = body + "\n" + announcement_block(rng, titles)
    elif roll < spec.full_share + spec.announced_share + spec.quiet_share:
        text = body + "\n" + f"近{ANNOUNCEMENT_DAYS}日无公告。"
    else:
        text = body
    return dataclasses.replace(stock, report_text=text, notes=list(stock.notes)), signal


Stocks = dict[str, list[tuple[StockInput, Signal | None]]]  # a real stock's entry has no planted group


def real_universe(path: str) -> Universe:
    """The refreshed universe at ``path``; demo or empty data is refused, never trained on as if it were real."""
    universe = Universe.load(Path(path))
    if not len(universe) or universe.info.demo or not universe.info.provider:
        raise ValueError(f"{path}: not a refreshed real universe ({universe.info.label()}); run "
                         "`python -m screening universe refresh` first, or train on synthetic data alone")
    return universe


def real_stocks(spec: DataSpec) -> Stocks:
    """Up to ``spec.real_stocks`` stocks of the real universe, as stored: real figures, and in their report
    text the real announcement titles (read, like every prompt, by the product's signal reader in
    ``prepare``); a stock the rules cannot assess (a figure missing) is left out, as the product would fail
    its row."""
    out: Stocks = {"train": [], "heldout": []}
    if spec.real_stocks <= 0:
        return out
    usable = []
    for stock in sorted(real_universe(spec.universe), key=lambda s: s.code):
        try:
            assess(stock)
        except MissingData:
            continue
        usable.append(stock)
    random.Random(spec.seed).shuffle(usable)
    share = spec.n_heldout / max(1, spec.n_train + spec.n_heldout)
    for stock in usable[: spec.real_stocks]:
        out[split_of(stock.code, spec.seed, share)].append((stock, None))
    return out


def build_stocks(spec: DataSpec) -> Stocks:
    """The synthetic train and held-out stocks (with their planted signal), deterministic in the spec."""
    market = generate_market(spec.market_size, seed=spec.seed)
    share = spec.n_heldout / max(1, spec.n_train + spec.n_heldout)
    rng = random.Random(spec.seed)
    out: dict[str, list[tuple[StockInput, Signal | None]]] = {"train": [], "heldout": []}
    want = {"train": spec.n_train, "heldout": spec.n_heldout}
    order = list(market)
    rng.shuffle(order)
    for stock in order:
        split = split_of(stock.code, spec.seed, share)
        if len(out[split]) < want[split]:
            out[split].append(plant(rng, stock, spec))
        if all(len(out[k]) >= want[k] for k in out):
            break
    short = [k for k in out if len(out[k]) < want[k]]
    if short:
        raise ValueError(f"the synthetic market of {spec.market_size} stocks is too small for {want}: "
                         f"raise market_size")
    return out


def prepare(stocks: list[tuple[StockInput, Signal | None]], engine: Engine,
            settings: EngineSettings, real: bool = False) -> list[Example]:
    """Prompts through the product's own preparation; the answer decided on what the prompt shows."""
    screener = Screener(engine, settings, BatcherSettings())
    items = [PoolItem(i, s.code, s) for i, (s, _) in enumerate(stocks)]
    prepared = screener.prepare_many([(item, None) for item in items])
    out: list[Example] = []
    for (stock, planted), prep in zip(stocks, prepared, strict=True):
        if not isinstance(prep, Prepared):
            raise ValueError(f"{stock.code}: the product would not screen this stock ({prep.error})")
        signal = visible_signal(shown_data(prep.request.messages[1]["content"]))
        ids = list(prep.request.prompt_ids or [])
        out.append(Example(stock, prep.verdict, ids, prep.request.messages, planted, signal,
                           target_for(stock, prep.verdict, signal), real))
    return out


def build_examples(spec: DataSpec, engine: Engine, settings: EngineSettings) -> dict[str, list[Example]]:
    """Synthetic examples, then (with ``spec.real_stocks``) the real universe's, in each split."""
    real = real_stocks(spec)
    return {split: prepare(stocks, engine, settings) + prepare(real[split], engine, settings, real=True)
            for split, stocks in build_stocks(spec).items()}


def summary(examples: list[Example]) -> dict[str, int]:
    """What a split holds, for the model card."""
    tiers: dict[str, int] = {}
    for e in examples:
        tiers[f"rule_{e.verdict.figure_risk}"] = tiers.get(f"rule_{e.verdict.figure_risk}", 0) + 1
    return {
        "stocks": len(examples),
        "real_universe": sum(e.real for e in examples),
        "planted_risk": sum(e.planted is not None for e in examples),
        "visible_risk": sum(e.signal is not None for e in examples),
        "escalations": sum(e.target.escalates for e in examples),
        "announced": sum("日公告（新→旧）" in (e.stock.report_text or "") for e in examples),
        **dict(sorted(tiers.items())),
    }
