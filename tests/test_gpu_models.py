"""bench/gpu_models: every configuration names a shape that loads, and a quantized variant inherits its shape."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _common():  # type: ignore[no-untyped-def]
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    import gpu_common

    return gpu_common


def test_every_configuration_names_a_shape_that_loads() -> None:
    g = _common()
    for name, cfg in g.load_configs().items():
        shape = g.model_shape(cfg["model"])
        assert shape.get("architectures"), name


def test_the_block_fp8_variant_is_the_shape_plus_its_quantization(tmp_path: Path) -> None:
    g = _common()
    base, fp8 = g.model_shape("qwen3.5-35b-a3b"), g.model_shape("qwen3.5-35b-a3b-fp8block")
    assert fp8["text_config"] == base["text_config"] and "quantization_config" not in base
    assert fp8["quantization_config"]["weight_block_size"] == [128, 128]
    tok = tmp_path / "tok"
    tok.mkdir()
    (tok / "tokenizer.json").write_text("{}", encoding="utf-8")
    written = json.loads((g.build_model_dir("qwen3.5-35b-a3b-fp8block", tmp_path, tok) / "config.json").read_text())
    assert written["quantization_config"]["quant_method"] == "fp8"
    assert not any(k.startswith("_") or k == "tokenizer" for k in written)  # bench-only keys stay out
