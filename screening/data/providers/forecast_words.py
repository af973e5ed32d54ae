"""A 业绩预告's own figures (预测数值, 上年同期值, 业绩变动幅度) in the words the text-risk floor reads.

东方财富's 业绩预告 table (akshare's ``stock_yjyg_em``, the page's export) gives beside the 业绩变动 text three
figures: 预测数值 (FORECAST_JZ, the forecast's midpoint, in yuan), 上年同期值 (PREYEAR_SAME_PERIOD) and 业绩变动幅度
(INCREASE_JZ, the change's midpoint, in percent). A user's export whose only sign of a loss was ``-2.0E8`` under
预测数值 (业绩变动 and 预告类型 empty) came back 低 (the twentieth session): the pool dropped the three columns as
figures no field reads, and the providers never asked for them. Both paths now write them, the same way, into the
forecast line's first sentence (``业绩预告（…，预测指标 <metric>）：<kind>，预测数值 -2亿元，上年同期 -5,000万元，
变动幅度 -300%。``), the sentence the line's head dates and names the metric of, so screen/signal_forecast.py reads
them by that metric: a profit's negative 预测数值 is a loss, with a negative 上年同期 a second one, a profit's
变动幅度 of -50% or worse a 预减, a net asset's negative figure the *ST trigger. A growth, a revenue figure or a
rate's figure says nothing.

The figures are written as given, never more precise: ``-2.0E8`` is ``-2亿元``, not ``-2.00亿元``; an amount in 亿
keeps four decimals (1万元), one in 万 two (100元), and trailing zeros go. A per-share metric's figure is 元 a
share, a rate's is written bare (its unit is not known here). 上年同期 comes before 变动幅度: a change's minus
must never stand before 上年同期 (…-35%，上年同期1亿元 would read a loss the year before).
"""

from __future__ import annotations

import re

# 预测指标 whose figures are no amount in yuan (matched anywhere in the metric): (words, how a figure is written)
PER_SHARE = ("每股",)  # 基本每股收益, 每股净资产: 元 a share, as reported
RATES = ("率", "比例", "比重")  # 净利润增长率, 毛利率: written bare, no unit invented
_SENTENCE_END = re.compile(r"[。；;！!？?]")


def _digits(value: float, places: int) -> str:
    """``value`` to at most ``places`` decimals, thousands grouped, trailing zeros dropped (never added)."""
    text = f"{value:,.{places}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return f"{value:g}" if text in ("0", "-0") and value else text


# the units Chinese reports write money in, largest first: (the size from which a unit is used, its name)
UNITS = ((1e8, "亿元"), (1e4, "万元"), (1.0, "元"))
# decimals an amount keeps in each unit, trailing zeros dropped: down to 1万元 in 亿, 1元 in 万 (never more)
_PLACES = {"亿元": 4, "万元": 2, "元": 2}


def in_units(yuan: float) -> tuple[float, str]:
    """Yuan as a number of the largest unit it reaches (-2.0E8 -> (-2.0, 亿元)): one scale for this line's figures
    and report_text.money's fixed two decimals."""
    size = abs(yuan)
    scale, unit = next(((s, u) for s, u in UNITS if size >= s), UNITS[-1])
    return yuan / scale, unit


def amount(yuan: float) -> str:
    """Yuan as Chinese reports write it, in 亿元 from 1e8 and 万元 from 1e4: -2.0E8 -> -2亿元, -5E7 -> -5,000万元."""
    value, unit = in_units(yuan)
    return f"{_digits(value, _PLACES[unit])}{unit}"


def figure(metric: str | None, value: float) -> str:
    """One figure of a forecast of ``metric`` (None: the net profit's), in its unit."""
    if metric and any(w in metric for w in RATES):
        return _digits(value, 4)
    if metric and any(w in metric for w in PER_SHARE):
        return f"{_digits(value, 4)}元"
    return amount(value)


def figures_clause(metric: str | None, value: float | None, last_year: float | None,
                   change_pct: float | None) -> str | None:
    """``预测数值 -2亿元，上年同期 -5,000万元，变动幅度 -300%`` (the figures given), None with none."""
    parts = []
    if value is not None:
        parts.append(f"预测数值 {figure(metric, value)}")
    if last_year is not None:
        parts.append(f"上年同期 {figure(metric, last_year)}")
    if change_pct is not None:
        parts.append(f"变动幅度 {'+' if change_pct > 0 else ''}{_digits(change_pct, 2)}%")
    return "，".join(parts) or None


def forecast_body(kind: str | None, change: str | None, reason: str | None, figures: str | None) -> str:
    """The line after its head: ``<kind>。<change>。业绩变动原因：<reason>。``, the figures joined to its first
    sentence (after the kind, or after the change's first sentence when there is no kind, or alone): that sentence
    is the one the head dates and names the metric of, and a bare figure range right after the head
    (-8,000万元至-6,000万元) stays where signal_forecast.py reads it."""
    sentences = [part.strip().rstrip("。") for part in (kind, change) if part and part.strip().rstrip("。")]
    if figures:
        if not sentences:
            sentences = [figures]
        else:
            first = sentences[0]
            end = _SENTENCE_END.search(first)
            cut = end.start() if end else len(first)
            sentences[0] = f"{first[:cut].rstrip('，,')}，{figures}{first[cut:]}"
    body = "".join(f"{s}。" for s in sentences)
    if reason and reason.strip().rstrip("。"):
        body += f"业绩变动原因：{reason.strip().rstrip('。')}。"
    return body
