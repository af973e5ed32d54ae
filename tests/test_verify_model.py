"""``python -m screening verify-model``: passes on the bundled model (checksums, config read-back,
transformers vs the session's vLLM engine) and fails clearly on a copy with one flipped byte.

The flipped-byte tests work on a copy in tmp_path; the cached original is never touched. Only
the parity test uses the real engine, and it is the session's shared one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from screening.engines.embedded_model import MARKER
from screening.ops import verify_model as vm
from tests.fixtures_redis import REPO


def flip_byte(path: Path, offset: int | None = None) -> int:
    size = path.stat().st_size
    offset = size // 2 if offset is None else offset
    with path.open("r+b") as fh:
        fh.seek(offset)
        b = fh.read(1)
        fh.seek(offset)
        fh.write(bytes([b[0] ^ 0x01]))
    return offset


def no_engine():
    raise AssertionError("a model that failed its checksums must never be loaded")


@pytest.fixture
def model_copy(model_dir: str, tmp_path: Path) -> Path:
    dst = tmp_path / "model"
    shutil.copytree(model_dir, dst)
    return dst


@pytest.mark.vllm
def test_bundled_model_passes_with_parity(model_dir: str, vllm_engine) -> None:
    report = vm.verify(Path(model_dir), engine=vllm_engine, max_model_len=2048, steps=8)
    text = report.render()
    print(text)
    assert report.ok, text
    assert "files match screener-build.json" in text
    assert "architecture LlamaForCausalLM" in text and "max_position_embeddings) 8192" in text
    assert "RoPE theta 100000.0" in text
    assert len(report.parity) == 3
    for pp in report.parity:
        assert pp.template_match and pp.steps == 8 and pp.matched == 8
        assert all(d.tolerated for d in pp.diffs)
    assert text.count("guided answer parses") == 3


def test_flipped_byte_fails_clearly(model_dir: str, model_copy: Path) -> None:
    original = json.loads((Path(model_dir) / MARKER).read_text())["sha256"]["model.safetensors"]
    assert vm.verify(model_copy, parity=False).ok
    flip_byte(model_copy / "model.safetensors")  # in the tensor data: only the checksum can see it
    report = vm.verify(model_copy, engine_factory=no_engine)
    text = report.render()
    assert not report.ok and text.endswith("verify-model: FAIL")
    (fail,) = [f for f in report.findings if f.level == "fail"]
    assert fail.check == "checksum" and fail.message.startswith("model.safetensors: sha256 ")
    assert original[:16] in fail.message and "changed since install" in fail.message
    assert "a corrupt model is never loaded" in text
    # the original is untouched
    assert vm.sha256(Path(model_dir) / "model.safetensors") == original
    # the command line says the same, exit code 1
    proc = subprocess.run([sys.executable, "-m", "screening", "verify-model", "--model", str(model_copy),
                           "--no-parity"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL  checksum  model.safetensors: sha256" in proc.stdout


def test_record_manifest_and_header_damage(model_copy: Path) -> None:
    """A folder without the build marker: --record, then a flip is caught; header damage too."""
    (model_copy / MARKER).unlink()
    report = vm.verify(model_copy, parity=False)
    assert report.ok and any(f.level == "warn" and "--record" in f.message for f in report.findings)
    proc = subprocess.run([sys.executable, "-m", "screening", "verify-model", "--model", str(model_copy), "--record"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and (model_copy / vm.MANIFEST).exists(), proc.stderr
    assert vm.verify(model_copy, parity=False).ok
    flip_byte(model_copy / "tokenizer.json", 10)
    report = vm.verify(model_copy, parity=False)
    assert [f.message.split(":")[0] for f in report.findings if f.level == "fail"] == ["tokenizer.json"]
    # a truncated weight file: caught by the header/offset check even without a manifest
    (model_copy / vm.MANIFEST).unlink()
    weights = model_copy / "model.safetensors"
    with weights.open("r+b") as fh:
        fh.truncate(weights.stat().st_size - 1024)
    report = vm.verify(model_copy, parity=False)
    assert any(f.check == "weights" and f.level == "fail" and "truncated" in f.message for f in report.findings)


def test_index_only_and_missing_shard(tmp_path: Path) -> None:
    folder = tmp_path / "sharded"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["X"], "max_position_embeddings": 4096,
                                                    "rope_theta": 1e6, "rope_scaling": {"type": "yarn",
                                                                                        "factor": 4.0}}))
    (folder / vm.INDEX).write_text(json.dumps({"weight_map": {"a": "model-00001-of-00002.safetensors",
                                                              "b": "model-00002-of-00002.safetensors"}}))
    report = vm.verify(folder, parity=False, max_model_len=8192)
    text = report.render()
    assert "names shards that are missing: model-00001-of-00002.safetensors" in text
    assert 'scaling {"type": "yarn", "factor": 4.0}' in text and "RoPE theta 1000000.0" in text
