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

from screening.figures import figure

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


_PROFIT_WHY = "净利润以元计; A股最大的年利润约 3,600亿"
BOUNDS: dict[str, Bound] = {
    # percent: net profit over equity. Real A shares sit within about ±100%; only an equity base
    # near zero pushes further. A figure past ±1000% is a money amount or a fraction scaled wrong.
    "roe": Bound("percent", -1000.0, 1000.0, "%", "ROE 是百分比; 实际值大约在 ±100% 以内"),
    # percent of the previous close: a price cannot fall more than 100%; the daily limits are
    # 10/20/30%, and only first-day trading of a new listing (no limit) goes far beyond, into the
    # hundreds of percent. 5,000% leaves room for any first day.
    "change_pct": Bound("percent", -100.0, 5000.0, "%",
                        "涨跌幅是相对昨收的百分比; 不可能低于 -100%"),
    # price over trailing earnings: near-zero earnings give PEs in the tens of thousands, and
    # vendors show a loss as a negative PE. Past a million the figure is a unit slip, not a PE.
    "pe_ttm": Bound("ratio", -1e6, 1e6, "倍", "PE-TTM 是股价与每股收益之比(倍数), 不是金额"),
    "pe_dynamic": Bound("ratio", -1e6, 1e6, "倍", "市盈率-动态是股价与每股收益之比(倍数), 不是金额"),
    # price over book value per share: negative when equity is negative, large when it is near zero.
    "pb": Bound("ratio", -1e5, 1e5, "倍", "市净率是股价与每股净资产之比(倍数), 不是金额"),
    # yuan per share: the highest A-share EPS is about 70 元 (贵州茅台). Past ±1000 元 the figure
    # is a company total (元/万/亿), not a per-share amount.
    "eps": Bound("per_share", -1000.0, 1000.0, "元/股", "每股收益以元/股计; A股最高约 70 元"),
    # yuan per share: the highest A-share price has been about 2,600 元; 0 is what some exports show
    # for a suspended stock; a price is never negative.
    "price": Bound("per_share", 0.0, 1e5, "元", "股价以元计; A股最高约 2,600 元"),
    # yuan: the largest A-share company is worth about 3万亿 元 (3e12) and the whole market about
    # 100万亿; the smallest are worth a few 亿. Under 1000万 元 the column was meant in 万 or 亿.
    "market_cap": Bound("money", 1e7, 5e13, "元",
                        "总市值以元计; A股公司市值在几亿到约3万亿之间"),
    # yuan: the largest annual profit is about 3,600亿 元 (工商银行); 10万亿 is beyond any company's.
    # No lower edge: a real profit can be arbitrarily close to zero.
    "net_profit_y1": Bound("money", -1e13, 1e13, "元", _PROFIT_WHY),
    "net_profit_y2": Bound("money", -1e13, 1e13, "元", _PROFIT_WHY),
}


def _fmt(value: float) -> str:
    """A figure in a reason: with thousands separators where a person counts digits, else as figures.figure
    writes it (never ``1e+17``: a reason read ``总市值 1e+17``, right but not how a person reads it)."""
    if value == 0 or 1e-3 <= abs(value) < 1e15:
        return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"
    return figure(value)


def check_value(field: str, raw: str, number: float, cell_unit: str | None, header: str,
                header_unit: str | None, scale: float) -> tuple[float | None, str | None]:
    """The value after the header's unit scale, or the reason the cell cannot hold it.

    ``number`` is the cell parsed with its own unit already multiplied out; ``cell_unit`` is the
    unit the cell wrote ("12.5亿" -> "亿"), ``header_unit``/``scale`` the header's ("总市值(亿)").
    A cell that writes its own amount unit states its whole magnitude: the header's unit is for the cells that
    write none. Scaled twice, 上年净利润(万元) '-3.2亿' read -3.2万亿 (within range, unsaid) and 总市值(亿) '1.84万亿'
    was dropped as out of range (a trial, 2026-12-08).
    """
    bound = BOUNDS.get(field)
    value = number if cell_unit in _MONEY_UNITS or cell_unit == "元" else number * scale
    if not math.isfinite(value):
        by = f" × {scale:,.0f} (表头 {header!r} 的单位 {header_unit})" if scale != 1.0 else ""
        return None, f"数值过大: {raw.strip()!r}{by} 溢出; 没有这么大的 {header}"
    if bound is None:
        return value, None
    wrong = _wrong_unit(bound, cell_unit, header, header_unit)
    if wrong:
        return None, wrong
    if bound.low <= value <= bound.high:
        return value, None
    reason = (f"{header} {_fmt(value)} 超出合理范围 {_fmt(bound.low)} .. {_fmt(bound.high)} "
              f"{bound.unit} ({bound.why})")
    return None, reason + _scale_hint(bound, cell_unit, header, header_unit, value)


def _wrong_unit(bound: Bound, cell_unit: str | None, header: str, header_unit: str | None) -> str | None:
    """A unit the column cannot take, named (None when the units fit the column)."""
    if bound.kind == "percent":
        if cell_unit in _MONEY_UNITS or cell_unit == "元":
            return f"{header} 是百分比, 但单元格带有金额单位 {cell_unit}: 是否填错了列?"
        if header_unit in _MONEY_UNITS or header_unit == "元":
            return f"{header} 是百分比, 但表头 {header!r} 给了金额单位 {header_unit}; 请修正表头或该列"
        return None
    if cell_unit == "%" or header_unit == "%":
        where = "单元格" if cell_unit == "%" else f"表头 {header!r}"
        return f"{header} 不是百分比 (单位 {bound.unit}), 但{where}写了 %: 是否填错了列?"
    if bound.kind == "ratio" and (cell_unit == "元" or (header_unit or "").endswith("元")):
        return f"{header} 是倍数, 不是金额, 但写成了元"
    return None


def _scale_hint(bound: Bound, cell_unit: str | None, header: str, header_unit: str | None, value: float) -> str:
    if cell_unit in _MONEY_UNITS:
        return f"; 单元格中的 {cell_unit} 放大了它: 是否是填错列的金额?"
    if header_unit in _MONEY_UNITS:
        return f"; 表头 {header!r} 中的 {header_unit} 放大了该列的每个值"
    if bound.kind == "money" and abs(value) < bound.low:
        return "; 按元读取: 若该列以万或亿计, 请在表头写明单位, 如 总市值(亿)"
    return ""
