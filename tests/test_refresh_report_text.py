"""A carried report's sentence in the report text (data/refresh_report_text.py), on texts the providers' own composer
writes (report_text.compose_report_text): the paths the fake market's refresh trial does not reach.

The trial (tests/test_refresh_trial_b.py) checks the common one on both providers: the last good universe's
sentence of the carried report takes the older one's place. Here: a 业绩预告 of the carried period goes with it
(that report is out, so it forecasts nothing, as records.current_forecast drops one); where the last text has no
sentence of that report, a line says which report the remaining sentence is of; the titles' carried origin stays
last in the source id, where refresh_titles.origin_of reads it.
"""

from __future__ import annotations

import datetime as dt

from screening.data.providers.base import ProvidedStock
from screening.data.providers.fundamentals import PeriodFigures
from screening.data.providers.report_text import Announcement, Forecast, compose_report_text
from screening.data.refresh_report_text import carry_sentence
from screening.data.refresh_titles import CARRIED
from screening.data.universe import Record
from screening.models import StockInput

H1, Q3 = dt.date(2026, 6, 30), dt.date(2026, 9, 30)
FLAG = "财报沿用上次刷新: 本次刷新数据源缺少该股 2026-09-30 报告, 沿用 2026-12-05 刷新的数据"
TITLES = [Announcement(dt.date(2026, 12, 3), "关于违规担保的风险提示公告")]


def _figures(period: dt.date) -> PeriodFigures:
    return PeriodFigures(period, f"akshare:stock_yjbb_em({period:%Y%m%d})", revenue=1.2e9, net_profit=1.1e8,
                         roe=5.5, eps=0.3, notice_date=period + dt.timedelta(days=40))


def _text(figures: PeriodFigures | None, forecast: Forecast | None = None) -> str:
    text = compose_report_text(latest=figures, forecast=forecast, announcements=TITLES, days=3)
    assert text is not None
    return text


def _answer(text: str, source: str) -> ProvidedStock:
    return ProvidedStock(StockInput(code="000021.SZ", report_text=text), field_dates={"report_text": "2026-12-03"},
                         field_sources={"report_text": source})


def test_a_forecast_of_the_carried_period_goes_with_the_older_sentence() -> None:
    q3_forecast = Forecast(Q3, dt.date(2026, 10, 10), "预增", "净利润同比增长50%")
    p = _answer(_text(_figures(H1), q3_forecast), "composed:akshare:stock_yjbb_em(20260630)+stock_yjyg_em(20260930)"
                f"+stock_notice_report+{CARRIED}akshare:stock_notice_report@2026-12-04T08:00:00+08:00")
    rec = Record(StockInput(code="000021.SZ", report_text=_text(_figures(Q3))),
                 {"report_date": "akshare:stock_yjbb_em(20260930)"}, {"report_date@notice": "2026-11-09"})
    carry_sentence(p, rec, "2026-06-30", "2026-09-30", FLAG)
    text = p.stock.report_text or ""
    assert text.splitlines() == [_text(_figures(Q3)).splitlines()[0], *_text(None).splitlines()], text
    assert p.field_sources["report_text"] == (
        "composed:akshare:stock_yjyg_em(20260930)+stock_notice_report+财报沿用上次刷新:akshare:stock_yjbb_em(20260930)"
        f"+{CARRIED}akshare:stock_notice_report@2026-12-04T08:00:00+08:00")
    assert p.field_dates["report_text"] == "2026-12-03"  # its newest material: a title of 12-03


def test_without_the_carried_sentence_the_older_one_is_said_to_be_older() -> None:
    p = _answer(_text(_figures(H1)), "composed:akshare:stock_yjbb_em(20260630)+stock_notice_report")
    rec = Record(StockInput(code="000021.SZ", report_text=_text(None)), {"report_date": "akshare:x"}, {})
    carry_sentence(p, rec, "2026-06-30", "2026-09-30", FLAG)
    lines = (p.stock.report_text or "").splitlines()
    assert lines[0] == f"（{FLAG}；下句为其 2026-06-30 报告）", lines
    assert lines[1:] == _text(_figures(H1)).splitlines()  # the older sentence stays, said to be older
    assert p.field_sources["report_text"].endswith("+stock_notice_report+财报沿用上次刷新:akshare:x")
