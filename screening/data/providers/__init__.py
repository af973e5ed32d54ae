"""Market-data providers: AKShare first (no token), Tushare Pro as the fallback (the user's token).

The vendor SDKs are imported only when a fetch runs, so importing this package stays cheap and works without
the optional ``data`` extra installed.
"""

from __future__ import annotations

from screening.data.providers.base import (
    CallRecord,
    CircuitOpen,
    IncompleteData,
    MarketSnapshot,
    NotEntitled,
    NullAnswer,
    ProgressCallback,
    ProvidedStock,
    Provider,
    ProviderError,
    ProviderUnavailable,
    SchemaChanged,
)
from screening.data.providers.resilience import CircuitBreaker, RetryPolicy

PROVIDERS = ("akshare", "tushare")


def get_provider(
    name: str, *, retry: RetryPolicy | None = None, breaker: CircuitBreaker | None = None, pace_s: float = 0.0
) -> Provider:
    """The provider called ``name``; keep the instance (its circuit breaker lives on it) between refreshes."""
    if name == "akshare":
        from screening.data.providers.akshare_provider import AkshareProvider

        return AkshareProvider(retry=retry, breaker=breaker, pace_s=pace_s)
    if name == "tushare":
        from screening.data.providers.tushare_provider import TushareProvider

        return TushareProvider(retry=retry, breaker=breaker)
    raise ValueError(f"unknown data provider {name!r}; choose one of {', '.join(PROVIDERS)}")


__all__ = [
    "PROVIDERS",
    "CallRecord",
    "CircuitBreaker",
    "CircuitOpen",
    "IncompleteData",
    "MarketSnapshot",
    "NotEntitled",
    "NullAnswer",
    "ProgressCallback",
    "ProvidedStock",
    "Provider",
    "ProviderError",
    "ProviderUnavailable",
    "RetryPolicy",
    "SchemaChanged",
    "get_provider",
]
