"""Calling akshare functions: a deadline, page progress, and failures turned into named errors.

Why a runner instead of plain calls (all read in akshare 1.19.5's source):
- the datacenter and notice functions call ``requests.get`` with no timeout, so a silent server would hang the
  refresh forever: each call runs in a worker thread with a deadline;
- akshare reports its paging only through tqdm bars on stderr; the runner reads them (a tap on sys.stderr while
  the call runs) to report pages to the progress bar and to say how far a call got when it died;
- akshare names DataFrame columns by position and lets vendor errors through raw (TypeError on a "no data"
  answer, pandas "Length mismatch" when Eastmoney adds or drops a field, KeyError when a named field is renamed),
  so the runner maps each to ProviderUnavailable / SchemaChanged / an empty result, with the function, the page
  and the installed akshare version in the message.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import random
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

import pandas as pd

from screening.data.providers.base import (
    CallRecord,
    NullAnswer,
    ProgressCallback,
    ProviderError,
    ProviderUnavailable,
    SchemaChanged,
)
from screening.data.providers.resilience import CircuitBreaker, RetryPolicy, call_resilient, is_connection_dropped

_BAR = re.compile(r"(\d+)/(\d+) \[")
_LENGTH = re.compile(r"Expected axis has (\d+) elements, new values have (\d+) elements")

# how akshare's tqdm bar counts pages: fetch_paginated_data fetches page 1 before the bar (which then counts
# pages 2..N); the datacenter and notice functions fetch page 1 for the count, then count pages 1..N.
PAGES_BEFORE_BAR = {"stock_zh_a_spot_em": 1, "stock_zh_a_st_em": 1}


def akshare_version() -> str:
    import akshare

    return str(akshare.__version__)


class _EmptyResult(Exception):
    """Internal: the vendor answered "no data" (akshare raises on it)."""


class _TqdmTap(io.TextIOBase):
    """Stands in for sys.stderr during a call: reads tqdm's "n/total [" and forwards anything else."""

    def __init__(self, on_bar: Callable[[int, int], None], passthrough: TextIO) -> None:
        self._on_bar = on_bar
        self._passthrough = passthrough
        self.last: tuple[int, int] | None = None

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        matches = _BAR.findall(s)
        if matches:
            done, total = (int(x) for x in matches[-1])
            if self.last != (done, total):
                self.last = (done, total)
                self._on_bar(done, total)
        elif s.strip() and "\r" not in s:
            self._passthrough.write(s)
        return len(s)

    def flush(self) -> None:
        return None


@dataclass
class _Outcome:
    value: Any = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


@dataclass
class AkshareCalls:
    """Runs akshare functions for one fetch; keeps a CallRecord per call."""

    breaker: CircuitBreaker
    policy: RetryPolicy
    timeout_s: float = 180.0
    progress: ProgressCallback | None = None
    sleep: Callable[[float], None] = time.sleep
    records: list[CallRecord] = field(default_factory=list)
    successes: int = 0
    pace_s: float = 0.0  # mean seconds between calls (jittered 0.5-1.5x)
    ban_after_drops: int = 3  # consecutive dropped connections that make a ban (one drop is a blip)
    drops_in_a_row: int = 0
    _last_call: float = 0.0
    # label -> (pages arrived, pages), from our own fetches' page hook: what a failure says of how far it got
    _pages: dict[str, tuple[int, int]] = field(default_factory=dict)

    def page_hook(self, label: str) -> Callable[[int, int], None]:
        """For our own paged fetches (no tqdm bar to read): page ``done`` of ``total`` has arrived."""

        def on_page(done: int, total: int) -> None:
            self._pages[label] = (done, total)
            if self.progress is not None:
                self.progress(label, done, total)

        return on_page

    def run(
        self,
        function: str,
        label: str,
        *,
        expect_data: bool = False,
        fn: Callable[[], Any] | None = None,
        breaker: CircuitBreaker | None = None,
        policy: RetryPolicy | None = None,
        **kwargs: Any,
    ) -> pd.DataFrame | None:
        """The function's DataFrame, or None when the vendor answered "no data".

        ``expect_data``: the call must have data (a report period whose reports are all out): a "no data"
        answer is then Eastmoney's null fault (akshare #6522), retried and finally raised as NullAnswer.
        ``fn`` replaces ``akshare.<function>(**kwargs)`` (the same akshare code on another host); ``breaker``
        and ``policy`` replace the fetch's own (a host with its own breaker, a primary that has a fallback).
        """
        started = time.monotonic()
        pages: list[int | None] = [None]
        call = fn or (lambda: getattr(importlib.import_module("akshare"), function)(**kwargs))
        try:
            frame = call_resilient(
                lambda: self._once(function, label, call, pages, expect_data),
                breaker=breaker or self.breaker,
                policy=policy or self.policy,
                sleep=self.sleep,
            )
        except ProviderError as exc:
            own = self._pages.pop(label, None)
            total = pages[0] or (own[1] if own else None)
            self.records.append(CallRecord(label, time.monotonic() - started, None, total, type(exc).__name__))
            raise
        own = self._pages.pop(label, None)
        pages[0] = pages[0] or (own[1] if own else None)
        if self.progress is not None and pages[0]:  # tqdm throttles its redraws: the last page may go unseen
            self.progress(label, pages[0], pages[0])
        rows = None if frame is None else len(frame)
        outcome = "empty" if frame is None or rows == 0 else "ok"
        self.records.append(CallRecord(label, round(time.monotonic() - started, 3), rows, pages[0], outcome))
        self.successes += 1
        self.drops_in_a_row = 0
        return frame

    def _pace(self) -> None:
        """Space calls out (jittered): a burst of requests is what gets an IP banned."""
        if self.pace_s <= 0:
            return
        wait = self.pace_s * random.uniform(0.5, 1.5) - (time.monotonic() - self._last_call)
        if wait > 0:
            self.sleep(wait)

    def _once(
        self, function: str, label: str, fn: Callable[[], Any], pages: list[int | None], expect_data: bool = False
    ) -> pd.DataFrame | None:
        self._pace()
        offset = PAGES_BEFORE_BAR.get(function, 0)

        def on_bar(done: int, total: int) -> None:
            pages[0] = total + offset
            if self.progress is not None:
                self.progress(label, done + offset, total + offset)

        outcome = _Outcome()
        self._pages.pop(label, None)  # this attempt's pages only

        def work() -> None:
            try:
                outcome.value = fn()
            except BaseException as exc:
                outcome.error = exc
            finally:
                self._last_call = time.monotonic()
                outcome.done.set()

        tap = _TqdmTap(on_bar, sys.stderr)
        with contextlib.redirect_stderr(tap):
            worker = threading.Thread(target=work, name=f"akshare:{label}", daemon=True)
            worker.start()
            finished = outcome.done.wait(self.timeout_s)
        # how far it got: akshare's own tqdm bar (pages after the first), else our own fetches' page hook
        bar, offset = (tap.last, offset) if tap.last is not None else (self._pages.get(label), 0)
        where = self._where(bar, offset)
        if not finished:
            raise ProviderUnavailable(
                f"{label}: no answer within {self.timeout_s:.0f} s{where} (akshare passes no timeout here)",
                function=label,
            )
        if outcome.error is not None:
            error = self._classify(function, label, outcome.error, bar, offset)
            if isinstance(error, _EmptyResult):
                if expect_data:
                    raise NullAnswer(
                        f"{label}: Eastmoney answered \"no data\" (result: null) after {self.policy.attempts} "
                        "tries for a period whose reports are all out: a known Eastmoney fault (akshare #6522), "
                        "not an empty period, so it is not taken as one",
                        function=label,
                    )
                return None
            raise error from outcome.error
        frame = outcome.value
        if not isinstance(frame, pd.DataFrame):
            raise SchemaChanged(
                f"{label}: akshare {akshare_version()} returned {type(frame).__name__}, not a DataFrame",
                function=label, version=akshare_version(),
            )
        return frame

    @staticmethod
    def _where(bar: tuple[int, int] | None, offset: int) -> str:
        if bar is None:
            return " before its first page had arrived"
        done, total = bar
        done += offset
        total += offset
        if done >= total:
            return f" after all {total} pages"
        return f" on page {done + 1} of {total} ({done} pages had arrived)"

    def _classify(
        self, function: str, label: str, exc: BaseException, bar: tuple[int, int] | None, offset: int
    ) -> BaseException:
        import requests

        version = akshare_version()
        where = self._where(bar, offset)
        done, total = (None, None) if bar is None else (bar[0] + offset, bar[1] + offset)
        if isinstance(exc, requests.exceptions.JSONDecodeError | json.JSONDecodeError):
            return ProviderUnavailable(
                f"{label}: Eastmoney's answer was not JSON{where} (an error page or a cut-off answer): {exc}",
                function=label, pages_done=done, pages_total=total,
            )
        if is_connection_dropped(exc):
            self.drops_in_a_row += 1
            n = self.drops_in_a_row
            if n < self.ban_after_drops:
                return ProviderUnavailable(
                    f"{label}: Eastmoney closed the connection without an answer{where} ({n} in a row; one drop "
                    "is a blip, retried)", function=label, pages_done=done, pages_total=total,
                )
            return ProviderUnavailable(
                f"{label}: Eastmoney closed the connection without an answer{where}: {n} consecutive refusals "
                f"after {self.successes} successful calls in this refresh. This is how an Eastmoney IP ban "
                "shows: wait before refreshing again, set HTTPS_PROXY, or use the Tushare provider "
                "(`python -m screening universe probe` shows which hosts answer).",
                function=label, ban=True, pages_done=done, pages_total=total,
            )
        if isinstance(exc, requests.exceptions.HTTPError):
            status = exc.response.status_code if exc.response is not None else "error"
            return ProviderUnavailable(
                f"{label}: Eastmoney answered HTTP {status}{where}", function=label, pages_done=done,
                pages_total=total,
            )
        if isinstance(exc, requests.exceptions.Timeout):
            return ProviderUnavailable(f"{label}: timed out{where}: {exc}", function=label)
        if isinstance(exc, requests.exceptions.RequestException):
            return ProviderUnavailable(f"{label}: cannot reach Eastmoney{where}: {exc}", function=label)
        if isinstance(exc, ZeroDivisionError) or (
            isinstance(exc, TypeError) and "'NoneType' object is not subscriptable" in str(exc)
        ):
            return _EmptyResult()  # {"result": null} / {"data": null}: Eastmoney's "no data"
        if isinstance(exc, KeyError):
            key = exc.args[0] if exc.args else "?"
            if function == "stock_notice_report" and key == "代码":
                return _EmptyResult()  # akshare builds 网址 from 代码 even when the day had no announcements
            missing = re.findall(r"'([^']+)'", str(key)) if "not in index" in str(key) else [str(key)]
            return SchemaChanged(
                f"{label}: akshare {version} could not find {', '.join(missing)} in Eastmoney's answer "
                f"(KeyError {key!r}): an upstream field was renamed or removed; columns seen: not available "
                "(the failure is inside akshare's own parsing)",
                function=label, missing=missing, version=version,
            )
        if isinstance(exc, ValueError) and (m := _LENGTH.search(str(exc))):
            got, want = int(m.group(1)) - 1, int(m.group(2)) - 1  # both counts include akshare's 序号 column
            return SchemaChanged(
                f"{label}: Eastmoney now returns {got} fields per row where akshare {version} labels {want} by "
                "position: a field was added or removed upstream, so no column can be trusted",
                function=label, version=version,
            )
        return ProviderError(f"{label}: unexpected {type(exc).__name__} from akshare {version}: {exc}")
