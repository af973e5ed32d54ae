"""doctor's fused-MoE check: which tuned tables vLLM will read, and whether one fits the model on this GPU.

Why: vLLM falls back to its default fused-MoE tiles, silently, when no table matches the model's experts
and width, the GPU's name and the dtype (the tuned H200 table is 1.01-1.14x per kernel, bench/RESULTS.md).
The engine points vLLM at ``engine.moe_config_dir`` unless ``VLLM_TUNED_CONFIG_FOLDER`` is set already
(the user's wins); this says which folder is in effect and names the table the model needs here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from screening.config import EngineSettings, Settings
from screening.engines.moe_tables import QUANT_DTYPE, MoeShape, config_file_name, load_shape
from screening.engines.vllm_engine import TUNED_ENV, moe_config_folder
from screening.ops.findings import Finding

TUNE = "python bench/moe_tune.py on this GPU writes one (bench/README.md); or set engine.moe_config_dir"


def gpu_name() -> str | None:
    """The first CUDA device's name, None without torch or a GPU (then no table can be named)."""
    try:
        import torch
    except ImportError:
        return None
    return str(torch.cuda.get_device_name(0)) if torch.cuda.is_available() else None


def _shape(es: EngineSettings) -> MoeShape | None:
    """The configured model's MoE shape; None for the bundled model, a dense model or an unreadable config."""
    if not es.model:
        return None
    try:
        return load_shape(Path(es.model).expanduser() / "config.json")
    except (OSError, ValueError, KeyError):  # check_engine reports a missing or broken folder
        return None


def check_moe(settings: Settings, environ: Mapping[str, str], device_name: str | None) -> list[Finding]:
    es = settings.engine
    if es.kind != "vllm":
        return []
    user = environ.get(TUNED_ENV)
    if user:
        folder, where = Path(user), f"{TUNED_ENV}={user} (set outside: engine.moe_config_dir not applied)"
    else:
        try:
            found = moe_config_folder(es)
        except FileNotFoundError as exc:
            return [Finding("fail", "moe", str(exc), "set engine.moe_config_dir to a folder, 'bundled' or ''")]
        if found is None:
            return [Finding("info", "moe", "engine.moe_config_dir = '': vLLM's own fused-MoE configs")]
        folder, where = found, f"engine.moe_config_dir ({found})"
    tables = sorted(p.name for p in folder.glob("E=*.json")) if folder.is_dir() else []
    shape = _shape(es)
    if shape is None or device_name is None or es.quantization not in QUANT_DTYPE:
        return [Finding("info", "moe", f"tuned fused-MoE tables from {where}: {', '.join(tables) or 'none'}")]
    want = config_file_name(shape, QUANT_DTYPE[es.quantization], device_name)
    if want in tables:
        return [Finding("ok", "moe", f"{want} from {where}: vLLM runs the tuned fused-MoE kernel")]
    return [Finding("warn", "moe", f"no {want} in {where}: vLLM runs its default fused-MoE tiles for this model "
                    "on this GPU", TUNE)]
