"""The rules floor reads every announcement title of the window, however many a day brings.

A user trial: one 立案告知书 title, then 22 titles on an annual-report day whose last is 其他风险警示. The
composed text kept the newest 20 titles, both risk titles fell off the end, and the row came out 低/100 with
no flag. Now the text keeps every title; the model's copy may still be cut by tokens (a flag says so), but
the floor reads the whole text, so the row is 高 with both titles named either way.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from screening.config import BatcherSettings
from screening.data.providers.provider_base import ProviderBase
from screening.data.providers.report_text import Announcement, compose_report_text
from screening.engines.base import ChatTokenizerMixin, Engine
from screening.engines.types import EngineOutput, EngineRequest
from screening.models import PoolItem, StockInput
from screening.screen.merge import FLAG_MODEL_MISSED_TEXT
from screening.screen.pipeline import FLAG_REPORT_CUT, Screener
from screening.screen.rules import assess

from .fixtures_engine import TEST_ENGINE

INVESTIGATION = "关于收到中国证券监督管理委员会《立案告知书》的公告"
WARNING = "关于公司股票被实施其他风险警示的公告"
ANNUAL_DAY = [  # an annual-report day's titles, the risk one last (Eastmoney's order within a day)
    "2025年年度报告", "2025年年度报告摘要", "2026年第一季度报告", "关于2025年度利润分配预案的公告", "董事会决议公告",
    "监事会决议公告", "关于续聘2026年度会计师事务所的公告", "2025年度内部控制评价报告", "关于会计政策变更的公告",
    "关于计提2025年度资产减值准备的公告", "关于召开2025年年度股东大会的通知", "2025年度独立董事述职报告",
    "关于2026年度日常关联交易预计的公告", "2025年度社会责任报告", "关于公司及子公司向银行申请综合授信额度的公告",
    "关于为子公司提供担保额度预计的公告", "2025年度募集资金存放与使用情况的专项报告",
    "关于使用闲置自有资金进行现金管理的公告", "审计委员会2025年度履职情况报告",
    "关于2025年度董事、监事及高级管理人员薪酬的公告", "关于前期会计差错更正的公告", WARNING,
]


def _titles() -> list[Announcement]:
    return [Announcement(dt.date(2026, 4, 10), "东仿科技:" + INVESTIGATION)] + [
        Announcement(dt.date(2026, 4, 29), "东仿科技:" + t) for t in ANNUAL_DAY]


def _report(max_titles: int | None = 20) -> str:
    """The text as a provider composes it, with the cap the providers used to pass."""
    text = compose_report_text(latest=None, forecast=None, announcements=_titles(), days=30, name="东仿科技",
                               max_titles=max_titles)
    assert text is not None
    return text


def test_every_title_of_the_window_is_in_the_text() -> None:
    text = _report()
    assert len(ANNUAL_DAY) + 1 == 23
    lines = text.splitlines()[1:]
    assert len(lines) == 23 and "另有" not in text  # nothing left out, nothing summarised away
    assert lines[-1] == f"2026-04-10 {INVESTIGATION}" and f"2026-04-29 {WARNING}" in lines
    assert ProviderBase().max_titles is None


def test_the_floor_names_both_risk_titles() -> None:
    v = assess(StockInput(code="600114.SH", name="东仿科技", pe_ttm=10.0, roe=20.0, report_text=_report()))
    assert (v.figure_risk, v.risk) == ("低", "高")
    assert f"公告风险: 立案调查 (2026-04-10 {INVESTIGATION})" in v.flags
    assert f"公告风险: 退市风险警示 (2026-04-29 {WARNING})" in v.flags


class _LowAnswers(ChatTokenizerMixin, Engine):
    """A prompt-reading engine with the bundled model's real tokenizer that answers 低, as a model does when
    the risk titles were cut from its copy of the text."""

    name = "low-answers"

    def __init__(self, tokenizer: object) -> None:
        super().__init__()
        self.tokenizer = tokenizer
        self.seen: list[str] = []

    def generate(self, requests: list[EngineRequest]) -> list[EngineOutput]:
        self.seen += [r.messages[1]["content"] for r in requests]
        answer = {"risk_level": "低", "reason": "ROE高且PE合理", "score": 100}
        return [EngineOutput(r.key, json.dumps(answer, ensure_ascii=False), "stop") for r in requests]


@pytest.mark.parametrize("report_tokens", [150, 1500])
def test_a_prompt_cut_never_costs_the_floor_its_signal(model_dir: str, report_tokens: int) -> None:
    """Cut to 150 tokens the model sees neither risk title: the row is still 高, says the text was cut, and
    says the model missed the signal. At the default 1,500 nothing is cut (about 940 of this tokenizer's)."""
    from transformers import AutoTokenizer

    engine = _LowAnswers(AutoTokenizer.from_pretrained(model_dir))
    settings = TEST_ENGINE.model_copy(update={"max_report_tokens": report_tokens})
    stock = StockInput(code="600114.SH", name="东仿科技", pe_ttm=10.0, roe=20.0, report_text=_report())
    row = Screener(engine, settings, BatcherSettings()).run([PoolItem(0, stock.code, stock)])[0]
    cut = report_tokens < 900
    assert (INVESTIGATION in engine.seen[0]) is not cut and (WARNING in engine.seen[0]) is not cut
    assert (row.status, row.risk_level, row.model_risk) == ("ok", "高", "低")
    assert (FLAG_REPORT_CUT in row.flags) is cut
    assert any(f.startswith(FLAG_MODEL_MISSED_TEXT) for f in row.flags)
    assert any(INVESTIGATION in f for f in row.flags) and any(WARNING in f for f in row.flags)
    assert {s["signal"] for s in row.signals} == {"立案调查", "退市风险警示"}
