"""Risk words the reader matched and then read as another party's trouble: kept, not counted, shown (excluded).

The fourteenth session kept a 高 risk its own sentence says ended (``cleared``) instead of dropping it; the same
holds where the reader decides whose risk it is. A customer's 商票逾期, a deal party's frozen account, the company
as the plaintiff: read right, they are not the company's risk; read wrong (the open list of the ninth session's
reviews holds such sentences), a row that showed nothing hid a live risk. They come back ``excluded`` (tier 低,
``why`` 他方), named in a flag that ends 请核对原文 and in every view that shows the other not-counted states,
and never in a failed row's 已知风险. No tier changes: the pinned sets (signals_review9.tsv and the others) are
read by their own tests. Plain denials, forms answered no and hypotheticals stay silent (measured: noise).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.replies import row_line
from bot.core.text import render
from screening.config import BatcherSettings, EngineSettings
from screening.engines.rules_engine import RulesEngine
from screening.finetune.signals import visible_signal
from screening.models import PoolItem, StockInput
from screening.output.report import cell, signal_text, to_csv
from screening.screen.pipeline import Screener
from screening.screen.rules import MissingData, assess
from screening.screen.signal_hit import EXCLUDED, NOT_COUNTED, OTHER
from screening.screen.signals import read_signals, text_tier
from screening.screen.signals_eval import load_set

DATA = Path(__file__).resolve().parent / "data"

# sentences that state a risk word the reader reads as another party's (signal, the words that set it aside). Until
# the seventeenth session seven lines of signals_review9_open.txt stood here, pinning a wrong reading (a suit against
# the company, its own arrears: 公司遭到债权人…分公司向法院起诉, 供应商反映遭公司恶意拖欠货款, 要求某某股份支付拖欠…);
# they read live 中 now (tests/test_signals_open_own.py), and their other-party neighbours stand here instead
HIDDEN = {
    "公司起诉客户要求其支付拖欠货款": ("拖欠经营款项", "要求其支付拖欠"),
    "供应商拖欠公司预付款项": ("拖欠经营款项", "供应商"),
    "公司江苏省分公司向法院起诉某某有限公司，涉及诉讼金额5,000万元": ("重大诉讼", "公司江苏省分公司向法院起诉"),
    "某某建设集团向法院起诉，要求某某有限公司支付拖欠的工程款": ("拖欠经营款项", "要求某某有限公司支付拖欠"),
    "公司起诉某某公司，请求判令支付拖欠货款1,500万元": ("拖欠经营款项", "请求判令支付拖欠"),
}
# (the open list's 因客户…未能兑付，公司正积极筹措资金 was this example until the seventeenth session read it as the
# company's own bill, live: tests/test_signals_open_pending.py; the customer's bill the company provides for stays here)
SENTENCE = "因客户资金紧张导致汇票到期未能兑付，公司已计提坏账准备"
FLAG = f"报告风险词未计(读作他方的事): 债务违约 (「{SENTENCE}」 → 「客户」), 请核对原文"
# a title of another company of a deal about itself: not the company's, kept as the other's
DEAL_TITLE = "2026-11-20 出售资产受让方某某有限公司关于银行账户被冻结的说明"
# what stays silent: a plain denial, a form answered no, a hypothetical, good news that shares a word
SILENT = ("公司不存在违规担保。", "是否存在违规担保：否", "若发行人未能按期兑付本息，债券持有人可要求提前清偿。",
          "若控股股东减持公司股份，公司将及时披露。", "关于撤销退市风险警示的公告", "公司对外担保均未逾期。")


@pytest.mark.parametrize("text", list(HIDDEN))
def test_a_risk_read_as_another_partys_is_kept_not_counted(text: str) -> None:
    hits = read_signals(text)
    assert text_tier(hits) is None  # the tier is the reader's, unchanged
    name, words = HIDDEN[text]
    assert [(h.name, h.state, h.tier, h.why, h.resolved_by) for h in hits] == [
        (name, EXCLUDED, NOT_COUNTED, OTHER, words)]
    flag = hits[0].flag()
    assert flag.endswith("请核对原文") and f"): {name} (" in flag and "读作他方的事" in flag


def test_the_flag_names_the_signal_the_sentence_and_why() -> None:
    [hit] = read_signals(SENTENCE)
    assert hit.flag() == FLAG
    assert hit.to_dict() == {"signal": "债务违约", "tier": "低", "matched": "未能兑付", "text": SENTENCE, "date": None,
                             "title": False, "state": "excluded", "resolved_by": "客户", "why": "他方"}
    [title] = read_signals(DEAL_TITLE)
    assert title.flag() == ("公告风险词未计(读作他方的事): 资产冻结 (2026-11-20 出售资产受让方某某有限公司关于"
                            "银行账户被冻结的说明 → 「受让方某某有限公司」), 请核对原文")


def test_plain_denials_forms_and_hypotheticals_stay_silent() -> None:
    for text in SILENT:
        assert read_signals(text) == [], text


def test_a_live_mention_of_the_same_signal_wins() -> None:
    hits = read_signals("公司客户某某置业出现商票逾期。公司自身亦有商票逾期未兑付。")
    assert text_tier(hits) == "高" and [(h.name, h.state) for h in hits] == [("债务违约", "live")]


def test_the_independent_sets_benign_items_are_rarely_flagged() -> None:
    """The noise the flag may bring (measured 2026-12-07: 12 of the 369 benign items of the four independent
    sets, each a party's trouble named as such; plain denials would have flagged 89)."""
    benign = [item for name in ("signals_eval", "signals_blind", "signals_blind2", "signals_holdout")
              for item in load_set(DATA / f"{name}.tsv") if item.tier == "无"]
    flagged = [item.text for item in benign if any(h.state == EXCLUDED for h in read_signals(item.report_text()))]
    assert len(benign) > 300 and len(flagged) <= 0.05 * len(benign), flagged


def test_every_view_shows_it_as_not_counted() -> None:
    """Chat, CSV/XLSX cells and the flags name the state; a failed row's 已知风险 lists live hits only; the
    fine-tuning side sees no signal."""
    [hit] = read_signals(SENTENCE)
    shown = signal_text(hit.to_dict())
    assert shown == f"债务违约(读作他方的事, 不计) {SENTENCE}" and cell([hit.to_dict()]) == shown
    assert visible_signal(SENTENCE) is None
    ok = StockInput(code="600125.SH", name="他方", pe_ttm=20.0, roe=15.0, report_text=SENTENCE)
    failed = StockInput(code="600126.SH", name="他方缺ROE", pe_ttm=20.0, report_text=SENTENCE)
    v = assess(ok)
    assert v.risk == "低" and v.flags == [FLAG] and [s["state"] for s in v.signal_dicts()] == ["excluded"]
    with pytest.raises(MissingData) as caught:
        assess(failed)
    assert (caught.value.known, caught.value.risk, caught.value.flags) == ([], None, [FLAG])
    rows = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(
        [PoolItem(n, s.code, s) for n, s in enumerate((ok, failed))])
    assert [r.status for r in rows] == ["ok", "failed"]
    assert "已知" not in (rows[1].error or "") and rows[1].flags == [FLAG]
    assert shown in to_csv(rows)
    chat = render([row_line(rows[0])], "plain")[0]
    assert "债务违约(读作他方的事, 不计)" in chat and "(高)" not in chat

