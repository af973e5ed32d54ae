"""A count of sessions a user reads never counts a 调休待定 day as one (a trial, 2027-02-15).

The digest said "数据已 6 个交易日未更新" on 2027-02-15 for quotes of 02-03 when five of those days (02-04,
02-09..02-12) only the 2027 notice decides; the notice in tests/data closes all five, making it 1. Every caller
of ``quote_age`` (the rows' 数据过期, the digest footer, ``doctor``) now says the certain count and the undecided
days apart, and still flags data that may be stale. And a refresh the calendar kept from running is said as such,
with the import that settles it, not as "今日刷新未成功".
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.calendar_notice import import_notice
from screening.data.freshness import FLAG_STALE, quote_age, stale_notes
from screening.data.universe import Record, Universe, UniverseInfo
from screening.digest.build import data_warnings
from screening.models import StockInput
from screening.ops.doctor import check_universe
from tests.notice_2027 import NOTICE_2027_PATH

D = dt.date
QUOTES = {"price": "2027-02-03", "pe_ttm": "2027-02-03"}
PENDING = "另有 5 天交易与否待定: 2027年春节调休安排未导入"


def _info(trade_date: str) -> UniverseInfo:
    return UniverseInfo(provider="akshare", provider_version="1.19.5", trade_date=trade_date, count=1)


def test_undecided_days_are_counted_apart_and_named(tmp_path: Path) -> None:
    age = quote_age(D(2027, 2, 3), D(2027, 2, 15), store=tmp_path)
    assert (age.known, age.most) == (1, 6)
    assert [st.day for st in age.undecided] == [D(2027, 2, 4), *(D(2027, 2, d) for d in range(9, 13))]
    assert age.pending() == PENDING
    import_notice(NOTICE_2027_PATH, tmp_path)
    settled = quote_age(D(2027, 2, 3), D(2027, 2, 15), store=tmp_path)
    assert (settled.known, settled.undecided) == (2, ())  # 02-04 opens, 02-09..02-12 close: no guess was needed


def test_a_row_says_possibly_stale_with_the_certain_count(tmp_path: Path) -> None:
    (note,) = stale_notes(QUOTES, D(2027, 2, 15), 3, store=tmp_path)
    assert note == (f"{FLAG_STALE}: 行情 PE-TTM, 最新价 为 2027-02-03 (可能超过 3 个交易日: 之后确定的交易日 1 个, "
                    f"{PENDING})")
    # certain staleness keeps its short wording, whatever is undecided besides
    (late,) = stale_notes(QUOTES, D(2027, 2, 22), 3, store=tmp_path)
    assert late.endswith("为 2027-02-03 (超过 3 个交易日)")
    import_notice(NOTICE_2027_PATH, tmp_path)
    assert stale_notes(QUOTES, D(2027, 2, 15), 3, store=tmp_path) == []


def test_digest_footer_counts_certain_days_and_names_the_refusal(tmp_path: Path) -> None:
    ds = DigestSettings(calendar_dir=str(tmp_path))
    stale, refresh = data_warnings(_info("2027-02-03"), D(2027, 2, 15), ds)
    assert stale.startswith(f"数据已 1 个交易日未更新 (行情 2027-02-03; {PENDING})")
    assert stale.endswith("/ data is 1 trading day old, 5 more undecided")  # one day: no plural s
    assert "今日刷新未成功" not in stale + refresh
    assert refresh.startswith("今日未刷新 (非故障): 2027-02-12 调休待定")
    assert "`python -m screening calendar import FILE`" in refresh
    # on an undecided day itself the scheduled refresh is skipped: said so, with the same fix
    only_undecided, skipped = data_warnings(_info("2027-02-03"), D(2027, 2, 9), ds)
    assert only_undecided.startswith("数据可能未更新: 行情 2027-02-03 之后有 2 天交易与否待定")
    assert skipped.startswith("今日未刷新 (非故障): 今天 2027-02-09 调休待定")
    import_notice(NOTICE_2027_PATH, tmp_path)
    assert data_warnings(_info("2027-02-03"), D(2027, 2, 15), ds) == [
        "数据已 2 个交易日未更新 (行情 2027-02-03); 今日刷新未成功 / data is 2 trading days old"]


def test_a_refresh_that_failed_on_a_known_day_still_says_so(tmp_path: Path) -> None:
    ds = DigestSettings(calendar_dir=str(tmp_path))
    assert data_warnings(_info("2026-12-04"), D(2026, 12, 10), ds) == [
        "数据已 4 个交易日未更新 (行情 2026-12-04); 今日刷新未成功 / data is 4 trading days old"]


def test_doctor_reads_the_same_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "universe.sqlite"
    Universe.load(path).replace([Record(StockInput(code="600001.SH", name="甲", price=10.0), {"price": "akshare"},
                                        {"price": "2027-02-03"})], _info("2027-02-03"))
    settings = Settings(digest=DigestSettings(calendar_dir=str(tmp_path / "cal")),
                        universe=UniverseSettings(path=str(path)))
    monkeypatch.setattr("screening.data.freshness.market_today", lambda: D(2027, 2, 15))
    findings = check_universe(settings)
    assert any(f.level == "warn" and f.message == f"quotes are 1 trading day old (2027-02-03); {PENDING}"
               and "calendar import FILE" in f.fix for f in findings), findings
