"""Calling Tushare Pro: the token, paging, retries, and failures turned into named errors.

Why a wrapper instead of plain ``pro.query`` calls (read in tushare 1.4.29's source): the SDK raises a bare
``Exception(msg)`` for any non-zero answer code, so the message is all there is to tell a rejected token from
missing points or a rate limit; it turns any non-2xx HTTP answer into an empty table, which must not pass for
an empty market; and several endpoints cap the rows of one call, so a whole-market call is paged.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from typing import Any

import pandas as pd

from screening.data.providers.base import (
    CallRecord,
    NotEntitled,
    ProgressCallback,
    ProviderError,
    ProviderUnavailable,
    SchemaChanged,
)
from screening.data.providers.fetch_plan import CallPlan
from screening.data.providers.frames import require_columns
from screening.data.providers.resilience import CircuitBreaker, RetryPolicy, call_resilient

TOKEN_ENV = "TUSHARE_TOKEN"
NEEDS: dict[str, str] = {
    "stock_basic": "2000 points",
    "daily_basic": "2000 points",
    "daily": "120 points",
    "fina_indicator_vip": "5000 points",
    "income_vip": "5000 points",
    "forecast_vip": "5000 points",
    "anns_d": "a separately granted permission (本接口为单独权限)",
}
ESSENTIAL = ("stock_basic", "daily_basic", "fina_indicator_vip")
# rows per call: the server caps each call (a capped answer looks complete), so whole-market calls page with
# limit/offset until a short page; the _vip endpoints too, so a period past one page is never cut silently
PAGE_ROWS = {"stock_basic": 6000, "daily_basic": 6000, "daily": 6000, "anns_d": 2000,
             "fina_indicator_vip": 5000, "income_vip": 5000, "forecast_vip": 5000}
RATE_WAIT_S = 61.0  # a per-minute limit: the next try waits out the minute
FIELDS = {
    "stock_basic": ("ts_code", "name", "industry", "list_date"),
    "daily_basic": ("ts_code", "trade_date", "close", "pe_ttm", "pb", "total_mv"),
    "daily": ("ts_code", "pct_chg"),
    # roe_waa: ROE on weighted-average equity, as 业绩报表's 净资产收益率 (roe is on period-end equity)
    "fina_indicator_vip": ("ts_code", "ann_date", "end_date", "eps", "roe_waa", "grossprofit_margin",
                           "netprofit_yoy", "tr_yoy", "update_flag"),
    "income_vip": ("ts_code", "ann_date", "end_date", "report_type", "total_revenue", "n_income_attr_p",
                   "update_flag"),
    "forecast_vip": ("ts_code", "ann_date", "end_date", "type", "summary", "change_reason"),
    "anns_d": ("ann_date", "ts_code", "title"),
}


def tushare_version() -> str:
    import tushare

    return str(tushare.__version__)


def open_api(timeout_s: float) -> Any:
    """The SDK's client for the token in the environment, passed explicitly: ``pro_api()`` would fall back to
    ``~/tk.csv``, and the token must come from the environment only."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise NotEntitled(
            f"{TOKEN_ENV} is not set: the Tushare provider needs your own Tushare Pro token in the environment "
            "(https://tushare.pro/user/token); it is never read from a config file",
            endpoint=None, needs="a token",
        )
    import tushare

    return tushare.pro_api(token=token, timeout=timeout_s)


def classify(api: str, label: str, exc: BaseException) -> ProviderError:
    """tushare raises ``Exception(msg)`` for a non-zero code: the message is all there is to go on."""
    import requests

    msg = str(exc)
    if "token" in msg.lower() and ("不对" in msg or "无效" in msg or "错误" in msg):
        return NotEntitled(f"{label}: Tushare rejected the token in {TOKEN_ENV} ({msg})", endpoint=api,
                           needs="a valid token")
    if "权限" in msg and "最多访问" not in msg:
        return NotEntitled(f"{label}: this Tushare account may not call {api}; it needs {NEEDS.get(api, '?')} "
                           f"({msg})", endpoint=api, needs=NEEDS.get(api))
    if "IP数量超限" in msg or ("IP" in msg and "超限" in msg):
        return ProviderUnavailable(
            f"{label}: Tushare refuses this token from this IP: it was used from more IPs than the account allows "
            f"({msg}); stop the other machines or VPN exits using it, or wait for the count to reset",
            function=label, ban=True)
    if "最多访问" in msg:
        per_day = "每天" in msg
        return ProviderUnavailable(f"{label}: Tushare rate limit ({msg})", function=label, ban=per_day)
    if isinstance(exc, requests.exceptions.RequestException | ValueError):
        return ProviderUnavailable(f"{label}: cannot get an answer from Tushare: {exc}", function=label)
    return ProviderError(f"{label}: unexpected {type(exc).__name__} from tushare {tushare_version()}: {msg}")


class TushareCalls:
    """One fetch's calls: each one recorded and counted in the plan.

    An optional endpoint that this account may not call, or that does not answer, leaves a note and None, so the
    snapshot says what is missing and why; an essential one fails the fetch.
    """

    def __init__(
        self,
        api: Any,
        *,
        breaker: CircuitBreaker,
        retry: RetryPolicy,
        sleep: Callable[[float], None],
        progress: ProgressCallback | None,
        plan: CallPlan,
        notes: list[str],
    ) -> None:
        self.api = api
        self.breaker = breaker
        self.retry = retry
        self.sleep = sleep
        self.progress = progress
        self.plan = plan
        self.notes = notes
        self.records: list[CallRecord] = []

    def call(self, name: str, label: str, *, essential: bool, **params: Any) -> pd.DataFrame | None:
        try:
            return self.query(name, label, **params)
        except NotEntitled as exc:
            if essential:
                raise NotEntitled(
                    f"{exc} — {name} is essential to a usable universe, so the refresh stops here",
                    endpoint=exc.endpoint, needs=exc.needs,
                ) from exc
            self.notes.append(f"{label} left out: {exc}")
            return None
        except ProviderUnavailable as exc:
            if essential:
                raise
            self.notes.append(f"{label} left out: {exc}")
            return None
        finally:
            self.plan.step()

    def query(self, name: str, label: str, **params: Any) -> pd.DataFrame:
        """All rows of one endpoint call, paging with limit/offset where the endpoint caps rows per call."""
        started = time.monotonic()
        limit = PAGE_ROWS.get(name)
        frames: list[pd.DataFrame] = []
        try:
            offset = 0
            while True:
                frame = call_resilient(functools.partial(self._page, name, label, params, limit, offset),
                                       breaker=self.breaker, policy=self.retry, sleep=self.sleep)
                frames.append(frame)
                if self.progress is not None:
                    self.progress(label, len(frames), len(frames) + (1 if limit and len(frame) >= limit else 0))
                if limit is None or len(frame) < limit:
                    break
                offset += limit
        except ProviderError as exc:
            self.records.append(CallRecord(label, round(time.monotonic() - started, 3), None, len(frames),
                                           type(exc).__name__))
            raise
        out = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        require_columns(out, function=label, required=FIELDS[name], sdk=f"tushare {tushare_version()}")
        self.records.append(CallRecord(label, round(time.monotonic() - started, 3), len(out), len(frames),
                                       "ok" if len(out) else "empty"))
        return out

    def _page(self, name: str, label: str, params: dict[str, Any], limit: int | None, offset: int) -> pd.DataFrame:
        try:
            extra = {} if limit is None else {"limit": limit, "offset": offset}
            frame = self.api.query(name, fields=",".join(FIELDS[name]), **params, **extra)
        except Exception as exc:
            error = classify(name, label, exc)
            if isinstance(error, ProviderUnavailable) and "每分钟" in str(exc):
                self.sleep(RATE_WAIT_S)  # retried after the minute, not within it
            raise error from exc
        if not isinstance(frame, pd.DataFrame):
            raise SchemaChanged(f"{label}: tushare returned {type(frame).__name__}", function=label)
        if len(frame.columns) == 0:
            raise ProviderUnavailable(
                f"{label}: Tushare answered with an HTTP error (tushare {tushare_version()} turns any non-2xx "
                "answer into an empty table)", function=label,
            )
        return frame
