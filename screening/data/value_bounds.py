"""Plausible ranges per numeric column, so a figure from the wrong column fails instead of scoring.

"12.5亿" typed into a ROE column parses as 1,250,000,000 and would score 100; "1e301" under a
"(亿)" header overflows to infinity and takes the job down. Each field has a range wide enough for
every real A share (the reasons below say why each edge is where it is), and a unit it takes: a
money unit (亿/万) in a percent column, or a % in a money column, is the wrong figure in the wrong
place and is named as such. A value outside its range fails that cell with the reason; the rest of
the row's figures are never guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

Kind = Literal["percent", "ratio", "per_share", "money"]
_MONEY_UNITS = frozenset({"亿", "万", "万亿", "亿元", "万元", "万亿元"})  # magnitudes of money, in a cell or header


@dataclass(frozen=True)
class Bound:
    """The range a figure of one field can take, in the unit the rules read it in."""

    kind: Kind
    low: float
    high: float
    unit: str  # how the range is written in messages
    why: str  # why the range's edges are where they are (said when a value falls outside)


_PROFIT_WHY = "净利润 is in yuan; the largest A-share profit is about 3,600亿"
BOUNDS: dict[str, Bound] = {
    # percent: net profit over equity. Real A shares sit within about ±100%; only an equity base
    # near zero pushes further. A figure past ±1000% is a money amount or a fraction scaled wrong.
    "roe": Bound("percent", -1000.0, 1000.0, "%", "ROE is a percentage; real values lie within about ±100%"),
    # percent of the previous close: a price cannot fall more than 100%; the daily limits are
    # 10/20/30%, and only first-day trading of a new listing (no limit) goes far beyond, into the
    # hundreds of percent. 5,000% leaves room for any first day.
    "change_pct": Bound("percent", -100.0, 5000.0, "%",
                        "涨跌幅 is a percentage of the previous close; it cannot fall below -100%"),
    # price over trailing earnings: near-zero earnings give PEs in the tens of thousands, and
    # vendors show a loss as a negative PE. Past a million the figure is a unit slip, not a PE.
    "pe_ttm": Bound("ratio", -1e6, 1e6, "倍", "PE-TTM is price over earnings, a ratio (times), not money"),
    "pe_dynamic": Bound("ratio", -1e6, 1e6, "倍", "市盈率-动态 is price over earnings, a ratio (times), not money"),
    # price over book value per share: negative when equity is negative, large when it is near zero.
    "pb": Bound("ratio", -1e5, 1e5, "倍", "市净率 is price over book value, a ratio (times), not money"),
    # yuan per share: the highest A-share EPS is about 70 元 (贵州茅台). Past ±1000 元 the figure
    # is a company total (元/万/亿), not a per-share amount.
    "eps": Bound("per_share", -1000.0, 1000.0, "元/股", "EPS is yuan per share; the highest A share's is about 70"),
    # yuan per share: the highest A-share price has been about 2,600 元; 0 is what some exports show
    # for a suspended stock; a price is never negative.
    "price": Bound("per_share", 0.0, 1e5, "元", "a share price in yuan; the highest A share's is about 2,600"),
    # yuan: the largest A-share company is worth about 3万亿 元 (3e12) and the whole market about
    # 100万亿; the smallest are worth a few 亿. Under 1000万 元 the column was meant in 万 or 亿.
    "market_cap": Bound("money", 1e7, 5e13, "元",
                        "总市值 is in yuan; A-share companies are worth between a few 亿 and about 3万亿"),
    # yuan: the largest annual profit is about 3,600亿 元 (工商银行); 10万亿 is beyond any company's.
    # No lower edge: a real profit can be arbitrarily close to zero.
    "net_profit_y1": Bound("money", -1e13, 1e13, "元", _PROFIT_WHY),
    "net_profit_y2": Bound("money", -1e13, 1e13, "元", _PROFIT_WHY),
}


def _fmt(value: float) -> str:
    if value == 0 or 1e-3 <= abs(value) < 1e15:
        return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return f"{value:.3g}"


def check_value(field: str, raw: str, number: float, cell_unit: str | None, header: str,
                header_unit: str | None, scale: float) -> tuple[float | None, str | None]:
    """The value after the header's unit scale, or the reason the cell cannot hold it.

    ``number`` is the cell parsed with its own unit already multiplied out; ``cell_unit`` is the
    unit the cell wrote ("12.5亿" -> "亿"), ``header_unit``/``scale`` the header's ("总市值(亿)").
    """
    bound = BOUNDS.get(field)
    value = number * scale
    if not math.isfinite(value):
        by = f" × {scale:,.0f} ({header_unit} in the header {header!r})" if scale != 1.0 else ""
        return None, f"number too large: {raw.strip()!r}{by} overflows; no real {field} is that big"
    if bound is None:
        return value, None
    wrong = _wrong_unit(bound, field, cell_unit, header, header_unit)
    if wrong:
        return None, wrong
    if bound.low <= value <= bound.high:
        return value, None
    reason = (f"{field} {_fmt(value)} is outside the plausible range {_fmt(bound.low)} .. {_fmt(bound.high)} "
              f"{bound.unit} ({bound.why})")
    return None, reason + _scale_hint(bound, cell_unit, header, header_unit, value)


def _wrong_unit(bound: Bound, field: str, cell_unit: str | None, header: str, header_unit: str | None) -> str | None:
    """A unit the column cannot take, named (None when the units fit the column)."""
    if bound.kind == "percent":
        if cell_unit in _MONEY_UNITS or cell_unit == "元":
            return (f"{field} is a percentage, but the cell carries the money unit {cell_unit}: "
                    "is this a figure from another column?")
        if header_unit in _MONEY_UNITS or header_unit == "元":
            return (f"{field} is a percentage, but the header {header!r} gives it the money unit {header_unit}; "
                    "fix the header or the column")
        return None
    if cell_unit == "%" or header_unit == "%":
        where = "the cell" if cell_unit == "%" else f"the header {header!r}"
        return (f"{field} is not a percentage ({bound.unit}), but {where} writes %: "
                "is this a figure from another column?")
    if bound.kind == "ratio" and (cell_unit == "元" or (header_unit or "").endswith("元")):
        return f"{field} is a ratio (times), not money, but it is written in 元"
    return None


def _scale_hint(bound: Bound, cell_unit: str | None, header: str, header_unit: str | None, value: float) -> str:
    if cell_unit in _MONEY_UNITS:
        return f"; the {cell_unit} in the cell multiplies it: is it a money amount in the wrong column?"
    if header_unit in _MONEY_UNITS:
        return f"; the {header_unit} in the header {header!r} multiplies every value of the column"
    if bound.kind == "money" and abs(value) < bound.low:
        return "; read as 元: if the column is in 万 or 亿, write the unit in the header, e.g. 总市值(亿)"
    return ""
