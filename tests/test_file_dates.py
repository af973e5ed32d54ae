"""A file's own dates, aged as the universe's are (a user trial of 2026-12-07, the eighteenth session: F5, F6, F12).

F5: a quote date the file states (通达信's title line, i问财's header stamp, a 日期 column) was ignored: a three-month
old PE-TTM came back 低/100 with no flag and data_date null. F6: a stale report period was 数据过期 only when spelled
2026-06-30 or 20260630 (2026.06.30, 2026年中报, 2026H1, 2026Q1, i问财's 净资产收益率[20231231] were not). F12: a
report period not yet over (FY2026 in December 2026) and an announcement dated next year were taken as fact.
Each case is a real file in tmp_path, read by the entry point `screen FILE` uses (load_pool) and screened by the
rules, with today fixed to Monday 2026-12-07.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import openpyxl
import pytest

from screening.cli import main
from screening.config import BatcherSettings, EngineSettings, Settings, UniverseSettings
from screening.data.load import load_pool
from screening.data.row_checks import period_end
from screening.data.universe import Universe
from screening.engines.rules_engine import RulesEngine
from screening.models import NOTE_FUTURE_DATE, ResultRow, is_doubt
from screening.screen.pipeline import Screener

TODAY = dt.date(2026, 12, 7)
STALE_QUOTE = "数据过期: 行情 PE-TTM"


def _screen(tmp_path: Path, name: str, content: str | bytes) -> list[ResultRow]:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8-sig")
    else:
        path.write_bytes(content)
    u_path = tmp_path / "u.sqlite"  # empty: every figure is the file's
    settings = Settings().model_copy(update={"universe": UniverseSettings(path=str(u_path))})
    pool = load_pool([str(path)], settings, universe=Universe.load(u_path), today=TODAY)
    return Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(pool.items)


IWENCAI_ROE = "代码,名称,市盈率(TTM),净资产收益率[{}]\n600519,贵州茅台,22.5,34.2\n"
PERIOD_FILE = "代码,名称,市盈率(TTM),ROE(%),报告期\n600519,贵州茅台,22.5,34.2,{}\n"


def _flags(row: ResultRow, start: str) -> list[str]:
    return [f for f in row.flags if f.startswith(start)]


TDX_OLD = ("沪深A股 2026-09-01\n代码\t名称\t涨幅%\t现价\t市盈率(TTM)\t净资产收益率%\t细分行业\n"
           "600519\t贵州茅台\t1.25\t1520.00\t22.5\t34.2\t白酒\n数据来源:通达信\n")
IWENCAI_OLD = ("股票代码,股票简称,最新价(元)[20260901],\"市盈率(pe,ttm)[20260901]\","
               "\"净资产收益率roe(加权,公布值)[20251231]\"\n600519.SH,贵州茅台,1520,22.5,34.2\n")
DATE_COLUMN = "代码,名称,市盈率(TTM),ROE(%),日期\n600519,贵州茅台,22.5,34.2,2026-09-01\n"


@pytest.mark.parametrize(("name", "content"), [
    ("tdx_old.txt", TDX_OLD.encode("gbk")), ("iwencai_old.csv", IWENCAI_OLD), ("datecol.csv", DATE_COLUMN),
    ("datecol2.csv", DATE_COLUMN.replace("日期", "交易日期").replace("2026-09-01", "2026年9月1日")),
])
def test_a_quote_date_the_file_states_dates_the_row_and_ages_it(tmp_path: Path, name: str,
                                                                 content: str | bytes) -> None:
    (row,) = _screen(tmp_path, name, content)
    assert row.status == "ok" and row.data_date == "2026-09-01"
    (flag,) = _flags(row, STALE_QUOTE)
    assert "为 2026-09-01 (超过 3 个交易日)" in flag  # the universe's quotes' wording


def test_a_quote_date_within_three_sessions_is_no_flag_and_an_unreadable_one_is_said(tmp_path: Path) -> None:
    fresh = DATE_COLUMN.replace("2026-09-01", "2026-12-03")  # Thu: Fri and Mon since, 2 sessions
    (row,) = _screen(tmp_path, "fresh.csv", fresh)
    assert row.data_date == "2026-12-03" and not _flags(row, "数据过期")
    (row,) = _screen(tmp_path, "bad.csv", DATE_COLUMN.replace("2026-09-01", "上周"))
    assert row.data_date is None and any("'上周' 不是日期" in f and is_doubt(f) for f in row.flags)


@pytest.mark.parametrize("spelled", [
    "2026-06-30", "20260630", "2026.06.30", "2026/6/30", "2026年6月30日", "2026年中报", "2026年半年报",
    "2026半年度报告", "2026H1", "2026Q1", "2026年一季度报告", "2026一季报", "2026-1Q",
])
def test_a_superseded_quarter_is_stale_however_its_period_is_spelled(tmp_path: Path, spelled: str) -> None:
    (row,) = _screen(tmp_path, "p.csv", f"代码,名称,市盈率(TTM),ROE(%),报告期\n600519,贵州茅台,22.5,18,{spelled}\n")
    assert _flags(row, "ROE非年报")
    (stale,) = _flags(row, "数据过期: 财报 ROE")
    assert "2026-06-30 报告期" in stale or "2026-03-31 报告期" in stale


@pytest.mark.parametrize(("spelled", "end"), [
    ("2026年三季报", "2026-09-30"), ("2026Q3", "2026-09-30"), ("2026年报", "2026-12-31"),
    ("2026年度报告", "2026-12-31"), ("2026A", "2026-12-31"), ("2025年年报", "2025-12-31"),
    ("20231231", "2023-12-31"), ("2026年6月30日", "2026-06-30"),
])
def test_every_spelling_of_a_period_reads_to_its_last_day(spelled: str, end: str) -> None:
    assert str(period_end(spelled)) == end


@pytest.mark.parametrize("spelled", ["2023年报", "2023A", "2023年度报告", "2023.12.31"])
def test_an_annual_roe_two_years_old_is_stale_in_any_spelling(tmp_path: Path, spelled: str) -> None:
    (row,) = _screen(tmp_path, "a.csv", f"代码,名称,市盈率(TTM),ROE(%),报告期\n600519,贵州茅台,22.5,18,{spelled}\n")
    (stale,) = _flags(row, "数据过期: 财报 ROE")
    assert "2023-12-31 报告期" in stale and not _flags(row, "ROE非年报")


def test_an_iwencai_roe_stamp_is_aged_as_its_period(tmp_path: Path) -> None:
    (annual,) = _screen(tmp_path, "iw.csv", IWENCAI_ROE.format("20231231"))
    assert [f for f in annual.flags if "ROE 为 2023-12-31 报告期" in f] and annual.risk_level == "低"
    (quarter,) = _screen(tmp_path, "iwq.csv", IWENCAI_ROE.format("20230930"))
    assert _flags(quarter, "ROE非年报") and [f for f in quarter.flags if "ROE 为 2023-09-30 报告期" in f]


def test_a_report_period_not_yet_over_is_flagged_and_its_roe_still_used(tmp_path: Path) -> None:
    annual, half = _screen(tmp_path, "future.csv", "代码,名称,市盈率(TTM),ROE(%),报告期\n"
                                                 "600519,贵州茅台,22.5,34.2,2026-12-31\n300750,宁德时代,24.8,22.5,2027-06-30\n")
    (flag,) = _flags(annual, NOTE_FUTURE_DATE)
    assert "报告期 2026-12-31 尚未结束" in flag and is_doubt(flag)
    assert annual.roe == 34.2 and annual.risk_level == "低"  # the user's figure, used and flagged
    assert _flags(half, "ROE非年报") and "报告期 2027-06-30 尚未结束" in _flags(half, NOTE_FUTURE_DATE)[0]
    (stamped,) = _screen(tmp_path, "iwf.csv", IWENCAI_ROE.format("20261231"))
    assert any("ROE 表头的报告期 2026-12-31 尚未结束" in f for f in _flags(stamped, NOTE_FUTURE_DATE))
    (past,) = _screen(tmp_path, "past.csv", PERIOD_FILE.format("2025-12-31"))
    assert not _flags(past, NOTE_FUTURE_DATE) and not _flags(past, "数据过期")


def test_a_risk_title_dated_after_today_keeps_its_risk_and_says_the_date_is_doubtful(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["代码", "名称", "市盈率(TTM)", "ROE(%)", "公告标题", "公告日期"])
    title = "关于收到中国证券监督管理委员会立案告知书的公告"
    ws.append(["600204", "某某股份", 20, 18, title, dt.datetime(2027, 1, 15)])
    ws.append(["600205", "另一股份", 20, 18, title, dt.datetime(2026, 11, 20)])
    wb.save(tmp_path / "notices.xlsx")
    future, past = _screen(tmp_path, "notices.xlsx", (tmp_path / "notices.xlsx").read_bytes())
    assert future.risk_level == "高" and past.risk_level == "高"  # risk only rises
    (flag,) = _flags(future, NOTE_FUTURE_DATE)
    assert "公告日期 2027-01-15 晚于今天 (2026-12-07)" in flag and "照常计入" in flag
    assert not _flags(past, NOTE_FUTURE_DATE)


def test_universe_import_dates_a_file_by_the_quote_date_it_states(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Imported without --as-of, a 通达信 export of 2026-09-01 was stored as today's quotes: every later screen of
    its stocks read them as current. Now the title's day dates the rows, said on stderr."""
    u_path = tmp_path / "u.sqlite"
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(u_path))
    (tmp_path / "tdx_old.txt").write_bytes(TDX_OLD.encode("gbk"))
    assert main(["universe", "import", str(tmp_path / "tdx_old.txt")]) == 0
    assert "1 行按文件所写的行情日期 2026-09-01 记录" in capsys.readouterr().err
    assert Universe.load(u_path).field_dates("600519.SH")["pe_ttm"] == "2026-09-01"
