"""The guided-decoding mask of one decode step, measured on the CPU: xgrammar against llguidance.

Why: on the H200 (bench/RESULTS.md, run 24) guided JSON ran at 0.570x unguided on the same prompts with the
same output length (72.50 vs 127.26 stocks/s), so the structured-output step, not the GPU's kernels, bounds
throughput. vLLM fills every guided sequence's token mask on the CPU before each step (in vLLM 0.26-0.32:
``StructuredOutputManager.grammar_bitmask``, up to 8 threads once more than 128 sequences are guided), and
the mask spans the whole vocabulary: Qwen3.5's 248,320 entries, 7,760 int32 words a sequence. This measures
that fill, per sequence and per step, for the product's answer schema (screening/engines/answer.py) with
Qwen3.5's real tokenizer, under each backend vLLM offers, exactly as vLLM's backends call them
(``compile_json_schema`` with ``any_whitespace=False`` and compact separators; llguidance's
``grammar_from_json_schema`` with ``whitespace_flexible`` off).

``--n`` sequences (512, the GPU runs' max_num_seqs) decode together in lockstep, one token a step, and each
step's masks are filled the way vLLM fills them: above 128 guided sequences in tasks of 16 on a pool of
``--threads`` (8, vLLM's ``min(cpu_count // 2, 8)``), else one by one; the step's fill wall time is what
the engine waits for. Each sequence takes a random allowed token, which is what the dummy-weight engine
does (noise logits under the mask), until EOS or ``--max-tokens``. "ideal" is the mean fill x 512 / 8.

    python bench/grammar_cost.py [--n 512] [--threads 8] [--backends xgrammar,guidance] [--reason-unbounded]

The tokenizer comes from ``bench/qwen_tokenizer.py build qwen3.5`` (its cache folder). Prints a markdown
section to stdout; RESULTS.md keeps it with the machine it ran on. What it found on the H200 host (run 25,
xgrammar 0.2.9): 0.33 s of fill per 512-answer decode, ~10% of run 24's gap, and llguidance 3.7x slower; so
the rest of guided decoding's cost is elsewhere in vLLM's guided step. The xgrammar version matters (0.2.8
is ~23x slower on the length-limited reason): run it where the engine runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

VOCAB = 248_320  # Qwen3.5-35B-A3B's vocab_size (bench/gpu_models/qwen3.5-35b-a3b.json): the mask's width
VLLM_FILL_THREADS = 8  # vLLM's ThreadPoolExecutor for masks: min(cpu_count // 2, 8)
BATCH = 512  # max_num_seqs of the GPU runs
PARALLEL_ABOVE, PARALLEL_BATCH = 128, 16  # vLLM fills on its pool only above 128 guided sequences, 16 a task


@dataclass
class Sequence:
    """One guided answer being decoded: its matcher's calls on its own row of the batch's mask, and what it cost."""

    fill: Callable[[], None]
    accept: Callable[[int], bool]
    done: Callable[[], bool]
    row: int
    fills_ns: list[int] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    forced: int = 0  # steps whose mask allowed one token only: a whole engine step for a token the grammar knew
    ended: bool = False


def tokenizer_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    sys.path.insert(0, str(HERE))
    from qwen_tokenizer import build  # type: ignore[import-not-found]

    return Path(build("qwen3.5"))


def xgrammar_factory(tok, schema: str, eos: int, rows: int):
    """As vLLM's xgrammar backend compiles and fills (backend_xgrammar.py)."""
    import xgrammar as xgr

    info = xgr.TokenizerInfo.from_huggingface(tok, vocab_size=VOCAB)
    compiled = xgr.GrammarCompiler(info, max_threads=8).compile_json_schema(
        schema, any_whitespace=False, separators=(",", ":"))
    mask = xgr.allocate_token_bitmask(rows, VOCAB)

    def make(row: int) -> Sequence:
        m = xgr.GrammarMatcher(compiled)
        return Sequence(fill=lambda: m.fill_next_token_bitmask(mask, row), accept=m.accept_token,
                        done=m.is_terminated, row=row)

    return make, mask


def guidance_factory(tok, schema: str, eos: int, rows: int):
    """As vLLM's guidance backend compiles and fills (backend_guidance.py): EOS ends the answer."""
    import llguidance
    import llguidance.hf
    import llguidance.torch

    ll_tok = llguidance.hf.from_tokenizer(tok, VOCAB)
    grammar = llguidance.LLMatcher.grammar_from_json_schema(schema, defaults={"whitespace_flexible": False})
    mask = llguidance.torch.allocate_token_bitmask(rows, ll_tok.vocab_size)

    def make(row: int) -> Sequence:
        m = llguidance.LLMatcher(ll_tok, grammar)
        state = {"eos": False}

        def accept(t: int) -> bool:
            if t == eos:
                state["eos"] = True
                return True
            return bool(m.consume_token(t))

        return Sequence(fill=lambda: llguidance.torch.fill_next_token_bitmask(m, mask, row), accept=accept,
                        done=lambda: state["eos"], row=row)

    return make, mask


FACTORIES = {"xgrammar": xgrammar_factory, "guidance": guidance_factory}


def allowed(mask, row: int) -> np.ndarray:
    """Token ids a row of the mask allows (bit i of word i // 32 set)."""
    bits = np.unpackbits(mask[row].numpy().view(np.uint8), bitorder="little")
    return np.flatnonzero(bits[:VOCAB])


def _fill_batch(seqs: list[Sequence]) -> None:
    for s in seqs:
        t0 = time.perf_counter_ns()
        s.fill()
        s.fills_ns.append(time.perf_counter_ns() - t0)


def decode_lockstep(seqs: list[Sequence], mask, rng: random.Random, eos: int, max_tokens: int,
                    pool: ThreadPoolExecutor | None) -> list[tuple[int, float]]:
    """Decode every sequence one token a step, as one engine batch; each step's masks are filled the way
    vLLM fills them (above 128 guided sequences: batches of 16 on a pool of threads, else one by one).
    Returns (sequences in the step, wall milliseconds of the step's fill) per step."""
    steps = []
    while True:
        active = [s for s in seqs if not s.ended]
        if not active:
            return steps
        t0 = time.perf_counter()
        if pool is not None and len(active) > PARALLEL_ABOVE:
            for f in [pool.submit(_fill_batch, active[i:i + PARALLEL_BATCH])
                      for i in range(0, len(active), PARALLEL_BATCH)]:
                f.result()
        else:
            _fill_batch(active)
        steps.append((len(active), 1000 * (time.perf_counter() - t0)))
        for s in active:
            ids = allowed(mask, s.row)
            if len(ids) == 0:
                raise RuntimeError("the mask allows no token")
            s.forced += len(ids) == 1
            t = int(ids[rng.randrange(len(ids))])
            if not s.accept(t):
                raise RuntimeError(f"token {t} allowed by the mask but refused by the matcher")
            s.tokens.append(t)
            s.ended = t == eos or s.done() or len(s.tokens) >= max_tokens


def field_of(text: str) -> str:
    """Which part of the answer the next token writes, from the text so far (the schema's key order)."""
    if '"score":' in text:
        return "score"
    if '"reason":"' in text:
        return "reason"
    if '"risk_level":"' in text:
        return "risk_level"
    return "keys"


def by_field(tok, seqs: list[Sequence], eos: int) -> dict[str, tuple[int, float]]:
    """Per field: (fills, mean fill in microseconds)."""
    out: dict[str, list[float]] = {}
    for s in seqs:
        for k, ns in enumerate(s.fills_ns):
            text = tok.decode([x for x in s.tokens[:k] if x != eos])
            out.setdefault(field_of(text), []).append(ns / 1000)
    return {f: (len(v), round(statistics.fmean(v), 1)) for f, v in out.items()}


def measure(backend: str, tok, schema: str, n: int, max_tokens: int, seed: int, threads: int) -> dict:
    eos = tok.convert_tokens_to_ids("<|im_end|>")
    t = time.perf_counter()
    make, mask = FACTORIES[backend](tok, schema, eos, n)
    setup_s = time.perf_counter() - t
    seqs = [make(row) for row in range(n)]
    with ThreadPoolExecutor(max_workers=threads) if threads > 1 else nullcontext() as pool:
        steps = decode_lockstep(seqs, mask, random.Random(seed), eos, max_tokens, pool)
    fills = [ns / 1000 for s in seqs for ns in s.fills_ns]
    answers = [tok.decode([x for x in s.tokens if x != eos]) for s in seqs]
    valid = sum(1 for a in answers if _valid(a))
    full = [ms for k, ms in steps if k > PARALLEL_ABOVE] or [ms for _, ms in steps]
    mean_us = statistics.fmean(fills)
    return {"backend": backend, "sequences": n, "threads": threads, "setup_s": round(setup_s, 2),
            "tokens_mean": round(statistics.fmean(len(s.tokens) for s in seqs), 1),
            "forced_mean": round(statistics.fmean(s.forced for s in seqs), 1),
            "fill_us_median": round(statistics.median(fills), 1),
            "fill_us_p95": round(sorted(fills)[int(0.95 * (len(fills) - 1))], 1),
            "fill_us_mean": round(mean_us, 1), "fill_us_max": round(max(fills), 1),
            "step_ms_median": round(statistics.median(full), 2), "step_ms_max": round(max(full), 2),
            "steps_full": len(full), "fill_wall_s": round(sum(ms for _, ms in steps) / 1000, 2),
            "step_ms_ideal_512_8": round(mean_us * BATCH / VLLM_FILL_THREADS / 1000, 2),
            "valid": f"{valid}/{n}", "example": answers[0], "fields": by_field(tok, seqs, eos)}


def _valid(text: str) -> bool:
    from screening.engines.answer import parse_answer

    try:
        parse_answer(text)
    except Exception:
        return False
    return True


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=BATCH, help="answers decoded together, one engine batch")
    p.add_argument("--threads", type=int, default=VLLM_FILL_THREADS, help="vLLM's fill pool (1: one by one)")
    p.add_argument("--backends", default="xgrammar,guidance")
    p.add_argument("--max-tokens", type=int, default=160, help="engine.max_output_tokens")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tokenizer-dir", default=None)
    p.add_argument("--reason-unbounded", action="store_true",
                   help="drop the reason's maxLength from the schema (what the limit costs; not what the product asks)")
    a = p.parse_args()
    from transformers import AutoTokenizer

    from screening.engines.answer import ANSWER_SCHEMA

    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir(a.tokenizer_dir)))
    spec = json.loads(json.dumps(ANSWER_SCHEMA))
    if a.reason_unbounded:
        spec["properties"]["reason"].pop("maxLength")
    schema = json.dumps(spec, ensure_ascii=False)
    rows = [measure(b, tok, schema, a.n, a.max_tokens, a.seed, a.threads) for b in a.backends.split(",") if b]
    print(f"## Guided-decoding mask per step, CPU, {os.cpu_count()} cores ({time.strftime('%Y-%m-%d %H:%M')})\n")
    print(f"- command: `python bench/grammar_cost.py {' '.join(sys.argv[1:])}`")
    print(f"- schema: {schema}")
    print(f"- machine: {platform.machine()}, {platform.processor() or platform.platform()}, python "
          f"{platform.python_version()}; tokenizer Qwen3.5 ({len(tok)} tokens, mask width {VOCAB})")
    print(f"- versions: {_versions()}")
    print(f"\n| backend | answers | tokens mean | one fill, us: median | p95 | mean | max | a step's fills, ms: median "
          f"| max | (steps over {PARALLEL_ABOVE} seqs) | all steps' fills, s | ideal 512 on 8 threads, ms | valid "
          "| setup s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['backend']} | {r['sequences']} | {r['tokens_mean']} | {r['fill_us_median']} | "
              f"{r['fill_us_p95']} | {r['fill_us_mean']} | {r['fill_us_max']} | {r['step_ms_median']} | "
              f"{r['step_ms_max']} | {r['steps_full']} | {r['fill_wall_s']} | {r['step_ms_ideal_512_8']} | "
              f"{r['valid']} | {r['setup_s']} |")
    for r in rows:
        fields = ", ".join(f"{f} {c} fills at {us} us" for f, (c, us) in r["fields"].items())
        print(f"- {r['backend']} per field: {fields}; forced tokens (one allowed) {r['forced_mean']} of "
              f"{r['tokens_mean']} an answer")
        print(f"- {r['backend']} example answer (random tokens under the mask): `{r['example']}`")


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for name in ("xgrammar", "llguidance", "transformers", "torch"):
        try:
            out.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            out.append(f"{name} absent")
    return ", ".join(out)


if __name__ == "__main__":
    main()
