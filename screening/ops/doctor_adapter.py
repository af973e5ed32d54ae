"""doctor's LoRA check: the configured adapter loads, and it was trained on the prompt the engine renders.

An adapter is evidence only for the prompt it was trained on: its model card records the prompt id (the
prompt version and a hash of the system prompt) and the four [engine] keys that shape the prompt. Change
one of them (``risk_signals`` most likely) and the adapter runs out of distribution with nothing failing;
this check names the key that moved.
"""

from __future__ import annotations

from screening.config import Settings
from screening.ops.findings import Finding

RETRAIN = "python -m screening finetune train (writes an adapter and its card for the prompt configured now)"


def check_adapter(settings: Settings) -> list[Finding]:
    engine = settings.engine
    if not engine.lora_adapter or engine.kind != "vllm":
        return []  # no adapter, or the openai engine: the server applies its own
    from screening.engines.vllm_engine import adapter_path
    from screening.finetune.card import PROMPT_FIELDS, prompt_id, read_card

    try:
        path = adapter_path(engine)
    except (ValueError, FileNotFoundError) as exc:
        return [Finding("fail", "adapter", str(exc), "set engine.lora_adapter to an adapter folder, or to ''")]
    assert path is not None
    try:
        card = read_card(path)
    except FileNotFoundError as exc:
        return [Finding("warn", "adapter", f"{exc}: its held-out scores and prompt are unknown",
                        f"python -m screening finetune evaluate --adapter {path} --write-card")]
    want, now = card.get("prompt_id"), prompt_id(engine)
    if want == now:
        rates = card.get("heldout", {}).get("adapter") or {}
        return [Finding("ok", "adapter", f"{path}: trained on this prompt ({now}); held-out reason_valid "
                        f"{rates.get('reason_valid')}, escalation_recall {rates.get('escalation_recall')}")]
    trained = card.get("engine") or {}
    moved = [f"{k} = {getattr(engine, k)!r} (trained with {trained.get(k)!r})" for k in PROMPT_FIELDS
             if k in trained and trained[k] != getattr(engine, k)]
    what = ", ".join(moved) if moved else "the system prompt changed since it was trained"
    return [Finding("warn", "adapter", f"{path} was trained on prompt {want}, the engine renders {now}: {what}",
                    "set those [engine] keys back to the card's, or retrain: " + RETRAIN)]
