"""akshare's DataFrames to records: one function per Eastmoney table, columns checked by name first.

Column names are akshare 1.19.5's (it labels Eastmoney's fields by position; a drift upstream fails inside
akshare and is classified by akshare_calls). A column this adapter needs and the frame lacks is SchemaChanged
naming it and the columns seen.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

import pandas as pd

from screening.data.providers.duplicates import one_row_per_code
from screening.data.providers.frames import check_codes, code_of, day, num, require_columns, text
from screening.data.providers.fundamentals import PeriodFigures, PeriodTable
from screening.data.providers.report_text import Announcement, Forecast

SPOT = "stock_zh_a_spot_em"
SPOT_COLUMNS = ("代码", "名称", "最新价", "涨跌幅", "市净率", "总市值", "市盈率-动态")
QUOTE_FIELDS = ("price", "change_pct", "pb", "market_cap", "pe_dynamic")  # 最新价 .. 市盈率-动态, as Quote names them
YJBB_COLUMNS = (
    "股票代码", "每股收益", "营业总收入-营业总收入", "营业总收入-同比增长", "净利润-净利润", "净利润-同比增长",
    "净资产收益率", "销售毛利率", "所处行业", "最新公告日期",
)
YJYG_COLUMNS = ("股票代码", "预测指标", "业绩变动", "业绩变动原因", "预告类型", "公告日期")
# read when the frame has them (akshare's own stock_yjyg_em and eastmoney_datacenter do): Forecast.value, .last_year,
# .change_pct, written into the line as the pool writes an export's (forecast_words.py)
YJYG_FIGURES = ("预测数值", "上年同期值", "业绩变动幅度")
NOTICE_COLUMNS = ("代码", "公告标题", "公告日期")
ST_COLUMNS = ("代码", "名称")
PARENT_PROFIT = "归属于上市公司股东的净利润"

@dataclass(frozen=True)
class Quote:
    name: str | None
    price: float | None
    change_pct: float | None
    pb: float | None
    market_cap: float | None
    pe_dynamic: float | None = None  # 市盈率-动态: shown beside PE-TTM, never used as it


@dataclass
class Quotes:
    """The board's quotes per code, the rows left out (no A-share code), and the codes it listed twice with
    different figures (their row flags and one note: duplicates.py)."""

    quotes: dict[str, Quote]
    skipped: int
    conflicts: dict[str, dict[str, str]]
    note: str | None


def quotes_of(frame: pd.DataFrame, sdk: str, day: str) -> Quotes:
    """``day``: the session the board stands for, which a duplicate's flag names."""
    require_columns(frame, function=SPOT, required=SPOT_COLUMNS, sdk=sdk)
    check_codes(frame, "代码", function=SPOT, sdk=sdk)
    rows = []
    skipped = 0
    for row in frame[list(SPOT_COLUMNS)].itertuples(index=False):
        code = code_of(row[0])
        if code is None:
            skipped += 1
            continue
        rows.append((code, {"name": text(row[1]), **{f: num(v) for f, v in zip(QUOTE_FIELDS, row[2:], strict=True)}}))
    once = one_row_per_code(rows, call=SPOT, day=day)
    quotes = {code: Quote(text(f["name"]), *(num(f[n]) for n in QUOTE_FIELDS)) for code, f in once.figures.items()}
    return Quotes(quotes, skipped, once.flags, once.note)

def st_codes_of(frame: pd.DataFrame, sdk: str) -> set[str]:
    require_columns(frame, function="stock_zh_a_st_em", required=ST_COLUMNS, sdk=sdk)
    return {c for c in (code_of(v) for v in frame["代码"]) if c is not None}

def period_table_of(frame: pd.DataFrame, period: dt.date, label: str, sdk: str) -> PeriodTable:
    require_columns(frame, function=label, required=YJBB_COLUMNS, sdk=sdk)
    check_codes(frame, "股票代码", function=label, sdk=sdk)
    source = f"akshare:{label}"
    out: PeriodTable = {}
    # the first notice date when the frame has it (eastmoney_reports.py); akshare's own frame has only
    # 最新公告日期 (UPDATE_DATE), which is not when the report came out: then no notice date is claimed
    first = frame["首次公告日期"] if "首次公告日期" in frame.columns else pd.Series([None] * len(frame))
    for r, notice in zip(frame[list(YJBB_COLUMNS)].itertuples(index=False), first, strict=True):
        code = code_of(r[0])
        if code is None or code in out:  # newest update first: keep it
            continue
        out[code] = PeriodFigures(
            period=period, source=source, eps=num(r[1]), revenue=num(r[2]), revenue_yoy=num(r[3]),
            net_profit=num(r[4]), net_profit_yoy=num(r[5]), roe=num(r[6]), gross_margin=num(r[7]),
            industry=text(r[8]), notice_date=day(notice),
        )
    return out

def forecasts_of(frame: pd.DataFrame, period: dt.date, label: str, sdk: str) -> dict[str, Forecast]:
    """Per stock, its net-profit forecast of the latest notice date (a revision beats the original it revises:
    Eastmoney lists both, newest first), marked ``revised`` when the stock gave more than one for the period; a
    stock with no net-profit row gets its latest row of another 预测指标, the metric named."""
    require_columns(frame, function=label, required=YJYG_COLUMNS, sdk=sdk)
    best: dict[str, tuple[tuple[bool, dt.date], Forecast]] = {}
    notices: dict[str, set[dt.date | None]] = {}
    figures = [frame[c] if c in frame.columns else pd.Series([None] * len(frame)) for c in YJYG_FIGURES]
    for r, *given in zip(frame[list(YJYG_COLUMNS)].itertuples(index=False), *figures, strict=True):
        code = code_of(r[0])
        if code is None:
            continue
        metric = text(r[1])  # named in the line unless the net profit's: 营业收入 -8,000万元 is no loss
        value, last_year, change_pct = (num(v) for v in given)
        f = Forecast(period=period, notice_date=day(r[5]), kind=text(r[4]), content=text(r[2]), reason=text(r[3]),
                     metric=None if metric == PARENT_PROFIT else metric, value=value, last_year=last_year,
                     change_pct=change_pct)
        notices.setdefault(code, set()).add(f.notice_date)
        rank = (text(r[1]) == PARENT_PROFIT, f.notice_date or dt.date.min)  # net profit first, then the latest
        if code not in best or rank > best[code][0]:
            best[code] = (rank, f)
    return {code: replace(f, revised=len(notices[code]) > 1) for code, (_, f) in best.items()}


def announcements_of(frame: pd.DataFrame, label: str, sdk: str) -> list[tuple[str, Announcement]]:
    require_columns(frame, function=label, required=NOTICE_COLUMNS, sdk=sdk)
    out = []
    for r in frame[list(NOTICE_COLUMNS)].itertuples(index=False):
        code, title, when = code_of(r[0]), text(r[1]), day(r[2])
        if code is not None and title is not None and when is not None:
            out.append((code, Announcement(when, title)))
    return out
