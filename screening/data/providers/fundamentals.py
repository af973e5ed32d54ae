"""From per-period whole-market reports to each stock's latest figures, two fiscal years and TTM net profit.

Shared by both providers: they differ in where a period's figures come from (Eastmoney's 业绩报表 via akshare,
Tushare's *_vip endpoints), not in the arithmetic. A stock's "latest" report is the newest period in which it
appears: when a period is only partly published, the stocks that have reported use it and the others keep
their previous report, so nobody is given figures that do not exist yet, and nobody loses figures that do.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from screening.data.providers.periods import (
    disclosure_deadline,
    is_annual,
    last_annual,
    periods_before,
    year_before,
    ymd,
)


@dataclass(frozen=True)
class PeriodFigures:
    """One stock's report for one period, in product units (yuan, percent)."""

    period: dt.date
    source: str  # e.g. "akshare:stock_yjbb_em(20260930)"
    revenue: float | None = None  # cumulative 营业总收入, yuan
    revenue_yoy: float | None = None  # percent
    net_profit: float | None = None  # cumulative 归母净利润, yuan
    net_profit_yoy: float | None = None
    roe: float | None = None  # percent
    eps: float | None = None  # yuan
    gross_margin: float | None = None  # 销售毛利率, percent
    industry: str | None = None
    notice_date: dt.date | None = None  # first notice of this report (not the latest update); None: unknown
    money_source: str | None = None  # where revenue / net profit come from, when not ``source``

    @property
    def profit_source(self) -> str:
        return self.money_source or self.source


PeriodTable = dict[str, PeriodFigures]  # normalised code -> figures


@dataclass(frozen=True)
class TtmResult:
    value: float | None
    source: str | None  # which periods, e.g. "20260930+20251231-20250930"
    missing: str | None  # why there is no value


def ttm_net_profit(
    latest: PeriodFigures, lookup: Callable[[dt.date], PeriodFigures | None]
) -> TtmResult:
    """Trailing-twelve-month net profit from cumulative reports.

    TTM = NP(latest cumulative period) + NP(last annual report) - NP(the same period a year before).
    Example, latest = 2026 Q3: Jan-Sep 2026 + (Jan-Dec 2025 - Jan-Sep 2025) = Oct 2025 - Sep 2026.
    When the latest report is itself an annual report, TTM = its net profit. Any missing piece gives no
    value (and says which), never an estimate.
    """
    if latest.net_profit is None:
        return TtmResult(None, None, f"no net profit in the {ymd(latest.period)} report")
    if is_annual(latest.period):
        return TtmResult(latest.net_profit, ymd(latest.period), None)
    annual_day, before_day = last_annual(latest.period), year_before(latest.period)
    annual, before = lookup(annual_day), lookup(before_day)
    for day, figures in ((annual_day, annual), (before_day, before)):
        if figures is None or figures.net_profit is None:
            return TtmResult(None, None, f"no {ymd(day)} report")
    assert annual is not None and before is not None and annual.net_profit is not None
    assert before.net_profit is not None
    value = latest.net_profit + annual.net_profit - before.net_profit
    return TtmResult(value, f"{ymd(latest.period)}+{ymd(annual_day)}-{ymd(before_day)}", None)


def pe_ttm(market_cap: float | None, ttm: float | None) -> float | None:
    """PE-TTM = 总市值 / TTM net profit (both in yuan). A loss gives a negative PE; zero profit gives none."""
    if market_cap is None or ttm is None or ttm == 0:
        return None
    return round(market_cap / ttm, 4)


def late_note(period: str, n: int) -> str:
    """The note counting the late filers whose latest report is of ``period`` (ISO); made again by the refresh
    once a report it carries moves a stock off that period (refresh_report_notes.py)."""
    return (f"report period {period}: the latest report of {n:,} late filers (财报滞后: absent from the newer "
            "periods; their figures keep this period's date)")


@dataclass
class PeriodPlan:
    """Which periods were walked for "latest" and what each covered."""

    walked: list[dt.date]
    coverage: dict[dt.date, int]
    universe: int
    late: dict[dt.date, int] = field(default_factory=dict)  # older period -> late filers whose latest it is

    def notes(self) -> list[str]:
        out = [late_note(p.isoformat(), n) for p, n in self.late.items() if n]
        for period in self.walked:
            n = self.coverage.get(period, 0)
            if n == 0:
                out.append(f"report period {period.isoformat()}: no reports published yet (call returned nothing)")
            elif n < self.universe:
                out.append(
                    f"report period {period.isoformat()}: {n:,} of {self.universe:,} stocks have reported; "
                    "the others use their newest earlier report"
                )
        return out


def walk_latest_periods(
    trade_date: dt.date,
    universe: Iterable[str],
    load: Callable[[dt.date], PeriodTable],
    *,
    complete_share: float = 0.8,
    max_periods: int = 5,
    late_periods: int = 2,
) -> tuple[PeriodPlan, dict[str, PeriodFigures]]:
    """Walk back from the newest quarter end before ``trade_date`` to the first complete period.

    Complete: its legal disclosure deadline has passed and it covers ``complete_share`` of the universe (a
    coverage threshold alone would take an annual report that is 81% out in mid-April for complete, and the
    stocks still to file would lose their Q3 figures). Returns each stock's newest report among the walked
    periods; a stock absent from all of them (a late filer) gets its newest report of up to ``late_periods``
    periods further back, so it keeps real, dated figures instead of none.
    ``load`` answers an empty table for a period with nothing published (it raises for failures).
    """
    codes = set(universe)
    latest: dict[str, PeriodFigures] = {}
    walked: list[dt.date] = []
    coverage: dict[dt.date, int] = {}
    for period in periods_before(trade_date, max_periods):
        table = load(period)
        walked.append(period)
        present = codes.intersection(table)
        coverage[period] = len(present)
        for code in present:
            latest.setdefault(code, table[code])
        if disclosure_deadline(period) < trade_date and codes and len(present) >= complete_share * len(codes):
            break
    plan = PeriodPlan(walked, coverage, len(codes))
    # late filers: stocks absent from the complete period keep their latest older report (a little further back)
    older = periods_before(walked[-1], late_periods) if walked and codes - set(latest) else []
    for period in older:
        table = load(period)
        found = (codes - set(latest)).intersection(table)
        plan.late[period] = len(found)
        for code in found:
            latest[code] = table[code]
        if not found or not codes - set(latest):  # nobody here: the rest are new listings, not late filers
            break
    return plan, latest
