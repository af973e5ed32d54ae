"""compose_report_text is pure: every word from the data, nothing claimed that was not checked."""

from __future__ import annotations

import datetime as dt

from screening.data.providers.fundamentals import PeriodFigures
from screening.data.providers.report_text import Announcement, Forecast, compose_report_text, money

Q3 = PeriodFigures(
    period=dt.date(2026, 9, 30), source="akshare:stock_yjbb_em(20260930)", revenue=1_235_000_000.0,
    revenue_yoy=8.214, net_profit=-102_000_000.0, net_profit_yoy=-3.4, roe=5.123, gross_margin=23.4,
    notice_date=dt.date(2026, 10, 28),
)


def test_figures_sentence() -> None:
    text = compose_report_text(latest=Q3, forecast=None, announcements=None, days=30)
    assert text == (
        "2026年三季报（截至2026-09-30，2026-10-28公告）：营业总收入12.35亿元，同比+8.21%；净利润-1.02亿元，"
        "同比-3.40%；ROE（2026年三季报累计）5.12%；销售毛利率23.40%。"
    )


def test_missing_figures_are_left_out_not_described() -> None:
    bare = PeriodFigures(period=dt.date(2025, 12, 31), source="x", roe=12.0)
    text = compose_report_text(latest=bare, forecast=None, announcements=None, days=30)
    assert text == "2025年年报（截至2025-12-31）：ROE（2025年年报）12.00%。"


def test_forecast_reason_verbatim() -> None:
    f = Forecast(period=dt.date(2026, 12, 31), notice_date=dt.date(2026, 10, 28), kind="首亏",
                 content="预计2026年1-12月归属于上市公司股东的净利润-5000.00万元至-4000.00万元。",
                 reason="报告期内，计提商誉减值准备。")
    text = compose_report_text(latest=None, forecast=f, announcements=None, days=30)
    assert text == (
        "业绩预告（2026年年报，2026-10-28公告）：首亏。预计2026年1-12月归属于上市公司股东的净利润-5000.00万元至"
        "-4000.00万元。业绩变动原因：报告期内，计提商誉减值准备。"
    )


def test_titles_newest_first_deduplicated_own_name_stripped_and_never_cut() -> None:
    """A cap would drop the oldest title, here a 减持 the floor reads as a risk: ``max_titles`` cuts nothing."""
    items = [
        Announcement(dt.date(2026, 11, 20), "东仿科技:关于持股5%以上股东减持股份的预披露公告"),
        Announcement(dt.date(2026, 12, 2), "东仿科技:关于收到中国证券监督管理委员会立案告知书的公告"),
        Announcement(dt.date(2026, 12, 2), "东仿科技:关于收到中国证券监督管理委员会立案告知书的公告"),
        Announcement(dt.date(2026, 11, 25), "关于涉及重大诉讼的公告"),
    ]
    text = compose_report_text(latest=None, forecast=None, announcements=items, days=30, name="东仿科技",
                               max_titles=2)
    assert text == (
        "近30日公告（新→旧）：\n"
        "2026-12-02 关于收到中国证券监督管理委员会立案告知书的公告\n"
        "2026-11-25 关于涉及重大诉讼的公告\n"
        "2026-11-20 关于持股5%以上股东减持股份的预披露公告"
    )


def test_checked_and_empty_versus_not_fetched() -> None:
    assert compose_report_text(latest=None, forecast=None, announcements=[], days=7) == "近7日无公告。"
    assert compose_report_text(latest=None, forecast=None, announcements=None, days=7) is None


def test_pure_same_input_same_text() -> None:
    args = {"latest": Q3, "forecast": None, "announcements": [Announcement(dt.date(2026, 12, 1), "t")], "days": 30}
    assert compose_report_text(**args) == compose_report_text(**args)  # type: ignore[arg-type]


def test_money_units() -> None:
    assert (money(123_456_789.0), money(56_789.0), money(12.5), money(-2e8)) == (
        "1.23亿元", "5.68万元", "12.50元", "-2.00亿元"
    )
