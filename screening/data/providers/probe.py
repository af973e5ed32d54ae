"""``universe probe``: one small request per Eastmoney host the refresh uses, one line each, in seconds.

Why: on a mainland network Eastmoney throttles and bans by IP, and a refresh that fails after minutes says
little about which host is at fault. The probe asks each host for one small page with the same endpoint and
parameters the refresh sends (akshare 1.19.5's, see eastmoney_clist.py and the fakes in tests/fakes), through
``requests`` (so HTTPS_PROXY is honoured exactly as the refresh honours it), and names the state: ok, throttled
(HTTP 403/429), empty (the "no data" answer), schema drift (the fields the refresh reads are missing), blocked
(connection dropped, refused or timed out: how an IP ban shows).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from screening.data.providers.eastmoney_clist import BOARDS, DELAY_URL
from screening.data.providers.periods import disclosure_deadline, periods_before
from screening.data.providers.resilience import is_connection_dropped, root_causes


@dataclass(frozen=True)
class Probe:
    name: str  # what the refresh uses it for
    url: str
    params: dict[str, str]
    rows: Callable[[Any], list[dict[str, Any]] | None]  # the answer's records; None: the "no data" answer
    needs: tuple[str, ...]  # fields the refresh reads from each record


@dataclass(frozen=True)
class ProbeResult:
    name: str
    host: str
    state: str  # ok | throttled | empty | schema drift | blocked | error
    detail: str

    def line(self) -> str:
        return f"{self.name:<38}  {self.host:<32}  {self.state:<13} {self.detail}"


def _clist_rows(answer: Any) -> list[dict[str, Any]] | None:
    data = answer.get("data") if isinstance(answer, dict) else None
    return data.get("diff") if isinstance(data, dict) else None


def _datacenter_rows(answer: Any) -> list[dict[str, Any]] | None:
    result = answer.get("result") if isinstance(answer, dict) else None
    return result.get("data") if isinstance(result, dict) else None


def _notice_rows(answer: Any) -> list[dict[str, Any]] | None:
    data = answer.get("data") if isinstance(answer, dict) else None
    return data.get("list") if isinstance(data, dict) else None


def probes(today: dt.date) -> list[Probe]:
    """The requests, one per host and use; the report period is the newest one past its legal deadline."""
    period = next(p for p in periods_before(today, 8) if disclosure_deadline(p) < today)
    spot, st = BOARDS["stock_zh_a_spot_em"], BOARDS["stock_zh_a_st_em"]
    clist = ("f12", "f14", "f2", "f20")
    return [
        Probe("quotes (stock_zh_a_spot_em)", "https://82.push2.eastmoney.com/api/qt/clist/get",
              {**spot, "pz": "5"}, _clist_rows, clist),
        Probe("quotes fallback (push2delay)", DELAY_URL, {**spot, "pz": "5"}, _clist_rows, clist),
        Probe("ST board (stock_zh_a_st_em)", "https://40.push2.eastmoney.com/api/qt/clist/get",
              {**st, "pz": "5"}, _clist_rows, ("f12", "f14")),
        Probe(f"reports (stock_yjbb_em {period:%Y%m%d})", "https://datacenter-web.eastmoney.com/api/data/v1/get",
              {"sortColumns": "UPDATE_DATE,SECURITY_CODE", "sortTypes": "-1,-1", "pageSize": "5", "pageNumber": "1",
               "reportName": "RPT_LICO_FN_CPD", "columns": "ALL", "filter": f"(REPORTDATE='{period.isoformat()}')"},
              _datacenter_rows, ("SECURITY_CODE", "BASIC_EPS", "WEIGHTAVG_ROE", "PARENT_NETPROFIT")),
        Probe(f"forecasts (stock_yjyg_em {period:%Y%m%d})",
              "https://datacenter.eastmoney.com/securities/api/data/v1/get",
              {"sortColumns": "NOTICE_DATE,SECURITY_CODE", "sortTypes": "-1,-1", "pageSize": "5", "pageNumber": "1",
               "reportName": "RPT_PUBLIC_OP_NEWPREDICT", "columns": "ALL",
               "filter": f" (REPORT_DATE='{period.isoformat()}')"},
              _datacenter_rows, ("SECURITY_CODE", "PREDICT_TYPE")),
        Probe("announcements (stock_notice_report)", "https://np-anotice-stock.eastmoney.com/api/security/ann",
              {"sr": "-1", "page_size": "100", "page_index": "1", "ann_type": "A", "client_source": "web",
               "f_node": "0", "s_node": "0", "begin_time": (today - dt.timedelta(days=3)).isoformat(),
               "end_time": today.isoformat()}, _notice_rows, ("codes", "title", "notice_date")),
    ]


def run_probe(p: Probe, timeout_s: float = 8.0) -> ProbeResult:
    """One request, its state named; never raises for the network."""
    import requests

    host = p.url.split("/")[2]
    try:
        r = requests.get(p.url, params=p.params, timeout=timeout_s)
    except requests.exceptions.Timeout:
        return ProbeResult(p.name, host, "blocked", f"no answer within {timeout_s:.0f} s")
    except requests.exceptions.RequestException as exc:
        inner = root_causes(exc)[-1]  # the innermost cause says which: DNS, refused, proxy, TLS
        why = "connection dropped without an answer (how an IP ban shows)" if is_connection_dropped(exc) \
            else f"unreachable: {type(inner).__name__}: {str(inner)[:90]}"
        return ProbeResult(p.name, host, "blocked", why)
    if r.status_code in (403, 429):
        return ProbeResult(p.name, host, "throttled", f"HTTP {r.status_code}")
    if r.status_code >= 400:
        return ProbeResult(p.name, host, "error", f"HTTP {r.status_code}")
    try:
        rows = p.rows(r.json())
    except (ValueError, json.JSONDecodeError):
        return ProbeResult(p.name, host, "blocked", "answer is not JSON (an error or verification page)")
    if not rows:
        return ProbeResult(p.name, host, "empty", "answered \"no data\"")
    missing = [f for f in p.needs if f not in rows[0]]
    if missing:
        return ProbeResult(p.name, host, "schema drift", f"records lack {', '.join(missing)}")
    return ProbeResult(p.name, host, "ok", f"{len(rows)} records")


def run_tushare_probe(timeout_s: float = 8.0) -> ProbeResult:
    """Tushare Pro, the other backend: one row of stock_basic with the token in the environment."""
    from screening.data.providers.base import NotEntitled, ProviderUnavailable
    from screening.data.providers.tushare_calls import classify, open_api

    name, host = "fallback (tushare stock_basic)", "api.waditu.com"
    try:
        api = open_api(timeout_s)
    except NotEntitled:
        return ProbeResult(name, host, "skipped", "TUSHARE_TOKEN not set: no fallback when Eastmoney refuses")
    try:
        frame = api.query("stock_basic", fields="ts_code,name", list_status="L", limit=1)
    except Exception as exc:  # tushare raises a bare Exception for any refusal: classify reads its message
        err = classify("stock_basic", "stock_basic", exc)
        state = ("throttled" if "rate limit" in str(err) else "blocked") if isinstance(err, ProviderUnavailable) \
            else "rejected" if isinstance(err, NotEntitled) else "error"
        return ProbeResult(name, host, state, str(err)[:160])
    if len(frame.columns) == 0:
        return ProbeResult(name, host, "blocked", "HTTP error (tushare turns it into an empty table)")
    if "ts_code" not in frame.columns:
        return ProbeResult(name, host, "schema drift", "answer lacks ts_code")
    return ProbeResult(name, host, "ok" if len(frame) else "empty", f"{len(frame)} records")


def advice(results: list[ProbeResult]) -> list[str]:
    """What to change, from the states: the lines a user on a throttled network needs."""
    state = {r.name.split(" (")[0]: r.state for r in results}
    out = []
    if state.get("quotes") != "ok" and state.get("quotes fallback") == "ok":
        out.append("quotes: push2 does not answer, push2delay does: the refresh falls back to it by itself")
    if state.get("fallback") == "ok" and not (state.get("quotes") == "ok" or state.get("quotes fallback") == "ok"):
        out.append("Eastmoney's quotes do not answer but Tushare does: provider auto falls back to it")
    elif state.get("quotes") != "ok" and state.get("quotes fallback") != "ok":
        out.append("no quote host answers: set HTTPS_PROXY to a proxy that reaches Eastmoney, or set "
                   "TUSHARE_TOKEN (the refresh then falls back to Tushare Pro)")
    if any(r.state in ("blocked", "throttled") for r in results):
        out.append("blocked or throttled hosts: wait an hour before refreshing again (an IP ban lifts), raise "
                   "[universe] pace_s, or use HTTPS_PROXY / TUSHARE_TOKEN")
    if any(r.state == "schema drift" for r in results):
        out.append("schema drift: Eastmoney changed its fields; update akshare and this project")
    return out


def essential_ok(results: list[ProbeResult]) -> bool:
    """A refresh can work: one quote host and the reports answer, or Tushare does (provider auto falls back)."""
    ok = {r.name.split(" (")[0] for r in results if r.state == "ok"}
    eastmoney = bool(ok & {"quotes", "quotes fallback"}) and any(n.startswith("reports") for n in ok)
    return eastmoney or "fallback" in ok
