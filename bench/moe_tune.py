"""Tune vLLM's fused-MoE Triton kernel for our model's shape on this GPU, within a wall-clock budget (issue 28).

vLLM 0.26.0 runs the Qwen3.5-35B-A3B shape (256 experts, moe_intermediate_size 512, hidden 2048, 8 experts
per token) with its built-in default tile config on the H200: ``E=256,N=512,device_name=NVIDIA_H200,
dtype=fp8_w8a8.json`` is not among the configs it ships. vLLM reads a tuned table from the folder named by
``VLLM_TUNED_CONFIG_FOLDER`` first (``get_moe_configs`` in fused_moe.py); the engine sets that to
``screening/engines/moe_configs/`` (``engine.moe_config_dir``), where the file this script writes ships.

Method (the one vLLM's own tuner uses, in our own small harness): for each batch size M (tokens in one
engine step) and each candidate tile config, ``fused_topk`` + ``fused_experts`` (vLLM's public functions)
run under ``override_config(config)`` with a ``FusedMoEQuantConfig`` (fp8_w8a8: per-expert per-tensor
weight scales, dynamic per-tensor activation scales, as ``quantization="fp8"`` runs a bf16 checkpoint;
bf16: unquantized); ten invocations are captured in one CUDA graph and the graph's replays are timed with
CUDA events, the routing logits changed between replays; the result is microseconds per invocation.
Configs that do not fit the GPU (Triton's OutOfResources) are skipped.

What differs from vLLM's tuner (1,920 configs per batch size, hours on one GPU; we have minutes):
- Batch sizes: only those this workload runs (``workload_batch_sizes``). The engine runs max_num_seqs 512
  and max_num_batched_tokens 32768 (config.gpu.toml): a decode step holds up to 512 running sequences
  (one token each; CUDA graphs pad it to a capture size <= 512), 256 at a wave's tail; a step that
  admits new prompts fills up to 32768 tokens with prefill chunks (~1,400-token prompts, ~300 of them
  uncached, 512 admitted at once: ~5 full 32768-token steps per wave). So the powers of two from
  max_num_seqs / 2 to max_num_batched_tokens: 256 512 1024 2048 4096 8192 16384 32768. vLLM picks the
  table's key nearest to the step's M, so keys below 256 (an engine with only a few /screen requests in
  flight) hold vLLM's own default config, placed at the steps of its heuristic so that every M up to
  ~192 gets exactly today's config; any tuned batch size whose best config did not beat the default
  keeps the default: the file never makes a batch size slower than it runs today, as far as this
  measured it.
- Search: local search instead of a grid. Seeds are the configs vLLM ships for the neighbouring shapes
  on H200/H100 (nearest key of each of the best-matching files in its configs folder, e.g.
  ``E=128,N=512,device_name=NVIDIA_H200,dtype=fp8_w8a8.json``, ``E=256,N=512,device_name=
  NVIDIA_H100_80GB_HBM3.json``), the best of the previous batch size and vLLM's default; then one
  parameter at a time is moved one step from the best few found so far (hill climbing). Configs whose
  tiles cannot fit in shared memory or whose BLOCK_SIZE_M does not suit the tokens per expert are
  never compiled. At most ``--max-configs`` per batch size.
- Budget: ``--budget-s`` of wall clock (import and CUDA start not counted) spread over dtypes and batch
  sizes (each gets the time left divided by the sizes left, so a fast one leaves more for the next),
  keeping the best found so far. vLLM's default config is always timed, and at the end of each batch
  size the default and the best are re-timed against each other (alternating, median of 3) for the
  speed-up the output reports. Triton compiles every new config (two kernels: the up- and the
  down-projection) on its first call: that, not the timing, is most of the cost, and a config compiled
  for one batch size is reused by the next.

Output in ``--out``: the table in vLLM's file name and format (keys are batch sizes as strings, plus
"triton_version"), rewritten after every batch size so a run cut short still leaves a usable file;
``moe_tune.jsonl`` (one header line, one line per timed config, one summary line per batch size) and
``moe_tune.md`` (default vs tuned per batch size, for bench/RESULTS.md). Copy the JSON into
screening/engines/moe_configs/.

    python bench/moe_tune.py --out $OUT/moe                          # fp8_w8a8, 240 s
    python bench/moe_tune.py --dtype fp8_w8a8 bf16 --budget-s 400 --out $OUT/moe
    python bench/moe_tune.py --plan                                  # the plan, no GPU needed

Needs a CUDA GPU and vLLM (0.26.0 is what the engine runs); without a CUDA device it exits 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import re
import statistics
import sys
import time
import tomllib
from dataclasses import asdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # `python bench/moe_tune.py` puts bench/ first, not the package
    sys.path.insert(0, str(REPO))

from screening.engines.moe_tables import (  # noqa: E402  (the names vLLM looks for: one place)
    MoeShape,
    config_file_name,
    load_shape,
)

DEFAULT_MODEL = REPO / "bench" / "gpu_models" / "qwen3.5-35b-a3b.json"
ENGINE_CONFIG = REPO / "config.gpu.toml"
DTYPES: dict[str, str | None] = {"fp8_w8a8": "fp8_w8a8", "bf16": None}  # --dtype -> vLLM's dtype in the file name
# keys below the tuned sizes, holding vLLM's default config: 1 and each step of vLLM 0.26's default heuristic
# (its tiles change after M = 32, 64, 96 and 128) with the size after it, so that vLLM's nearest-key lookup
# gives every M up to ~192 exactly the default config it gets today without a table
FILL_BATCH_SIZES = (1, 32, 33, 64, 65, 96, 97, 128, 129)
KEYS = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "num_warps", "num_stages")
# the values a parameter may step through; the order of NEIGHBOUR_ORDER is the order a best config's
# neighbours are tried in (the tile's N and K and the pipeline depth move the time most in vLLM's tables)
RANGES: dict[str, tuple[int, ...]] = {
    "BLOCK_SIZE_M": (16, 32, 64, 128, 256),
    "BLOCK_SIZE_N": (32, 64, 128, 256),
    "BLOCK_SIZE_K": (64, 128, 256),
    "GROUP_SIZE_M": (1, 16, 32, 64),
    "num_warps": (4, 8),
    "num_stages": (2, 3, 4, 5),
}
NEIGHBOUR_ORDER = ("BLOCK_SIZE_N", "BLOCK_SIZE_K", "num_stages", "BLOCK_SIZE_M", "num_warps", "GROUP_SIZE_M")
SMEM_BYTES = 227 * 1024  # shared memory one thread block may use on H100/H200
NEIGHBOUR_DEVICES = ("NVIDIA_H200", "NVIDIA_H100")  # shipped tables whose device is close enough to seed from
# tile configs to start from when no shipped table is found (generic Triton GEMM tiles, small to large)
FALLBACK_SEEDS = (
    (16, 64, 128, 1, 4, 4), (16, 128, 128, 1, 4, 3), (32, 128, 128, 1, 4, 3),
    (64, 128, 128, 1, 4, 3), (128, 128, 128, 16, 8, 3), (128, 256, 64, 1, 8, 4),
)

Config = dict[str, int]


# ---------------------------------------------------------------- pure parts (no torch, no vLLM)

def engine_limits(toml_path: Path) -> tuple[int, int]:
    """(max_num_seqs, max_num_batched_tokens) of a screener config's [engine] (512, 32768 when unset)."""
    engine = tomllib.loads(Path(toml_path).read_text(encoding="utf-8")).get("engine", {})
    return int(engine.get("max_num_seqs") or 512), int(engine.get("max_num_batched_tokens") or 32768)


def workload_batch_sizes(max_num_seqs: int, max_num_batched_tokens: int) -> list[int]:
    """Powers of two from max_num_seqs / 2 (a decode wave's tail) to max_num_batched_tokens (a full prefill step).

    Decode steps carry up to max_num_seqs tokens, steps that admit prompts up to max_num_batched_tokens;
    the module docstring says why these are the sizes that carry this workload's MoE time.
    """
    low = max(16, 2 ** math.floor(math.log2(max(1, max_num_seqs // 2))))
    sizes = []
    m = low
    while m < max_num_batched_tokens:
        sizes.append(m)
        m *= 2
    sizes.append(max_num_batched_tokens)
    return sizes


_NAME = re.compile(r"^E=(\d+),N=(\d+),device_name=([^,]+?)(?:,dtype=([^,]+?))?(,block_shape=.*)?\.json$")


def parse_config_file_name(name: str) -> dict[str, Any] | None:
    """E, N, device, dtype (None for bf16) and block_shape flag of a vLLM config file name; None if not one."""
    match = _NAME.match(name)
    if not match:
        return None
    return {"E": int(match[1]), "N": int(match[2]), "device": match[3], "dtype": match[4],
            "block": match[5] is not None}


def rank_neighbour_files(names: list[str], shape: MoeShape, dtype: str | None, limit: int = 6) -> list[str]:
    """The shipped tables closest to our shape: H200 or H100, per-tensor (no block_shape), near E and N.

    Distance: |log2 E ratio| + |log2 N ratio| + 1 for another dtype + 0.5 for H100 instead of H200.
    """
    scored = []
    for name in names:
        info = parse_config_file_name(name)
        if info is None or info["block"] or not info["device"].startswith(NEIGHBOUR_DEVICES):
            continue
        if info["dtype"] not in (None, "fp8_w8a8"):
            continue
        score = (abs(math.log2(info["E"] / shape.experts)) + abs(math.log2(info["N"] / shape.intermediate))
                 + (0.0 if info["dtype"] == dtype else 1.0) + (0.0 if info["device"] == "NVIDIA_H200" else 0.5))
        scored.append((score, name))
    return [name for _, name in sorted(scored)[:limit]]


def read_table(path: Path) -> dict[int, Config]:
    """A vLLM config table as {batch size: config}, "triton_version" dropped."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    return {int(k): {key: int(v[key]) for key in KEYS if key in v} for k, v in raw.items() if k.isdigit()}


def nearest(table: dict[int, Config], m: int) -> Config:
    """The entry vLLM would use for M: the key nearest to M (the smaller one on a tie)."""
    return table[min(sorted(table), key=lambda k: abs(k - m))]


def as_key(cfg: Config) -> tuple[int, ...]:
    return tuple(int(cfg[k]) for k in KEYS)


def from_key(key: tuple[int, ...]) -> Config:
    return dict(zip(KEYS, key, strict=True))


def block_m_bounds(m: int, shape: MoeShape) -> tuple[int, int]:
    """BLOCK_SIZE_M worth trying for M tokens: around the mean rows per expert (M * topk / E).

    At most twice the rows an expert gets (rounded up to a power of two, at least 16); at least an eighth of
    them (at most 64), so large batches do not waste their weight reuse on thin tiles.
    """
    per_expert = m * shape.topk / shape.experts
    high = min(256, max(16, 2 ** math.ceil(math.log2(max(1.0, 2 * per_expert)))))
    low = max(16, min(64, 2 ** math.floor(math.log2(max(1.0, per_expert / 8)))))
    return low, high


def smem_bytes(cfg: Config, dtype: str | None) -> int:
    """Shared memory the kernel's software pipeline needs for its A and B tiles."""
    elem = 1 if dtype == "fp8_w8a8" else 2
    return cfg["num_stages"] * (cfg["BLOCK_SIZE_M"] + cfg["BLOCK_SIZE_N"]) * cfg["BLOCK_SIZE_K"] * elem


def plausible(cfg: Config, m: int, shape: MoeShape, dtype: str | None) -> bool:
    """Worth compiling for M: known parameter values, tiles that fit in shared memory, a fitting BLOCK_SIZE_M."""
    if any(cfg.get(k) not in RANGES[k] for k in KEYS):
        return False
    low, high = block_m_bounds(m, shape)
    return low <= cfg["BLOCK_SIZE_M"] <= high and smem_bytes(cfg, dtype) <= SMEM_BYTES


def neighbours(cfg: Config) -> list[Config]:
    """Configs one step away in one parameter, in NEIGHBOUR_ORDER (up before down)."""
    out = []
    for key in NEIGHBOUR_ORDER:
        values = RANGES[key]
        if cfg[key] not in values:
            continue
        i = values.index(cfg[key])
        for j in (i + 1, i - 1):
            if 0 <= j < len(values):
                out.append({**cfg, key: values[j]})
    return out


def seed_configs(m: int, tables: list[dict[int, Config]], extra: list[Config], shape: MoeShape,
                 dtype: str | None) -> list[Config]:
    """Starting points for M: ``extra`` first (the previous size's best), then each table's entry nearest M.

    Implausible ones are dropped, duplicates too; without any, the generic FALLBACK_SEEDS that fit.
    """
    seen: set[tuple[int, ...]] = set()
    seeds = []
    for cfg in [*extra, *(nearest(t, m) for t in tables if t)]:
        cfg = {k: int(cfg[k]) for k in KEYS}
        if as_key(cfg) not in seen and plausible(cfg, m, shape, dtype):
            seen.add(as_key(cfg))
            seeds.append(cfg)
    if not seeds:
        seeds = [c for c in map(from_key, FALLBACK_SEEDS) if plausible(c, m, shape, dtype)]
    return seeds


def next_candidate(results: dict[tuple[int, ...], float | None], seeds: list[Config], m: int, shape: MoeShape,
                   dtype: str | None, beam: int = 3) -> Config | None:
    """The next config to time for M, or None when the search around the best ``beam`` is exhausted.

    ``results`` maps every config tried for M to its time (None: it failed). Untried seeds come first;
    then the untried plausible neighbours of the fastest config so far, then of the second, ...
    """
    for cfg in seeds:
        if as_key(cfg) not in results:
            return cfg
    ranked = sorted((us, key) for key, us in results.items() if us is not None)
    for _, key in ranked[:beam]:
        for cfg in neighbours(from_key(key)):
            if as_key(cfg) not in results and plausible(cfg, m, shape, dtype):
                return cfg
    return None


def fill_table(tuned: dict[int, Config], defaults: dict[int, Config]) -> dict[int, Config]:
    """The file's table: vLLM's default config at every key, the tuned config where one was measured faster."""
    return {m: dict(tuned.get(m, defaults[m])) for m in sorted(set(defaults) | set(tuned))}


def config_json(table: dict[int, Config], triton_version: str) -> str:
    """vLLM's format: batch sizes as string keys in ascending order, then "triton_version"."""
    body: dict[str, Any] = {str(m): {k: int(table[m][k]) for k in KEYS} for m in sorted(table)}
    body["triton_version"] = triton_version
    return json.dumps(body, indent=4) + "\n"


def budget_share(deadline: float, now: float, sizes_left: int) -> float:
    """Seconds for the next batch size: what is left of the budget over the sizes left (>= 0)."""
    return max(0.0, (deadline - now) / max(1, sizes_left))


def markdown(meta: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """Default vs tuned per batch size, one table per dtype, for bench/RESULTS.md."""
    lines = [f"### MoE tuning ({meta.get('at', '')}): {meta.get('device', '?')}, vLLM {meta.get('vllm', '?')}, "
             f"triton {meta.get('triton', '?')}, E={meta['E']} N={meta['N']} hidden={meta['hidden']} "
             f"topk={meta['topk']}, budget {meta.get('budget_s', '?')} s", "",
             f"Command: `{meta.get('command', '')}`", ""]
    for dtype in dict.fromkeys(r["dtype"] for r in rows):
        lines += [f"{dtype} -> `{next(r['file'] for r in rows if r['dtype'] == dtype)}`", "",
                  "| M (tokens/step) | default us | tuned us | speed-up | configs timed | written | tuned config |",
                  "|---:|---:|---:|---:|---:|---|---|"]
        for r in (r for r in rows if r["dtype"] == dtype):
            best = r.get("best_config") or {}
            cfg = "/".join(str(best.get(k, "-")) for k in KEYS)
            tuned = f"{r['tuned_us']:.1f}" if r.get("tuned_us") else "-"
            speed = f"{r['speedup']:.3f}x" if r.get("speedup") else "-"
            default = f"{r['default_us']:.1f}" if r.get("default_us") else "-"
            lines.append(f"| {r['m']} | {default} | {tuned} | {speed} | {r.get('timed', 0)} | {r['written']} | {cfg} |")
        lines += ["", "Tuned config: " + "/".join(KEYS) + "; written: the config the file holds for that M "
                  "(tuned only where its re-timed median beat the default's).", ""]
    return "\n".join(lines)


def plan(shape: MoeShape, dtypes: list[str], sizes: list[int], tables: dict[str, list[str]],
         device_name: str) -> dict[str, Any]:
    """What a run would do (``--plan``): file names, batch sizes, the shipped tables it seeds from."""
    return {"shape": asdict(shape), "batch_sizes": sizes, "fill_batch_sizes": [m for m in FILL_BATCH_SIZES
                                                                                if m < min(sizes)],
            "files": {d: config_file_name(shape, DTYPES[d], device_name) for d in dtypes},
            "seed_tables": tables}


# ---------------------------------------------------------------- vLLM's configs folder (found, not imported)

def vllm_configs_folder() -> Path | None:
    """vLLM's shipped fused-MoE configs folder, located without importing vLLM."""
    spec = importlib.util.find_spec("vllm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model_executor/layers/fused_moe/configs"
    return folder if folder.is_dir() else None


def neighbour_tables(shape: MoeShape, dtype: str | None, folder: Path | None) -> tuple[list[str], list[dict]]:
    if folder is None:
        return [], []
    names = rank_neighbour_files(sorted(p.name for p in folder.glob("E=*.json")), shape, dtype)
    return names, [read_table(folder / n) for n in names]


# ---------------------------------------------------------------- GPU parts (torch and vLLM imported here)

class Bench:
    """Weights for one dtype, inputs per batch size, and the timing of one config (vLLM's measuring method)."""

    GATING_VARIANTS = 4

    def __init__(self, shape: MoeShape, dtype: str | None) -> None:
        import torch
        from vllm.model_executor.layers.fused_moe import FusedMoEQuantConfig

        self.torch, self.shape, self.dtype = torch, shape, dtype
        torch.manual_seed(0)
        dev = torch.device("cuda")
        e, n, k = shape.experts, shape.intermediate, shape.hidden
        # w1: gate and up projections stacked (E, 2N, K); w2: down projection (E, K, N)
        w1 = torch.randn(e, 2 * n, k, device=dev, dtype=torch.bfloat16) / math.sqrt(k)
        w2 = torch.randn(e, k, n, device=dev, dtype=torch.bfloat16) / math.sqrt(n)
        if dtype == "fp8_w8a8":
            fp8 = torch.float8_e4m3fn
            self.w1, self.w2 = (w1 * 64).to(fp8), (w2 * 64).to(fp8)
            self.quant = FusedMoEQuantConfig.make(
                quant_dtype=fp8,
                w1_scale=torch.full((e,), 1 / 64, device=dev, dtype=torch.float32),
                w2_scale=torch.full((e,), 1 / 64, device=dev, dtype=torch.float32),
                a1_scale=None, a2_scale=None)  # dynamic per-tensor activation scales
        else:
            self.w1, self.w2, self.quant = w1, w2, None
        self.m = 0

    def use_batch(self, m: int) -> None:
        torch = self.torch
        self.m = m
        self.x = torch.randn(m, self.shape.hidden, device="cuda", dtype=torch.bfloat16)
        self.gatings = torch.randn(self.GATING_VARIANTS, m, self.shape.experts, device="cuda", dtype=torch.float32)
        self.gating = self.gatings[0].clone()

    def _run(self, config: Config) -> Any:
        from vllm.model_executor.layers.fused_moe import fused_experts, fused_topk, override_config

        with override_config(config):
            weights, ids, _ = fused_topk(self.x, self.gating, self.shape.topk, renormalize=True)
            return fused_experts(self.x, self.w1, self.w2, weights, ids, quant_config=self.quant)

    def time_config(self, config: Config, target_s: float) -> float:
        """Microseconds per invocation: a CUDA graph of 10 invocations, replays timed with CUDA events."""
        torch = self.torch
        self._run(config)  # compiles the Triton kernels for this config (OutOfResources is raised here)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(10):
                self._run(config)
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        try:
            for _ in range(2):
                graph.replay()
            torch.cuda.synchronize()
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            iters = int(min(100, max(3, target_s * 1000 / max(start.elapsed_time(end), 1e-3))))
            total_ms = 0.0
            for i in range(iters):
                self.gating.copy_(self.gatings[i % self.GATING_VARIANTS])
                torch.cuda.synchronize()
                start.record()
                graph.replay()
                end.record()
                end.synchronize()
                total_ms += start.elapsed_time(end)
        finally:
            graph.reset()
        return total_ms / (iters * 10) * 1000


def is_out_of_resources(exc: BaseException) -> bool:
    return type(exc).__name__ == "OutOfResources" or "OutOfResources" in repr(exc)


class Tuner:
    """The search for one dtype across the batch sizes, with the jsonl trail and the file rewritten as it goes."""

    def __init__(self, a: argparse.Namespace, shape: MoeShape, dtype_arg: str, sink: Any, meta: dict,
                 rows: list[dict], *, api: tuple[Any, Any] | None = None, bench: Any = None,
                 folder: Path | None = None) -> None:
        """``api`` (vLLM's get_config_file_name, get_default_config), ``bench`` and ``folder`` (the shipped
        tables) default to vLLM's own; the tests hand in stand-ins."""
        self.a, self.shape, self.dtype_arg, self.sink, self.meta, self.rows = a, shape, dtype_arg, sink, meta, rows
        self.dtype = DTYPES[dtype_arg]
        if api is None:
            from vllm.model_executor.layers.fused_moe.fused_moe import get_config_file_name, get_default_config

            api = (get_config_file_name, get_default_config)
        get_config_file_name, self.get_default_config = api
        self.file = get_config_file_name(shape.experts, shape.intermediate, self.dtype)
        ours = config_file_name(shape, self.dtype, meta["device"])
        if ours != self.file:
            print(f"moe_tune: warning: vLLM names the file {self.file}, this script {ours}; using vLLM's",
                  file=sys.stderr)
        self.seed_names, self.tables = neighbour_tables(shape, self.dtype, folder or vllm_configs_folder())
        self.bench = bench or Bench(shape, self.dtype)
        self.tuned: dict[int, Config] = {}  # the batch sizes whose best beat vLLM's default
        self.last_best: Config | None = None  # the previous batch size's best: a seed for the next

    def default(self, m: int) -> Config:
        s = self.shape
        cfg = self.get_default_config(m, s.experts, s.intermediate, s.hidden, s.topk, self.dtype, None)
        return {k: int(cfg[k]) for k in KEYS}

    def log(self, **rec: Any) -> None:
        self.sink.write(json.dumps({"dtype": self.dtype_arg, **rec}) + "\n")
        self.sink.flush()

    def measure(self, m: int, cfg: Config, target_s: float, phase: str) -> float | None:
        t0 = time.monotonic()
        try:
            us: float | None = self.bench.time_config(cfg, target_s)
            error = None
        except Exception as exc:  # OutOfResources: skipped, as vLLM's tuner does; others recorded and skipped
            if "CUDA error" in str(exc) or "illegal memory" in str(exc):
                raise  # the context is gone: nothing after this would be measured right
            us, error = None, ("OutOfResources" if is_out_of_resources(exc) else f"{type(exc).__name__}: {exc}"[:300])
        self.log(kind="trial", phase=phase, m=m, config=cfg, us=round(us, 3) if us else None, error=error,
                 seconds=round(time.monotonic() - t0, 2))
        return us

    def tune_size(self, m: int, deadline: float) -> dict:
        a = self.a
        self.bench.use_batch(m)
        default = self.default(m)
        results: dict[tuple[int, ...], float | None] = {as_key(default): self.measure(m, default, 0.05, "default")}
        previous = [self.last_best] if self.last_best else []
        seeds = seed_configs(m, self.tables, previous, self.shape, self.dtype)
        reserve = min(6.0, 0.15 * max(0.0, deadline - time.monotonic()))
        while len(results) < a.max_configs + 1 and time.monotonic() < deadline - reserve:
            cfg = next_candidate(results, seeds, m, self.shape, self.dtype)
            if cfg is None:
                break
            results[as_key(cfg)] = self.measure(m, cfg, 0.05, "search")
        timed = [(us, key) for key, us in results.items() if us is not None]
        row: dict[str, Any] = {"kind": "size", "m": m, "file": self.file, "timed": len(results),
                               "default_config": default, "best_config": None, "written": "default"}
        if not timed:
            return {**row, "error": "no config ran"}
        best = from_key(min(timed)[1])
        row["best_config"] = self.last_best = best
        if as_key(best) == as_key(default):
            row.update(default_us=results[as_key(default)], tuned_us=results[as_key(default)], speedup=1.0)
            return row
        # re-time the two against each other: alternating, median of three each
        d_runs, b_runs = [], []
        for _ in range(3):
            d_runs.append(self.measure(m, default, 0.1, "final_default"))
            b_runs.append(self.measure(m, best, 0.1, "final_best"))
        d_us = statistics.median([u for u in d_runs if u] or [math.inf])
        b_us = statistics.median([u for u in b_runs if u] or [math.inf])
        row.update(default_us=d_us if d_us < math.inf else None, tuned_us=b_us if b_us < math.inf else None,
                   speedup=round(d_us / b_us, 4) if b_us < math.inf and d_us < math.inf else None)
        if b_us < d_us:
            self.tuned[m] = best
            row["written"] = "tuned"
        return row

    def write(self, out: Path, triton_version: str) -> Path:
        sizes = [m for m in FILL_BATCH_SIZES if m < min(self.a.batch_sizes)] + list(self.a.batch_sizes)
        table = fill_table(self.tuned, {m: self.default(m) for m in sizes})
        path = out / self.file
        path.write_text(config_json(table, triton_version), encoding="utf-8")
        # the same table under a plain name: the device tool does not bring back names with '=' or ','
        (out / f"table-{self.dtype_arg}.json").write_text(config_json(table, triton_version), encoding="utf-8")
        return path

    def run(self, deadline: float, out: Path, triton_version: str) -> None:
        sizes = list(self.a.batch_sizes)
        for i, m in enumerate(sizes):
            now = time.monotonic()
            row = self.tune_size(m, now + budget_share(deadline, now, len(sizes) - i))
            row["seconds"] = round(time.monotonic() - now, 1)
            self.rows.append({**row, "dtype": self.dtype_arg})
            self.log(**row)
            self.write(out, triton_version)
            print(f"[moe_tune] {self.dtype_arg} M={m}: default {row.get('default_us')} us, tuned {row.get('tuned_us')}"
                  f" us ({row.get('speedup')}x, {row['timed']} configs, {row['seconds']} s) -> {row['written']}",
                  flush=True)


def gpu_ready() -> str | None:
    """None when torch sees a CUDA device and vLLM's fused MoE imports; else the reason, in one line."""
    try:
        import torch
    except ImportError as exc:
        return f"torch is not importable ({exc})"
    if not torch.cuda.is_available():
        return "no CUDA device (torch.cuda.is_available() is False): run it on the GPU machine"
    try:
        import vllm.model_executor.layers.fused_moe  # noqa: F401
    except Exception as exc:
        return f"vLLM's fused MoE is not importable ({type(exc).__name__}: {exc})"
    return None


def tune(a: argparse.Namespace, shape: MoeShape) -> int:
    import torch
    import triton
    import vllm

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"kind": "header", "at": time.strftime("%Y-%m-%d %H:%M:%S"), "device": torch.cuda.get_device_name(0),
            "vllm": vllm.__version__, "torch": torch.__version__, "triton": triton.__version__,
            "E": shape.experts, "N": shape.intermediate, "hidden": shape.hidden, "topk": shape.topk,
            "dtypes": a.dtype, "batch_sizes": a.batch_sizes, "budget_s": a.budget_s, "max_configs": a.max_configs,
            "command": " ".join(["python", "bench/moe_tune.py", *sys.argv[1:]])}
    rows: list[dict] = []  # one per batch size done, kept when a later one fails
    start = time.monotonic()
    try:
        with (out / "moe_tune.jsonl").open("a", encoding="utf-8") as sink:
            sink.write(json.dumps(meta) + "\n")
            for i, dtype_arg in enumerate(a.dtype):
                tuner = Tuner(a, shape, dtype_arg, sink, meta, rows)
                tuner.log(kind="seeds", tables=tuner.seed_names)
                tuner.run(start + a.budget_s * (i + 1) / len(a.dtype), out, triton.__version__)
                print(f"[moe_tune] wrote {out / tuner.file}", flush=True)
                del tuner
                torch.cuda.empty_cache()
    finally:
        if rows:
            (out / "moe_tune.md").write_text(markdown(meta, rows), encoding="utf-8")
            print(markdown(meta, rows), flush=True)
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--model", default=str(DEFAULT_MODEL), help="model config JSON with the MoE shape")
    p.add_argument("--dtype", nargs="+", choices=sorted(DTYPES), default=["fp8_w8a8"],
                   help="fp8_w8a8 (engine.quantization = fp8) and/or bf16; the budget is split between them")
    p.add_argument("--batch-sizes", nargs="+", type=int, default=None,
                   help="tokens per engine step to tune (default: from --engine-config, see the docstring)")
    p.add_argument("--engine-config", default=str(ENGINE_CONFIG),
                   help="screener config whose [engine] max_num_seqs / max_num_batched_tokens set the batch sizes")
    p.add_argument("--budget-s", type=float, default=240.0, help="wall clock for the search (default 240)")
    p.add_argument("--max-configs", type=int, default=40, help="configs timed per batch size at most (default 40)")
    p.add_argument("--out", default="moe_tune_out", help="folder for the JSON table, moe_tune.jsonl and moe_tune.md")
    p.add_argument("--plan", action="store_true", help="print what would run (file names, sizes, seed tables); no GPU")
    p.add_argument("--device-name", default="NVIDIA H200", help="the device --plan names the file for")
    a = p.parse_args(argv)
    if a.batch_sizes is None:
        a.batch_sizes = workload_batch_sizes(*engine_limits(Path(a.engine_config)))
    a.batch_sizes = sorted(set(a.batch_sizes))
    a.dtype = list(dict.fromkeys(a.dtype))
    return a


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    shape = load_shape(Path(a.model))
    if a.plan:
        folder = vllm_configs_folder()
        tables = {d: neighbour_tables(shape, DTYPES[d], folder)[0] for d in a.dtype}
        print(json.dumps(plan(shape, a.dtype, a.batch_sizes, tables, a.device_name), indent=1))
        return 0
    reason = gpu_ready()
    if reason:
        print(f"moe_tune: {reason}", file=sys.stderr)
        return 2
    return tune(a, shape)


if __name__ == "__main__":
    sys.exit(main())
