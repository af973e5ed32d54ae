"""What a market-data provider hands the universe refresh, and how it fails.

Every value a provider returns carries the date it is as of and a short id of where it came from, because the
product shows both next to every figure: a user who reads "PE-TTM 23.4" must be able to tell that it was derived
from 总市值 and three reports, not read off a quote screen. A value the provider does not have is None, never a
default, and a failure is an exception that names what failed (function, column, endpoint, page), never a bare
KeyError from inside a vendor SDK.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from screening.models import StockInput

# progress(step, done, total): step "fetch" counts calls (done of total planned; the plan can grow when a report
# period falls back); any other step is one call, e.g. "stock_yjbb_em(20260930)", counting its pages.
ProgressCallback = Callable[[str, int, int], None]


@dataclass
class ProvidedStock:
    """One stock: every field the provider knows, with its as-of date and source per field."""

    stock: StockInput
    field_dates: dict[str, str] = field(default_factory=dict)  # field -> ISO date the value is as of
    field_sources: dict[str, str] = field(default_factory=dict)  # field -> short source id
    # field -> a row flag about that figure (the source gave it twice with two values; a report this answer lacked,
    # carried from the last good universe); stored with the universe (UniverseInfo.row_flags), shown on the row
    flags: dict[str, str] = field(default_factory=dict)
    # why the provider left PE-TTM empty, for the note counting them (pe_gaps.py); not stored with the universe
    pe_gap: str | None = None


@dataclass
class CallRecord:
    """One upstream call of a fetch, for `universe status`, the notes, and performance work."""

    function: str  # e.g. "stock_yjbb_em(20260930)", "daily_basic(20261203)"
    seconds: float
    rows: int | None = None
    pages: int | None = None
    outcome: str = "ok"  # ok | empty | <error class name>


@dataclass
class MarketSnapshot:
    provider: str  # "akshare" | "tushare"
    provider_version: str
    trade_date: str  # ISO date of the quotes
    report_period: str  # ISO date of the report period most stocks' fundamentals come from
    fetched_at: str  # ISO datetime, Asia/Shanghai
    stocks: list[ProvidedStock]
    notes: list[str]  # how PE-TTM was obtained, partial periods, calls that returned nothing, ...
    calls: list[CallRecord] = field(default_factory=list)
    # flags every row of this snapshot carries because an optional source failed (e.g. 公告数据缺失)
    degraded: list[str] = field(default_factory=list)


class ProviderError(Exception):
    """A fetch failed; the message says what failed and what to do."""


class ProviderUnavailable(ProviderError):
    """The source could not be reached or stopped answering (network, Eastmoney IP ban, paging died, 5xx).

    ``pages_done``/``pages_total`` say how far a paged call got, when that is known.
    """

    def __init__(
        self,
        message: str,
        *,
        function: str | None = None,
        ban: bool = False,
        pages_done: int | None = None,
        pages_total: int | None = None,
    ) -> None:
        super().__init__(message)
        self.function = function
        self.ban = ban
        self.pages_done = pages_done
        self.pages_total = pages_total


class CircuitOpen(ProviderUnavailable):
    """The provider failed K times in a row; calls fail fast until the cooldown has passed."""


class SchemaChanged(ProviderError):
    """An upstream column was renamed, added or removed; our code (or the pinned SDK) needs an update."""

    def __init__(
        self,
        message: str,
        *,
        function: str,
        missing: list[str] | None = None,
        seen: list[str] | None = None,
        version: str | None = None,
    ) -> None:
        super().__init__(message)
        self.function = function
        self.missing = missing or []
        self.seen = seen or []
        self.version = version


class NotEntitled(ProviderError):
    """Tushare: no token, a token the server rejects, or not enough points for an endpoint."""

    def __init__(self, message: str, *, endpoint: str | None = None, needs: str | None = None) -> None:
        super().__init__(message)
        self.endpoint = endpoint
        self.needs = needs


class IncompleteData(ProviderError):
    """The source answered, but without what a usable universe needs (no quotes, no report period, ...)."""


class NullAnswer(IncompleteData):
    """The vendor answered "no data" (Eastmoney's ``result: null``) for a call that must have data.

    Eastmoney sometimes answers null for a report period whose reports are all out (akshare issue #6522):
    taken for "no data", it would replace good figures with nothing. It is retried like an outage (without
    counting against the circuit breaker: the server did answer) and then named, never taken as empty.
    """

    def __init__(self, message: str, *, function: str) -> None:
        super().__init__(message)
        self.function = function


class Provider(Protocol):
    name: str

    def fetch(
        self,
        trade_date: dt.date,
        *,
        announcement_days: int = 30,
        progress: ProgressCallback | None = None,
    ) -> MarketSnapshot: ...
