"""Issue 23: a risk the text states plainly is part of the rules floor, on every engine, flagged with its
signal, title and date; denials and good news sharing a word are not signals; the digest leads with it.

Pure tests of the reader and the merge, the rules floor through the real ``screen`` command, the eval
command on the repository's labelled sets, and the digest's 公告风险 section in every channel's rendering
(and through the WeCom, Feishu and DingTalk fakes).
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from screening.config import DigestSettings
from screening.digest.build import build_digest
from screening.digest.history import snapshot
from screening.digest.render import markdown_lines, plain_lines, render_json, render_markdown_parts, render_telegram
from screening.engines.answer import ModelAnswer
from screening.models import PoolItem, ResultRow, StockInput
from screening.push.manager import make_channels, send_each
from screening.screen.merge import FLAG_MODEL_MISSED_TEXT, merge
from screening.screen.prompt import system_prompt
from screening.screen.rules import assess
from screening.screen.signal_table import GROUPS, SIGNALS
from screening.screen.signals import read_signals, text_tier
from screening.screen.signals_eval import DEFAULT_SET, evaluate, load_set
from tests.im_servers import IMServers
from tests.test_push import env_for, im, settings_for  # noqa: F401  (im: the IM fakes fixture)

REPO = Path(__file__).resolve().parent.parent
SH = dt.timezone(dt.timedelta(hours=8))

# the issue's own lists: each must read as written
NOT_SIGNALS = (
    "不存在违规担保", "未收到立案调查通知", "标准无保留意见", "不存在应披露而未披露的重大诉讼",
    # denials a user trial read as risks (尚未收到 of a notice, not of a conclusion; 未触及; a guarantee ended)
    "截至目前，公司尚未收到立案告知书。", "公司尚未收到中国证监会立案调查的任何通知。",
    "控股股东质押股份未触及平仓线，不存在强制平仓风险。",
    "关于撤销退市风险警示的公告", "关于撤销其他风险警示的公告", "关于收到中国证监会结案通知书的公告",
    "关于重大诉讼一审胜诉的公告", "关于公司债券按期兑付本息的公告", "关于控股股东部分股份解除质押的公告",
    "关于控股股东增持公司股份计划的公告", "关于为子公司提供担保的公告", "关于股东减持计划期限届满未实施减持的公告",
    "关于终止筹划重大资产重组的公告",
)
# a 高 risk its own title says ended: not counted, but kept as a flag naming the words read as the end, so a
# misread end is never silent
ENDED_IN_TEXT = {"关于违规担保已全部解除的公告": ("违规担保", "违规担保已全部解除")}
SIGNALLED = {
    "关于收到中国证券监督管理委员会《立案告知书》的公告": ("立案调查", "高"),
    "关于立案告知书事项进展暨风险提示的公告": ("立案调查", "高"),
    "关于公司被中国证监会立案的公告": ("立案调查", "高"),
    "关于公司股票叠加实施其他风险警示的公告": ("退市风险警示", "高"),
    "关于公司股票终止上市决定的公告": ("退市风险警示", "高"),
    "关于否定意见内部控制审计报告的专项说明": ("审计意见(无法表示/否定)", "高"),
    "关于控股股东非经营性资金占用的公告": ("资金占用", "高"),
    "关于公司债券未能按时兑付的公告": ("债务违约", "高"),
    "关于公司债务逾期的公告": ("债务违约", "高"),
    "关于公司被债权人申请重整的公告": ("债务违约", "高"),
    "关于公司部分银行账户被冻结的公告": ("资产冻结", "高"),
    "关于控股股东所持股份被强制平仓的公告": ("强制平仓", "高"),
    "关于无法在法定期限内披露定期报告的风险提示公告": ("无法按期披露", "高"),
    "关于公司实际控制人被留置的公告": ("实控人失联", "高"),
    "关于公司董事长失联的公告": ("实控人失联", "高"),
    "关于收到上海证券交易所问询函的公告": ("监管问询", "中"),
    "关于收到浙江证监局警示函的公告": ("监管问询", "中"),
    "公司持续经营能力存在重大不确定性。": ("持续经营不确定", "中"),
    "关于控股股东所持股份被司法冻结的公告": ("股份冻结", "中"),
    "关于会计师事务所出具保留意见审计报告的专项说明": ("审计意见(保留)", "中"),
    "2026年度业绩预亏公告": ("业绩预亏", "中"),
    "关于计提商誉减值准备的公告": ("商誉减值", "中"),
    "关于控股股东减持股份计划的预披露公告": ("股东减持", "中"),
    "关于涉及重大诉讼的公告": ("重大诉讼", "中"),
}


def _dated(title: str, day: str = "2026-11-20") -> str:
    return f"近30日公告（新→旧）：\n{day} {title}"


def test_negations_and_good_news_are_not_signals() -> None:
    for text in NOT_SIGNALS:
        assert read_signals(text) == [], text
        assert read_signals(_dated(text)) == [], text
    for text, (name, words) in ENDED_IN_TEXT.items():
        for hits in (read_signals(text), read_signals(_dated(text))):
            assert text_tier(hits) is None
            assert [(h.name, h.state, h.tier, h.resolved_by) for h in hits] == [(name, "cleared", "低", words)]


def test_signals_worded_the_ways_titles_word_them() -> None:
    for title, (name, tier) in SIGNALLED.items():
        hits = read_signals(_dated(title))
        assert hits, title
        assert (hits[0].name, hits[0].tier) == (name, tier), (title, hits[0])
        assert hits[0].date == "2026-11-20" and hits[0].is_title


def test_highest_tier_first_and_the_issues_example_sentences() -> None:
    text = "控股股东股份被司法冻结, 质押比例达98%。会计师事务所出具无法表示意见的审计报告。"
    hits = read_signals(text)
    assert text_tier(hits) == "高" and hits[0].name == "审计意见(无法表示/否定)"
    assert {"股份冻结", "质押风险"} <= {h.name for h in hits}
    assert not hits[0].is_title and "无法表示意见" in hits[0].text
    # a progress notice of a live risk is still one; a name prefix never hides a title
    assert read_signals(_dated("*ST某某:关于立案调查进展暨风险提示的公告"))[0].name == "立案调查"
    # the newest mention of a signal is the one shown
    two = "近30日公告（新→旧）：\n2026-11-25 关于收到问询函的公告\n2026-11-02 关于收到关注函的公告"
    assert read_signals(two)[0].date == "2026-11-25"


def test_floor_raises_the_verdict_names_signal_title_date_and_keeps_the_formula() -> None:
    stock = StockInput(code="600519.SH", name="贵州茅台", pe_ttm=20.3, roe=34.2,
                       report_text=_dated("关于收到中国证监会《立案告知书》的公告"))
    v = assess(stock)
    plain = assess(StockInput(code="600519.SH", name="贵州茅台", pe_ttm=20.3, roe=34.2))
    assert (plain.risk, v.figure_risk, v.risk) == ("低", "低", "高")
    assert v.score == plain.score  # the score stays the seed's formula
    assert "立案调查" in v.reason and v.raised_by_text
    assert "公告风险: 立案调查 (2026-11-20 关于收到中国证监会《立案告知书》的公告)" in v.flags
    assert v.signal_dicts()[0]["raises"] is True
    # a look-alike leaves the figures' tier alone
    calm = assess(StockInput(code="600519.SH", name="贵州茅台", pe_ttm=20.3, roe=34.2,
                             report_text=_dated("关于撤销退市风险警示的公告")))
    assert calm.risk == "低" and not calm.signals


def test_model_may_raise_never_lower_and_a_missed_signal_is_a_flag() -> None:
    stock = StockInput(code="600000.SH", name="样本", pe_ttm=20, roe=20,
                       report_text=_dated("关于公司债券未能按期兑付的公告"))
    v = assess(stock)
    missed = merge(v, ModelAnswer(risk_level="低", reason="ROE 20%且PE 20倍,基本面稳健", score=v.score))
    assert missed.risk == "高" and missed.reason == v.reason
    assert any(f.startswith(FLAG_MODEL_MISSED_TEXT) and "债务违约" in f for f in missed.flags)
    # the right tier but a reason that does not name the signal: the floor's reason, which does
    same = merge(v, ModelAnswer(risk_level="高", reason="基本面稳健", score=v.score))
    assert same.risk == "高" and "债务违约" in same.reason
    named = merge(v, ModelAnswer(risk_level="高", reason="公告债务违约,风险上调", score=v.score))
    assert named.reason == "公告债务违约,风险上调" and not named.flags


def test_the_prompt_lists_the_tables_signals() -> None:
    full = system_prompt(True)
    for rule in SIGNALS:
        assert rule.name in full or (rule.group in full and rule.name == rule.group), rule.name
    for group in GROUPS:
        assert f"- {group.name}: {group.describe}" in full


def _cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "screening", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_screen_rules_engine_raises_each_signal_and_leaves_lookalikes(tmp_path: Path) -> None:
    """Through the real command: a pool whose texts hold each signal comes back at least that tier."""
    rows = ["code,name,pe_ttm,roe,report_text"]
    expect: dict[str, str] = {}
    for n, (title, (_, tier)) in enumerate(SIGNALLED.items()):
        code = f"{600100 + n:06d}.SH"
        rows.append(f"{code},样本{n},20.3,34.2,2026-11-20 {title}")
        expect[code] = tier
    for n, text in enumerate(NOT_SIGNALS):
        code = f"{600300 + n:06d}.SH"
        rows.append(f"{code},对照{n},20.3,34.2,{text}")
        expect[code] = "低"
    ended = {f"{600400 + n:06d}.SH": text for n, text in enumerate(ENDED_IN_TEXT)}
    rows += [f"{code},结束{n},20.3,34.2,{text}" for n, (code, text) in enumerate(ended.items())]
    pool = tmp_path / "pool.csv"
    pool.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = _cli("screen", str(pool), "--engine", "rules", "--format", "json")
    assert out.returncode == 0, out.stderr
    got = {r["code"]: r for r in json.loads(out.stdout)}
    for code, tier in expect.items():
        assert got[code]["risk_level"] == tier, (code, got[code])
        if tier != "低":
            assert got[code]["signals"] and got[code]["signals"][0]["date"] == "2026-11-20"
            assert any(f.startswith("公告风险: ") and "2026-11-20" in f for f in got[code]["flags"])
        else:
            assert got[code]["signals"] == []
    for code, text in ended.items():
        name, words = ENDED_IN_TEXT[text]
        assert got[code]["risk_level"] == "低" and [s["state"] for s in got[code]["signals"]] == ["cleared"]
        assert f"报告称风险已消除(不计风险, 请核对原文): {name} (「{text}」 → 「{words}」)" in got[code]["flags"]


def test_examples_risk_pool_escalates_on_the_default_engine_floor() -> None:
    out = _cli("screen", "examples/risk_pool.csv", "--engine", "rules", "--format", "json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    raised = [r for r in rows if any(s["raises"] for s in r["signals"])]
    assert len(raised) >= 3 and all(r["risk_level"] in ("中", "高") for r in raised)
    assert any(r["risk_level"] == "高" and r["rule_risk"] == "高" for r in raised)


@pytest.mark.parametrize("name", [DEFAULT_SET.name, "signals_holdout.tsv", "signals_blind.tsv"])
def test_signals_eval_meets_the_goal_on_the_repository_sets(name: str) -> None:
    """The goal (recall >= 0.97, false escalations <= 0.03) on the labelled sets; bench/RESULTS.md records the
    figures each set gave before the reader was tuned on it."""
    scores = evaluate(load_set(DEFAULT_SET.parent / name))
    assert scores.n >= 150
    assert scores.recall_all() is not None and scores.recall_all() >= 0.97
    assert scores.false_rate() is not None and scores.false_rate() <= 0.03
    out = _cli("signals", "eval", "--no-misses")
    assert out.returncode == 0, out.stderr
    assert "recall 高:" in out.stdout and "false escalations:" in out.stdout


def test_signals_eval_on_the_fourth_set_blind2() -> None:
    """signals_blind2.tsv was written blind; first measured at recall 0.887 (高 53/61, 中 49/54), false escalations
    0.088 (10/113). After the general rules it prompted (bench/RESULTS.md), these are its figures; no longer blind.
    The miss left is a debatable row the table's tiers do not name (a liquidity squeeze in figures); 强调事项段
    without 持续经营 is read since a third user trial (a non-standard opinion, 中)."""
    scores = evaluate(load_set(DEFAULT_SET.parent / "signals_blind2.tsv"))
    assert scores.n == 228
    assert scores.per_tier["高"] == (61, 61) and scores.per_tier["中"] == (53, 54)
    assert (scores.false_escalations, scores.negatives) == (0, 113)
    assert sorted(item.category for item, _ in scores.misses) == ["持续经营不确定"]


# the kinds of wording blind2 found the reader missing or over-reading, each in words of its own (not the set's)
BLIND2_SIGNALLED = {
    "公司股票简称自2026年6月1日起由“远华科技”变更为“ST远华”。": "退市风险警示",
    "公司股票简称前冠以“*ST”字样。": "退市风险警示",
    "关于申请撤销公司股票其他风险警示的公告": "退市风险警示",  # applied for, not yet lifted
    "公司在未履行董事会审议程序的情况下为实际控制人控制的企业提供担保1.2亿元。": "违规担保",
    "控股股东被冻结股份占其所持公司股份的92%。": "股份冻结",
    "本次诉讼尚未开庭审理。": "重大诉讼",
    "公司收到法院送达的证券虚假陈述责任纠纷案件15件。": "重大诉讼",
    "关于“21某某01”未能按期足额偿付利息的公告": "债务违约",
    "公司债券已构成实质性违约。": "债务违约",
    "关于公司对外担保逾期的公告": "债务违约",
    "关于公司董事长被指定居所监视居住的公告": "实控人失联",
    "预计2026年半年度归属于上市公司股东的净利润亏损收窄至3,000万元。": "业绩续亏",
}
BLIND2_NOT_SIGNALS = (
    "经自查，公司未发现控股股东存在被列为失信被执行人的情形。",
    "被担保人不属于失信被执行人。",
    "会计师未对公司财务报表出具保留意见、否定意见或无法表示意见的审计报告。",
    "关于撤销公司股票退市风险警示及其他风险警示的公告",
    "公司撤销其他风险警示的申请已获深圳证券交易所同意。",
    "法院判决被告向子公司支付工程款及逾期付款违约金。",
    "减持期间届满，股东李某未以任何方式减持公司股份。",
    "受行业内部分企业债务违约影响，公司收紧了赊销政策。",
    "公司参股公司被债权人申请破产重整。",
    "公司作为债权人申请对某贸易公司破产清算。",
    "公司对外担保均未逾期。",
    "关于2026年度控股股东及其他关联方占用资金情况的专项说明",
    "某银行为原告、公司为第三人的案件已撤诉。",
)


BLIND2_OTHERS = ("受行业内部分企业债务违约影响，公司收紧了赊销政策。", "公司参股公司被债权人申请破产重整。",
                 "公司作为债权人申请对某贸易公司破产清算。")


def test_blind2_wordings_read_as_a_careful_analyst_reads_them() -> None:
    for text, name in BLIND2_SIGNALLED.items():
        assert name in {h.name for h in read_signals(text)}, text
    for text in BLIND2_NOT_SIGNALS:
        hits = read_signals(text)
        assert text_tier(hits) is None, (text, hits)
        # another party's trouble is kept, not counted (excluded, 他方); the rest raise nothing at all
        other = [("excluded", "他方")] if text in BLIND2_OTHERS else []
        assert [(h.state, h.why) for h in hits] == other, (text, hits)
    # another plaintiff's case against the company is still the company's risk
    assert read_signals("某银行为原告，公司为被告，案件尚未开庭审理。")[0].name == "重大诉讼"


def test_signals_eval_refuses_a_malformed_set_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("kind\tdate\ttext\n", encoding="utf-8")
    out = _cli("signals", "eval", str(bad))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "line 1" in out.stderr


# ------------------------------------------------------------------------------------------- digest
def _rows() -> tuple[list[ResultRow], list[PoolItem]]:
    texts = {
        "600001.SH": _dated("关于收到中国证监会《立案告知书》的公告", "2026-11-20"),
        "600002.SH": _dated("关于收到上海证券交易所问询函的公告", "2026-11-25"),
        "600003.SH": _dated("关于撤销退市风险警示的公告", "2026-11-26"),
        "600004.SH": "",
    }
    rows, items = [], []
    for i, (code, text) in enumerate(texts.items()):
        stock = StockInput(code=code, name=f"样本<b>{i}</b>", pe_ttm=20.0, roe=30.0, report_text=text)
        v = assess(stock)
        rows.append(ResultRow(index=i, code=code, name=stock.name, industry="银行", status="ok", risk_level=v.risk,
                              score=v.score, reason=v.reason, flags=v.flags, signals=v.signal_dicts(),
                              pe_ttm=20.0, roe=30.0))
        items.append(PoolItem(i, code, stock))
    return rows, items


def _digest(prev: dict | None = None, prev_day: dt.date | None = None):
    rows, items = _rows()
    ds = DigestSettings(top_n=5)

    class Hist:  # the two calls build_digest makes; the real Redis history has its own tests
        def previous(self, scope, day):
            return prev_day, prev or {}

        def save(self, scope, day, snap):
            pass

    return build_digest(dt.date(2026, 12, 1), rows, items, ds=ds, source="全市场", scope="universe",
                        history=Hist(), now=dt.datetime(2026, 12, 1, 8, 45, tzinfo=SH)), ds, rows


def test_digest_opens_with_new_text_risks_newest_first_in_every_rendering() -> None:
    d, ds, _ = _digest()
    assert [t.code for t in d.text_risks] == ["600002.SH", "600001.SH"]  # newest first; the look-alike absent
    assert d.text_raised == 2
    for lines in (markdown_lines(d, ds), plain_lines(d, ds)):
        text = "\n".join(lines)
        head = text.index("公告风险")
        assert head < text.index("评分前") and "立案调查(高)" in text and "2026-11-20" in text
        assert "文本上调共 2 只" in text and "撤销退市" not in text
    tg = "\n".join(render_telegram(d, ds))
    assert "公告风险" in tg and "立案调查" in tg and "<b>0</b>" not in tg and "&lt;b&gt;" in tg
    for parts in (render_markdown_parts(d, 4096, ds), render_markdown_parts(d, 20000, ds, hard_breaks=True)):
        assert "公告风险" in parts[0] and "立案调查" in "\n".join(parts)
    assert [t["code"] for t in render_json(d)["text_risks"]] == ["600002.SH", "600001.SH"]


def test_digest_lists_only_signals_new_since_the_previous_one() -> None:
    _, _, rows = _digest()
    yesterday = {k: v for k, v in snapshot(rows, {}).items() if k == "600001.SH"}
    d, ds, _ = _digest(yesterday, dt.date(2026, 11, 30))
    assert [t.code for t in d.text_risks] == ["600002.SH"]
    assert d.text_raised == 2
    assert "自 2026-11-30 以来新增" in "\n".join(plain_lines(d, ds))


async def test_text_risks_reach_wecom_feishu_and_dingtalk(im: IMServers) -> None:  # noqa: F811
    d, _, _ = _digest()
    ds = settings_for(im)
    async with httpx.AsyncClient() as client:
        outcomes = await send_each([(ch, d) for ch in make_channels(ds, env_for(im), client)])
    assert all(o.ok for o in outcomes), [o.describe() for o in outcomes]
    wecom = "\n".join(m["markdown"]["content"] for m in im.received["wecom"])
    feishu = json.dumps(im.received["feishu"], ensure_ascii=False)
    ding = "\n".join(m["markdown"]["text"] for m in im.received["dingtalk"])
    for text in (wecom, feishu, ding):
        assert "公告风险" in text and "立案调查" in text and "600001.SH" in text


@pytest.mark.vllm
def test_the_floor_holds_on_the_model_engine(vllm_screener) -> None:
    """Whatever the bundled model answers, a stock under investigation is 高 with the signal flagged."""
    stock = StockInput(code="600519.SH", name="贵州茅台", industry="食品饮料", pe_ttm=20.3, roe=34.2, eps=68.6,
                       report_text="年审会计师出具了标准无保留意见的审计报告。\n"
                                   + _dated("关于收到中国证监会《立案告知书》的公告"))
    (row,) = vllm_screener.run([PoolItem(0, stock.code, stock)])
    assert row.status == "ok" and row.risk_level == "高" and row.rule_risk == "高"
    assert row.score == assess(stock).score
    assert any(f.startswith("公告风险: 立案调查") for f in row.flags)
    assert row.signals[0]["signal"] == "立案调查"


def test_a_signal_that_raises_nothing_says_so_where_it_is_shown() -> None:
    """A trial (2026-12-07): chat and the XLSX/CSV showed a resolved, clarified or cleared signal as 退市风险警示(低),
    a live risk of tier 低 to any reader; only the JSON named its state."""
    from screening.output.report import cell, signal_text

    text = "控股股东违规占用公司资金2亿元，截至本公告日已归还占用的全部资金。"
    [hit] = read_signals(text)
    shown = signal_text(hit.to_dict())
    assert shown == f"资金占用(称已消除, 不计) {text}" and cell([hit.to_dict()]) == shown
    ended = read_signals("2026-04-01 关于收到立案告知书的公告；2026-11-20 关于收到结案通知书的公告")
    assert signal_text(ended[0].to_dict()).startswith("立案调查(已解除, 不计) 2026-04-01")
    live = read_signals(_dated("关于收到中国证监会立案告知书的公告"))
    assert signal_text(live[0].to_dict()).startswith("立案调查(高) 2026-11-20")
