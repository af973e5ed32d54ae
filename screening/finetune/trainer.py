"""transformers' ``Trainer`` with a training step that runs the shared system prompt once per batch.

Every screening prompt starts with the same system prompt (783 of ~1,200 tokens with the bundled model's
tokenizer), so a plain causal-LM step spends most of its compute on identical tokens. Here each step runs
that prefix once (with the adapter, so gradients flow through it exactly as in a full forward), then each
example's own suffix on top of its key/value cache, one example at a time, with logits only where the
answer is. The prefix cache enters each suffix as a detached leaf: every suffix's backward leaves its
gradient there, and one last backward carries the sum through the prefix. Peak memory is then one
example's activations (a padded batch of four was 16 GB on the CPU, most of it attention scores), and the
gradient is exactly that of the plain per-token loss over the batch's answer tokens (tests/test_finetune.py
checks it against a full forward). On two CPU cores this is what makes a few hundred examples a matter of
minutes rather than hours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from transformers import Trainer


@dataclass
class Features:
    """One training example: the prompt after the shared prefix, then the answer (its last ``answer_len`` ids)."""

    suffix: list[int]
    answer_len: int


def common_prefix(sequences: list[list[int]]) -> list[int]:
    """The longest run of ids that every prompt starts with (the system prompt and the user turn's opening)."""
    if not sequences:
        return []
    first = sequences[0]
    n = len(first)
    for seq in sequences[1:]:
        n = min(n, len(seq))
        for i in range(n):
            if seq[i] != first[i]:
                n = i
                break
    return first[:n]


class PrefixCollator:
    """Left-padded suffixes, their positions after the prefix, and the answer ids as labels."""

    def __init__(self, pad_id: int) -> None:
        self.pad_id = pad_id

    def __call__(self, batch: list[Features]) -> dict[str, Any]:
        import torch

        width = max(len(f.suffix) for f in batch)
        answers = max(f.answer_len for f in batch)
        ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        pos = torch.zeros((len(batch), width), dtype=torch.long)
        labels = torch.full((len(batch), answers), -100, dtype=torch.long)
        for row, f in enumerate(batch):
            n = len(f.suffix)
            ids[row, width - n:] = torch.tensor(f.suffix)
            mask[row, width - n:] = 1
            pos[row, width - n:] = torch.arange(n)
            labels[row, answers - f.answer_len:] = torch.tensor(f.suffix[n - f.answer_len:])
        # not "labels": Trainer would count and rescale by them as if a model's own loss had used them
        return {"input_ids": ids, "attention_mask": mask, "position_ids": pos, "answer_labels": labels}


def prefix_shared_backward(model: Any, prefix: Any, inputs: dict[str, Any], scale: float = 1.0) -> Any:
    """Backward of ``scale`` x the mean cross-entropy over the batch's answer tokens; returns that mean."""
    import torch
    from transformers import DynamicCache

    ids, mask, pos, labels = (inputs[k] for k in ("input_ids", "attention_mask", "position_ids", "answer_labels"))
    plen = prefix.shape[-1]
    head = model(input_ids=prefix.view(1, -1), use_cache=True, logits_to_keep=1)
    kv = [t for layer in head.past_key_values.layers for t in (layer.keys, layer.values)]
    leaves = [t.detach().requires_grad_() for t in kv]
    tokens = int((labels != -100).sum())
    total = torch.zeros((), dtype=torch.float32, device=ids.device)
    for row in range(ids.shape[0]):
        n = int(mask[row].sum())
        answer = labels[row][labels[row] != -100]
        cache = DynamicCache(ddp_cache_data=list(zip(leaves[0::2], leaves[1::2], strict=True)))
        out = model(input_ids=ids[row, -n:].view(1, -1), position_ids=(pos[row, -n:] + plen).view(1, -1),
                    past_key_values=cache, use_cache=True, logits_to_keep=len(answer) + 1)
        # the logit at position t predicts the id at t + 1: the last one (after the end token) is not needed
        loss = torch.nn.functional.cross_entropy(out.logits[0, :-1].float(), answer, reduction="sum")
        (loss * (scale / tokens)).backward()
        total += loss.detach()
    # only cache tensors the adapter touched carry a graph (keys of a layer without LoRA on k_proj do not)
    pairs = [(t, leaf.grad) for t, leaf in zip(kv, leaves, strict=True) if t.requires_grad and leaf.grad is not None]
    if pairs:
        torch.autograd.backward([t for t, _ in pairs], grad_tensors=[g for _, g in pairs])
    return total / tokens


class PrefixSharedTrainer(Trainer):
    """``Trainer`` whose step is ``prefix_shared_backward``; optimiser, schedule, accumulation, logging are stock.

    No mixed precision here (the base weights are bf16 already, the adapter float32), so the step does its own
    backward instead of ``accelerator.backward``, which would only add a loss scaler.
    """

    def __init__(self, *args: Any, prefix_ids: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        import torch

        self.prefix = torch.tensor(prefix_ids, dtype=torch.long)

    def training_step(self, model: Any, inputs: dict[str, Any], num_items_in_batch: Any = None) -> Any:
        model.train()
        inputs = self._prepare_inputs(inputs)
        scale = 1.0 / self.args.gradient_accumulation_steps
        loss = prefix_shared_backward(model, self.prefix.to(inputs["input_ids"].device), inputs, scale)
        return loss.detach() * scale
