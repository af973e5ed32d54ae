"""bench/cache_keys.py: which factor separates two compile-cache directories (pure functions, a CLI run)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.cache_keys import differences

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "bench" / "gpu_runs" / "run33-cache-key-0e24805934.json"


def test_equal_factors_have_no_difference() -> None:
    a = json.loads(RECORDED.read_text(encoding="utf-8"))
    assert differences(a, json.loads(json.dumps(a))) == []


def test_each_differing_hash_and_variable_is_named() -> None:
    a = json.loads(RECORDED.read_text(encoding="utf-8"))
    b = json.loads(json.dumps(a))
    b["config_hash"] = "ffffffffff"
    b["env"]["VLLM_ENABLE_INDUCTOR_MAX_AUTOTUNE"] = False
    del b["env"]["CUDA_HOME"]
    lines = differences(a, b)
    assert lines[0] == f"config_hash: {a['config_hash']!r} != 'ffffffffff'"
    assert "env CUDA_HOME: '/usr/local/cuda' != '<absent>'" in lines
    assert "env VLLM_ENABLE_INDUCTOR_MAX_AUTOTUNE: True != False" in lines
    assert len(lines) == 3


def test_cli_names_the_cause_and_a_bad_file_in_one_line(tmp_path: Path) -> None:
    a = json.loads(RECORDED.read_text(encoding="utf-8"))
    a["compiler_hash"] = "0000000000"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(a), encoding="utf-8")
    p = subprocess.run([sys.executable, "bench/cache_keys.py", str(RECORDED), str(other)], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.splitlines()[-1].startswith("compiler_hash differs: the compiler's")
    bad = subprocess.run([sys.executable, "bench/cache_keys.py", str(RECORDED), str(tmp_path / "none.json")],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1
