"""Tushare Pro: the user's own token, a different backend from AKShare's, so a real fallback.

The token comes from the environment variable TUSHARE_TOKEN only (never a config file: tushare's own
``pro_api()`` would fall back to ``~/tk.csv``, so the token is always passed explicitly) and never appears in a
message or log. Endpoints, whole market per call, and what each needs (tushare.pro/document/1?doc_id=108 and
the endpoint pages):

| endpoint            | gives                                         | needs                   | essential |
|---------------------|-----------------------------------------------|-------------------------|-----------|
| stock_basic         | names, industries, the listed universe        | 2000 points             | yes       |
| daily_basic(date)   | a true pe_ttm, pb, total_mv (万元), close     | 2000 points             | yes       |
| fina_indicator_vip  | EPS, ROE, 毛利率, YoY, per report period      | 5000 points             | yes       |
| income_vip          | 营业总收入, 归母净利润 (two years, TTM)         | 5000 points             | no        |
| daily(date)         | pct_chg                                       | 120 points              | no        |
| forecast_vip        | 业绩预告 with change_reason                     | 5000 points             | no        |
| anns_d(date)        | announcement titles                           | a separate permission   | no        |

Essential means the rules cannot work without it (who is listed and named, PE-TTM, ROE): NotEntitled there fails
the fetch; for the others the snapshot says what is missing and why. ``daily_basic.pe_ttm`` is empty for a
loss ("亏损的PE为空"); there the PE-TTM is derived from total_mv and the TTM net profit of income_vip, so a loss
gives a negative PE as in the AKShare provider, or stays empty with a note when income_vip is not available.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from screening.data.providers.base import (
    CircuitOpen,
    IncompleteData,
    MarketSnapshot,
    NotEntitled,
    ProgressCallback,
    ProvidedStock,
    ProviderUnavailable,
)
from screening.data.providers.duplicates import one_row_per_code
from screening.data.providers.fetch_plan import CallPlan, supporting_periods
from screening.data.providers.frames import code_of, day, num, text
from screening.data.providers.fundamentals import (
    PeriodFigures,
    PeriodPlan,
    PeriodTable,
    pe_ttm,
    ttm_net_profit,
    walk_latest_periods,
)
from screening.data.providers.pe_gaps import pe_gap_note
from screening.data.providers.periods import next_period, ymd
from screening.data.providers.provider_base import FLAG_NO_FORECASTS, FLAG_NO_TITLES, WARNING, ProviderBase
from screening.data.providers.records import (
    Find,
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
from screening.data.providers.title_days import DayTitles, partial_block, spans, unread_flag
from screening.data.providers.tushare_calls import FIELDS, TushareCalls, open_api, tushare_version

Valuation = tuple[float | None, float | None, float | None, float | None]  # close, pe_ttm, pb, total_mv (yuan)
VALUATION = {"close": "price", "pe_ttm": "pe_ttm", "pb": "pb", "total_mv": "market_cap"}  # daily_basic -> field
# why a quoted stock's PE-TTM stays empty (``_put_pe``'s outcome), as the note counting them says it (pe_gaps.py)
PE_GAPS = {"empty": "with an empty daily_basic.pe_ttm and no TTM net profit from income_vip",
           "conflict": "with an empty daily_basic.pe_ttm but a positive TTM net profit"}


def optional(calls: TushareCalls, name: str, label: str, **params: Any) -> pd.DataFrame | None:
    """An optional endpoint's answer, or None; then the note that says why it was left out is a ``warning:``,
    so `universe status` lists it (README: an optional source that fails is a warning line), as with AKShare."""
    before = len(calls.notes)
    frame = calls.call(name, label, essential=False, **params)
    if frame is None:
        calls.notes[before:] = [n if n.startswith(WARNING) else WARNING + n for n in calls.notes[before:]]
    return frame


def _period_table(fina: pd.DataFrame, income: pd.DataFrame | None, period: dt.date) -> PeriodTable:
    money: dict[str, tuple[float | None, float | None]] = {}
    if income is not None:
        rows = income[income["report_type"].astype(str) == "1"]  # 合并报表
        for r in rows[list(FIELDS["income_vip"])].itertuples(index=False):
            code = code_of(r[0])
            if code is not None and (code not in money or str(r[6]) == "1"):  # update_flag 1 = latest
                money[code] = (num(r[4]), num(r[5]))
    source = f"tushare:fina_indicator_vip({ymd(period)})"
    money_source = f"tushare:income_vip({ymd(period)})" if income is not None else None
    out: PeriodTable = {}
    for r in fina[list(FIELDS["fina_indicator_vip"])].itertuples(index=False):
        code = code_of(r[0])
        if code is None or (code in out and str(r[8]) != "1"):
            continue
        revenue, net = money.get(code, (None, None))
        out[code] = PeriodFigures(
            period=period, source=source, revenue=revenue, revenue_yoy=num(r[7]), net_profit=net,
            net_profit_yoy=num(r[6]), roe=num(r[4]), eps=num(r[3]), gross_margin=num(r[5]),
            notice_date=day(r[1]), money_source=money_source,
        )
    return out


@dataclass
class _Reports:
    """Report periods as loaded: fina_indicator_vip (essential) with income_vip's money (optional).

    After income_vip fails once it is not asked again: its note already says why, and the loss-makers' PE-TTM
    note says what that costs.
    """

    calls: TushareCalls
    tables: dict[dt.date, PeriodTable] = field(default_factory=dict)
    income_ok: bool = True

    def load(self, period: dt.date) -> PeriodTable:
        if period in self.tables:
            return self.tables[period]
        label = f"fina_indicator_vip({ymd(period)})"
        fina = self.calls.call("fina_indicator_vip", label, essential=True, period=ymd(period))
        assert fina is not None
        income = None
        if self.income_ok:
            income = optional(self.calls, "income_vip", f"income_vip({ymd(period)})", period=ymd(period))
            self.income_ok = income is not None
        self.tables[period] = _period_table(fina, income, period)
        return self.tables[period]


@dataclass
class _Market:
    """What the calls brought, by stock code: the material the records are assembled from."""

    names: dict[str, tuple[str | None, str | None]]  # name, industry
    valuation: dict[str, Valuation]
    conflicts: dict[str, dict[str, str]]  # code -> field -> row flag: daily_basic gave two values (duplicates.py)
    changes: dict[str, float | None] | None  # None: daily not available
    latest: dict[str, PeriodFigures]
    reports: _Reports
    forecasts: dict[str, Forecast] | None  # None: forecast_vip not available
    titles: DayTitles | None  # None: anns_d not available


class TushareProvider(ProviderBase):
    name = "tushare"

    # ---- the fetch --------------------------------------------------------------------------------------
    def fetch(
        self,
        trade_date: dt.date,
        *,
        announcement_days: int = 30,
        progress: ProgressCallback | None = None,
    ) -> MarketSnapshot:
        now, days = self._start(trade_date, announcement_days)
        api = open_api(self.timeout_s)
        version = tushare_version()
        notes: list[str] = []
        calls = TushareCalls(api, breaker=self.breaker, retry=self.retry, sleep=self._sleep, progress=progress,
                             plan=CallPlan(progress, planned=3 + 4 + 4 + 2 + len(days)), notes=notes)
        names = self._load_names(calls)
        valuation, conflicts = self._load_valuation(calls, trade_date)
        changes = self._load_changes(calls, trade_date)
        walk, latest, reports = self._load_reports(calls, trade_date, names)
        forecasts = self._load_forecasts(calls, walk.walked[0])
        titles = self._load_titles(calls, days)
        market = _Market(names, valuation, conflicts, changes, latest, reports, forecasts, titles)
        stocks = self._assemble(market, trade_date, announcement_days, notes)
        # the rows say what an optional endpoint left out (no permission, or it failed), as with AKShare
        degraded = [flag for flag, missing in ((FLAG_NO_TITLES, titles is None),
                                               (FLAG_NO_FORECASTS, forecasts is None)) if missing]
        if titles is not None and titles.unread:
            degraded.append(unread_flag(titles.unread, titles.read))
        return self._snapshot(version=version, trade_date=trade_date, now=now, latest=latest.values(),
                              stocks=stocks, notes=notes, calls=calls.records, degraded=degraded)

    @staticmethod
    def _load_names(calls: TushareCalls) -> dict[str, tuple[str | None, str | None]]:
        """stock_basic is the listed universe, with names and industries."""
        basic = calls.call("stock_basic", "stock_basic", essential=True, list_status="L")
        assert basic is not None
        names: dict[str, tuple[str | None, str | None]] = {}
        for r in basic[["ts_code", "name", "industry"]].itertuples(index=False):
            if (code := code_of(r[0])) is not None:
                names[code] = (text(r[1]), text(r[2]))
        if not names:
            raise IncompleteData("stock_basic returned no listed A-share")
        return names

    @staticmethod
    def _load_valuation(
        calls: TushareCalls, trade_date: dt.date
    ) -> tuple[dict[str, Valuation], dict[str, dict[str, str]]]:
        """daily_basic's figures per code, and the row flags of the codes it listed twice with two values."""
        label = f"daily_basic({ymd(trade_date)})"
        daily_basic = calls.call("daily_basic", label, essential=True, trade_date=ymd(trade_date))
        assert daily_basic is not None
        if daily_basic.empty:
            raise IncompleteData(
                f"{label} returned no rows: {trade_date.isoformat()} is not a trading day, or Tushare has not "
                "published it yet (daily_basic is updated after the close, 15:00-17:00)"
            )
        rows = []
        for r in daily_basic[["ts_code", *VALUATION]].itertuples(index=False):
            if (code := code_of(r[0])) is not None:
                rows.append((code, {name: num(v) for name, v in zip(VALUATION.values(), r[1:], strict=True)}))
        # a code listed twice: one row when the rows agree, no figure where they differ (duplicates.py)
        once = one_row_per_code(rows, call=label, day=trade_date.isoformat())
        if once.note:
            calls.notes.append(once.note)
        valuation: dict[str, Valuation] = {}
        for code, f in once.figures.items():
            mv = num(f["market_cap"])
            yuan = None if mv is None else mv * 1e4  # total_mv is in 万元
            valuation[code] = (num(f["price"]), num(f["pe_ttm"]), num(f["pb"]), yuan)
        return valuation, once.flags

    @staticmethod
    def _load_changes(calls: TushareCalls, trade_date: dt.date) -> dict[str, float | None] | None:
        daily = optional(calls, "daily", f"daily({ymd(trade_date)})", trade_date=ymd(trade_date))
        if daily is None:
            return None
        return {c: num(v) for k, v in daily[["ts_code", "pct_chg"]].itertuples(index=False)
                if (c := code_of(k)) is not None}

    def _load_reports(
        self, calls: TushareCalls, trade_date: dt.date, names: dict[str, tuple[str | None, str | None]]
    ) -> tuple[PeriodPlan, dict[str, PeriodFigures], _Reports]:
        """The walk to each stock's latest report, then the periods TTM and the fiscal years need."""
        reports = _Reports(calls)
        walk, latest = walk_latest_periods(trade_date, names, reports.load, complete_share=self.complete_share)
        calls.notes.extend(walk.notes())
        if not latest:
            raise IncompleteData("fina_indicator_vip returned no reports for "
                                 + ", ".join(p.isoformat() for p in walk.walked))
        extra = sorted(supporting_periods(latest.values()) - set(reports.tables), reverse=True)
        # the plan guessed four periods of two calls
        calls.plan.add(2 * (len(walk.walked) + len(walk.late) + len(extra)) - 8)
        for period in extra:
            reports.load(period)
        return walk, latest, reports

    @staticmethod
    def _load_forecasts(calls: TushareCalls, newest: dt.date) -> dict[str, Forecast] | None:
        """Forecasts for the newest period and the one after it; None when either cannot be had."""
        forecasts: dict[str, Forecast] = {}
        for period in (next_period(newest), newest):
            frame = optional(calls, "forecast_vip", f"forecast_vip({ymd(period)})", period=ymd(period))
            if frame is None:
                return None
            for r in frame[list(FIELDS["forecast_vip"])].itertuples(index=False):
                if (code := code_of(r[0])) is not None and code not in forecasts:
                    forecasts[code] = Forecast(period=period, notice_date=day(r[1]), kind=text(r[3]),
                                               content=text(r[4]), reason=text(r[5]))
        return forecasts

    @staticmethod
    def _load_titles(calls: TushareCalls, days: list[dt.date]) -> DayTitles | None:
        """Announcement titles per day, newest first; None (with a note) when anns_d is not available to this
        account, or no day could be read. A day that fails on its own (a 5xx or the rate limit after the retries)
        is skipped and named, as on the AKShare path (title_days.py): the other days are kept, never all lost for
        one; an open circuit ends the window."""
        got = DayTitles()
        for d in days:
            label = f"anns_d({ymd(d)})"
            try:
                frame = calls.query("anns_d", label, ann_date=ymd(d))
            except (NotEntitled, ProviderUnavailable) as exc:
                calls.notes.append(f"{WARNING}{label} left out: {exc}")
                if isinstance(exc, (NotEntitled, CircuitOpen)):
                    break
                continue
            finally:
                calls.plan.step()
            got.read.append(d)
            if frame.empty:
                got.quiet.append(d)
            for r in frame[list(FIELDS["anns_d"])].itertuples(index=False):
                code, when, title = code_of(r[1]), day(r[0]), text(r[2])
                if code is not None and when is not None and title is not None:
                    got.by_code.setdefault(code, []).append(Announcement(when, title))
        got.unread = [d for d in days if d not in got.read]
        if got.unread and not got.by_code:
            calls.notes.append(f"{WARNING}{FLAG_NO_TITLES}: announcement titles left out of the report texts "
                               "(anns_d not available)")
            return None
        if got.unread:
            calls.notes.append(f"{WARNING}{FLAG_NO_TITLES}: announcement titles of {spans(got.unread)} not fetched, "
                               f"those of {spans(got.read)} kept")
        return got

    # ---- one record per listed stock --------------------------------------------------------------------
    def _assemble(self, market: _Market, trade_date: dt.date, days: int, notes: list[str]) -> list[ProvidedStock]:
        quote_day = trade_date.isoformat()
        derived = 0
        out: list[ProvidedStock] = []
        for code in sorted(market.names):
            record, outcome = self._record(code, market, quote_day, days)
            derived += outcome == "derived"
            record.pe_gap = PE_GAPS.get(outcome or "")  # counted from the records (pe_gaps.py), as on AKShare
            out.append(record)
        notes.extend(self._pe_notes(market, out, derived, quote_day))
        return out

    def _record(self, code: str, market: _Market, quote_day: str, days: int) -> tuple[ProvidedStock, str | None]:
        """One listed stock's record, and how its PE-TTM went when daily_basic had none (see ``_put_pe``)."""
        name, industry = market.names[code]
        record = new_record(code)
        put(record, "name", name, quote_day, "tushare:stock_basic")
        put(record, "industry", industry, quote_day, "tushare:stock_basic")
        if name is not None:  # the exchanges mark risk warnings in the short name: ST, *ST, and 退 (delisting)
            # names.st_mark, as on the AKShare path: a regex of the prefixes alone stored "…退" as not ST, so
            # `universe show` said st False while the screen said ST (a trial, 2026-12-07)
            put_st(record, name, False, quote_day, "tushare:stock_basic(名称)", "tushare:stock_basic")
        close, pe, pb, mv = market.valuation.get(code, (None, None, None, None))
        put(record, "price", close, quote_day, "tushare:daily_basic")
        put(record, "pb", pb, quote_day, "tushare:daily_basic")
        put(record, "market_cap", mv, quote_day, "tushare:daily_basic")
        record.flags.update(market.conflicts.get(code, {}))
        if market.changes is not None:
            put(record, "change_pct", market.changes.get(code), quote_day, "tushare:daily")
        figures = market.latest.get(code)
        find = finder(market.reports.tables, code)
        if figures is not None:
            put_latest(record, figures)
            put_fiscal_years(record, figures, find)  # ROE from the last annual report: a quarter's is cumulative
        # pe_ttm given twice with two values: none is derived in its place either (the row says why it is empty)
        priced = code in market.valuation and "pe_ttm" not in market.conflicts.get(code, {})
        outcome = self._put_pe(record, pe, mv, priced, figures, find, quote_day)
        forecast = current_forecast(None if market.forecasts is None else market.forecasts.get(code), figures)
        titles = None if market.titles is None else market.titles.by_code.get(code, [])
        partly = market.titles if market.titles is not None and market.titles.unread else None
        self._put_report_text(record, name, figures, forecast, titles, quote_day, days, partly)
        return record, outcome

    @staticmethod
    def _put_pe(
        record: ProvidedStock,
        pe: float | None,
        mv: float | None,
        quoted: bool,
        figures: PeriodFigures | None,
        find: Find,
        quote_day: str,
    ) -> str | None:
        """daily_basic's true pe_ttm; where it is empty (a loss), total_mv over income_vip's TTM net profit.

        Returns "derived", "conflict" (pe_ttm empty although the TTM net profit is positive: the two sources
        disagree, so it stays empty) or "empty", for the notes; None for a true PE-TTM or a stock without a quote.
        """
        if pe is not None and pe != 0:  # a PE of 0 is no PE (a loss is empty there, or negative once derived)
            put(record, "pe_ttm", pe, quote_day, "tushare:daily_basic.pe_ttm")
            return None
        if not quoted:
            return None
        ttm = None if figures is None else ttm_net_profit(figures, find)
        if ttm is None or ttm.value is None:
            return "empty"
        if ttm.value > 0:
            return "conflict"
        put(record, "pe_ttm", pe_ttm(mv, ttm.value), quote_day,
            f"derived:total_mv/TTM净利润(tushare:income_vip {ttm.source})")
        return "derived"

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
        report = compose_report_text(latest=figures, forecast=forecast, announcements=None if partly else titles,
                                     days=days, name=name, max_titles=self.max_titles)
        if partly is not None:
            block = partial_block(titles or [], partly, name)
            report = f"{report}\n{block}" if report else block
        if report is None:
            return
        parts = (("fina_indicator_vip", figures is not None), ("forecast_vip", forecast is not None),
                 ("anns_d", titles is not None))
        put(record, "report_text", report, report_day(titles or [], figures, forecast, quote_day),
            "composed:tushare:" + "+".join(p for p, ok in parts if ok))

    @staticmethod
    def _pe_notes(market: _Market, stocks: list[ProvidedStock], derived: int, quote_day: str) -> list[str]:
        """How PE-TTM was obtained, how many stayed empty and why, and how many listed stocks had no quote.

        The empty ones are counted from the records (pe_gaps.pe_gap_note), not tallied here: the refresh can give
        one its PE-TTM back afterwards (refresh_reports.py), and refresh_report_notes.py then counts the note again
        the same way, so it names no stock whose row has a PE-TTM."""
        notes = [
            "PE-TTM from daily_basic.pe_ttm (Tushare: 总市值/净利润TTM, empty for a loss); "
            + (f"{derived} loss-makers derived as total_mv / TTM net profit from income_vip (negative PE)"
               if market.reports.income_ok else "income_vip not available, so loss-makers' PE-TTM stays empty")
        ]
        if (no_pe := pe_gap_note(stocks)) is not None:
            notes.append(no_pe)
        missing_quotes = sum(1 for c in market.names if c not in market.valuation)
        if missing_quotes:
            notes.append(f"{missing_quotes} listed stocks have no daily_basic row for {quote_day} (suspended)")
        return notes
