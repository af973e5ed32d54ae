"""Fine-tuning (issue 19): the data is right by construction, the prefix-shared loss is the plain loss, the
Trainer recipe learns, vLLM serves the adapter, and the shipped adapter still scores what its card says.

Only the last test uses a real engine: ONE extra vLLM engine with LoRA enabled (module scope), which serves
both the base model (no LoRARequest) and the shipped adapter. The training tests run a tiny random Llama
(a few thousand parameters), so CI trains nothing of size.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from screening.config import EngineSettings
from screening.engines.answer import REASON_MAX_CHARS, parse_answer
from screening.finetune import SHIPPED_ADAPTER
from screening.finetune.card import CARD_JSON, prompt_id, read_card
from screening.finetune.cli import card_settings, drift
from screening.finetune.dataset import DataSpec, TokenizerEngine, build_examples, build_stocks
from screening.finetune.evaluate import RATE_KEYS
from screening.finetune.signals import BENIGN_TITLES, LOOKALIKE_TITLES, SIGNALS, visible_signal
from screening.finetune.targets import names_decisive
from screening.models import RISK_ORDER, StockInput
from screening.screen.merge import reason_problem
from screening.screen.prompt import system_prompt
from screening.screen.rules import assess

SMALL = DataSpec(n_train=60, n_heldout=30, market_size=400, seed=3)
PROMPT = EngineSettings(max_model_len=2048, max_report_tokens=600, max_output_tokens=160, risk_signals=False)


@pytest.fixture(scope="module")
def examples(model_dir: str):
    return build_examples(SMALL, TokenizerEngine(model_dir), PROMPT)


# ------------------------------------------------------------------------------------ data
def test_split_is_by_stock_and_deterministic() -> None:
    a, b = build_stocks(SMALL), build_stocks(SMALL)
    codes = {k: [s.code for s, _ in v] for k, v in a.items()}
    assert codes == {k: [s.code for s, _ in v] for k, v in b.items()}
    assert len(codes["train"]) == 60 and len(codes["heldout"]) == 30
    assert not set(codes["train"]) & set(codes["heldout"])
    assert [s.report_text for s, _ in a["heldout"]] == [s.report_text for s, _ in b["heldout"]]


def test_targets_are_right_by_construction(examples) -> None:
    for split in examples.values():
        for e in split:
            target, verdict = e.target, e.verdict
            answer = parse_answer(target.json())  # the schema guided decoding enforces
            assert answer.score == verdict.score == assess(e.stock).score
            assert reason_problem(target.reason) is None and len(target.reason) <= REASON_MAX_CHARS
            floor = verdict.figure_risk  # the floor the prompt shows: the figures'
            assert RISK_ORDER[target.risk_level] >= RISK_ORDER[floor]
            if e.signal is None:
                assert target.risk_level == floor and not target.escalates
            else:
                assert e.signal.name in target.reason
                assert target.escalates == (RISK_ORDER[e.signal.tier] > RISK_ORDER[floor])
                assert target.risk_level == max(floor, e.signal.tier, key=RISK_ORDER.__getitem__)
            assert names_decisive(target.reason, target.decisive)


def test_prompts_are_the_products(examples, model_dir: str) -> None:
    """The ids are what Screener hands vLLM: the compact system prompt, the fenced data, the planted title."""
    engine = TokenizerEngine(model_dir)
    heldout = examples["heldout"]
    planted = [e for e in heldout if e.planted is not None]
    assert planted and any(e.target.escalates for e in examples["train"])
    for e in heldout:
        text = engine.decode(e.prompt_ids)
        assert system_prompt(False) in text and "<<<数据开始>>>" in text
        assert e.messages[1]["content"] in text
        if e.signal is not None:
            assert e.signal.matched in text
    assert engine.prompt_ids_many([heldout[0].messages])[0] == heldout[0].prompt_ids


def test_signal_lookalikes_are_not_signals() -> None:
    for title in LOOKALIKE_TITLES:
        assert visible_signal(title) is None, title
    both = SIGNALS[4].titles[0] + "\n" + SIGNALS[0].titles[1]  # 审计保留意见 (中) and 立案调查 (高)
    hit = visible_signal(both)
    assert hit is not None and (hit.name, hit.tier) == ("立案调查", "高")


def _dated(*titles: str) -> str:
    dated = [f"2026-11-{20 - i:02d} {t}" for i, t in enumerate(titles)]
    return "主营业务稳定。\n近30日公告（新→旧）：\n" + "\n".join(dated)


def test_planted_titles_read_as_their_tier() -> None:
    """The product's reader (the rules floor's) reads every planted risk title as the tier its group was
    written for, and none of the benign titles or look-alikes (不存在违规担保, 标准无保留意见, 增持, 和解) as a risk;
    so the training targets, which take the reader's name and tier, agree with the planting spec."""
    for group in SIGNALS:
        for title in group.titles:
            hit = visible_signal(_dated(title))
            assert hit is not None and hit.tier == group.tier, title
    for title in (*BENIGN_TITLES, *LOOKALIKE_TITLES):
        assert visible_signal(_dated(title)) is None, title
    hit = visible_signal(_dated("2026年度业绩预告（预亏）", "关于公司债券未能按期兑付的公告"))
    assert hit is not None and hit.name == "债务违约"


def test_real_universe_stocks_join_the_split(tmp_path: Path, model_dir: str) -> None:
    """With real_stocks the refreshed universe's stocks are added as stored (figures, titles), split by code;
    a demo universe is refused rather than passed off as real."""
    from screening.data.universe import Record, Universe, UniverseInfo

    titles = ("关于收到中国证监会立案告知书的公告", "关于召开临时股东大会的通知")
    # a fixture universe written as a refresh writes one (provider named, not demo)
    stocks = [StockInput(code=f"6000{i:02d}.SH", name=f"样本{i}", industry="银行", pe_ttm=6.0 + i, roe=4.0 + i,
                         report_text=_dated(titles[i % 2])) for i in range(12)]
    stocks.append(StockInput(code="600099.SH", name="缺ROE", pe_ttm=9.0))  # the rules cannot assess it
    path = tmp_path / "universe.sqlite"
    Universe(path).replace([Record(s) for s in stocks], UniverseInfo(provider="akshare", trade_date="2026-12-02",
                                                                     count=len(stocks)))
    spec = DataSpec(n_train=6, n_heldout=3, market_size=200, seed=3, real_stocks=20, universe=str(path))
    ex = build_examples(spec, TokenizerEngine(model_dir), PROMPT)
    real = [e for split in ex.values() for e in split if e.real]
    assert len(real) == 12 and "600099.SH" not in {e.stock.code for e in real}
    assert sum(len(v) for v in ex.values()) == 9 + 12
    for e in real:
        if "立案" in (e.stock.report_text or ""):
            assert e.signal is not None and e.signal.name in e.target.reason and e.target.risk_level == "高"
        else:
            assert e.signal is None and e.target.risk_level == e.verdict.risk
    demo = tmp_path / "demo.sqlite"
    Universe(demo).replace([Record(stocks[0])], UniverseInfo(provider="demo", demo=True, count=1))
    with pytest.raises(ValueError, match="not a refreshed real universe"):
        build_examples(DataSpec(n_train=6, n_heldout=3, market_size=200, real_stocks=5, universe=str(demo)),
                       TokenizerEngine(model_dir), PROMPT)


def test_rule_reasons_name_the_figure() -> None:
    from screening.finetune.targets import target_for

    cases = [
        (StockInput(code="600000.SH", name="甲", pe_ttm=20, roe=3.2), "3.2"),
        (StockInput(code="600001.SH", name="*ST乙", pe_ttm=20, roe=8), "ST"),
        (StockInput(code="600002.SH", name="丙", pe_ttm=-5, roe=6, net_profit_y1=-1, net_profit_y2=-2), "亏损"),
        (StockInput(code="600003.SH", name="丁", pe_ttm=80, roe=18), "80"),
        (StockInput(code="600004.SH", name="戊", pe_ttm=-12.5, roe=16), "-12.5"),
        (StockInput(code="600005.SH", name="己", pe_ttm=20, roe=21), "21"),
    ]
    for stock, figure in cases:
        target = target_for(stock, assess(stock), None)
        assert figure in target.reason and names_decisive(target.reason, target.decisive), target


def test_target_names_where_the_text_said_it() -> None:
    """A loss stated in the report is not an announcement: the target says 报告 for a sentence, 公告 for a
    title, as the floor's flags do (the 2026-12-04 balanced retrain wrote "另有业绩预亏公告" for a report)."""
    from screening.finetune.targets import target_for

    stock = StockInput(code="600000.SH", name="甲", pe_ttm=20, roe=8,
                       report_text="公司2025年归母净利润亏损8.6亿元。\n近30日公告（新→旧）：\n"
                       "2026-11-20 关于收到中国证监会立案告知书的公告")
    sentence = visible_signal("公司2025年归母净利润亏损8.6亿元。")
    title = visible_signal("近30日公告（新→旧）：\n2026-11-20 关于收到中国证监会立案告知书的公告")
    assert sentence is not None and not sentence.is_title and title is not None and title.is_title
    kept = target_for(stock, assess(stock), sentence)  # 中 floor, 中 signal: kept, and said where
    assert "报告" in kept.reason and "公告" not in kept.reason and not kept.escalates, kept
    raised = target_for(stock, assess(stock), title)
    assert raised.reason.startswith("公告立案调查") and raised.escalates, raised


# ------------------------------------------------------------------------------------ training
def tiny_lora_model(modules: tuple[str, ...] = ("q_proj", "v_proj", "down_proj")):
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256,
                         initializer_range=0.3)  # large enough weights for a signal to reach the logits
    model = LlamaForCausalLM(config)
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=list(modules), task_type="CAUSAL_LM",
                      init_lora_weights=False)  # non-zero B: gradients reach every LoRA matrix
    return get_peft_model(model, lora)


def test_prefix_shared_step_is_the_plain_loss() -> None:
    """Same loss and same gradients as one full forward per example with the loss on the answer only."""
    import torch

    from screening.finetune.trainer import Features, PrefixCollator, prefix_shared_backward

    model = tiny_lora_model()
    model.train()
    for module in model.modules():  # dropout off: both paths must see the same function
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    g = torch.Generator().manual_seed(1)
    prefix = torch.randint(1, 64, (17,), generator=g)
    feats = [Features(torch.randint(1, 64, (n,), generator=g).tolist(), a) for n, a in ((9, 3), (14, 5), (6, 2))]
    shared = prefix_shared_backward(model, prefix, PrefixCollator(0)(feats))
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.requires_grad}
    model.zero_grad()
    total, count = torch.zeros(()), 0
    for f in feats:
        ids = torch.cat([prefix, torch.tensor(f.suffix)]).view(1, -1)
        logits = model(input_ids=ids).logits[0, :-1]
        tail = logits[-f.answer_len:]
        total = total + torch.nn.functional.cross_entropy(tail, ids[0, -f.answer_len:], reduction="sum")
        count += f.answer_len
    plain = total / count
    plain.backward()
    assert torch.allclose(shared, plain, atol=1e-5), (shared.item(), plain.item())
    for name, param in model.named_parameters():
        if param.requires_grad:
            assert torch.allclose(grads[name], param.grad, atol=1e-5, rtol=1e-4), name


@pytest.mark.slow  # 30 Trainer steps on a tiny model
def test_trainer_recipe_learns(tmp_path: Path) -> None:
    """PrefixSharedTrainer on transformers' Trainer: the answer loss falls on a memorisable set."""
    from transformers import TrainingArguments

    from screening.finetune.trainer import Features, PrefixCollator, PrefixSharedTrainer

    model = tiny_lora_model(("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"))
    prefix = list(range(1, 12))
    feats = [Features([20 + i, 30 + i, 40, 41, 50 + i, 60 - i], 2) for i in range(4)]
    args = TrainingArguments(output_dir=str(tmp_path), per_device_train_batch_size=2, max_steps=30,
                             learning_rate=5e-2, logging_steps=1, save_strategy="no", report_to="none",
                             remove_unused_columns=False, use_cpu=True, disable_tqdm=True, seed=0)
    trainer = PrefixSharedTrainer(model=model, args=args, train_dataset=feats,
                                  data_collator=PrefixCollator(0), prefix_ids=prefix)
    trainer.train()
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    assert len(losses) == 30
    assert sum(losses[-5:]) / 5 < 0.5 * sum(losses[:5]) / 5, losses


# ------------------------------------------------------------------------------------ engine side
def test_lora_engine_settings(tmp_path: Path) -> None:
    from screening.engines.vllm_engine import adapter_path, engine_model_id, llm_kwargs, serve_flags

    bundled = EngineSettings(lora_adapter="bundled")
    assert adapter_path(bundled) == SHIPPED_ADAPTER
    kwargs = llm_kwargs(bundled, "/m")
    rank = json.loads((SHIPPED_ADAPTER / "adapter_config.json").read_text())["r"]
    assert kwargs["enable_lora"] is True and kwargs["max_lora_rank"] >= rank and kwargs["max_loras"] == 1
    assert "--enable-lora" in serve_flags(kwargs)
    assert "enable_lora" not in llm_kwargs(EngineSettings(), "/m")
    model_id = engine_model_id(bundled, "/m")
    assert model_id.startswith("/m+lora:adapter@") and engine_model_id(EngineSettings(), "/m") == "/m"
    with pytest.raises(ValueError, match="bundled SmolLM2"):
        adapter_path(EngineSettings(model="/qwen", lora_adapter="bundled"))
    with pytest.raises(FileNotFoundError, match=r"adapter_config\.json"):
        adapter_path(EngineSettings(lora_adapter=str(tmp_path)))
    with pytest.raises(ValueError, match="max_lora_rank"):
        llm_kwargs(EngineSettings(lora_adapter="bundled", max_lora_rank=1), "/m")


def test_drift_names_what_moved() -> None:
    card = {"base": {k: 0.5 for k in RATE_KEYS}, "adapter": {k: 0.9 for k in RATE_KEYS}}
    now = json.loads(json.dumps(card))
    assert drift(card, now, 0.05, RATE_KEYS) == []
    now["adapter"]["reason_decisive"] = 0.8
    now["base"]["escalation_precision"] = None
    off = drift(card, now, 0.05, RATE_KEYS)
    assert len(off) == 2 and any("adapter.reason_decisive" in o for o in off)


def test_shipped_card_describes_this_prompt() -> None:
    card = read_card(SHIPPED_ADAPTER)
    settings = card_settings(card, EngineSettings())
    assert card["prompt_id"] == prompt_id(settings)
    assert card["heldout"]["adapter"]["counts"]["n"] == card["data"]["n_heldout"]
    assert (SHIPPED_ADAPTER / "adapter_model.safetensors").stat().st_size < 8 * 2**20
    assert (SHIPPED_ADAPTER / CARD_JSON).is_file() and (SHIPPED_ADAPTER / "README.md").is_file()


@pytest.fixture(scope="module")
def lora_engine(model_dir: str):
    """The one extra engine of this module: the shipped adapter enabled, on the card's prompt settings."""
    from screening.engines.vllm_engine import VllmEngine

    card = read_card(SHIPPED_ADAPTER)
    settings = card_settings(card, EngineSettings(kv_cache_gib=1.0, enforce_eager=True, lora_adapter="bundled"))
    engine = VllmEngine(settings, model_dir)
    yield engine, settings, card
    engine.close()


# the whole held-out set takes ~9 min with LoRA on two CPU cores; 10 stocks take ~40 s (of which ~30 s are
# fixed), and the card's base answers differ from its adapter answers on them, so without the adapter (or
# with another) the check fails: asserted below. Measured 2026-12-04: the first 10 all reproduced, while
# 3 of the first 30 flipped (stocks 20, 24, 28: exactly the 90% bound)
FIRST_HELDOUT = 10


def test_shipped_card_is_consistent() -> None:
    """The card's rates are what its own counts give, and it recorded an answer for every held-out stock."""
    card = read_card(SHIPPED_ADAPTER)
    heldout = card["heldout"]
    for side in ("base", "adapter"):
        counts, rates = heldout[side]["counts"], heldout[side]
        assert round(counts["parsed"] / counts["n"], 4) == rates["valid_json"]
        assert round(counts["reason_valid"] / counts["n"], 4) == rates["reason_valid"]
        assert round(counts["escalated_right"] / counts["should_escalate"], 4) == rates["escalation_recall"]
        assert round(counts["rule_agreement"] / counts["unplanted"], 4) == rates["rule_agreement"]
        assert len(heldout["answers"][side]) == counts["n"] == card["data"]["n_heldout"]


@pytest.mark.vllm
def test_shipped_adapter_reproduces_its_card(lora_engine, model_dir: str) -> None:
    """The adapter through vLLM and Screener on the card's first held-out stocks gives the answers the card
    recorded, stock by stock, on at least 90% of them (vLLM on the CPU is not bit-reproducible between runs:
    a greedy near-tie can flip a token). `python -m screening finetune evaluate --adapter bundled --check`
    reruns the whole held-out set, both sides, against the card's rates."""
    from screening.finetune.evaluate import answers, screen

    engine, settings, card = lora_engine
    assert engine.lora_request is not None
    heldout = build_examples(DataSpec(**card["data"]), TokenizerEngine(model_dir), settings)["heldout"]
    now = answers(screen(engine, settings, heldout[:FIRST_HELDOUT]))
    recorded = card["heldout"]["answers"]["adapter"][:FIRST_HELDOUT]
    assert [c for c, _ in now] == [c for c, _ in recorded]  # the same stocks, in the same order
    same = sum(a == b for (_, a), (_, b) in zip(now, recorded, strict=True))
    differ = [(c, a, b) for (c, a), (_, b) in zip(now, recorded, strict=True) if a != b]
    assert same >= 0.9 * FIRST_HELDOUT, differ
    base = card["heldout"]["answers"]["base"][:FIRST_HELDOUT]  # what the model without the adapter said
    base_same = sum(a == b for (_, a), (_, b) in zip(base, recorded, strict=True))
    assert base_same < 0.9 * FIRST_HELDOUT, "these stocks cannot tell the adapter from the base model"
    assert all(a is not None for _, a in now)  # guided decoding: every answer parses


@pytest.mark.vllm
def test_verify_model_checks_the_adapter(lora_engine, model_dir: str) -> None:
    """verify-model with the adapter: its files and base weights, and transformers+peft vs vLLM+LoRARequest
    on the sample stocks and the card's first held-out prompts."""
    from screening.ops import verify_model as vm

    engine, settings, _ = lora_engine
    report = vm.verify(Path(model_dir), engine=engine, max_model_len=settings.max_model_len, steps=8,
                       adapter=SHIPPED_ADAPTER)
    text = report.render()
    print(text)
    assert report.ok, text
    assert "trained on these base weights" in text
    assert len(report.parity) == 6 and text.count("guided answer parses") == 6


@pytest.mark.parametrize("extra, says", [(["--check"], "not this card's"), ([], "not a model card")])
def test_heldout_from_refuses_in_one_line(tmp_path: Path, extra: list[str], says: str) -> None:
    """Another card's held-out set is for side-by-side numbers only; a file that is no card is one line."""
    import subprocess
    import sys

    bad = tmp_path / "card.json"
    bad.write_text("{}", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "screening", "finetune", "evaluate", "--adapter", "bundled",
                           "--heldout-from", str(bad), *extra], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == ""


def test_balanced_draw_keeps_clean_stocks_at_every_floor() -> None:
    """--raise-share: at each figure floor some announced stocks get a title above it, some one at or below
    it (never at 低: nothing is below), the rest none; the 2026-12-04 retrain without it saw almost no clean
    stock at a 低 floor and learnt "低 -> raise"."""
    spec = DataSpec(n_train=300, n_heldout=60, market_size=2000, seed=19, announced_share=0.8,
                    raise_share=0.5, still_share=0.2)
    kinds: dict[tuple[str, str], int] = {}
    for stock, planted in build_stocks(spec)["train"]:
        floor = assess(stock).figure_risk
        kind = "none" if planted is None else ("raise" if RISK_ORDER[planted.tier] > RISK_ORDER[floor] else "still")
        kinds[(floor, kind)] = kinds.get((floor, kind), 0) + 1
    assert kinds.get(("低", "still"), 0) == 0 and kinds.get(("高", "raise"), 0) == 0
    for floor in ("低", "中"):
        raised, clean = kinds.get((floor, "raise"), 0), kinds.get((floor, "none"), 0)
        assert raised >= 10 and clean >= 0.6 * raised, kinds  # clean stocks at least as common, give or take
    assert kinds.get(("中", "still"), 0) >= 5 and kinds.get(("高", "still"), 0) >= 5
