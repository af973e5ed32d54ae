"""AKShare (MIT, no token): the whole A-share market in a handful of Eastmoney calls.

Calls per refresh (akshare 1.19.5; names and columns read in its installed source):
- ``stock_zh_a_spot_em()``: quotes (代码, 名称, 最新价, 涨跌幅, 市净率, 总市值 in yuan, 市盈率-动态 kept as
  ``pe_dynamic``: it annualises the latest quarter and is NOT PE-TTM). The board is Eastmoney's current one:
  before the 09:15 call auction (and on closed days) it shows the last session's close, so ``trade_date`` must
  be exactly the session it shows (trading_calendar.board_session); any other date is refused.
  When ``push2`` refuses or answers empty, the same akshare paging runs on ``push2delay`` (eastmoney_clist.py).
- 业绩报表 per report period (akshare's ``stock_yjbb_em`` request, read by field name with the first notice
  date: eastmoney_reports.py): EPS, 营业总收入 and YoY, 净利润 (归母) and YoY, ROE, 销售毛利率, 所处行业. Periods:
  walked back from the newest quarter end before ``trade_date`` until one covers most of the market, a little
  further for late filers, plus each stock's TTM and fiscal-year periods. A ``result: null`` for a period past
  its legal deadline is Eastmoney's fault (#6522): retried, then named.
- ``stock_zh_a_st_em()``: the risk-warning board (ST, *ST), with the same push2delay fallback.
- ``stock_yjyg_em(date)``: 业绩预告 with 业绩变动原因, for the newest period and the one after it.
- announcement titles per day (akshare's ``stock_notice_report`` request, each title attached to the codes its own
  item names: eastmoney_notices.py).
Essential (a failure fails the refresh): the quotes and every report period needed. The ST board, the forecasts
and the announcement titles are optional: without them the refresh completes with a ``warning:`` note and row
flags (公告数据缺失), and ST then comes from the names alone. Titles failing part-way (an IP ban after the newest
days) keep the days read, and the flag names the days not read (title_days.py).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pandas as pd

from screening.data.providers.akshare_calls import AkshareCalls, akshare_version
from screening.data.providers.akshare_fetch import AkshareFetch
from screening.data.providers.akshare_frames import (
    SPOT,
    Quote,
    Quotes,
    forecasts_of,
    period_table_of,
    quotes_of,
    st_codes_of,
)
from screening.data.providers.akshare_titles import optional_announcements
from screening.data.providers.base import (
    IncompleteData,
    MarketSnapshot,
    ProgressCallback,
    ProvidedStock,
    ProviderError,
    ProviderUnavailable,
    SchemaChanged,
)
from screening.data.providers.eastmoney_clist import DELAY_HOST, delayed_board
from screening.data.providers.eastmoney_datacenter import forecast_period, report_period
from screening.data.providers.fetch_plan import CallPlan, supporting_periods
from screening.data.providers.fundamentals import (
    PeriodFigures,
    PeriodPlan,
    PeriodTable,
    TtmResult,
    pe_ttm,
    ttm_net_profit,
    walk_latest_periods,
)
from screening.data.providers.pe_gaps import pe_gap_note
from screening.data.providers.periods import disclosure_deadline, next_period, ymd
from screening.data.providers.provider_base import (
    FLAG_NO_FORECASTS,
    FLAG_NO_ST_BOARD,
    WARNING,
    ProviderBase,
)
from screening.data.providers.records import (
    current_forecast,
    finder,
    new_record,
    put,
    put_fiscal_years,
    put_latest,
    put_st,
    report_day,
)
from screening.data.providers.report_text import Announcement, Forecast, compose_report_text
from screening.data.providers.resilience import CircuitBreaker, RetryPolicy
from screening.data.providers.title_days import DayTitles, partial_block
from screening.data.trading_calendar import SessionUncertain, board_session

PE_NOTE = (
    "PE-TTM is derived: 总市值 (stock_zh_a_spot_em) / TTM net profit (stock_yjbb_em: latest cumulative "
    "period + last annual report - the same period a year before); 市盈率-动态 is not PE-TTM and is not used."
)

@dataclass
class _Market:
    """What the calls brought, by stock code: the material the records are assembled from."""

    quotes: dict[str, Quote]
    st_codes: set[str] | None  # None: the board was not available, ST unknown
    latest: dict[str, PeriodFigures]
    tables: dict[dt.date, PeriodTable]
    forecasts: dict[str, Forecast] | None  # None: 业绩预告 not available
    titles: DayTitles | None  # None: the titles could not be had
    quote_source: str = f"akshare:{SPOT}"
    st_source: str = "akshare:stock_zh_a_st_em"
    conflicts: dict[str, dict[str, str]] = field(default_factory=dict)  # code -> field -> row flag (duplicates.py)


class AkshareProvider(ProviderBase):
    name = "akshare"

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
        call_timeout_s: float = 180.0,
        complete_share: float = 0.8,
        holidays: Iterable[dt.date] = (),
        calendar_store: Path | None = None,
        max_titles: int | None = 20,
        pace_s: float = 0.0,
        now: Callable[[], dt.datetime] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(retry=retry, breaker=breaker, timeout_s=call_timeout_s, complete_share=complete_share,
                         max_titles=max_titles, now=now, sleep=sleep)
        # the quote hosts get breakers of their own: push2 refusing must not stop push2delay or the datacenter
        self.host_breakers = {
            host: CircuitBreaker(f"akshare:{host}", failure_threshold=self.breaker.failure_threshold,
                                 cooldown_s=self.breaker.cooldown_s)
            for host in ("push2", "push2delay")
        }
        self.pace_s = pace_s
        self.holidays, self.calendar_store = frozenset(holidays), calendar_store  # see use_calendar

    # ---- the fetch ----------------------------------------------------------------------------------------
    def fetch(
        self,
        trade_date: dt.date,
        *,
        announcement_days: int = 30,
        progress: ProgressCallback | None = None,
    ) -> MarketSnapshot:
        now, days = self._start(trade_date, announcement_days)
        self._check_quote_day(trade_date, now)
        if self.breaker.state == "open":
            self.breaker.before_call()  # raises CircuitOpen: nothing goes out while the provider's breaker is open
        version = akshare_version()
        calls = AkshareCalls(self.breaker, self.retry, self.timeout_s, progress, sleep=self._sleep,
                             pace_s=self.pace_s)
        import requests

        with requests.Session() as session:  # honours HTTPS_PROXY / REQUESTS_CA_BUNDLE like akshare's own calls
            f = AkshareFetch(calls, CallPlan(progress, planned=2 + 4 + 2 + len(days)), version, [PE_NOTE], session)
            got, quote_source = self._load_quotes(f, trade_date)
            st_codes, st_source = self._load_st(f)
            walk, latest, tables = self._load_reports(f, trade_date, got.quotes)
            forecasts = self._load_forecasts(f, walk.walked[0])
            titles = optional_announcements(f, days)
        market = _Market(got.quotes, st_codes, latest, tables, forecasts, titles, quote_source, st_source,
                         got.conflicts)
        stocks, counts = self._assemble(market, trade_date, announcement_days)
        f.notes.extend(counts)
        return self._snapshot(version=version, trade_date=trade_date, now=now, latest=latest.values(),
                              stocks=stocks, notes=f.notes, calls=calls.records, degraded=f.degraded)

    def use_calendar(self, holidays: Iterable[dt.date], store: Path | None,
                     now: Callable[[], dt.datetime] | None = None) -> None:
        """The trading calendar the board's session is read from (the config's holidays and notice store), and the
        clock of the refresh that dated the quotes, so the session it chose and the one checked are one reading."""
        self.holidays, self.calendar_store = frozenset(holidays), store
        if now is not None:
            self._now = now

    def _check_quote_day(self, trade_date: dt.date, now: dt.datetime) -> None:
        """The spot board is Eastmoney's current one: it stands for exactly one session, the one it shows now
        (today's from 09:15 on a trading day, else the previous session's close). Any other date is refused,
        and so is every date while that session is uncertain (调休待定 on the way back, no notice imported)."""
        try:
            shown = board_session(now, self.holidays, store=self.calendar_store)
        except SessionUncertain as exc:
            raise ProviderError(f"{SPOT}: {exc}") from None
        if trade_date != shown:
            board = ("still shows the previous session's close" if shown < now.date()
                     else "shows today's session")
            raise ProviderError(
                f"{SPOT} at {now:%Y-%m-%d %H:%M} (Asia/Shanghai) {board} ({shown.isoformat()}): it cannot stand "
                f"for {trade_date.isoformat()}. Leave out --date (or give {shown.isoformat()}); only the Tushare "
                "provider (--provider tushare, daily_basic) fetches a past day's quotes"
            )

    def _board(self, f: AkshareFetch, function: str) -> tuple[pd.DataFrame | None, str]:
        """A push2 board (quotes or ST) and its source id: akshare's own call, else the push2delay host.

        The primary gets two tries (a single drop is retried) before the fallback, which has the full policy.
        """
        primary = RetryPolicy(min(2, self.retry.attempts), self.retry.initial_wait_s, self.retry.max_wait_s)
        why = "answered empty"
        try:
            frame = f.run(function, function, breaker=self.host_breakers["push2"], policy=primary)
            if frame is not None and not frame.empty:
                return frame, f"akshare:{function}"
        except (ProviderUnavailable, SchemaChanged) as exc:  # drift: the fallback reads the fields by name
            why = f"failed: {exc}"
        f.plan.add(1)
        f.notes.append(f"{function} on push2 {why}; taken from {DELAY_HOST} (delayed-quote host, akshare's paging)")
        label = f"{function}@push2delay"
        frame = f.run(function, label, fn=lambda: delayed_board(function), breaker=self.host_breakers["push2delay"])
        return frame, f"akshare:{label}"

    def _load_quotes(self, f: AkshareFetch, day: dt.date) -> tuple[Quotes, str]:
        """The quotes are essential: they are the universe. ``day``: the session the board stands for."""
        spot, source = self._board(f, SPOT)
        if spot is None or spot.empty:
            raise IncompleteData(f"{SPOT} returned no quotes on push2 nor {DELAY_HOST}: nothing to build a "
                                 "universe from")
        got = quotes_of(spot, f.sdk, day.isoformat())
        if not got.quotes:
            raise IncompleteData(f"{SPOT} returned {len(spot)} rows but no A-share code among them")
        if got.skipped:
            f.notes.append(f"{SPOT}: {got.skipped} rows without an A-share code were left out")
        if got.note:
            f.notes.append(got.note)
        return got, source

    def _load_st(self, f: AkshareFetch) -> tuple[set[str] | None, str]:
        """The ST board is optional: without it (down, or drifted) ST comes from the names alone, with a warning."""
        source = "akshare:stock_zh_a_st_em"
        try:
            st_frame, source = self._board(f, "stock_zh_a_st_em")
            if st_frame is None or st_frame.empty:  # the board is never empty: "no data" is a failure
                f.notes.append(f"{WARNING}stock_zh_a_st_em returned nothing: ST left unknown (names still mark ST)")
                f.degraded.append(FLAG_NO_ST_BOARD)
                return None, source
            st_codes = st_codes_of(st_frame, f.sdk)
        except (ProviderUnavailable, SchemaChanged) as exc:
            f.notes.append(f"{WARNING}ST board unavailable, ST left unknown (names still mark ST): {exc}")
            f.degraded.append(FLAG_NO_ST_BOARD)
            return None, source
        f.notes.append(f"ST from the risk-warning board (stock_zh_a_st_em): {len(st_codes)} stocks")
        return st_codes, source

    def _load_reports(
        self, f: AkshareFetch, trade_date: dt.date, quotes: dict[str, Quote]
    ) -> tuple[PeriodPlan, dict[str, PeriodFigures], dict[dt.date, PeriodTable]]:
        """Every report period needed is essential: the walk to the latest, then TTM's and the fiscal years'."""
        tables: dict[dt.date, PeriodTable] = {}

        def load(period: dt.date, supporting: bool = False) -> PeriodTable:
            if period not in tables:
                label = f"stock_yjbb_em({ymd(period)})"
                # a period past its legal deadline (or one a later report needs) has reports: null is a fault
                must = supporting or disclosure_deadline(period) < trade_date
                fetch = partial(report_period, ymd(period), session=f.session, on_page=f.calls.page_hook(label))
                frame = f.run("stock_yjbb_em", label, expect_data=must, fn=fetch)
                tables[period] = {} if frame is None else period_table_of(frame, period, label, f.sdk)
            return tables[period]

        walk, latest = walk_latest_periods(trade_date, quotes, load, complete_share=self.complete_share)
        f.notes.extend(walk.notes())
        if not latest:
            raise IncompleteData(
                f"stock_yjbb_em returned no reports for {', '.join(p.isoformat() for p in walk.walked)}"
            )
        extra = sorted(supporting_periods(latest.values()) - set(tables), reverse=True)
        f.plan.add(len(walk.walked) + len(walk.late) + len(extra) - 4)  # the plan guessed four report periods
        for period in extra:
            load(period, supporting=True)
        return walk, latest, tables

    def _load_forecasts(self, f: AkshareFetch, newest: dt.date) -> dict[str, Forecast] | None:
        """Forecasts are optional: when either period cannot be had, the report texts go without any (a note)."""
        forecasts: dict[str, Forecast] = {}
        for period in (next_period(newest), newest):
            label = f"stock_yjyg_em({ymd(period)})"
            try:
                fetch = partial(forecast_period, ymd(period), session=f.session, on_page=f.calls.page_hook(label))
                frame = f.run("stock_yjyg_em", label, fn=fetch)
                found_now = {} if frame is None else forecasts_of(frame, period, label, f.sdk)
            except (ProviderUnavailable, SchemaChanged) as exc:
                f.notes.append(f"{WARNING}业绩预告 unavailable ({label}), left out of the report texts: {exc}")
                f.degraded.append(FLAG_NO_FORECASTS)
                return None
            if frame is None:
                f.notes.append(f"{label}: no forecasts published")
                continue
            for code, found in found_now.items():
                forecasts.setdefault(code, found)  # newest period first
        return forecasts

    # ---- one record per quoted stock ----------------------------------------------------------------------
    def _assemble(
        self, market: _Market, trade_date: dt.date, days: int
    ) -> tuple[list[ProvidedStock], list[str]]:
        """The records, and notes that count the stocks without a report or a PE-TTM (and why)."""
        quote_day = trade_date.isoformat()
        out: list[ProvidedStock] = []
        for code in sorted(market.quotes):
            record, why = self._record(code, market, quote_day, days)
            record.pe_gap = why
            out.append(record)
        no_report = sum(1 for code in market.quotes if code not in market.latest)
        counts = []
        if no_report:
            counts.append(f"{no_report} quoted stocks have no published report yet (new listings): no ROE, EPS")
        if (no_pe := pe_gap_note(out)) is not None:  # made from the records: the refresh may fill one later
            counts.append(no_pe)
        return out, counts

    def _record(self, code: str, market: _Market, quote_day: str, days: int) -> tuple[ProvidedStock, str | None]:
        """One quoted stock's record, and why its PE-TTM stays empty (None when it has one)."""
        q = market.quotes[code]
        record = new_record(code)
        for name, value in (("name", q.name), ("price", q.price), ("change_pct", q.change_pct),
                            ("pb", q.pb), ("market_cap", q.market_cap), ("pe_dynamic", q.pe_dynamic)):
            put(record, name, value, quote_day, market.quote_source)
        record.flags.update(market.conflicts.get(code, {}))
        put_st(record, q.name, None if market.st_codes is None else code in market.st_codes, quote_day,
               market.st_source, market.quote_source)
        figures = market.latest.get(code)
        ttm = TtmResult(None, None, "no report")
        if figures is not None:
            find = finder(market.tables, code)
            put_latest(record, figures)
            put(record, "industry", figures.industry, figures.period.isoformat(), figures.source)
            put_fiscal_years(record, figures, find)  # ROE from the last annual report: a quarter's is cumulative
            ttm = ttm_net_profit(figures, find)
        why = self._put_pe(record, q.market_cap, ttm, quote_day)
        if why is not None and "market_cap" in record.flags:  # not suspended: the board gave two 总市值
            why = "总市值 given twice with different values"
        forecast = current_forecast(None if market.forecasts is None else market.forecasts.get(code), figures)
        titles = None if market.titles is None else market.titles.by_code.get(code, [])
        partly = market.titles if market.titles is not None and market.titles.unread else None
        self._put_report_text(record, q.name, figures, forecast, titles, quote_day, days, partly)
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
        titles: list[Announcement] | None,
        quote_day: str,
        days: int,
        partly: DayTitles | None = None,
    ) -> None:
        """``partly``: the window was read in part; the titles go under a heading naming the days read and not."""
        report = compose_report_text(
            latest=figures, forecast=forecast, announcements=None if partly else titles, days=days, name=name,
            max_titles=self.max_titles,
        )
        if partly is not None:
            block = partial_block(titles or [], partly, name)
            report = f"{report}\n{block}" if report else block
        if report is None:
            return
        parts = ["stock_notice_report"] if titles is not None else []
        if figures is not None:
            parts.insert(0, f"stock_yjbb_em({ymd(figures.period)})")
        if forecast is not None:
            parts.insert(-1, f"stock_yjyg_em({ymd(forecast.period)})")
        put(record, "report_text", report, report_day(titles or [], figures, forecast, quote_day),
            "composed:akshare:" + "+".join(parts))
