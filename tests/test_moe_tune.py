"""bench/moe_tune.py's pure parts and the engine's loading of the tuned fused-MoE tables (no GPU, no vLLM).

The tuner itself only runs on a CUDA device; here its search, budget and file writing run against a stand-in
kernel whose timing has a known optimum, and the CLI is checked to refuse a machine without CUDA.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import sys
import time
import tomllib
from pathlib import Path

import pytest

from screening.config import EngineSettings
from screening.engines.vllm_engine import MOE_CONFIGS, TUNED_ENV, use_moe_configs

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "bench" / "moe_tune.py"


def _load():
    spec = importlib.util.spec_from_file_location("moe_tune_under_test", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


mt = _load()
SHAPE = mt.MoeShape(256, 512, 2048, 8)
FP8 = "fp8_w8a8"


def cfg(m: int, n: int, k: int, g: int = 1, w: int = 4, s: int = 3) -> dict[str, int]:
    return dict(zip(mt.KEYS, (m, n, k, g, w, s), strict=True))


# ---------------------------------------------------------------- shape, batch sizes, file names

def test_shape_comes_from_the_model_json() -> None:
    assert mt.load_shape(mt.DEFAULT_MODEL) == SHAPE


def test_shape_of_a_flat_config_and_a_dense_one(tmp_path: Path) -> None:
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps({"num_local_experts": 8, "moe_intermediate_size": 14336, "hidden_size": 4096,
                                "num_experts_per_tok": 2}))
    assert mt.load_shape(flat) == mt.MoeShape(8, 14336, 4096, 2)
    dense = tmp_path / "dense.json"
    dense.write_text(json.dumps({"hidden_size": 4096, "intermediate_size": 12288}))
    with pytest.raises(ValueError, match="not a MoE config"):
        mt.load_shape(dense)


def test_default_batch_sizes_follow_the_gpu_engine_settings() -> None:
    assert mt.engine_limits(REPO / "config.gpu.toml") == (512, 32768)
    assert mt.workload_batch_sizes(512, 32768) == [256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
    assert mt.parse_args(["--out", "x"]).batch_sizes == [256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
    # a step limit that is not a power of two is itself a size; a tiny max_num_seqs still starts at 16
    assert mt.workload_batch_sizes(100, 5000) == [32, 64, 128, 256, 512, 1024, 2048, 4096, 5000]
    assert mt.workload_batch_sizes(8, 64) == [16, 32, 64]


def test_file_names_are_vllms() -> None:
    assert mt.config_file_name(SHAPE, FP8, "NVIDIA H200") == "E=256,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8.json"
    assert mt.config_file_name(SHAPE, None, "NVIDIA H200 NVL") == "E=256,N=512,device_name=NVIDIA_H200.json"
    assert (mt.config_file_name(SHAPE, None, "NVIDIA H100 80GB HBM3")
            == "E=256,N=512,device_name=NVIDIA_H100_80GB_HBM3.json")
    assert mt.parse_config_file_name("E=128,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8.json") == {
        "E": 128, "N": 512, "device": "NVIDIA_H200", "dtype": FP8, "block": False}
    assert mt.parse_config_file_name("E=256,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128,128].json")[
        "block"] is True
    assert mt.parse_config_file_name("README.md") is None


SHIPPED = [
    "E=128,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8.json",
    "E=128,N=512,device_name=NVIDIA_H200.json",
    "E=256,N=512,device_name=NVIDIA_H100_80GB_HBM3.json",
    "E=256,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128,128].json",  # block quantisation
    "E=256,N=512,device_name=AMD_Instinct_MI300X.json",  # another vendor
    "E=256,N=512,device_name=NVIDIA_H20.json",  # another (much smaller) Hopper
    "E=64,N=768,device_name=NVIDIA_H20,dtype=int8_w8a16.json",
    "E=128,N=768,device_name=NVIDIA_H200.json",
    "E=512,N=512,device_name=NVIDIA_H200.json",
]


def test_neighbour_tables_are_ranked_by_shape_dtype_and_device() -> None:
    fp8 = mt.rank_neighbour_files(SHIPPED, SHAPE, FP8, limit=10)
    assert fp8[0] == "E=128,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8.json"  # E off by 2x only
    assert fp8[1] == "E=256,N=512,device_name=NVIDIA_H100_80GB_HBM3.json"  # right shape, bf16, H100
    assert not any("block_shape" in n or "AMD" in n or "H20," in n or "H20." in n or "int8" in n for n in fp8)
    bf16 = mt.rank_neighbour_files(SHIPPED, SHAPE, None, limit=2)
    assert bf16 == ["E=256,N=512,device_name=NVIDIA_H100_80GB_HBM3.json",
                    "E=128,N=512,device_name=NVIDIA_H200.json"]


def test_the_real_configs_folder_seeds_when_vllm_is_installed() -> None:
    folder = mt.vllm_configs_folder()
    if folder is None:
        pytest.skip("no vLLM configs folder in this environment")
    names, tables = mt.neighbour_tables(SHAPE, FP8, folder)
    assert names and len(names) == len(tables) <= 6
    for table in tables:
        assert table and all(set(c) == set(mt.KEYS) for c in table.values())


# ---------------------------------------------------------------- search space

def test_block_m_follows_the_rows_per_expert() -> None:
    assert mt.block_m_bounds(256, SHAPE) == (16, 16)  # 8 rows per expert
    assert mt.block_m_bounds(512, SHAPE) == (16, 32)
    assert mt.block_m_bounds(4096, SHAPE) == (16, 256)
    assert mt.block_m_bounds(32768, SHAPE) == (64, 256)  # 1,024 rows per expert: no thin tiles


def test_tiles_must_fit_shared_memory() -> None:
    big = cfg(128, 256, 128, s=4)
    assert mt.smem_bytes(big, FP8) == 4 * 384 * 128
    assert mt.plausible(big, 8192, SHAPE, FP8)
    assert not mt.plausible({**big, "num_stages": 5}, 8192, SHAPE, FP8)  # 240 KiB
    assert not mt.plausible(big, 8192, SHAPE, None)  # bf16 tiles are twice the bytes
    assert mt.plausible(cfg(128, 256, 64, s=4), 8192, SHAPE, None)
    assert not mt.plausible(cfg(64, 128, 128), 256, SHAPE, FP8)  # BLOCK_SIZE_M 64 for 8 rows an expert
    assert not mt.plausible(cfg(16, 48, 128), 256, SHAPE, FP8)  # not a value of the space


def test_neighbours_move_one_parameter_one_step() -> None:
    base = cfg(32, 128, 128, 16, 4, 3)
    out = mt.neighbours(base)
    assert len(out) == len({mt.as_key(c) for c in out}) == 11  # warps 4 has only an upper neighbour
    for c in out:
        changed = [k for k in mt.KEYS if c[k] != base[k]]
        assert len(changed) == 1
        values = mt.RANGES[changed[0]]
        assert abs(values.index(c[changed[0]]) - values.index(base[changed[0]])) == 1
    assert out[0] == {**base, "BLOCK_SIZE_N": 256}  # the tile's N first, up before down


def test_seeds_take_the_previous_best_then_each_tables_nearest_entry() -> None:
    table_a = {256: cfg(16, 128, 256), 4096: cfg(128, 256, 128, s=4)}
    table_b = {512: cfg(32, 128, 128), 1024: cfg(64, 128, 64)}
    previous = cfg(16, 64, 128)
    assert mt.seed_configs(256, [table_a, table_b], [previous], SHAPE, FP8) == [previous, cfg(16, 128, 256)]
    # 32768 is nearest to table_a's 4096 and table_b's 1024 (64 fits a 1,024-row expert); a duplicate once
    assert mt.seed_configs(32768, [table_a, table_b, table_a], [], SHAPE, FP8) == [cfg(128, 256, 128, s=4),
                                                                                 cfg(64, 128, 64)]
    # nothing plausible: the generic fallbacks that fit
    fallback = mt.seed_configs(256, [], [], SHAPE, FP8)
    assert fallback and all(c["BLOCK_SIZE_M"] == 16 for c in fallback)


def test_next_candidate_climbs_from_the_fastest() -> None:
    seeds = [cfg(16, 128, 128), cfg(16, 64, 128)]
    results: dict = {}
    assert mt.next_candidate(results, seeds, 512, SHAPE, FP8) == seeds[0]
    results[mt.as_key(seeds[0])] = 50.0
    assert mt.next_candidate(results, seeds, 512, SHAPE, FP8) == seeds[1]
    results[mt.as_key(seeds[1])] = 40.0  # the faster one: its neighbours come next
    nxt = mt.next_candidate(results, seeds, 512, SHAPE, FP8)
    assert nxt == {**seeds[1], "BLOCK_SIZE_N": 128} or mt.as_key(nxt) not in results
    assert sum(nxt[k] != seeds[1][k] for k in mt.KEYS) == 1
    results[mt.as_key(cfg(16, 64, 128, s=4))] = None  # a failed config is never timed again
    while (c := mt.next_candidate(results, seeds, 512, SHAPE, FP8)) is not None:
        assert mt.as_key(c) not in results and mt.plausible(c, 512, SHAPE, FP8)
        results[mt.as_key(c)] = 60.0
    assert len(results) > 10  # the neighbourhoods of the best three, exhausted


# ---------------------------------------------------------------- the file and the report

def test_table_holds_the_default_wherever_nothing_faster_was_measured() -> None:
    defaults = {m: cfg(16 if m <= 32 else 64, 64, 128) for m in (1, 16, 64, 256, 512)}
    tuned = {256: cfg(16, 128, 256, 1, 8, 2)}
    table = mt.fill_table(tuned, defaults)
    assert list(table) == [1, 16, 64, 256, 512]
    assert table[256] == tuned[256] and table[512] == defaults[512]
    text = mt.config_json(table, "3.6.0")
    raw = json.loads(text)
    assert list(raw) == ["1", "16", "64", "256", "512", "triton_version"] and raw["triton_version"] == "3.6.0"
    assert raw["256"] == {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 256, "GROUP_SIZE_M": 1,
                          "num_warps": 8, "num_stages": 2}


def vllm_026_default_tiles(m: int) -> tuple[int, ...]:
    """The M-dependent part of vLLM 0.26.0's get_default_config for per-tensor fp8 / bf16 (its steps)."""
    return (16 if m <= 32 else 32 if m <= 96 else 64 if m <= 512 else 128, 64 if m <= 64 else 128,
            128 if m <= 64 else 64, 4 if m <= 128 else 8, 4 if m <= 32 else 3)


def test_fill_keys_give_small_batches_todays_default() -> None:
    keys = [*mt.FILL_BATCH_SIZES, 256]  # 256: the first tuned size
    for m in range(1, 193):
        key = min(keys, key=lambda k: abs(k - m))
        assert key != 256 and vllm_026_default_tiles(key) == vllm_026_default_tiles(m), m


def test_budget_is_shared_by_the_sizes_left() -> None:
    assert mt.budget_share(100.0, 40.0, 3) == 20.0
    assert mt.budget_share(100.0, 120.0, 2) == 0.0
    assert mt.budget_share(100.0, 40.0, 0) == 60.0


class FakeBench:
    """A kernel whose time has one optimum per M (BLOCK_SIZE_N 128, K 256, 3 stages, 8 warps)."""

    def __init__(self) -> None:
        self.m = 0
        self.calls: list[tuple[int, tuple]] = []

    def use_batch(self, m: int) -> None:
        self.m = m

    def time_config(self, c: dict, target_s: float) -> float:
        self.calls.append((self.m, mt.as_key(c)))
        if c["BLOCK_SIZE_K"] == 256 and c["num_stages"] == 4:
            raise type("OutOfResources", (Exception,), {})("shared memory")
        hi = mt.block_m_bounds(self.m, SHAPE)[1]
        return (self.m / 10 + 5 * abs(c["BLOCK_SIZE_N"] - 128) / 64 + 4 * abs(c["BLOCK_SIZE_K"] - 256) / 64
                + 2 * abs(c["num_stages"] - 3) + (0 if c["num_warps"] == 8 else 3) + c["GROUP_SIZE_M"] / 64
                + (20 if c["BLOCK_SIZE_M"] > hi else 0))


def fake_default(m, e, n, k, topk, dtype, block_shape):
    return {**cfg(16 if m <= 32 else 64, 64 if m <= 64 else 128, 128, 1, 4 if m <= 128 else 8, 3), "SPLIT_K": 1}


def test_tuner_finds_the_optimum_and_writes_vllms_file(tmp_path: Path) -> None:
    a = argparse.Namespace(batch_sizes=[256, 4096], max_configs=30, dtype=[FP8])
    rows: list[dict] = []
    sink = io.StringIO()
    names = lambda e, n, dtype: mt.config_file_name(mt.MoeShape(e, n, 2048, 8), dtype, "NVIDIA H200")  # noqa: E731
    bench = FakeBench()
    tuner = mt.Tuner(a, SHAPE, FP8, sink, {"device": "NVIDIA H200"}, rows, api=(names, fake_default), bench=bench,
                     folder=tmp_path / "no-such-folder")
    assert tuner.file == "E=256,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8.json" and tuner.tables == []
    tuner.run(time.monotonic() + 30, tmp_path, "3.6.0")
    assert [r["m"] for r in rows] == [256, 4096]
    for r in rows:
        assert r["best_config"]["BLOCK_SIZE_N"] == 128 and r["best_config"]["BLOCK_SIZE_K"] == 256
        assert r["best_config"]["num_warps"] == 8 and r["written"] == "tuned" and r["speedup"] > 1
        assert r["timed"] <= a.max_configs + 1
    table = json.loads((tmp_path / tuner.file).read_text())
    assert list(table)[:3] == ["1", "32", "33"] and "triton_version" in table
    assert table["128"] == {k: v for k, v in fake_default(128, 0, 0, 0, 0, 0, 0).items() if k != "SPLIT_K"}
    assert table["256"] == rows[0]["best_config"] and table["4096"] == rows[1]["best_config"]
    trail = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert any(t.get("error") == "OutOfResources" for t in trail)  # skipped, not fatal
    assert [t["phase"] for t in trail if t["kind"] == "trial"].count("default") == 2  # always timed
    md = mt.markdown({"E": 256, "N": 512, "hidden": 2048, "topk": 8, "device": "NVIDIA H200"}, rows)
    assert "| 256 |" in md and "| 4096 |" in md and tuner.file in md


def test_an_exhausted_budget_still_times_the_default_and_writes_it(tmp_path: Path) -> None:
    a = argparse.Namespace(batch_sizes=[512], max_configs=30, dtype=[FP8])
    rows: list[dict] = []
    tuner = mt.Tuner(a, SHAPE, FP8, io.StringIO(), {"device": "NVIDIA H200"}, rows,
                     api=(lambda e, n, d: "t.json", fake_default), bench=FakeBench(), folder=tmp_path)
    tuner.run(time.monotonic() - 1, tmp_path, "3.6.0")
    assert rows[0]["timed"] == 1 and rows[0]["written"] == "default" and rows[0]["speedup"] == 1.0
    assert json.loads((tmp_path / "t.json").read_text())["512"] == rows[0]["default_config"]


# ---------------------------------------------------------------- the command line

def test_plan_needs_no_gpu(capsys: pytest.CaptureFixture[str]) -> None:
    assert mt.main(["--plan", "--dtype", "fp8_w8a8", "bf16"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["files"] == {FP8: "E=256,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8.json",
                             "bf16": "E=256,N=512,device_name=NVIDIA_H200.json"}
    assert plan["batch_sizes"][0] == 256 and plan["fill_batch_sizes"][-1] == 129


def test_without_cuda_it_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mt, "gpu_ready", lambda: "no CUDA device (torch.cuda.is_available() is False)")
    assert mt.main(["--out", str(tmp_path / "moe")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("moe_tune: no CUDA device") and "\n" not in err
    assert not (tmp_path / "moe").exists()


# ---------------------------------------------------------------- the engine loads the shipped folder

def test_the_engine_points_vllm_at_the_packaged_folder(capsys: pytest.CaptureFixture[str]) -> None:
    env: dict[str, str] = {}
    assert EngineSettings().moe_config_dir == "bundled"
    assert use_moe_configs(EngineSettings(), env) == str(MOE_CONFIGS) == env[TUNED_ENV]
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and str(MOE_CONFIGS) in line and TUNED_ENV in line


def test_the_users_variable_wins(capsys: pytest.CaptureFixture[str]) -> None:
    env = {TUNED_ENV: "/mine"}
    assert use_moe_configs(EngineSettings(), env) == "/mine" and env[TUNED_ENV] == "/mine"
    assert "not applied" in capsys.readouterr().err


def test_off_or_another_folder(tmp_path: Path) -> None:
    env: dict[str, str] = {}
    assert use_moe_configs(EngineSettings(moe_config_dir=""), env) is None and env == {}
    assert use_moe_configs(EngineSettings(moe_config_dir=str(tmp_path)), env) == str(tmp_path.resolve())
    # what an earlier engine of this process set is not the user's: settings without a folder take it away
    assert use_moe_configs(EngineSettings(moe_config_dir=""), env) is None and env == {}
    with pytest.raises(FileNotFoundError, match="moe_config_dir"):
        use_moe_configs(EngineSettings(moe_config_dir=str(tmp_path / "missing")), env)


def test_shipped_tables_are_vllm_tables_and_packaged() -> None:
    assert (MOE_CONFIGS / "README.md").is_file()
    for path in MOE_CONFIGS.glob("*.json"):
        info = mt.parse_config_file_name(path.name)
        assert info is not None and not info["block"], path.name
        raw = json.loads(path.read_text())
        assert "triton_version" in raw
        table = mt.read_table(path)
        assert table and all(set(c) == set(mt.KEYS) for c in table.values()), path.name
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["screening"]
    assert "engines/moe_configs/*.json" in data
