"""What both providers share: the state that outlives a refresh, and how a fetch begins and ends.

A provider instance lives as long as the bot (refresh.Refresher keeps one per name), so its retry policy and
circuit breaker carry over from one refresh to the next; the clock and the sleep are injectable so tests run
the real vendor code at a fixed time and without waiting. A fetch always starts from the Shanghai clock and the
announcement window, and ends in a MarketSnapshot whose report period is the one most stocks' figures are from.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Sized
from zoneinfo import ZoneInfo

from screening.data.providers.base import CallRecord, MarketSnapshot, ProvidedStock
from screening.data.providers.fetch_plan import announcement_window
from screening.data.providers.fundamentals import PeriodFigures
from screening.data.providers.records import snapshot_period
from screening.data.providers.resilience import CircuitBreaker, RetryPolicy

SHANGHAI = ZoneInfo("Asia/Shanghai")
WARNING = "warning: "  # notes that start so are shown on `universe status` and the digest footer
NAMED = 20  # codes a note names before " 等N只" (unknown_codes reads the named ones back from the notes)


def more_than(items: Sized, shown: int = NAMED) -> str:
    """`` 等N只`` after a list that names only the first ``shown`` of ``items``, else nothing."""
    return f" 等{len(items)}只" if len(items) > shown else ""

FLAG_NO_TITLES = "公告数据缺失"  # row flags: an optional source failed, so every row lacks what it gives
FLAG_NO_FORECASTS = "业绩预告数据缺失"
FLAG_NO_ST_BOARD = "ST板数据缺失"  # ST then from the names alone


class ProviderBase:
    """Retry policy, circuit breaker, call deadline, clock and sleep; the start and the snapshot of a fetch."""

    name = "provider"

    def __init__(
        self,
        *,
        retry: RetryPolicy | None = None,
        breaker: CircuitBreaker | None = None,
        timeout_s: float = 60.0,
        complete_share: float = 0.8,
        max_titles: int | None = None,  # every title: the rules floor reads them all (report_text.py)
        now: Callable[[], dt.datetime] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self.breaker = breaker or CircuitBreaker(self.name)
        self.timeout_s = timeout_s
        self.complete_share = complete_share
        self.max_titles = max_titles
        self._now = now or (lambda: dt.datetime.now(SHANGHAI))
        self._sleep = sleep

    def use_clock(self, now: Callable[[], dt.datetime]) -> None:
        """The refresh's clock: the session it chose, the announcement window and the time a fetch is stored
        under are one reading (Tushare's fetch read its own clock, so a refresh at a fixed or shifted time named
        another moment as the source of the titles it carried; found by tests/test_refresh_tushare_titles.py)."""
        self._now = now

    def _start(self, trade_date: dt.date, announcement_days: int) -> tuple[dt.datetime, list[dt.date]]:
        """The fetch's clock (Shanghai) and its announcement days, newest first."""
        now = self._now().astimezone(SHANGHAI)
        return now, announcement_window(trade_date, now.date(), announcement_days)

    def _snapshot(
        self, *, version: str, trade_date: dt.date, now: dt.datetime, latest: Iterable[PeriodFigures],
        stocks: list[ProvidedStock], notes: list[str], calls: list[CallRecord], degraded: Iterable[str] = (),
    ) -> MarketSnapshot:
        return MarketSnapshot(
            provider=self.name, provider_version=version, trade_date=trade_date.isoformat(),
            report_period=snapshot_period(latest).isoformat(), fetched_at=now.isoformat(timespec="seconds"),
            stocks=stocks, notes=notes, calls=calls, degraded=sorted(set(degraded)),
        )
