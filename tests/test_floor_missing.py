"""A row that fails for a missing figure still shows the risk the rest of its data states.

A user trial: ``600114`` with PE 20, no ROE and a 立案告知书 title, and ``600120 ST无ROE``, both failed with only
"缺少数据: ROE"; the failed lists never said ST or 立案. They still fail (no score is ever guessed), and their
error, the one text of a failed row that every view shows, now names what is known.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bot.core.replies import row_line
from bot.core.text import render
from screening.config import BatcherSettings, DigestSettings, EngineSettings
from screening.digest.build import build_digest
from screening.digest.render import render_markdown
from screening.engines.rules_engine import RulesEngine
from screening.models import PoolItem, StockInput
from screening.output.report import render_table
from screening.screen.pipeline import Screener
from screening.screen.rules import MissingData, assess

TITLE = "2026-11-20 关于收到中国证监会立案告知书的公告"
INVESTIGATED = StockInput(code="600114.SH", name="东仿科技", pe_ttm=20.0, report_text=TITLE)
ST_NO_ROE = StockInput(code="600120.SH", name="ST无ROE", pe_ttm=20.0)
LOW_ROE_NO_PE = StockInput(code="600121.SH", name="低ROE", roe=3.0, report_text="2026-11-03 关于控股股东减持股份的公告")
PLAIN = StockInput(code="600122.SH", name="缺ROE", pe_ttm=20.0)
# a risk a later title ended, and one its own sentence says is over: flags of the row, not known risks (a user
# trial, 2026-12-07: both read "缺少数据: ROE; 已知至少中风险: 立案调查 (2026-04-01)")
ENDED = StockInput(code="600123.SH", name="已结案", pe_ttm=20.0,
                   report_text="2026-04-01 关于收到立案告知书的公告；2026-11-20 关于收到结案通知书的公告")
REPAID = StockInput(code="600124.SH", name="已归还", pe_ttm=20.0,
                    report_text="控股股东违规占用公司资金2亿元，截至本公告日已归还占用的全部资金。")


@pytest.mark.parametrize(("stock", "what", "known", "risk"), [
    (INVESTIGATED, "ROE", ["立案调查 (2026-11-20)"], "高"),
    (ST_NO_ROE, "ROE", ["ST股票"], "高"),
    (LOW_ROE_NO_PE, "PE-TTM", ["ROE 3%<5%", "股东减持 (2026-11-03)"], "高"),
    (PLAIN, "ROE", [], None),
    (ENDED, "ROE", [], None),
    (REPAID, "ROE", [], None),
])
def test_missing_data_carries_what_is_known(stock: StockInput, what: str, known: list[str], risk: str | None) -> None:
    with pytest.raises(MissingData) as caught:
        assess(stock)
    exc = caught.value
    assert (exc.what, exc.known, exc.risk) == (what, known, risk)
    assert str(exc) == (f"{what}; 已知高风险: {', '.join(known)}" if known else what)


def test_the_flags_an_ok_row_would_carry_come_along() -> None:
    with pytest.raises(MissingData) as caught:
        assess(INVESTIGATED)
    assert caught.value.flags == [f"公告风险: 立案调查 ({TITLE})"]
    assert [h.name for h in caught.value.signals] == ["立案调查"]
    with pytest.raises(MissingData) as caught:
        assess(REPAID)
    assert caught.value.flags == ["报告称风险已消除(不计风险, 请核对原文): 资金占用 (「控股股东违规占用公司"
                                  "资金2亿元，截至本公告日已归还占用的全部资金。」 → 「归还占用的全部资金」)"]
    with pytest.raises(MissingData) as caught:
        assess(ST_NO_ROE)
    assert caught.value.flags == ["ST"]


def test_a_dynamic_pe_hint_survives_known_evidence() -> None:
    only_dynamic = StockInput(code="600123.SH", name="ST动态", roe=20.0, pe_dynamic=12.0)
    row = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(
        [PoolItem(0, only_dynamic.code, only_dynamic)])[0]
    assert row.status == "failed" and (row.error or "").startswith("缺少数据: PE-TTM; 已知高风险: ST股票 (")
    assert "文件只有市盈率-动态 12, 它不是PE-TTM" in (row.error or "")


def test_every_view_of_a_failed_row_names_the_evidence() -> None:
    items = [PoolItem(n, s.code, s) for n, s in enumerate((INVESTIGATED, ST_NO_ROE, PLAIN))]
    rows = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(items)
    assert [r.status for r in rows] == ["failed"] * 3 and all(r.score is None for r in rows)
    inv, st, plain = rows
    assert (inv.error or "").startswith("缺少数据: ROE; 已知高风险: 立案调查 (2026-11-20) (")
    assert (st.error or "").startswith("缺少数据: ROE; 已知高风险: ST股票 (")
    assert "已知" not in (plain.error or "")
    # the flags and the dated signals an ok row would carry come along on the failed row (JSON, XLSX)
    assert inv.flags == [f"公告风险: 立案调查 ({TITLE})"] and [s["signal"] for s in inv.signals] == ["立案调查"]
    assert st.flags == ["ST"] and plain.flags == [] and plain.signals == []
    chat = render([row_line(r) for r in rows], "plain")
    assert "失败: 缺少数据: ROE; 已知高风险: 立案调查 (2026-11-20)" in chat[0]
    from rich.console import Console

    console = Console(width=400, record=True)
    render_table(rows, console=console)
    table = console.export_text()
    assert "已知高风险: 立案调查 (2026-11-20)" in table and "已知高风险: ST股票" in table
    assert "已知高风险: 立案调查" in inv.to_json()
    digest = build_digest(dt.date(2026, 11, 23), rows, items, ds=DigestSettings(), source="test", scope="pool",
                          history=None, save_history=False)
    md = render_markdown(digest)  # the failed list cuts each error at 80 characters: the evidence comes first
    assert "已知高风险: 立案调查 (2026-11-20)" in md and "已知高风险: ST股票" in md


def test_a_figure_the_data_source_gave_empty_does_not_advise_a_refresh() -> None:
    """A trial (2026-12-06): Eastmoney answered a null ROE for 45% of stocks; their rows said 运行 universe
    refresh, which had just run. A stock the data holds names the source that left the figure empty."""
    from screening.screen.pipeline import missing_message

    held = StockInput(code="600160.SH", name="巨化股份", pe_ttm=20.0,
                      sources={"name": "universe:akshare@2026-12-04", "pe_ttm": "universe:akshare@2026-12-04"})
    text = missing_message(held, MissingData("ROE"))
    assert "本地数据有此股, 但数据源 AKShare/东方财富 没有给出它的 ROE" in text and "universe refresh" not in text
    unknown = StockInput(code="600160.SH", pe_ttm=20.0, sources={"pe_ttm": "file"})
    assert "universe refresh" in missing_message(unknown, MissingData("ROE"))


def test_a_quote_file_without_roe_or_pe_ttm_names_both() -> None:
    """A trial (2026-12-07): a file with neither named only ROE; with ROE given, the next screen failed on PE-TTM."""
    with pytest.raises(MissingData) as caught:
        assess(StockInput(code="600125.SH", name="只有行情", pe_dynamic=18.0))
    assert caught.value.what == "ROE, PE-TTM"
