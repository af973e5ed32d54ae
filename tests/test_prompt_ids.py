"""Exact prompt ids from the frame + batch path, against the full chat-template render (pure)."""

from __future__ import annotations

import pytest

from screening.data.synthetic import generate_market
from screening.engines.base import ChatTokenizerMixin
from screening.models import PoolItem
from screening.screen.prompt import SYSTEM_PROMPT, chat_messages


class Tok(ChatTokenizerMixin):
    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer


@pytest.fixture(scope="module")
def tokenizer_dir(model_dir: str) -> str:
    """The bundled model's folder: its tokenizer (SmolLM2's, with a chat template) is all these need."""
    return model_dir


@pytest.fixture(scope="module")
def hf_tokenizer(tokenizer_dir: str):
    transformers = pytest.importorskip("transformers")
    return transformers.AutoTokenizer.from_pretrained(tokenizer_dir)


def full_ids(tok, messages):
    return tok.encode(tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True),
                      add_special_tokens=False)


def test_batch_ids_equal_the_full_render(hf_tokenizer):
    t = Tok(hf_tokenizer)
    stocks = generate_market(5400, seed=0)[:300]
    convs = [chat_messages(s, s.report_text or "") for s in stocks]
    convs.append([{"role": "user", "content": "no system prompt: rendered whole"}])
    ids = t.prompt_ids_many(convs)
    assert ids == [full_ids(hf_tokenizer, m) for m in convs]
    assert t._frames[SYSTEM_PROMPT] is not None  # the frame was split once and reused


def test_template_that_rewrites_the_message_is_rendered_whole(hf_tokenizer, tokenizer_dir: str):
    tok = hf_tokenizer.__class__.from_pretrained(tokenizer_dir)
    tok.chat_template = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] | upper }}"
                         "<|im_end|>\n{% endfor %}<|im_start|>assistant\n")
    t = Tok(tok)
    convs = [[{"role": "system", "content": "sys"}, {"role": "user", "content": "abc 中文"}]]
    assert t.prompt_ids_many(convs) == [full_ids(tok, convs[0])]
    assert t._frames["sys"] is None  # the split did not reproduce the render: never used


def test_prepare_many_matches_one_by_one(tokenizer_dir: str):
    from screening.config import BatcherSettings, EngineSettings
    from screening.ops.bench.prepare import TokenizerOnly
    from screening.screen.pipeline import Screener

    pytest.importorskip("transformers")
    screener = Screener(TokenizerOnly(tokenizer_dir), EngineSettings(max_report_tokens=200), BatcherSettings())
    items = [PoolItem(i, s.code, s) for i, s in enumerate(generate_market(5400, seed=0)[:40])]
    items.append(PoolItem(40, "bad"))
    batch = screener.prepare_many([(i, None) for i in items])
    single = [screener.prepare(i) for i in items]
    assert [type(b) for b in batch] == [type(s) for s in single]
    for b, s in zip(batch[:40], single[:40], strict=True):
        assert b.request.messages == s.request.messages
        assert list(b.request.prompt_ids) == list(s.request.prompt_ids)
        assert b.request.report_cut == s.request.report_cut
    assert any(b.request.report_cut for b in batch[:40])  # 200 tokens cuts some synthetic reports
    assert batch[40].status == "failed" and batch[40].error == "无法使用的输入"


def test_prepare_bench_measures_the_same_ids_both_ways(tokenizer_dir: str):
    from screening.config import Settings
    from screening.ops.bench.prepare import bench_prepare

    settings = Settings()
    settings.engine.model = tokenizer_dir  # tokenizer files are all the prepare step needs
    timings, info = bench_prepare(settings, n=60)
    assert [t.stocks for t in timings] == [60, 60, 60] and all(t.seconds > 0 for t in timings)
    assert info["batch ids equal one-by-one ids"] is True and info["screenable"] == 60
