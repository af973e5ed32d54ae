"""When a stored figure is too old to screen on without saying so: a visible flag, never a silent use.

Two clocks, because figures age differently:

* quotes (price, change, PB, market cap, and PE-TTM, which moves with the price) are as of a
  trading day; older than ``max_quote_age_days`` SSE trading days is stale;
* report figures are as of a report period end; they are stale once the statutory deadline of the
  report that supersedes them has passed (Q1 by 04-30, half year by 08-31, Q3 by 10-31, annual by
  04-30 of the next year: the CSRC disclosure rules), because by then every listed company has
  published newer figures. Which report supersedes a figure depends on what the figure is:
  ROE and the two years' net profit are ANNUAL by design (README "Market data",
  ``providers/records.put_fiscal_years``), so only the next ANNUAL report supersedes them: FY2025's
  ROE is current until FY2026's report is due on 2027-04-30, even after the 2026 quarterlies are
  out. EPS and the report period are the latest report's, superseded by the next quarter's report.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

from screening.data.calendar_law import festival_of_reason, notice_year
from screening.data.providers.periods import disclosure_deadline, is_annual, is_period, label, next_period
from screening.data.trading_calendar import DayStatus, days_between
from screening.models import FIELD_LABELS, NOTE_FUTURE_DATE

QUOTE_FIELDS = frozenset({"price", "change_pct", "pb", "market_cap", "pe_dynamic", "pe_ttm"})
ANNUAL, QUARTERLY = "annual", "quarterly"
# Each report figure's clock, and how many fiscal years it stands for past its own date: the previous
# year's net profit (dated FY N-1) belongs to the pair whose latest year is FY N, so it ages with FY N.
REPORT_CLOCKS: dict[str, tuple[str, int]] = {
    "roe": (ANNUAL, 0), "net_profit_y1": (ANNUAL, 0), "net_profit_y2": (ANNUAL, 1),
    "eps": (QUARTERLY, 0), "report_date": (QUARTERLY, 0),
}
REPORT_FIELDS = frozenset(REPORT_CLOCKS)
FLAG_STALE = "数据过期"


def next_report_deadline(period_end: dt.date) -> dt.date | None:
    """The last day for the report of the period after ``period_end``; None if it is no period end."""
    return disclosure_deadline(next_period(period_end)) if is_period(period_end) else None


def next_annual_deadline(year_end: dt.date) -> dt.date | None:
    """The last day for the next fiscal year's annual report after the year ending ``year_end`` (FY2025 ->
    2027-04-30); None if it is no fiscal year end."""
    return disclosure_deadline(dt.date(year_end.year + 1, 12, 31)) if is_annual(year_end) else None


def superseded_by(name: str, period: dt.date) -> tuple[dt.date, str] | None:
    """(the deadline after which report figure ``name`` of ``period`` is stale, the report due then).

    An annual figure dated at a fiscal year end keeps the annual clock; any figure dated at another quarter
    end is a quarter's and keeps the quarterly one; a date that is no period end (an import's day) has none.
    """
    clock, ahead = REPORT_CLOCKS[name]
    if clock == ANNUAL and is_annual(period):
        year_end = dt.date(period.year + ahead, 12, 31)
        nxt = dt.date(year_end.year + 1, 12, 31)
        return disclosure_deadline(nxt), label(nxt)
    if not is_period(period):
        return None
    nxt = next_period(period)
    return disclosure_deadline(nxt), label(nxt)


@dataclass(frozen=True)
class QuoteAge:
    """How many sessions a quote missed, as far as the calendar knows: ``known`` certain trading days, and the
    调休待定 days between, which only the year's notice decides. An undecided day is neither counted nor
    dropped (a trial, 2027-02-15: five undecided days around 春节 read as "6 个交易日未更新" when the notice
    makes it 1); the count a user reads says both, and staleness goes by the most it may be (``most``)."""

    known: int
    undecided: tuple[DayStatus, ...] = ()

    @property
    def most(self) -> int:
        return self.known + len(self.undecided)

    def known_en(self) -> str:
        """The certain count in English, singular for one (a digest footer read "data is 1 trading days old")."""
        return f"{self.known} trading day{'' if self.known == 1 else 's'}"

    def pending(self, lead: str = "另有 ") -> str:
        """"另有 5 天交易与否待定: 2027年春节调休安排未导入", or "" when every day is decided."""
        if not self.undecided:
            return ""
        years: dict[int, list[str]] = {}
        for st in self.undecided:
            names = years.setdefault(notice_year(st.day), [])  # 2029-12-31 waits for 2030年元旦's arrangement
            names += [n for n in [festival_of_reason(st.note)] if n and n not in names]
        which = "、".join(f"{y}年{'、'.join(names)}" for y, names in sorted(years.items()))
        return f"{lead}{len(self.undecided)} 天交易与否待定: {which}调休安排未导入"


def quote_age(day: dt.date, today: dt.date, holidays: Iterable[dt.date] = (), *,
              store: Path | None = None) -> QuoteAge:
    """Trading days after ``day`` up to and including ``today`` (known 0: the quote is today's), the undecided
    ones apart.

    ``store`` is the folder of imported holiday notices (``[digest].calendar_dir``): a day the user's
    notice closes must not count as a day the quote missed."""
    if day >= today:
        return QuoteAge(0)
    certain, undecided = days_between(day + dt.timedelta(days=1), today, holidays, store=store)
    return QuoteAge(len(certain), tuple(undecided))


def quote_flag(fields: list[str], day: str, age: QuoteAge, max_age: int) -> str:
    """The row's 数据过期 note for quotes of ``day``: past ``max_age`` for certain, or possibly (undecided days
    between), which is still flagged and says why it is only possible."""
    if age.known > max_age:
        return f"{FLAG_STALE}: 行情 {', '.join(sorted(fields))} 为 {day} (超过 {max_age} 个交易日)"
    return (f"{FLAG_STALE}: 行情 {', '.join(sorted(fields))} 为 {day} (可能超过 {max_age} 个交易日: 之后确定的交易日 "
            f"{age.known} 个, {age.pending()})")


def stale_notes(dates: dict[str, str], today: dt.date, max_quote_age_days: int,
                holidays: Iterable[dt.date] = (), *, store: Path | None = None) -> list[str]:
    """One flag per stale group: quotes of one day; report figures one report supersedes, with their periods."""
    holidays = list(holidays)
    old_quotes: dict[str, tuple[QuoteAge, list[str]]] = {}
    old_reports: dict[tuple[dt.date, str], dict[str, list[str]]] = {}
    for name, text in dates.items():
        try:
            day = dt.date.fromisoformat(text[:10])
        except ValueError:
            continue
        if name in QUOTE_FIELDS and (age := quote_age(day, today, holidays, store=store)).most > max_quote_age_days:
            old_quotes.setdefault(text[:10], (age, []))[1].append(FIELD_LABELS[name])
        elif name in REPORT_FIELDS and (due := superseded_by(name, day)) is not None and today > due[0]:
            old_reports.setdefault(due, {}).setdefault(text[:10], []).append(FIELD_LABELS[name])
    notes = [quote_flag(v, d, age, max_quote_age_days) for d, (age, v) in sorted(old_quotes.items())]
    for (deadline, report), by_period in sorted(old_reports.items()):
        figures = "; ".join(f"{', '.join(sorted(v))} 为 {d} 报告期" for d, v in sorted(by_period.items(), reverse=True))
        notes.append(f"{FLAG_STALE}: 财报 {figures} ({report}应于 {deadline} 前披露)")
    return notes


def future_notes(dates: dict[str, str], today: dt.date) -> list[str]:
    """未来日期 notes on stored figures (a typed code, the digest): quotes of a day after today, report figures of a
    period not over by today (its report cannot exist yet). A refresh never stores either (quotes carry the session
    shown, reports their published period), so such a date came in by hand: an import's ``as_of`` or 报告期 typed
    2026-12-10 for 2026-11-10. Aged as if current it was silent (a trial, 2026-12-07: 600036 imported with as_of
    2026-12-10 screened with data_date 2026-12-10 and no flag); the file's own row says so (file_dates._future)."""
    quotes: dict[str, list[str]] = {}
    periods: dict[str, list[str]] = {}
    for name, text in dates.items():
        try:
            day = dt.date.fromisoformat(text[:10])
        except ValueError:
            continue
        if name in QUOTE_FIELDS and day > today:
            quotes.setdefault(day.isoformat(), []).append(FIELD_LABELS[name])
        elif name in REPORT_FIELDS and is_period(day) and day >= today:  # an import's day is no period: its quotes say
            periods.setdefault(day.isoformat(), []).append(FIELD_LABELS[name])
    notes = [f"{NOTE_FUTURE_DATE}: 本地数据的行情 {', '.join(sorted(v))} 为 {d}, 晚于今天 ({today}); 请核对导入的日期"
             for d, v in sorted(quotes.items())]
    notes += [f"{NOTE_FUTURE_DATE}: 本地数据的财报 {', '.join(sorted(v))} 为 {d} 报告期, 尚未结束 (今天 {today}), "
              "该期财报还不可能发布; 请核对导入的报告期" for d, v in sorted(periods.items())]
    return notes


NOTE_ROE_PERIOD_UNKNOWN = "ROE报告期不明"


def roe_period_note(dates: dict[str, str], source: str) -> str | None:
    """The note for a stored ROE dated by no fiscal year end, else None.

    A refresh dates its ROE by the fiscal year it is of (providers/records.put_fiscal_years); an import dates it by
    its row's 报告期 (file_dates.report_periods), and by the import's day only when the row named none. Such an ROE
    may be any year's, or a quarter's cumulative figure (a quote board's ROE exported in December is most often the
    Q3 one: source_checks), against the rules' annual 5%/15%; nothing ages it either. A trial, 2026-12-07: 000651
    imported with no 报告期 screened 低/100 on a typed code without a word."""
    text = dates.get("roe")
    if not text:
        return None
    try:
        day = dt.date.fromisoformat(text[:10])
    except ValueError:
        day = None
    if day is not None and is_annual(day):
        return None
    return (f"{NOTE_ROE_PERIOD_UNKNOWN}: 本地数据的 ROE ({source}) 未注明报告期, 不知是哪一年的年报还是季报累计值, "
            "也无法判断是否过期; 请在导入文件中加一列 报告期 后重新导入")


# Quotes taken during their own session: the price (and the PE-TTM and market cap it moves) is the moment's, not
# the close, and a verdict on it can turn by 15:00 (a trial, 2026-12-06: a 10:30 refresh was labelled as the
# session's quotes, on that day and the next). Said on the universe's label and on each row that uses them.
NOTE_INTRADAY = "盘中行情"
SESSION_CLOSE = dt.time(15, 0)
SHANGHAI = ZoneInfo("Asia/Shanghai")


def intraday_time(trade_date: str | None, refreshed_at: str | None) -> str | None:
    """``HH:MM`` (Shanghai) when quotes of ``trade_date`` were fetched before that session's close, else None."""
    if not trade_date or not refreshed_at:
        return None
    try:
        at = dt.datetime.fromisoformat(refreshed_at)
    except ValueError:
        return None
    local = at.astimezone(SHANGHAI) if at.tzinfo is not None else at  # a naive time is the refresh's local
    if local.date().isoformat() != trade_date[:10] or local.time() >= SESSION_CLOSE:
        return None
    return local.strftime("%H:%M")


def intraday_note(dates: dict[str, str], trade_date: str | None, refreshed_at: str | None) -> str | None:
    """The note for a row whose quote figures are ``trade_date``'s, fetched mid-session (``intraday_time``)."""
    at = intraday_time(trade_date, refreshed_at)
    fields = sorted(FIELD_LABELS[f] for f, d in dates.items() if f in QUOTE_FIELDS and d[:10] == (trade_date or ""))
    if at is None or not fields:
        return None
    return f"{NOTE_INTRADAY}: {', '.join(fields)} 为 {trade_date} {at} 的盘中数据, 不是收盘价"


def market_today() -> dt.date:
    """Today in Shanghai, the market's day: a host clock in UTC (a container) is a day behind until 08:00 there,
    and a screen must age its figures by the same day the digest does."""
    return dt.datetime.now(SHANGHAI).date()
