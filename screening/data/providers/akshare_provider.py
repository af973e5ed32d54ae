"""AKShare (MIT, no token): the whole A-share market in a handful of Eastmoney calls.

Calls per refresh (akshare 1.19.5; names and columns read in its installed source):
- ``stock_zh_a_spot_em()``: quotes (代码, 名称, 最新价, 涨跌幅, 市净率, 总市值 in yuan). Its 市盈率-动态 annualises the
  latest quarter; it is NOT PE-TTM and is not used as one. The quotes are Eastmoney's current board: before the
  open that is the last session's close, so ``trade_date`` must be that session (checked against the clock).
- ``stock_yjbb_em(date)`` per report period: EPS, 营业总收入 and YoY, 净利润 (归母, yuan) and YoY, ROE, 销售毛利率,
  所处行业, 最新公告日期. Periods: walked back from the newest quarter end before ``trade_date`` until one covers
  most of the market (a partly published period is used by the stocks that have reported it), plus for each
  stock's latest period L: the last annual report before L and L a year before (TTM), and the annual report
  before that (the second fiscal year).
- ``stock_zh_a_st_em()``: the risk-warning board (ST, *ST).
- ``stock_yjyg_em(date)``: 业绩预告 with 业绩变动原因, for the newest period and the one after it.
- ``stock_notice_report(symbol="全部", date)``: one day's announcement titles, for each of the last N days.
Essential (a failure fails the refresh): the quotes, every report period needed, the announcement days. The ST
board and the forecasts are optional: without them the snapshot says so in its notes (ST is then None, and the
ST names still mark ST to the rules).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import pandas as pd

from screening.data.providers.akshare_calls import AkshareCalls, akshare_version
from screening.data.providers.base import (
    IncompleteData,
    MarketSnapshot,
    ProgressCallback,
    ProvidedStock,
    ProviderError,
    ProviderUnavailable,
)
from screening.data.providers.fetch_plan import CallPlan, announcement_window, supporting_periods
from screening.data.providers.frames import check_codes, code_of, day, num, require_columns, text
from screening.data.providers.fundamentals import (
    PeriodFigures,
    PeriodPlan,
    PeriodTable,
    TtmResult,
    pe_ttm,
    ttm_net_profit,
    walk_latest_periods,
)
from screening.data.providers.periods import disclosure_deadline, next_period, ymd
from screening.data.providers.records import (
    current_forecast,
    finder,
    new_record,
    put,
    put_fiscal_years,
    put_latest,
    report_day,
    snapshot_period,
)
from screening.data.providers.report_text import Announcement, Forecast, compose_report_text
from screening.data.providers.resilience import CircuitBreaker, RetryPolicy

SHANGHAI = ZoneInfo("Asia/Shanghai")
SPOT = "stock_zh_a_spot_em"
SPOT_COLUMNS = ("代码", "名称", "最新价", "涨跌幅", "市净率", "总市值")
YJBB_COLUMNS = (
    "股票代码", "每股收益", "营业总收入-营业总收入", "营业总收入-同比增长", "净利润-净利润", "净利润-同比增长",
    "净资产收益率", "销售毛利率", "所处行业", "最新公告日期",
)
YJYG_COLUMNS = ("股票代码", "预测指标", "业绩变动", "业绩变动原因", "预告类型", "公告日期")
NOTICE_COLUMNS = ("代码", "公告标题", "公告日期")
ST_COLUMNS = ("代码", "名称")
PARENT_PROFIT = "归属于上市公司股东的净利润"
PE_NOTE = (
    "PE-TTM is derived: 总市值 (stock_zh_a_spot_em) / TTM net profit (stock_yjbb_em: latest cumulative "
    "period + last annual report - the same period a year before); 市盈率-动态 is not PE-TTM and is not used."
)

@dataclass(frozen=True)
class Quote:
    name: str | None
    price: float | None
    change_pct: float | None
    pb: float | None
    market_cap: float | None


@dataclass
class _Fetch:
    """One fetch's calls, each counted in the plan, and the notes its steps add to."""

    calls: AkshareCalls
    plan: CallPlan
    version: str
    notes: list[str]

    @property
    def sdk(self) -> str:
        return f"akshare {self.version}"

    def run(self, function: str, label: str, *, expect_data: bool = False, **kw: object) -> pd.DataFrame | None:
        try:
            return self.calls.run(function, label, expect_data=expect_data, **kw)
        finally:
            self.plan.step()


@dataclass
class _Market:
    """What the calls brought, by stock code: the material the records are assembled from."""

    quotes: dict[str, Quote]
    st_codes: set[str] | None  # None: the board was not available, ST unknown
    latest: dict[str, PeriodFigures]
    tables: dict[dt.date, PeriodTable]
    forecasts: dict[str, Forecast] | None  # None: 业绩预告 not available
    titles: dict[str, list[Announcement]]


class AkshareProvider:
    name = "akshare"

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
        call_timeout_s: float = 180.0,
        complete_share: float = 0.8,
        max_quote_age_days: int = 7,
        max_titles: int | None = 20,
        now: Callable[[], dt.datetime] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self.breaker = breaker or CircuitBreaker("akshare")
        self.call_timeout_s = call_timeout_s
        self.complete_share = complete_share
        self.max_quote_age_days = max_quote_age_days
        self.max_titles = max_titles
        self._now = now or (lambda: dt.datetime.now(SHANGHAI))
        self._sleep = sleep

    # ---- the fetch ----------------------------------------------------------------------------------------
    def fetch(
        self,
        trade_date: dt.date,
        *,
        announcement_days: int = 30,
        progress: ProgressCallback | None = None,
    ) -> MarketSnapshot:
        now = self._now().astimezone(SHANGHAI)
        self._check_quote_day(trade_date, now.date())
        version = akshare_version()
        days = announcement_window(trade_date, now.date(), announcement_days)
        calls = AkshareCalls(self.breaker, self.retry, self.call_timeout_s, progress, sleep=self._sleep)
        f = _Fetch(calls, CallPlan(progress, planned=2 + 4 + 2 + len(days)), version, [PE_NOTE])
        quotes = self._load_quotes(f)
        st_codes = self._load_st(f)
        walk, latest, tables = self._load_reports(f, trade_date, quotes)
        forecasts = self._load_forecasts(f, walk.walked[0])
        titles = self._load_announcements(f, days)
        market = _Market(quotes, st_codes, latest, tables, forecasts, titles)
        stocks, counts = self._assemble(market, trade_date, announcement_days)
        f.notes.extend(counts)
        return MarketSnapshot(
            provider=self.name, provider_version=version, trade_date=trade_date.isoformat(),
            report_period=snapshot_period(latest.values()).isoformat(), fetched_at=now.isoformat(timespec="seconds"),
            stocks=stocks, notes=f.notes, calls=calls.records,
        )

    def _check_quote_day(self, trade_date: dt.date, today: dt.date) -> None:
        """The spot board is Eastmoney's current one: it can stand only for a recent session, never a future one."""
        if trade_date > today or (today - trade_date).days > self.max_quote_age_days:
            raise ProviderError(
                f"{SPOT} serves Eastmoney's current quotes only; they cannot stand for {trade_date.isoformat()} "
                f"(today is {today.isoformat()} in Asia/Shanghai). Use a recent trading day, or the Tushare "
                "provider for past dates."
            )

    def _load_quotes(self, f: _Fetch) -> dict[str, Quote]:
        """The quotes are essential: they are the universe."""
        spot = f.run(SPOT, SPOT)
        if spot is None or spot.empty:
            raise IncompleteData(f"{SPOT} returned no quotes: nothing to build a universe from")
        quotes, skipped = self._quotes(spot, f.sdk)
        if not quotes:
            raise IncompleteData(f"{SPOT} returned {len(spot)} rows but no A-share code among them")
        if skipped:
            f.notes.append(f"{SPOT}: {skipped} rows without an A-share code were left out")
        return quotes

    def _load_st(self, f: _Fetch) -> set[str] | None:
        """The ST board is optional: without it ST is None (unknown), and the names still mark ST to the rules."""
        try:
            st_frame = f.run("stock_zh_a_st_em", "stock_zh_a_st_em")
            if st_frame is None or st_frame.empty:  # the board is never empty: "no data" is a failure
                f.notes.append("stock_zh_a_st_em returned nothing: ST left unknown (names still mark ST)")
                return None
            st_codes = self._st_codes(st_frame, f.sdk)
        except ProviderUnavailable as exc:
            f.notes.append(f"ST board unavailable, ST left unknown (names still mark ST): {exc}")
            return None
        f.notes.append(f"ST from the risk-warning board (stock_zh_a_st_em): {len(st_codes)} stocks")
        return st_codes

    def _load_reports(
        self, f: _Fetch, trade_date: dt.date, quotes: dict[str, Quote]
    ) -> tuple[PeriodPlan, dict[str, PeriodFigures], dict[dt.date, PeriodTable]]:
        """Every report period needed is essential: the walk to the latest, then TTM's and the fiscal years'."""
        tables: dict[dt.date, PeriodTable] = {}

        def load(period: dt.date, supporting: bool = False) -> PeriodTable:
            if period not in tables:
                label = f"stock_yjbb_em({ymd(period)})"
                # a period past its legal deadline (or one a later report needs) has reports: null is a fault
                must = supporting or disclosure_deadline(period) < trade_date
                frame = f.run("stock_yjbb_em", label, expect_data=must, date=ymd(period))
                tables[period] = {} if frame is None else self._period_table(frame, period, label, f.sdk)
            return tables[period]

        walk, latest = walk_latest_periods(trade_date, quotes, load, complete_share=self.complete_share)
        f.notes.extend(walk.notes())
        if not latest:
            raise IncompleteData(
                f"stock_yjbb_em returned no reports for {', '.join(p.isoformat() for p in walk.walked)}"
            )
        extra = sorted(supporting_periods(latest.values()) - set(tables), reverse=True)
        f.plan.add(len(walk.walked) + len(extra) - 4)  # the plan guessed four report periods
        for period in extra:
            load(period, supporting=True)
        return walk, latest, tables

    def _load_forecasts(self, f: _Fetch, newest: dt.date) -> dict[str, Forecast] | None:
        """Forecasts are optional: when either period cannot be had, the report texts go without any (a note)."""
        forecasts: dict[str, Forecast] = {}
        for period in (next_period(newest), newest):
            label = f"stock_yjyg_em({ymd(period)})"
            try:
                frame = f.run("stock_yjyg_em", label, date=ymd(period))
            except ProviderUnavailable as exc:
                f.notes.append(f"业绩预告 unavailable ({label}), left out of the report texts: {exc}")
                return None
            if frame is None:
                f.notes.append(f"{label}: no forecasts published")
                continue
            for code, found in self._forecasts(frame, period, label, f.sdk).items():
                forecasts.setdefault(code, found)  # newest period first
        return forecasts

    def _load_announcements(self, f: _Fetch, days: list[dt.date]) -> dict[str, list[Announcement]]:
        """The announcement days are essential; a quiet day is a note, a quiet month of weekdays is a failure."""
        titles: dict[str, list[Announcement]] = {}
        empty_days: list[dt.date] = []
        for d in days:
            label = f"stock_notice_report({ymd(d)})"
            frame = f.run("stock_notice_report", label, symbol="全部", date=ymd(d))
            if frame is None or frame.empty:
                empty_days.append(d)
                continue
            for code, a in self._announcements(frame, label, f.sdk):
                titles.setdefault(code, []).append(a)
        weekdays = [d for d in days if d.weekday() < 5]
        if len(weekdays) >= 2 and all(d in empty_days for d in weekdays):
            raise IncompleteData(
                f"stock_notice_report returned no announcements for any weekday from {days[-1]} to {days[0]}: "
                f"akshare {f.version} raises the same KeyError('代码') for an empty day and for a renamed "
                "upstream field, and a whole market without announcements for weeks is not plausible"
            )
        if empty_days:
            f.notes.append(
                "stock_notice_report: no announcements on " + ", ".join(d.isoformat() for d in sorted(empty_days))
            )
        return titles

    # ---- adapters (DataFrame -> records) -------------------------------------------------------------------
    @staticmethod
    def _quotes(frame: pd.DataFrame, sdk: str) -> tuple[dict[str, Quote], int]:
        require_columns(frame, function=SPOT, required=SPOT_COLUMNS, sdk=sdk)
        check_codes(frame, "代码", function=SPOT, sdk=sdk)
        out: dict[str, Quote] = {}
        skipped = 0
        for row in frame[list(SPOT_COLUMNS)].itertuples(index=False):
            code = code_of(row[0])
            if code is None:
                skipped += 1
                continue
            out.setdefault(code, Quote(text(row[1]), num(row[2]), num(row[3]), num(row[4]), num(row[5])))
        return out, skipped

    @staticmethod
    def _st_codes(frame: pd.DataFrame, sdk: str) -> set[str]:
        require_columns(frame, function="stock_zh_a_st_em", required=ST_COLUMNS, sdk=sdk)
        return {c for c in (code_of(v) for v in frame["代码"]) if c is not None}

    @staticmethod
    def _period_table(frame: pd.DataFrame, period: dt.date, label: str, sdk: str) -> PeriodTable:
        require_columns(frame, function=label, required=YJBB_COLUMNS, sdk=sdk)
        check_codes(frame, "股票代码", function=label, sdk=sdk)
        source = f"akshare:{label}"
        out: PeriodTable = {}
        for r in frame[list(YJBB_COLUMNS)].itertuples(index=False):
            code = code_of(r[0])
            if code is None or code in out:  # newest update first: keep it
                continue
            out[code] = PeriodFigures(
                period=period, source=source, eps=num(r[1]), revenue=num(r[2]), revenue_yoy=num(r[3]),
                net_profit=num(r[4]), net_profit_yoy=num(r[5]), roe=num(r[6]), gross_margin=num(r[7]),
                industry=text(r[8]), notice_date=day(r[9]),
            )
        return out

    @staticmethod
    def _forecasts(frame: pd.DataFrame, period: dt.date, label: str, sdk: str) -> dict[str, Forecast]:
        require_columns(frame, function=label, required=YJYG_COLUMNS, sdk=sdk)
        out: dict[str, Forecast] = {}
        for r in frame[list(YJYG_COLUMNS)].itertuples(index=False):
            code = code_of(r[0])
            if code is None:
                continue
            f = Forecast(period=period, notice_date=day(r[5]), kind=text(r[4]), content=text(r[2]), reason=text(r[3]))
            if code not in out or text(r[1]) == PARENT_PROFIT:  # the net-profit forecast wins
                out[code] = f
        return out

    @staticmethod
    def _announcements(frame: pd.DataFrame, label: str, sdk: str) -> list[tuple[str, Announcement]]:
        require_columns(frame, function=label, required=NOTICE_COLUMNS, sdk=sdk)
        out = []
        for r in frame[list(NOTICE_COLUMNS)].itertuples(index=False):
            code, title, when = code_of(r[0]), text(r[1]), day(r[2])
            if code is not None and title is not None and when is not None:
                out.append((code, Announcement(when, title)))
        return out

    # ---- one record per quoted stock ----------------------------------------------------------------------
    def _assemble(
        self, market: _Market, trade_date: dt.date, days: int
    ) -> tuple[list[ProvidedStock], list[str]]:
        """The records, and notes that count the stocks without a report or a PE-TTM (and why)."""
        quote_day = trade_date.isoformat()
        no_pe: dict[str, int] = {}
        out: list[ProvidedStock] = []
        for code in sorted(market.quotes):
            record, why = self._record(code, market, quote_day, days)
            if why is not None:
                no_pe[why] = no_pe.get(why, 0) + 1
            out.append(record)
        no_report = sum(1 for code in market.quotes if code not in market.latest)
        counts = []
        if no_report:
            counts.append(f"{no_report} quoted stocks have no published report yet (new listings): no ROE, EPS")
        if no_pe:
            detail = "; ".join(f"{n} {why}" for why, n in sorted(no_pe.items(), key=lambda kv: -kv[1]))
            counts.append(f"PE-TTM left empty for {sum(no_pe.values())} stocks: {detail}")
        return out, counts

    def _record(self, code: str, market: _Market, quote_day: str, days: int) -> tuple[ProvidedStock, str | None]:
        """One quoted stock's record, and why its PE-TTM stays empty (None when it has one)."""
        q = market.quotes[code]
        record = new_record(code)
        for name, value in (("name", q.name), ("price", q.price), ("change_pct", q.change_pct),
                            ("pb", q.pb), ("market_cap", q.market_cap)):
            put(record, name, value, quote_day, f"akshare:{SPOT}")
        if market.st_codes is not None:
            put(record, "st", code in market.st_codes, quote_day, "akshare:stock_zh_a_st_em")
        figures = market.latest.get(code)
        ttm = TtmResult(None, None, "no report")
        if figures is not None:
            find = finder(market.tables, code)
            put_latest(record, figures)
            put(record, "industry", figures.industry, figures.period.isoformat(), figures.source)
            put_fiscal_years(record, figures, find)  # ROE from the last annual report: a quarter's is cumulative
            ttm = ttm_net_profit(figures, find)
        why = self._put_pe(record, q.market_cap, ttm, quote_day)
        forecast = current_forecast(None if market.forecasts is None else market.forecasts.get(code), figures)
        self._put_report_text(record, q.name, figures, forecast, market.titles.get(code, []), quote_day, days)
        return record, why

    @staticmethod
    def _put_pe(record: ProvidedStock, market_cap: float | None, ttm: TtmResult, quote_day: str) -> str | None:
        """PE-TTM derived from 总市值 and the TTM net profit; when there is none, says why (for the counts note)."""
        value = pe_ttm(market_cap, ttm.value)
        if value is not None:
            put(record, "pe_ttm", value, quote_day, f"derived:总市值/TTM净利润(stock_yjbb_em {ttm.source})")
            return None
        if market_cap is None:
            return "without 总市值 (suspended)"
        return "TTM net profit is 0" if ttm.value == 0 else f"missing a report ({ttm.missing})"

    def _put_report_text(
        self,
        record: ProvidedStock,
        name: str | None,
        figures: PeriodFigures | None,
        forecast: Forecast | None,
        titles: list[Announcement],
        quote_day: str,
        days: int,
    ) -> None:
        report = compose_report_text(
            latest=figures, forecast=forecast, announcements=titles, days=days, name=name,
            max_titles=self.max_titles,
        )
        if report is None:
            return
        parts = ["stock_notice_report"]
        if figures is not None:
            parts.insert(0, f"stock_yjbb_em({ymd(figures.period)})")
        if forecast is not None:
            parts.insert(-1, f"stock_yjyg_em({ymd(forecast.period)})")
        put(record, "report_text", report, report_day(titles, figures, forecast, quote_day),
            "composed:akshare:" + "+".join(parts))
