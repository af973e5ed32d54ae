"""The recipe: a LoRA adapter with ``peft`` on transformers' ``Trainer``, from the examples of ``dataset``.

The model is trained on exactly the ids the product hands vLLM (``Screener.prepare_many``), with the loss
on the answer alone (the JSON as guided decoding writes it, then the end-of-turn token). The base weights
stay frozen in bf16, the dtype vLLM serves them in on CPU and GPU; the adapter trains in float32 (peft's
default) and is saved in bf16, which is what vLLM computes it in anyway and halves the file.

The same function runs on a GPU (a real Qwen checkpoint, ``--model``) and on two CPU cores (the bundled
135M model): only the device differs, chosen by torch.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import logging
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from screening.config import EngineSettings
from screening.finetune.dataset import DataSpec, Example, TokenizerEngine, build_examples

log = logging.getLogger(__name__)

ALL_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
class TrainSpec:
    """The hyper-parameters; the model card records them."""

    rank: int = 8
    alpha: int = 16
    dropout: float = 0.05
    target_modules: tuple[str, ...] = ALL_LINEAR
    learning_rate: float = 2e-3
    epochs: float = 2.0
    batch_size: int = 8
    grad_accum: int = 1
    warmup_ratio: float = 0.1
    scheduler: str = "cosine"
    weight_decay: float = 0.0
    max_steps: int = -1  # > 0 stops there (a smoke run), whatever the epochs say
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class TrainResult:
    adapter_dir: Path
    examples: dict[str, list[Example]]
    seconds: float
    steps: int
    losses: list[dict[str, float]]
    device: str
    prefix_tokens: int
    mean_prompt_tokens: float


def features(examples: list[Example], eos_id: int, encode: Any, prefix_len: int) -> list[Any]:
    """Prompt ids after the shared prefix, then the answer ids and the end-of-turn token."""
    from screening.finetune.trainer import Features

    out = []
    for e in examples:
        answer = [*encode(e.target.json()), eos_id]
        out.append(Features(e.prompt_ids[prefix_len:] + answer, len(answer)))
    return out


def train(model_path: str, out_dir: Path, data: DataSpec, spec: TrainSpec, settings: EngineSettings) -> TrainResult:
    """Build the data, train, save the adapter (bf16) in ``out_dir``; the evaluation is separate."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, TrainingArguments

    from screening.finetune.trainer import PrefixCollator, PrefixSharedTrainer, common_prefix

    tokenizer_engine = TokenizerEngine(model_path)
    tok = tokenizer_engine.tokenizer
    examples = build_examples(data, tokenizer_engine, settings)
    train_set = examples["train"]
    prefix = common_prefix([e.prompt_ids for e in train_set])
    eos = tok.eos_token_id
    if eos is None:
        raise ValueError(f"{model_path}: the tokenizer names no eos_token, so an answer could never end")
    feats = features(train_set, int(eos), tokenizer_engine.encode, len(prefix))
    pad = tok.pad_token_id if tok.pad_token_id is not None else int(eos)

    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = AutoModelForCausalLM.from_pretrained(model_path, dtype=torch.bfloat16)
    model.config.use_cache = True
    lora = LoraConfig(r=spec.rank, lora_alpha=spec.alpha, lora_dropout=spec.dropout,
                      target_modules=list(spec.target_modules), task_type="CAUSAL_LM")
    peft_model = get_peft_model(model, lora)
    args = TrainingArguments(
        output_dir=tempfile.mkdtemp(prefix="screener-finetune-"),  # nothing is saved there (save_strategy no)
        per_device_train_batch_size=spec.batch_size,
        gradient_accumulation_steps=spec.grad_accum,
        num_train_epochs=spec.epochs,
        max_steps=spec.max_steps,
        learning_rate=spec.learning_rate,
        lr_scheduler_type=spec.scheduler,
        warmup_steps=spec.warmup_ratio,  # a float below 1 is a share of the steps
        weight_decay=spec.weight_decay,
        logging_steps=5,
        save_strategy="no",
        report_to="none",
        seed=spec.seed,
        data_seed=spec.seed,
        remove_unused_columns=False,
        dataloader_num_workers=0,
        use_cpu=device == "cpu",
        disable_tqdm=True,
    )
    trainer = PrefixSharedTrainer(model=peft_model, args=args, train_dataset=feats,
                                  data_collator=PrefixCollator(pad), prefix_ids=prefix)
    started = time.perf_counter()
    output = trainer.train()
    seconds = time.perf_counter() - started
    losses = [{"step": h["step"], "loss": round(h["loss"], 4)} for h in trainer.state.log_history if "loss" in h]
    log.info("trained %d steps in %.0f s on %s", output.global_step, seconds, device)
    for name, param in peft_model.named_parameters():
        if "lora_" in name:
            param.data = param.data.to(torch.bfloat16)
    out_dir.mkdir(parents=True, exist_ok=True)
    peft_model.save_pretrained(str(out_dir))
    config_path = out_dir / "adapter_config.json"  # the base by name, not by this machine's cache path
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["base_model_name_or_path"] = Path(model_path).name
    config_path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    del trainer, peft_model, model
    gc.collect()
    mean_tokens = sum(len(e.prompt_ids) for e in train_set) / max(1, len(train_set))
    return TrainResult(out_dir, examples, seconds, int(output.global_step), losses, device, len(prefix), mean_tokens)
