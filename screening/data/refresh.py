"""Refresh the universe from a real source: AKShare first, Tushare Pro as the fallback.

A refresh is all or nothing. The provider's snapshot replaces the universe in one SQLite
transaction, and only when it is complete: a provider that fails, or answers with far fewer stocks
than the last good universe (``universe.min_coverage``, 90%), leaves the last good universe in
place, and the outcome says why. AKShare and Tushare are different backends (Eastmoney's servers
vs Tushare's), so the second is a real fallback when the first is banned or down; the chain stops
at the first complete snapshot.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
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
from screening.data.universe import Record, Universe, UniverseInfo

log = logging.getLogger(__name__)
SHANGHAI = ZoneInfo("Asia/Shanghai")


class RefreshFailed(RuntimeError):
    """No provider gave a complete snapshot; the last good universe is untouched. The message says why."""


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

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._providers: dict[str, Provider] = {}

    def provider(self, name: str) -> Provider:
        if name not in self._providers:  # retries per call with jittered backoff, a breaker per provider
            us = self.settings.universe
            self._providers[name] = get_provider(
                name, retry=RetryPolicy(attempts=us.refresh_attempts),
                breaker=CircuitBreaker(name, failure_threshold=us.breaker_failures, cooldown_s=us.breaker_cooldown_s))
        return self._providers[name]

    def refresh(self, *, choice: str | None = None, trade_date: dt.date | None = None,
                progress: ProgressCallback | None = None, env: Mapping[str, str] | None = None) -> RefreshOutcome:
        """Fetch and, when complete, replace the universe; RefreshFailed (universe untouched) otherwise."""
        us = self.settings.universe
        if us.demo:
            raise RefreshFailed("universe.demo is on: the demo universe is synthetic and never refreshed; "
                                "turn demo mode off to refresh the real one")
        day = trade_date or dt.datetime.now(SHANGHAI).date()
        universe = Universe.load(self.settings.universe_path())
        previous = len(universe) if not universe.info.demo else 0
        failures: list[str] = []
        for name in provider_chain(self.settings, choice, env):
            try:
                snapshot = self.provider(name).fetch(day, announcement_days=us.announcement_days, progress=progress)
            except ProviderError as exc:
                log.warning("universe refresh: %s failed: %s", name, exc)
                failures.append(f"{name}: {type(exc).__name__}: {exc}")
                continue
            problem = coverage_problem(snapshot, previous, us.min_coverage)
            if problem:
                log.warning("universe refresh: %s: %s", name, problem)
                failures.append(f"{name}: {problem}")
                continue
            universe.replace(records_of(snapshot), info_of(snapshot))
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


def records_of(snapshot: MarketSnapshot) -> list[Record]:
    return [Record(p.stock, dict(p.field_sources), dict(p.field_dates), snapshot.trade_date) for p in snapshot.stocks]


def info_of(snapshot: MarketSnapshot) -> UniverseInfo:
    return UniverseInfo(provider=snapshot.provider, provider_version=snapshot.provider_version,
                        trade_date=snapshot.trade_date, report_period=snapshot.report_period,
                        refreshed_at=snapshot.fetched_at, notes=list(snapshot.notes))
