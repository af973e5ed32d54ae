"""doctor's fused-MoE check (screening/ops/doctor_moe.py): the folder in effect and the table the model needs.

Pure: settings, an environment mapping and a GPU name in, findings out; the bundled H200 table and the
Qwen3.5-35B-A3B shape of the GPU bench are the real files.
"""

from __future__ import annotations

import json
from pathlib import Path

from screening.config import EngineSettings, Settings
from screening.engines.moe_tables import QUANT_DTYPE, config_file_name, device_file_name, load_shape
from screening.ops.doctor_moe import check_moe

REPO = Path(__file__).resolve().parents[1]
QWEN35 = REPO / "bench" / "gpu_models" / "qwen3.5-35b-a3b.json"


def _model(tmp_path: Path) -> Path:
    folder = tmp_path / "Qwen3.5-35B-A3B"
    folder.mkdir()
    (folder / "config.json").write_text(QWEN35.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def _settings(**engine: object) -> Settings:
    return Settings(engine=EngineSettings(**{"kind": "vllm", **engine}))


def test_the_bundled_h200_table_fits_the_qwen35_moe_in_fp8(tmp_path: Path) -> None:
    s = _settings(model=str(_model(tmp_path)), quantization="fp8")
    (f,) = check_moe(s, {}, "NVIDIA H200")
    assert f.level == "ok" and "E=256,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8.json" in f.message
    assert "engine.moe_config_dir" in f.message


def test_another_gpu_or_bf16_is_named_as_running_vllms_defaults(tmp_path: Path) -> None:
    model = str(_model(tmp_path))
    (f,) = check_moe(_settings(model=model, quantization="fp8"), {}, "NVIDIA H100 80GB HBM3")
    assert f.level == "warn" and "E=256,N=512,device_name=NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8.json" in f.message
    assert "bench/moe_tune.py" in f.fix
    (f,) = check_moe(_settings(model=model), {}, "NVIDIA H200")  # bf16: no table shipped
    assert f.level == "warn" and "E=256,N=512,device_name=NVIDIA_H200.json" in f.message


def test_the_users_variable_wins_and_is_said(tmp_path: Path) -> None:
    theirs = tmp_path / "tables"
    theirs.mkdir()
    name = config_file_name(load_shape(QWEN35), QUANT_DTYPE["fp8"], "NVIDIA H200")
    (theirs / name).write_text(json.dumps({"1": {}}), encoding="utf-8")
    s = _settings(model=str(_model(tmp_path)), quantization="fp8", moe_config_dir="")
    (f,) = check_moe(s, {"VLLM_TUNED_CONFIG_FOLDER": str(theirs)}, "NVIDIA H200 NVL")
    assert f.level == "ok" and "VLLM_TUNED_CONFIG_FOLDER" in f.message and "not applied" in f.message


def test_no_gpu_dense_model_missing_folder_and_other_engines(tmp_path: Path) -> None:
    (f,) = check_moe(_settings(), {}, None)  # the bundled 135M model on a CPU: the folder, nothing to match
    assert f.level == "info" and "E=256,N=512" in f.message
    (f,) = check_moe(_settings(moe_config_dir=""), {}, "NVIDIA H200")
    assert f.level == "info" and "vLLM's own" in f.message
    (f,) = check_moe(_settings(moe_config_dir=str(tmp_path / "nope")), {}, "NVIDIA H200")
    assert f.level == "fail" and "is not a folder" in f.message
    assert check_moe(_settings(kind="rules"), {}, "NVIDIA H200") == []
    assert device_file_name("NVIDIA H200 NVL") == "NVIDIA_H200"
