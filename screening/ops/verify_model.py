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
3. Parity. For three sample stocks the prompt comes from ``screening.prompt.build_messages``.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from screening.engines.embedded_model import MARKER, sha256
from screening.models import StockInput

MANIFEST = "screener-manifest.json"
INDEX = "model.safetensors.index.json"
Level = Literal["ok", "info", "warn", "fail"]

SAMPLE_STOCKS = (
    StockInput(code="600519.SH", name="贵州茅台", industry="白酒", pe_ttm=28.5, roe=31.2, eps=59.5,
               report_text="2024年营业收入1741亿元,同比增长15.7%;归母净利润862亿元,毛利率91.9%。"),
    StockInput(code="000004.SZ", name="*ST国华", industry="软件开发", pe_ttm=-35.0, roe=-12.4, eps=-0.4,
               report_text="公司连续两年亏损,审计机构出具保留意见,存在退市风险。"),
    StockInput(code="300750.SZ", name="宁德时代", industry="电池", pe_ttm=22.1, roe=22.7, eps=11.6,
               report_text="动力电池装机量全球第一,储能业务高增长,海外工厂投产。"),
)


@dataclass
class Finding:
    level: Level
    check: str
    message: str


@dataclass
class StepDiff:
    step: int
    vllm_token: str
    hf_token: str
    gap: float  # transformers' best logit minus its logit for vLLM's token
    tolerated: bool


@dataclass
class PromptParity:
    code: str
    prompt_tokens: int
    template_match: bool
    steps: int
    matched: int
    diffs: list[StepDiff] = field(default_factory=list)
    max_logprob_diff: float = 0.0
    vllm_text: str = ""
    guided: str = ""


@dataclass
class Report:
    model: str
    findings: list[Finding] = field(default_factory=list)
    parity: list[PromptParity] = field(default_factory=list)

    def add(self, level: Level, check: str, message: str) -> None:
        self.findings.append(Finding(level, check, message))

    @property
    def ok(self) -> bool:
        return not any(f.level == "fail" for f in self.findings)

    def failed(self, check: str) -> bool:
        return any(f.level == "fail" and f.check == check for f in self.findings)

    def render(self) -> str:
        mark = {"ok": "ok  ", "info": "info", "warn": "WARN", "fail": "FAIL"}
        lines = [f"verify-model {self.model}"]
        lines += [f"{mark[f.level]}  {f.check:<9} {f.message}" for f in self.findings]
        lines.append("\nverify-model: " + ("PASS" if self.ok else "FAIL"))
        return "\n".join(lines)


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


# ---------------------------------------------------------------------------------- parity
def sample_messages(encode: Callable[[str], list[int]], decode: Callable[[list[int]], str],
                    max_report_tokens: int = 600) -> list[tuple[str, list[dict]]]:
    from screening.screen.prompt import build_messages
    from screening.screen.rules import assess

    out = []
    for stock in SAMPLE_STOCKS:
        v = assess(stock)
        messages, _ = build_messages(stock, max_report_tokens, (v.risk, v.score, v.reason), encode, decode)
        out.append((stock.code, messages))
    return out


def check_parity(folder: Path, engine: Any, report: Report, steps: int = 8, tolerance: float = 0.5,
                 max_logprob_diff: float = 1.0) -> None:
    """transformers (reference, float32) vs the vLLM engine, teacher-forced on vLLM's greedy tokens."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from vllm import SamplingParams

    from screening.engines.base import EngineRequest
    from screening.screen.prompt import parse_answer

    if str(Path(engine.model_id).resolve()) != str(folder.resolve()):
        report.add("warn", "parity", f"the engine runs {engine.model_id}, not {folder}")
    tok = AutoTokenizer.from_pretrained(folder)
    prompts = sample_messages(lambda t: tok.encode(t, add_special_tokens=False), tok.decode)
    params = SamplingParams(temperature=0.0, max_tokens=steps, logprobs=5, ignore_eos=True, seed=0)
    results = engine.llm.chat([m for _, m in prompts], params, use_tqdm=False)
    guided = engine.generate([EngineRequest(code, m, 0, s) for (code, m), s in zip(prompts, SAMPLE_STOCKS,
                                                                                   strict=True)])
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)
    model.eval()
    for (code, messages), res, g in zip(prompts, results, guided, strict=True):
        prompt_ids = list(res.prompt_token_ids or [])
        out_ids = list(res.outputs[0].token_ids)
        hf_prompt = tok.apply_chat_template(messages, tokenize=True, add_generation_prompt=True)
        if isinstance(hf_prompt, dict) or hasattr(hf_prompt, "keys"):
            hf_prompt = hf_prompt["input_ids"]
        pp = PromptParity(code, len(prompt_ids), list(hf_prompt) == prompt_ids, len(out_ids), 0,
                          vllm_text=tok.decode(out_ids), guided=g.text)
        with torch.no_grad():
            logits = model(torch.tensor([prompt_ids + out_ids])).logits[0].float()
        logprobs = torch.log_softmax(logits, dim=-1)
        for k, v_tok in enumerate(out_ids):
            row = logits[len(prompt_ids) - 1 + k]
            hf_tok = int(row.argmax())
            v_lp = (res.outputs[0].logprobs or [{}] * len(out_ids))[k].get(v_tok)
            if v_lp is not None:
                diff = abs(float(logprobs[len(prompt_ids) - 1 + k, v_tok]) - float(v_lp.logprob))
                pp.max_logprob_diff = max(pp.max_logprob_diff, diff)
            if hf_tok == v_tok:
                pp.matched += 1
                continue
            gap = float(row[hf_tok] - row[v_tok])
            pp.diffs.append(StepDiff(k, tok.decode([v_tok]), tok.decode([hf_tok]), round(gap, 3), gap <= tolerance))
            if gap <= tolerance:
                pp.matched += 1
        report.parity.append(pp)
        hard = [d for d in pp.diffs if not d.tolerated]
        try:
            parse_answer(g.text)
            parsed = "guided answer parses"
        except ValueError:
            parsed = "guided answer does NOT parse"
        line = (f"{code}: {pp.matched}/{pp.steps} greedy steps agree, max |Δlogprob| {pp.max_logprob_diff:.3f}; "
                f"vLLM {pp.vllm_text!r}; {parsed}")
        if hard:
            where = "; ".join(f"step {d.step}: vLLM {d.vllm_token!r} vs transformers {d.hf_token!r} (gap {d.gap})"
                              for d in hard)
            report.add("fail", "parity", f"{line}; differs at {where}")
        elif pp.max_logprob_diff > max_logprob_diff:
            report.add("fail", "parity", f"{line}; log-probabilities differ by more than {max_logprob_diff}")
        else:
            near = f" ({len(pp.diffs)} near-tie(s) within {tolerance})" if pp.diffs else ""
            report.add("ok", "parity", line + near)
        if not pp.template_match:
            report.add("fail", "parity", f"{code}: vLLM's prompt tokens differ from transformers' chat template "
                       f"({len(prompt_ids)} vs {len(hf_prompt)} tokens)")
        if parsed != "guided answer parses":
            report.add("fail", "parity", f"{code}: guided decoding returned unparsable JSON: {g.text[:120]!r}")


# ---------------------------------------------------------------------------------- running
def verify(folder: Path, *, engine: Any = None, engine_factory: Callable[[], Any] | None = None,
           parity: bool = True, max_model_len: int | None = None, steps: int = 8,
           tolerance: float = 0.5) -> Report:
    """All three checks; the engine is built (through ``engine_factory``) only when the files are sound."""
    report = Report(str(folder))
    if not folder.is_dir():
        report.add("fail", "model", f"{folder}: no such model folder")
        return report
    check_files(folder, report)
    check_config(folder, report, max_model_len)
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
                check_parity(folder, engine, report, steps=steps, tolerance=tolerance)
            finally:
                if built is not None:
                    built.close()
    return report


def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="model folder (default: engine.model, or the bundled SmolLM2-135M)")
    p.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")
    p.add_argument("--record", action="store_true", help=f"write {MANIFEST} (sha256 of every file) and exit")
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

    def factory() -> Any:
        from screening.engines.vllm_engine import VllmEngine

        return VllmEngine(settings.engine, str(folder))

    report = verify(folder, engine_factory=factory, parity=not args.no_parity,
                    max_model_len=settings.engine.max_model_len, steps=args.steps, tolerance=args.tolerance)
    print(report.render())
    return 0 if report.ok else 1
