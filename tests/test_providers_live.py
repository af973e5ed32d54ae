"""Live smoke test: the real providers against the real Eastmoney / Tushare servers (needs internet).

Skipped unless SCREENER_LIVE=1; the Tushare part also needs TUSHARE_TOKEN (5000 points for the whole-market
*_vip endpoints). Run:
    SCREENER_LIVE=1 python -m pytest -q -m live tests/test_providers_live.py
The AKShare fetch pages the whole market's quotes 100 rows at a time with akshare's own 0.5-1.5 s sleeps, so it
takes a few minutes; Eastmoney may ban an IP that runs it repeatedly.
"""

from __future__ import annotations

import datetime as dt
import os
from zoneinfo import ZoneInfo

import pytest

from screening.data.providers import IncompleteData, MarketSnapshot, ProvidedStock

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(os.environ.get("SCREENER_LIVE") != "1", reason="live test: set SCREENER_LIVE=1 (internet)"),
]

CODES = ("600519.SH", "000001.SZ", "300750.SZ")  # 贵州茅台, 平安银行, 宁德时代


def _last_session() -> dt.date:
    """The session the quote board shows now (the previous trading day before 09:15; SSE calendar)."""
    from screening.data.refresh import quote_session

    return quote_session(dt.datetime.now(ZoneInfo("Asia/Shanghai")))


def _check(snap: MarketSnapshot, provider: str) -> None:
    assert snap.provider == provider and snap.provider_version
    assert len(snap.stocks) > 4000
    by_code: dict[str, ProvidedStock] = {p.stock.code: p for p in snap.stocks}
    for code in CODES:
        p = by_code[code]
        s = p.stock
        assert isinstance(s.name, str) and s.name
        assert s.market_cap is not None and s.market_cap > 1e9  # yuan
        assert s.roe is not None and -100 < s.roe < 100  # percent
        assert s.eps is not None and s.report_date is not None
        dt.date.fromisoformat(s.report_date)
        assert s.net_profit_y1 is not None and s.net_profit_y2 is not None
        assert s.pe_ttm is not None, snap.notes
        assert s.report_text is not None and s.report_text.startswith("20")
        for field, value in s.to_dict().items():
            if value is not None and field != "code":
                assert field in p.field_sources and field in p.field_dates, field
                dt.date.fromisoformat(p.field_dates[field])


def test_akshare_live() -> None:
    from screening.data.providers.akshare_provider import AkshareProvider

    snap = AkshareProvider().fetch(_last_session(), announcement_days=2)
    _check(snap, "akshare")
    assert by_code_pe_source(snap, CODES[0]).startswith("derived:总市值/TTM净利润")


def by_code_pe_source(snap: MarketSnapshot, code: str) -> str:
    return next(p.field_sources["pe_ttm"] for p in snap.stocks if p.stock.code == code)


@pytest.mark.skipif(not os.environ.get("TUSHARE_TOKEN"), reason="needs TUSHARE_TOKEN")
def test_tushare_live() -> None:
    from screening.data.providers.tushare_provider import TushareProvider

    day = _last_session()
    for _ in range(7):  # step back over holidays: daily_basic has no rows for them
        try:
            snap = TushareProvider().fetch(day, announcement_days=2)
            break
        except IncompleteData:
            day -= dt.timedelta(days=1)
    else:
        pytest.fail("no daily_basic rows in the last week")
    _check(snap, "tushare")
    assert by_code_pe_source(snap, CODES[0]) == "tushare:daily_basic.pe_ttm"
