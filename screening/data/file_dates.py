"""What a file's own dates say about its figures, against today in Shanghai (the market's day, ``market_today``).

The reader finds the dates (pool_dates: a title line, i问财's header stamps, a 日期 column, the 报告期 and 公告日期
columns); this module ages them by the same clocks as the universe's figures (freshness.stale_notes), so a row
says the same thing whichever way its date reached the screener:

* a quote older than ``max_quote_age_days`` trading days is 数据过期, worded as the universe's quotes are, and
  its day is the row's ``data_date`` (a file's figures had none: the row contract's null, "its date is not known");
* a report figure whose period a later report has long superseded is 数据过期, however the period is spelled
  (row_checks.read_period: 2026.06.30, 2026年中报, 2026H1 and 2026-06-30 alike);
* a date after today is doubtful input (未来日期, counted as 数据存疑): a report period not yet over (FY2026's
  annual report cannot exist before 2027), an announcement or a quote not yet made. The file's figures are still
  used, as the user gave them, and a risk title so dated still counts (risk only rises); it is the same typo the
  signal reader refuses to let lift a risk (screen/signals.py: an end dated after today never resolves one).
"""

from __future__ import annotations

import datetime as dt

from screening.config import Settings
from screening.data.freshness import QUOTE_FIELDS, REPORT_FIELDS, market_today, stale_notes
from screening.data.providers.periods import last_annual, year_before
from screening.data.row_checks import Period, read_period
from screening.models import FIELD_LABELS, NOTE_FUTURE_DATE, StockInput

_FIGURES = REPORT_FIELDS - {"report_date"}


def check_file_dates(stock: StockInput, settings: Settings, today: dt.date | None = None) -> list[str]:
    """The row's notes on its file's dates (数据过期, 未来日期); sets ``data_date`` to the file's quote day."""
    today = today or market_today()
    mine = {f for f, src in stock.sources.items() if src == "file"}
    quotes = file_quotes(stock)
    stock.data_date = quote_day(quotes) or stock.data_date
    period = read_period(stock.report_date) if "report_date" in mine else None
    ends = {f: stock.file_dates.get(f) or (period.end.isoformat() if period and period.kind and period.end else None)
            for f in _FIGURES & mine}
    reports = {f: d for f, d in ends.items() if d}
    notes = stale_notes({**quotes, **reports}, today, settings.universe.max_quote_age_days,
                        settings.digest.holiday_set(), store=settings.digest.calendar_store())
    return notes + _future(stock, quotes, period, today)


def file_quotes(stock: StockInput) -> dict[str, str]:
    """{quote field: the day its file states} for the quote figures the row's file gave (not the universe's)."""
    return {f: d for f, d in stock.file_dates.items() if f in QUOTE_FIELDS and stock.sources.get(f) == "file"}


def quote_day(dates: dict[str, str]) -> str | None:
    """The day a row's quotes are of, from the dates its file states (``StockInput.file_dates``): the PE-TTM's, the
    one the rules read, else the oldest stated; None when the file states none. `universe import` dates the row by
    it when no ``--as-of`` is given (a three-month-old export was stored as today's quotes)."""
    quotes = {f: d for f, d in dates.items() if f in QUOTE_FIELDS}
    return quotes.get("pe_ttm") or min(quotes.values(), default=None)


def _future(stock: StockInput, quotes: dict[str, str], period: Period | None, today: dt.date) -> list[str]:
    """未来日期 notes: a period not over by today (its report cannot exist yet: a period ends at its last day's
    close, so one ending today counts), a quote's or an announcement's day after today."""
    out = []
    unfinished = f"尚未结束 (今天 {today}), 该期财报还不可能发布; 文件的数字照用, 请核对"
    if period is not None and period.end is not None and (period.end >= today if period.kind else period.end > today):
        said = f"{FIELD_LABELS['report_date']} {stock.report_date}"
        out.append(f"{NOTE_FUTURE_DATE}: {said} " + (unfinished if period.kind else f"晚于今天 ({today}); 请核对"))
    for field in sorted(_FIGURES & set(stock.file_dates)):
        if field in stock.sources and stock.file_dates[field] >= today.isoformat():
            out.append(f"{NOTE_FUTURE_DATE}: {FIELD_LABELS[field]} 表头的报告期 {stock.file_dates[field]} {unfinished}")
    out += [f"{NOTE_FUTURE_DATE}: 行情日期 {d} 晚于今天 ({today}); 请核对日期"
            for d in sorted(set(quotes.values())) if d > today.isoformat()]
    notice = stock.file_dates.get("notice_date")
    if notice and notice > today.isoformat():
        out.append(f"{NOTE_FUTURE_DATE}: 公告日期 {notice} 晚于今天 ({today}); 公告所述风险照常计入 (风险只升不降), "
                   "请核对日期")
    return out


def report_periods(stock: StockInput) -> dict[str, str]:
    """{report figure: the period it is of (ISO)} for `universe import`, as a refresh dates them
    (providers/records.put_fiscal_years): ROE and the last year's net profit by the last fiscal year at or before
    the row's 报告期, the year before's net profit a year earlier, EPS and the 报告期 itself by the period; a
    period a header stamp states (i问财's ``净资产收益率[20241231]``) wins. A figure with no period stated keeps no date
    here (the import's day is no period: nothing can age it).

    Why: an import stored every figure under the day it was imported, so a FY2024 ROE imported in December 2026
    reached every later screen of a typed code as current, where the same file screened directly says 数据过期 (a
    trial, 2026-12-07: 601318 at ROE 12.1 of 2024-12-31, no flag on the row)."""
    period = read_period(stock.report_date)
    end = period.end if period is not None and period.kind and period.end else None
    fiscal = last_annual(end) if end is not None else None
    implied = {"roe": fiscal, "net_profit_y1": fiscal, "net_profit_y2": fiscal and year_before(fiscal),
               "eps": end, "report_date": end}
    out = {}
    for name, day in implied.items():
        stated = stock.file_dates.get(name) if name != "report_date" else None
        when = stated or (day.isoformat() if day is not None else None)
        if getattr(stock, name) is not None and when:
            out[name] = when
    return out

