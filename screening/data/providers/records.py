"""One stock's record, field by field, in the ways both providers fill it the same.

A field is set together with the date it is as of and where it came from, or not at all: a value the vendor
did not give stays None with no date and no source, so nothing vouches for a figure that does not exist.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable

from screening.data.names import st_mark
from screening.data.providers.base import ProvidedStock
from screening.data.providers.fundamentals import PeriodFigures, PeriodTable
from screening.data.providers.periods import is_annual, last_annual, year_before
from screening.data.providers.report_text import Announcement, Forecast
from screening.models import StockInput

Find = Callable[[dt.date], PeriodFigures | None]


def new_record(code: str) -> ProvidedStock:
    return ProvidedStock(stock=StockInput(code=code))


NOTICE = "@notice"  # field_dates key suffix: "roe@notice" is the first notice date of the report ROE is from


def put(record: ProvidedStock, name: str, value: object, when: str, source: str,
        notice: dt.date | None = None) -> None:
    """Set a field with its as-of date and source (and, for a report figure, its report's first notice date)."""
    if value is not None:
        setattr(record.stock, name, value)
        record.field_dates[name] = when
        record.field_sources[name] = source
        if notice is not None:
            record.field_dates[name + NOTICE] = notice.isoformat()


def put_st(record: ProvidedStock, name: str | None, on_board: bool | None, when: str, board_source: str,
           name_source: str) -> None:
    """ST from the board, or from the name (prefix or 退) when the board misses it; unknown when neither can say."""
    mark = st_mark(name)  # the BSE's *ST stocks are not on Eastmoney's risk-warning board
    if on_board:
        put(record, "st", True, when, board_source)
    elif mark is not None:
        put(record, "st", True, when, f"{name_source}(名称:{mark})")
    elif on_board is not None:
        put(record, "st", False, when, board_source)


def finder(tables: dict[dt.date, PeriodTable], code: str) -> Find:
    """One stock's report for any loaded period (None where the period was not loaded or it did not report)."""
    return lambda period: tables.get(period, {}).get(code)


def put_latest(record: ProvidedStock, figures: PeriodFigures) -> None:
    """The report date and EPS, as of the latest report's period."""
    when = figures.period.isoformat()
    put(record, "report_date", when, when, figures.source, figures.notice_date)
    put(record, "eps", figures.eps, when, figures.source, figures.notice_date)


def put_fiscal_years(record: ProvidedStock, figures: PeriodFigures, find: Find) -> None:
    """ROE and the net profit of the last two fiscal years, each as of its own annual report.

    ROE comes from the last fiscal year's report: a quarter's ROE (净资产收益率) is cumulative for the year so
    far (nine months in Q3), and the rules' thresholds (5%, 15%) are annual.
    """
    annual = figures if is_annual(figures.period) else find(last_annual(figures.period))
    if annual is not None:
        put(record, "roe", annual.roe, annual.period.isoformat(), annual.source, annual.notice_date)
    for name, fy in (("net_profit_y1", find(last_annual(figures.period))),
                     ("net_profit_y2", find(year_before(last_annual(figures.period))))):
        if fy is not None:
            put(record, name, fy.net_profit, fy.period.isoformat(), fy.profit_source, fy.notice_date)


def current_forecast(forecast: Forecast | None, figures: PeriodFigures | None) -> Forecast | None:
    """The forecast, unless the report it forecast (or a later one) is already out: that supersedes it."""
    if forecast is not None and figures is not None and forecast.period <= figures.period:
        return None
    return forecast


def report_day(
    titles: Iterable[Announcement], figures: PeriodFigures | None, forecast: Forecast | None, quote_day: str
) -> str:
    """The report text is as of its newest material (titles, report, forecast); the quote day when none is dated."""
    material = [a.day for a in titles]
    material += [d for d in (figures.notice_date if figures else None,
                             forecast.notice_date if forecast else None) if d is not None]
    return max(material).isoformat() if material else quote_day


def snapshot_period(latest: Iterable[PeriodFigures]) -> dt.date:
    """The period most stocks' figures come from (the newest on a tie), which names the snapshot's report period."""
    used: dict[dt.date, int] = {}
    for f in latest:
        used[f.period] = used.get(f.period, 0) + 1
    return max(used, key=lambda p: (used[p], p))
