"""Refresh the universe from a real source: AKShare first, Tushare Pro as the fallback.

A refresh is all or nothing. The provider's snapshot replaces the universe in one SQLite
transaction, and only when it is complete: a provider that fails, answers with far fewer stocks
than the last good universe (``universe.min_coverage``, 90%), or leaves an essential field (quote,
PE-TTM, ROE, EPS, industry) empty for more than that share of the stocks that had it (on a first
refresh: for more than half of its own stocks), leaves the last good universe in place, and the
outcome names the field, its period and the calls that give it. Counting stocks alone is not
enough: a report period answered with nothing would give a full list of stocks without ROE, and
every non-ST stock would then fail the rules.

AKShare and Tushare are different backends (Eastmoney's servers
vs Tushare's), so the second is a real fallback when the first is banned or down; the chain stops
at the first complete snapshot.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo

from screening.config import Settings
from screening.data.providers import (
    PROVIDERS,
    CircuitBreaker,
    MarketSnapshot,
    ProgressCallback,
    Provider,
    ProviderError,
    RetryPolicy,
    get_provider,
)
from screening.data.providers.provider_base import NAMED, ProviderBase, more_than
from screening.data.refresh_open_risks import OpenRisks, keep_open_risks
from screening.data.refresh_reports import keep_known_reports
from screening.data.refresh_titles import WARNING, keep_known_titles
from screening.data.trading_calendar import SessionUncertain, board_session
from screening.data.universe import Record, Universe, UniverseInfo
from screening.data.unknown_codes import LEFT_THE_LIST, MOVED_BSE, bse_moves

log = logging.getLogger(__name__)
SHANGHAI = ZoneInfo("Asia/Shanghai")


def quote_session(now: dt.datetime, holidays: Iterable[dt.date] = (), *, store: Path | None = None) -> dt.date:
    """The trading session the quote board shows at ``now``: today's from the call auction on a trading day,
    else (before the open, on a weekend or holiday) the previous trading day's close (SSE calendar).

    ``SessionUncertain`` when an undecided (调休待定) day stands in the way: quotes are never dated by a guess
    (trading_calendar.board_session).
    """
    return board_session(now, holidays, store=store)


class RefreshFailed(RuntimeError):
    """No provider gave a complete snapshot; the last good universe is untouched. The message says why."""


class SessionUndated(RefreshFailed):
    """The session the quotes would stand for is uncertain (调休待定, no notice): retrying does not settle it."""


@dataclass
class RefreshOutcome:
    provider: str
    stocks: int
    previous: int
    trade_date: str
    report_period: str
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # providers tried before the one that worked, and why


def provider_chain(settings: Settings, choice: str | None, env: Mapping[str, str] | None = None) -> list[str]:
    """Which providers to try, in order: the one asked for, else AKShare then Tushare (with a token)."""
    env = os.environ if env is None else env
    name = choice or settings.universe.provider
    if name != "auto":
        if name not in PROVIDERS:
            raise ValueError(f"unknown data provider {name!r}; choose one of {', '.join(PROVIDERS)}")
        return [name]
    chain = ["akshare"]
    if env.get(settings.universe.tushare_token_env, "").strip():
        chain.append("tushare")
    return chain


class Refresher:
    """Keeps one provider instance per name, so each provider's circuit breaker outlives a single refresh."""

    def __init__(self, settings: Settings, *, now: Callable[[], dt.datetime] | None = None,
                 open_risks: OpenRisks | None = None) -> None:
        """``open_risks`` reads which stored titles state a risk still open (screen/'s text reader, handed in by
        the command or the bot that builds this): each refresh keeps those older than its window
        (refresh_open_risks). Without it a 立案 of 31 days ago leaves the text, and the stock reads 低."""
        self.settings = settings
        self._providers: dict[str, Provider] = {}
        self._now = now or (lambda: dt.datetime.now(SHANGHAI))
        self._open_risks = open_risks

    def provider(self, name: str) -> Provider:
        if name not in self._providers:  # retries per call with jittered backoff, a breaker per provider
            us = self.settings.universe
            provider = get_provider(
                name, retry=RetryPolicy(attempts=us.refresh_attempts), pace_s=us.pace_s,
                breaker=CircuitBreaker(name, failure_threshold=us.breaker_failures, cooldown_s=us.breaker_cooldown_s))
            if isinstance(provider, ProviderBase):
                provider.use_clock(self._now)
            use_calendar = getattr(provider, "use_calendar", None)  # AKShare: its board stands for one session
            if use_calendar is not None:
                use_calendar(self.settings.digest.holiday_set(), self.settings.digest.calendar_store(), self._now)
            self._providers[name] = provider
        return self._providers[name]

    def refresh(self, *, choice: str | None = None, trade_date: dt.date | None = None,
                progress: ProgressCallback | None = None, env: Mapping[str, str] | None = None) -> RefreshOutcome:
        """Fetch and, when complete, replace the universe; RefreshFailed (universe untouched) otherwise."""
        us = self.settings.universe
        if us.demo:
            raise RefreshFailed("universe.demo is on: the demo universe is synthetic and never refreshed; "
                                "turn demo mode off to refresh the real one")
        ds = self.settings.digest
        try:
            day = trade_date or quote_session(self._now(), ds.holiday_set(), store=ds.calendar_store())
        except SessionUncertain as exc:
            raise SessionUndated(f"{exc}; the universe is untouched") from None
        universe = Universe.load(self.settings.universe_path())
        previous = len(universe) if not universe.info.demo else 0
        had = essential_fields(universe) if previous else {}
        failures: list[str] = []
        for name in provider_chain(self.settings, choice, env):
            try:
                snapshot = self.provider(name).fetch(day, announcement_days=us.announcement_days, progress=progress)
            except ProviderError as exc:
                log.warning("universe refresh: %s failed: %s", name, exc)
                failures.append(f"{name}: {type(exc).__name__}: {exc}")
                continue
            if previous:  # titles this refresh could not fetch: the last good universe's dated ones stay true
                snapshot = keep_known_titles(snapshot, universe, us.announcement_days)
            problem = coverage_problem(snapshot, previous, us.min_coverage) or field_problem(
                snapshot, had, us.min_coverage) or unit_problem(snapshot)
            if problem:
                log.warning("universe refresh: %s: %s", name, problem)
                failures.append(f"{name}: {problem}")
                continue
            if previous:  # checked as answered; then the reports the answer left a stock out of are put back
                snapshot = keep_known_reports(snapshot, universe)
            if previous and self._open_risks is not None:  # and the open risks the window no longer shows
                snapshot = keep_open_risks(snapshot, universe, us.announcement_days, self._open_risks,
                                           us.open_risk_days)
            before = {s.code: s.name for s in universe} if previous else {}
            left = leaving(before, staying(snapshot, universe), {p.stock.code: p.stock.name for p in snapshot.stocks})
            snapshot.notes += field_gaps(snapshot) + left_the_list(
                before, left, since=universe.info.refreshed_at, at=snapshot.fetched_at)
            info = info_of(snapshot)  # the notes are stored with it
            info.bse_moves, info.left_list = dict(left.moves), list(left.gone)
            universe.replace(records_of(snapshot), info)
            log.info("universe refreshed from %s: %d stocks (was %d), quotes %s, reports %s", name,
                     len(universe), previous, snapshot.trade_date, snapshot.report_period)
            return RefreshOutcome(name, len(universe), previous, snapshot.trade_date, snapshot.report_period,
                                  list(snapshot.notes), failures)
        kept = f"kept the last good universe ({universe.info.label()})" if previous else "the universe stays empty"
        raise RefreshFailed(f"no provider gave a complete market ({'; '.join(failures)}); {kept}")


def coverage_problem(snapshot: MarketSnapshot, previous: int, min_coverage: float) -> str | None:
    """Why this snapshot must not replace the last good universe, or None."""
    n = len(snapshot.stocks)
    if n == 0:
        return "returned no stocks"
    if previous and n < min_coverage * previous:
        return (f"returned {n} stocks, under {min_coverage:.0%} of the last good universe's {previous}: "
                "refused as incomplete")
    return None


# the fields a universe is for: without them a stock cannot be screened (label, for the message)
ESSENTIAL = {"price": "quote (最新价)", "pe_ttm": "PE-TTM", "roe": "ROE", "eps": "EPS", "industry": "industry"}


@dataclass
class FieldHad:
    """Which stocks of the last good universe had one essential field, and as of which date most of them."""

    codes: set[str]
    date: str | None


def essential_fields(universe: Universe) -> dict[str, FieldHad]:
    """Per essential field: the codes that have it in ``universe`` and the date most of them are as of."""
    out = {name: FieldHad(set(), None) for name in ESSENTIAL}
    dates: dict[str, dict[str, int]] = {name: {} for name in ESSENTIAL}
    for stock in universe:
        rec = universe.record(stock.code)
        for name in ESSENTIAL:
            if getattr(stock, name) is not None:
                out[name].codes.add(stock.code)
                when = (rec.dates.get(name) if rec else None) or ""
                dates[name][when] = dates[name].get(when, 0) + 1
    for name, seen in dates.items():
        if seen:
            out[name].date = max(seen, key=lambda d: seen[d]) or None
    return out


# which calls give each essential field, per provider (function-name prefixes, as in MarketSnapshot.calls): a
# field answered blank comes back from calls that say "ok", so the message names these, not the calls that failed
FIELD_CALLS: dict[str, dict[str, tuple[str, ...]]] = {
    "akshare": {"price": ("stock_zh_a_spot_em",), "market_cap": ("stock_zh_a_spot_em",),
                "pe_ttm": ("stock_zh_a_spot_em", "stock_yjbb_em"), "roe": ("stock_yjbb_em",), "eps": ("stock_yjbb_em",),
                "industry": ("stock_yjbb_em",)},
    "tushare": {"price": ("daily_basic",), "market_cap": ("daily_basic",), "pe_ttm": ("daily_basic", "income_vip"),
                "roe": ("fina_indicator_vip",), "eps": ("fina_indicator_vip",), "industry": ("stock_basic",)},
}
# a first refresh (no last good universe to compare with): an essential field present for under this share of
# the stocks is a field answered blank, not the market. New listings (no annual report yet) and suspended stocks
# (no 总市值, so no PE-TTM) are a few percent of the A-share market, so half leaves them ample room.
FIRST_REFRESH_SHARE = 0.5


def field_calls(snapshot: MarketSnapshot, name: str, period: str | None) -> str:
    """The snapshot's calls that give field ``name`` (those of ``period`` when some are), with how each went."""
    prefixes = FIELD_CALLS.get(snapshot.provider, {}).get(name, ())
    calls = [c for c in snapshot.calls if prefixes and c.function.startswith(prefixes)]
    on_period = [c for c in calls if period and period.replace("-", "") in c.function]
    shown = [f"{c.function} {c.outcome}" + (f" ({c.rows:,} rows)" if c.rows is not None else "")
             for c in on_period or calls]
    return ", ".join(shown) or "none recorded"


def field_problem(snapshot: MarketSnapshot, had: dict[str, FieldHad], min_coverage: float) -> str | None:
    """The first essential field the snapshot lacks for too many stocks, named with its period and the calls that
    gave it; None when every field is covered.

    Against the last good universe: present for under ``min_coverage`` of the stocks that had it. On a first
    refresh (``had`` empty): present for under ``FIRST_REFRESH_SHARE`` of the snapshot's stocks, so a field
    answered blank for the whole market is refused before it becomes the universe every screen then fails on.
    """
    have: dict[str, set[str]] = {name: set() for name in ESSENTIAL}
    for p in snapshot.stocks:
        for name in ESSENTIAL:
            if getattr(p.stock, name) is not None:
                have[name].add(p.stock.code)
    if not had:
        total = len(snapshot.stocks)
        for name in ESSENTIAL:
            n = len(have[name])
            if total and n < FIRST_REFRESH_SHARE * total:
                return (f"{ESSENTIAL[name]} present for {n:,} of the {total:,} stocks ({n / total:.0%}, under "
                        f"{FIRST_REFRESH_SHARE:.0%} on a first refresh); the calls that give it: "
                        f"{field_calls(snapshot, name, None)}: answered without the field, refused "
                        "as incomplete")
        return None
    for name, before in had.items():
        if not before.codes:
            continue
        kept = len(before.codes & have[name])
        if kept >= min_coverage * len(before.codes):
            continue
        period = before.date or "?"
        return (f"{ESSENTIAL[name]} present for {kept:,} of the {len(before.codes):,} stocks that had it in the "
                f"last good universe ({kept / len(before.codes):.0%}, under {min_coverage:.0%}); its period there: "
                f"{period}; the calls that give it: {field_calls(snapshot, name, before.date)}: refused as "
                "incomplete")
    return None


# What the whole market's median of a figure can be, in the product's units (ROE in percent, 总市值 in yuan, PE-TTM
# in times): a field present for every stock can still be in the wrong unit (a ROE answered as a fraction, 0.117
# for 11.7%; 总市值 in 亿 or 万元). Such a snapshot passes every presence check and turns each verdict: every stock
# 高 on "ROE 0.117%<5%", or a PE-TTM of 0.0 that reads as a loss. The A-share medians sit far inside these bands
# (ROE about 6%, 总市值 about 60亿, PE-TTM about 30); a median outside is a unit, never the market.
MEDIAN_BANDS: dict[str, tuple[float, float, str]] = {
    "roe": (0.5, 100.0, "ROE (percent): the A-share median |ROE| is about 6%; under 0.5% it was answered as a "
            "fraction"),
    "market_cap": (1e8, 1e12, "总市值 (yuan): the A-share median is about 60亿 元; outside 1亿..1万亿 it was answered "
                   "in 亿 or 万元"),
    "pe_ttm": (1.0, 1e4, "PE-TTM (times) of the profitable stocks: the A-share median is about 30"),
}


def unit_problem(snapshot: MarketSnapshot) -> str | None:
    """Why the snapshot's figures are in the wrong unit (a whole-market median outside ``MEDIAN_BANDS``), or None."""
    for name, (low, high, what) in MEDIAN_BANDS.items():
        values = sorted(abs(v) for p in snapshot.stocks if isinstance(v := getattr(p.stock, name), int | float)
                        and (name != "pe_ttm" or v > 0))
        if len(values) < 20:  # too few to say what the market's median is
            continue
        median = values[len(values) // 2]
        if not low <= median <= high:
            return (f"{name} median {median:.6g} over {len(values):,} stocks is outside {low:g}..{high:g}: {what}; "
                    f"the calls that give it: {field_calls(snapshot, name, None)}: refused as a unit change upstream")
    return None


# an accepted refresh whose essential field is empty for more than this share of its stocks says so (a trial,
# 2026-12-06: Eastmoney's null ROE for 45% of a first refresh's stocks passed with no warning, and each of those
# rows then failed advising a refresh)
GAP_WARN_SHARE = 0.10


def field_gaps(snapshot: MarketSnapshot) -> list[str]:
    """A warning per essential field the source left empty for over ``GAP_WARN_SHARE`` of the snapshot's stocks."""
    total = len(snapshot.stocks)
    notes = []
    for name, label in ESSENTIAL.items():
        empty = sum(1 for p in snapshot.stocks if getattr(p.stock, name) is None)
        if total and empty > GAP_WARN_SHARE * total:
            notes.append(f"{WARNING}{label} empty for {empty:,} of the {total:,} stocks ({empty / total:.0%}): the "
                         f"source gave it blank ({field_calls(snapshot, name, None)}); their rows fail naming it")
    return notes


def staying(snapshot: MarketSnapshot, universe: Universe) -> set[str]:
    """The codes the universe will hold once ``snapshot`` replaces it: those listed, and the user's imports the
    swap keeps (Universe.kept_imports)."""
    listed = {p.stock.code for p in snapshot.stocks}
    return listed | set(universe.kept_imports(listed))


@dataclass(frozen=True)
class Leaving:
    """The codes of the last good universe this refresh no longer lists, worked out once: the old Beijing codes
    listed again under their 920 code (``moves``: old -> new) and the rest (``gone``, delisted most likely). The
    note (``left_the_list``) and the universe's record of them (``UniverseInfo.bse_moves``, ``left_list``) are
    both made from it, so they cannot disagree."""

    moves: dict[str, str]
    gone: list[str]


def leaving(before: Mapping[str, str | None], after: Container[str],
            names: Mapping[str, str | None] | None = None) -> Leaving:
    """``before``: the last good universe's codes and names; ``after``: the codes the swap will hold; ``names``:
    this refresh's codes and names, so an old Beijing code listed again under its 920 code is a move
    (unknown_codes.bse_moves), not a delisting."""
    gone = sorted(code for code in before if code not in after)
    moves = bse_moves(gone, before, names or {})
    return Leaving(moves, [code for code in gone if code not in moves])


def left_the_list(before: Mapping[str, str | None], left: Leaving, *, since: str | None = None,
                  at: str | None = None) -> list[str]:
    """A note naming the stocks the last good universe held and this refresh no longer lists (delisted, most
    likely): a file row under one of them is then flagged (load.unlisted_code), and the user reads why here.

    Made before the swap (``left``: from the codes it will hold) so it is stored with the universe's refresh record:
    made after it, it was printed once by the refresh and `universe status` never showed it (a trial,
    2026-12-06). ``since``/``at``: when the last good universe and this refresh were fetched, so the note says
    which refresh dropped them when read later. ``before``: the last good universe's names, which the note gives;
    an old Beijing code found moved is named with its new code, not as delisted.
    """
    moves, gone = left.moves, left.gone
    when = f" of {since}, at the refresh of {at}" if since and at else ""
    moved = "、".join(f"{old} {before[old] or ''} → {new}" for old, new in list(moves.items())[:NAMED])
    notes = [f"{len(moves)} Beijing stock(s) {MOVED_BSE}{when}: {moved}{more_than(moves)}"] if moves else []
    if not gone:
        return notes
    shown = "、".join(f"{code} {before[code] or ''}".rstrip() for code in gone[:NAMED])
    more = more_than(gone)
    return [*notes, f"{len(gone)} stock(s) {LEFT_THE_LIST}{when} (delisted?): {shown}{more}"]


def note_line(note: str) -> str:
    """One note of a refresh as the CLI prints it: ``warning: X`` for a warning (its marker once), else ``note: X``
    (was ``note: warning: X`` on refresh and ``warning: warning: X`` on `universe status`)."""
    return note if note.startswith(WARNING) else f"note: {note}"


def records_of(snapshot: MarketSnapshot) -> list[Record]:
    return [Record(p.stock, dict(p.field_sources), dict(p.field_dates), snapshot.trade_date) for p in snapshot.stocks]


def info_of(snapshot: MarketSnapshot) -> UniverseInfo:
    return UniverseInfo(provider=snapshot.provider, provider_version=snapshot.provider_version,
                        trade_date=snapshot.trade_date, report_period=snapshot.report_period,
                        refreshed_at=snapshot.fetched_at, notes=list(snapshot.notes),
                        degraded=list(snapshot.degraded),
                        row_flags={p.stock.code: dict(p.flags) for p in snapshot.stocks if p.flags})
