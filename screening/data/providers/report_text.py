"""Compose the report text the model reads, from real material only.

The model's one judgement the rules cannot make is reading for risk (立案调查, 减持, 商誉减值, 退市风险警示 ...),
so it gets: the latest report's figures in one sentence, the 业绩预告 and its stated reason when there is one,
and the announcement titles of the last N days with dates, newest first. Every word comes from the data (titles
and reasons verbatim, figures as reported); nothing is said about the company that the data does not say, and a
part whose data is not available is left out rather than described. Pure: same input, same text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from screening.data.providers.forecast_words import figures_clause, forecast_body, in_units
from screening.data.providers.fundamentals import PeriodFigures
from screening.data.providers.periods import is_annual, label


@dataclass(frozen=True)
class Forecast:
    """One 业绩预告, as published."""

    period: dt.date
    notice_date: dt.date | None = None
    kind: str | None = None  # 预告类型, e.g. 预增, 首亏
    content: str | None = None  # 业绩变动 / summary
    reason: str | None = None  # 业绩变动原因
    revised: bool = False  # a later notice replaced an earlier forecast of the same period (业绩预告修正)
    # the 预测指标 when the forecast is not of the net profit (a stock that forecast only its 营业收入 or 每股收益): the
    # floor reads a negative figure as a loss by its metric (screen/signal_forecast.py); unnamed, it is the profit's
    metric: str | None = None
    # 东方财富's 预测数值 (the forecast's midpoint), 上年同期值 and 业绩变动幅度 (%): written by forecast_words.py
    value: float | None = None
    last_year: float | None = None
    change_pct: float | None = None


@dataclass(frozen=True)
class Announcement:
    day: dt.date
    title: str


def money(yuan: float) -> str:
    """Yuan in the units Chinese reports use (亿元 from 1e8, 万元 from 1e4), two decimals."""
    value, unit = in_units(yuan)
    return f"{value:.2f}{unit}"


def _pct(value: float, *, signed: bool = False) -> str:
    return f"{value:+.2f}%" if signed else f"{value:.2f}%"


def roe_period(period: dt.date) -> str:
    """The period the text's ROE is of, e.g. 2026年三季报累计 or 2025年年报.

    The row's ``roe`` is the last ANNUAL ROE (records.put_fiscal_years) while the latest report's is cumulative
    for the year so far; stating the period keeps the two apart for the reader, and lets ``rules.data_doubts``
    compare the text's ROE with the data's only when both are of the same period.
    """
    return label(period) + ("" if is_annual(period) else "累计")


def figures_sentence(r: PeriodFigures) -> str:
    """E.g. 2026年三季报（截至2026-09-30，2026-10-18公告）：营业总收入12.35亿元，同比+8.21%；净利润...；
    ROE（2026年三季报累计）5.12%；..."""
    head = f"{label(r.period)}（截至{r.period.isoformat()}"
    head += f"，{r.notice_date.isoformat()}公告）" if r.notice_date else "）"
    parts = []
    if r.revenue is not None:
        part = f"营业总收入{money(r.revenue)}"
        if r.revenue_yoy is not None:
            part += f"，同比{_pct(r.revenue_yoy, signed=True)}"
        parts.append(part)
    if r.net_profit is not None:
        part = f"净利润{money(r.net_profit)}"
        if r.net_profit_yoy is not None:
            part += f"，同比{_pct(r.net_profit_yoy, signed=True)}"
        parts.append(part)
    if r.roe is not None:  # its period said: a quarter's ROE is cumulative, never the annual ROE the rules read
        parts.append(f"ROE（{roe_period(r.period)}）{_pct(r.roe)}")
    if r.gross_margin is not None:
        parts.append(f"销售毛利率{_pct(r.gross_margin)}")
    return head + "：" + ("；".join(parts) if parts else "报告无营收、利润数据") + "。"


def forecast_sentence(f: Forecast) -> str:
    """The forecast as the pool writes one from an export's columns (pool_rows.join_forecast): the same body and
    figures (forecast_words.py), the period and a revision said in the head."""
    head = f"业绩预告{'修正' if f.revised else ''}（{label(f.period)}"
    head += f"，{f.notice_date.isoformat()}公告" if f.notice_date else ""
    head += f"，预测指标 {f.metric}）" if f.metric else "）"
    figures = figures_clause(f.metric, f.value, f.last_year, f.change_pct)
    return head + "：" + forecast_body(f.kind, f.content, f.reason, figures)


def _strip_own_name(title: str, name: str | None) -> str:
    """Eastmoney titles repeat the company's short name ("名称:标题"); the row already names it."""
    text = " ".join(title.split())
    if name:
        for sep in (":", "："):
            if text.startswith(name + sep):
                return text[len(name) + 1 :].strip()
    return text


def announcements_block(
    items: Sequence[Announcement], *, days: int, name: str | None = None, max_titles: int | None = None
) -> str:
    """Every title of the last ``days`` days, newest first, one per line; the same title on the same day once.

    No title is ever left out, whatever ``max_titles`` says (kept only so callers that still pass it work):
    the rules floor reads its text signals (立案调查, 其他风险警示 ...) from this text, and an annual-report day
    alone brings 20-50 titles, so a cut at the newest N dropped a risk title silently and the row came out
    低/100. Which titles are risks is known only in screen/ (data/ must not import it); the window bounds the
    length, the floor reads the whole text, and the model's copy is cut by tokens in screen/ with a flag.
    """
    del max_titles
    seen: set[tuple[dt.date, str]] = set()
    rows: list[tuple[dt.date, str]] = []
    for a in sorted(items, key=lambda a: a.day, reverse=True):
        title = _strip_own_name(a.title, name)
        if title and (a.day, title) not in seen:
            seen.add((a.day, title))
            rows.append((a.day, title))
    if not rows:
        return f"近{days}日无公告。"
    return "\n".join([f"近{days}日公告（新→旧）："] + [f"{day.isoformat()} {title}" for day, title in rows])


def compose_report_text(
    *,
    latest: PeriodFigures | None,
    forecast: Forecast | None,
    announcements: Sequence[Announcement] | None,
    days: int,
    name: str | None = None,
    max_titles: int | None = 20,
) -> str | None:
    """The text for one stock, or None when there is no material at all.

    ``announcements=None`` means the titles were not fetched (e.g. no entitlement): the block is left out, so
    the text never claims "no announcements" it did not check.
    """
    parts = []
    if latest is not None:
        parts.append(figures_sentence(latest))
    if forecast is not None:
        parts.append(forecast_sentence(forecast))
    if announcements is not None:
        parts.append(announcements_block(announcements, days=days, name=name, max_titles=max_titles))
    return "\n".join(parts) if parts else None
