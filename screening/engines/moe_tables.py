"""vLLM's tuned fused-MoE tables by name: a model's MoE shape, and the file name vLLM looks for.

vLLM reads a table named ``E={experts},N={moe_intermediate_size},device_name={GPU}[,dtype=...].json``
(``get_config_file_name`` in vllm/model_executor/layers/fused_moe/fused_moe.py, 0.26) and falls back to
its default tiles, silently, when none matches. bench/moe_tune.py writes such tables; doctor checks that
one fits the configured model on this GPU. Pure: no torch, no vLLM.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class MoeShape:
    experts: int  # E
    intermediate: int  # N in vLLM's file name: moe_intermediate_size (w2's input width)
    hidden: int  # K
    topk: int


def load_shape(path: Path) -> MoeShape:
    """The MoE shape of a model config JSON (HF layout; a ``text_config`` wins when there is one)."""
    cfg = json.loads(Path(path).read_text(encoding="utf-8"))
    cfg = cfg.get("text_config") or cfg
    experts = cfg.get("num_experts") or cfg.get("num_local_experts") or cfg.get("n_routed_experts")
    if not experts or "moe_intermediate_size" not in cfg:
        raise ValueError(f"{path}: not a MoE config (num_experts / moe_intermediate_size missing)")
    return MoeShape(int(experts), int(cfg["moe_intermediate_size"]), int(cfg["hidden_size"]),
                    int(cfg["num_experts_per_tok"]))


def device_file_name(device_name: str) -> str:
    """The device part of vLLM's file name: blanks and slashes to '_', any H200 variant is 'NVIDIA_H200'."""
    name = re.sub(r"[\s/]+", "_", device_name)
    return "NVIDIA_H200" if "H200" in name.split("_") else name


def config_file_name(shape: MoeShape, dtype: str | None, device_name: str) -> str:
    """vLLM's ``get_config_file_name`` for our case (no block quantisation)."""
    dtype_part = f",dtype={dtype}" if dtype else ""
    return f"E={shape.experts},N={shape.intermediate},device_name={device_file_name(device_name)}{dtype_part}.json"


# engine.quantization -> the dtype in vLLM's file name (unquantised bf16/fp16: no dtype part)
QUANT_DTYPE: dict[str | None, str | None] = {None: None, "fp8": "fp8_w8a8"}
