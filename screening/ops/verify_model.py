"""``python -m screening verify-model [--model PATH]``: is the model on disk the model we installed,
is it configured as we think, and does vLLM compute what the reference implementation computes?

1. Checksums. The sha256 of every file in the manifest recorded at install time:
   ``screener-manifest.json`` (written by ``--record``; it wins when present), else the
   ``"sha256"`` map of ``screener-build.json`` (written when the bundled model is built).
   Without either, the checkpoint's own ``model.safetensors.index.json`` only proves that the
   shards it names exist (an index carries no checksums: run ``--record`` once after install).
   Every ``*.safetensors`` header is also parsed and its tensor offsets checked against the
   file size. A checksum failure stops here: a corrupt model is never loaded.
2. Config read-back: architecture, context length (``max_position_embeddings``) and RoPE
   (``rope_theta`` / ``rope_scaling``, or transformers 5's ``rope_parameters``), shown as read,
   and checked against ``engine.max_model_len``.
3. Parity. For three sample stocks the prompt comes from ``screening.screen.prompt.build_messages``
   (screening/ops/verify_parity.py).
   vLLM generates greedily, unguided, ``--steps`` tokens with top-5 logprobs; transformers
   runs one forward pass over the same prompt plus vLLM's tokens (teacher forcing) and its
   top-1 is compared with vLLM's token at every step. A different token is tolerated only as
   a near-tie: when transformers' logit for vLLM's token is within ``--tolerance`` of its own
   best (bf16 rounding makes such ties flip). Why not compare JSON fields: transformers has
   no grammar, and a 135M model rarely writes valid JSON unguided, so "both parse" would be
   an empty comparison; the top-1 path is the same computation and compares every step.
   The guided answer of each prompt is shown as a sanity check of structured output.

Exit code 0 when everything matches, 1 when anything differs or is missing.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from screening.engines.embedded_model import MARKER, sha256
from screening.ops.verify_parity import check_parity
from screening.ops.verify_report import Report

MANIFEST = "screener-manifest.json"
INDEX = "model.safetensors.index.json"



# ---------------------------------------------------------------------------------- checksums
def _manifest_files(folder: Path) -> list[Path]:
    skip = {MANIFEST, MARKER}
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name not in skip and ".cache" not in p.parts)


def record_manifest(folder: Path) -> Path:
    """Write screener-manifest.json: the sha256 of every file of the model folder."""
    sums = {str(p.relative_to(folder)): sha256(p) for p in _manifest_files(folder)}
    target = folder / MANIFEST
    target.write_text(json.dumps({"recorded_at": time.strftime("%Y-%m-%d %H:%M:%S"), "sha256": sums}, indent=1))
    return target


def load_manifest(folder: Path) -> tuple[str, dict[str, str]] | None:
    """(source file, name -> sha256) from the recorded manifest or the bundled model's build marker."""
    for name in (MANIFEST, MARKER):
        path = folder / name
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            sums = data.get("sha256")
            if isinstance(sums, dict) and sums:
                return name, {str(k): str(v) for k, v in sums.items()}
    return None


def safetensors_problem(path: Path) -> str | None:
    """None when the header parses and every tensor's byte range lies inside the file."""
    size = path.stat().st_size
    with path.open("rb") as fh:
        raw = fh.read(8)
        if len(raw) < 8:
            return "shorter than a safetensors header"
        n = struct.unpack("<Q", raw)[0]
        if n <= 0 or 8 + n > size:
            return f"header length {n} does not fit the file ({size} bytes)"
        try:
            header = json.loads(fh.read(n))
        except ValueError as exc:
            return f"header is not JSON ({exc})"
    data_len = size - 8 - n
    end = 0
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, stop = info.get("data_offsets", (0, -1))
        if not 0 <= start <= stop <= data_len:
            return f"tensor {name} points outside the data ({start}..{stop} of {data_len}): truncated or corrupt"
        end = max(end, stop)
    if end != data_len:
        return f"data is {data_len} bytes but the tensors cover {end} (truncated or padded)"
    return None


def check_files(folder: Path, report: Report) -> None:
    manifest = load_manifest(folder)
    if manifest is not None:
        source, sums = manifest
        bad = 0
        for name, expected in sorted(sums.items()):
            path = folder / name
            if not path.exists():
                report.add("fail", "checksum", f"{name}: missing (recorded in {source})")
                bad += 1
                continue
            actual = sha256(path)
            if actual != expected:
                report.add("fail", "checksum", f"{name}: sha256 {actual[:16]}… differs from {expected[:16]}… "
                           f"recorded in {source}: the file changed since install (corrupt download or disk, or "
                           "edited); reinstall the model (the bundled one: delete the folder, it is rebuilt)")
                bad += 1
        unlisted = [p.name for p in folder.iterdir() if p.suffix == ".safetensors" and p.name not in sums]
        if unlisted:
            report.add("warn", "checksum", f"weight files not in {source}: {', '.join(unlisted)}")
        if not bad:
            report.add("ok", "checksum", f"{len(sums)} files match {source}")
    elif (folder / INDEX).exists():
        weight_map = json.loads((folder / INDEX).read_text(encoding="utf-8")).get("weight_map", {})
        shards = sorted(set(weight_map.values()))
        missing = [s for s in shards if not (folder / s).exists()]
        if missing:
            report.add("fail", "checksum", f"{INDEX} names shards that are missing: {', '.join(missing)}")
        else:
            report.add("warn", "checksum", f"no recorded checksums: {INDEX} only proves its {len(shards)} shards "
                       "exist; run `python -m screening verify-model --model PATH --record` once after install")
    else:
        report.add("warn", "checksum", "no recorded checksums and no index: run `python -m screening verify-model "
                   "--model PATH --record` once after install")
    weights = sorted(folder.glob("*.safetensors"))
    if not weights:
        report.add("fail", "weights", f"no *.safetensors in {folder}")
    for path in weights:
        problem = safetensors_problem(path)
        if problem:
            report.add("fail", "weights", f"{path.name}: {problem}")
    if weights and not report.failed("weights"):
        report.add("ok", "weights", f"{len(weights)} safetensors file(s), headers and offsets consistent")


# ---------------------------------------------------------------------------------- config
def check_config(folder: Path, report: Report, max_model_len: int | None) -> dict[str, Any]:
    path = folder / "config.json"
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        report.add("fail", "config", f"{path}: {type(exc).__name__}: {exc}")
        return {}
    text_cfg = cfg.get("text_config") or cfg
    arch = ", ".join(cfg.get("architectures") or []) or "(none)"
    ctx = text_cfg.get("max_position_embeddings")
    rope = text_cfg.get("rope_parameters") or {}
    theta = text_cfg.get("rope_theta", rope.get("rope_theta"))
    scaling = text_cfg.get("rope_scaling")
    if scaling is None and rope and rope.get("rope_type", "default") != "default":
        scaling = rope
    report.add("info", "config", f"architecture {arch} (model_type {cfg.get('model_type')}), "
               f"{text_cfg.get('num_hidden_layers')} layers, hidden {text_cfg.get('hidden_size')}, "
               f"vocab {text_cfg.get('vocab_size')}, dtype {cfg.get('dtype') or cfg.get('torch_dtype')}")
    report.add("info", "config", f"context length (max_position_embeddings) {ctx}; RoPE theta {theta}, "
               f"scaling {json.dumps(scaling) if scaling else 'none'}")
    if not cfg.get("architectures"):
        report.add("fail", "config", "config.json names no architectures: vLLM cannot pick a model class")
    if ctx is None:
        report.add("fail", "config", "config.json has no max_position_embeddings")
    elif max_model_len and max_model_len > int(ctx) and not scaling:
        report.add("fail", "config", f"engine.max_model_len {max_model_len} > the model's context {ctx} without "
                   "RoPE scaling: lower engine.max_model_len")
    else:
        report.add("ok", "config", f"engine.max_model_len {max_model_len} fits the context {ctx}")
    if theta is None:
        report.add("warn", "config", "no rope_theta in config.json: the implementation default applies")
    return cfg


# ---------------------------------------------------------------------------------- adapter
def check_adapter(folder: Path, adapter: Path, report: Report) -> None:
    """The adapter's files are sound, and its model card names these base weights."""
    config = adapter / "adapter_config.json"
    weights = adapter / "adapter_model.safetensors"
    for path in (config, weights):
        if not path.is_file():
            report.add("fail", "adapter", f"{path}: missing (not a peft LoRA adapter folder)")
            return
    problem = safetensors_problem(weights)
    if problem:
        report.add("fail", "adapter", f"{weights.name}: {problem}")
        return
    cfg = json.loads(config.read_text(encoding="utf-8"))
    report.add("info", "adapter", f"{adapter}: LoRA rank {cfg.get('r')}, alpha {cfg.get('lora_alpha')}, on "
               f"{', '.join(sorted(cfg.get('target_modules') or []))}")
    try:
        from screening.finetune.card import read_card

        card = read_card(adapter)
    except FileNotFoundError as exc:
        report.add("warn", "adapter", str(exc))
        return
    manifest = load_manifest(folder)
    base = (manifest[1] if manifest else {}).get("model.safetensors")
    want = card.get("base_weights_sha256")
    if want and base and want != base:
        report.add("fail", "adapter", f"the adapter was trained on base weights {want[:16]}…, but {folder} has "
                   f"{base[:16]}…: it would run on a model it was not trained for")
    elif want and base:
        report.add("ok", "adapter", "trained on these base weights (sha256 of model.safetensors matches its card)")
    else:
        report.add("warn", "adapter", "the card or the model has no recorded weights checksum: base not confirmed")


# ---------------------------------------------------------------------------------- running
def verify(folder: Path, *, engine: Any = None, engine_factory: Callable[[], Any] | None = None,
           parity: bool = True, max_model_len: int | None = None, steps: int = 8,
           tolerance: float = 0.5, adapter: Path | None = None) -> Report:
    """All three checks; the engine is built (through ``engine_factory``) only when the files are sound."""
    report = Report(str(folder))
    if not folder.is_dir():
        report.add("fail", "model", f"{folder}: no such model folder")
        return report
    check_files(folder, report)
    check_config(folder, report, max_model_len)
    if adapter is not None:
        check_adapter(folder, adapter, report)
    if not parity:
        report.add("info", "parity", "skipped (--no-parity)")
    elif not report.ok:
        report.add("info", "parity", "not run: the files or the config failed; a corrupt model is never loaded")
    else:
        built = None
        if engine is None and engine_factory is not None:
            engine = built = engine_factory()
        if engine is None:
            report.add("warn", "parity", "no vLLM engine available: parity not checked")
        else:
            try:
                check_parity(folder, engine, report, steps=steps, tolerance=tolerance, adapter=adapter)
            finally:
                if built is not None:
                    built.close()
    return report


def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="model folder (default: engine.model, or the bundled SmolLM2-135M)")
    p.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")
    p.add_argument("--record", action="store_true", help=f"write {MANIFEST} (sha256 of every file) and exit")
    p.add_argument("--adapter", help="LoRA adapter folder, or 'bundled' (default: engine.lora_adapter)")
    p.add_argument("--no-parity", action="store_true", help="skip transformers vs vLLM (no engine is loaded)")
    p.add_argument("--steps", type=int, default=8, help="greedy steps compared per prompt (default 8)")
    p.add_argument("--tolerance", type=float, default=0.5,
                   help="logit gap under which a different top-1 token counts as a near-tie (default 0.5)")


def main(args: argparse.Namespace) -> int:
    import logging

    from screening.config import load_settings

    settings = load_settings(args.config)
    if args.model:
        folder = Path(args.model).expanduser()
    elif settings.engine.model:
        folder = Path(settings.engine.model).expanduser()
    else:
        from screening.engines.embedded_model import ensure_embedded_model

        folder = ensure_embedded_model()
    if args.record:
        if not folder.is_dir():
            print(f"error: {folder}: no such model folder", file=sys.stderr)
            return 1
        print(f"recorded {record_manifest(folder)}")
        return 0
    logging.getLogger("vllm").setLevel(logging.WARNING)
    from screening.engines.vllm_engine import adapter_path

    engine_settings = settings.engine
    if getattr(args, "adapter", None):
        engine_settings = engine_settings.model_copy(update={"lora_adapter": args.adapter})
    adapter = adapter_path(engine_settings)

    def factory() -> Any:
        from screening.engines.vllm_engine import VllmEngine

        return VllmEngine(engine_settings, str(folder))

    report = verify(folder, engine_factory=factory, parity=not args.no_parity,
                    max_model_len=settings.engine.max_model_len, steps=args.steps, tolerance=args.tolerance,
                    adapter=adapter)
    print(report.render())
    return 0 if report.ok else 1
