"""The fake Tushare Pro HTTP API, as tushare 1.4.29's ``DataApi.query`` reaches it.

From site-packages/tushare/pro/client.py: ``requests.post("http://api.waditu.com/dataapi/<api_name>",
json={"api_name", "token", "params", "fields"})`` (params gain ``ts_type_name``); a non-zero ``code`` becomes
``Exception(msg)``; a non-2xx answer becomes an EMPTY DataFrame (``if res:``), silently. Answers here follow the
documented shape ``{"request_id", "code", "msg", "data": {"fields", "items", "has_more"}}``.
The fake checks the token and the points each endpoint needs (tushare.pro/document/1?doc_id=108 and the
endpoint pages): an unknown token gets ``您的token不对，请确认。`` (code -2001), too few points the permission
message (code -2002), and rate-limited endpoints the per-minute message (code 40203). Row limits per call are
enforced like the server's (``limit``/``offset`` page beyond them).
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.eastmoney import Answer, Reply
from tests.fakes.faults import Faults
from tests.fakes.market_data import FakeMarket, FakeReport, quarter_ends

HOST = "api.waditu.com"
PERMISSION_MSG = "抱歉，您没有接口访问权限，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"
TOKEN_MSG = "您的token不对，请确认。"
IP_MSG = "您的IP数量超限，最大数量为2个！"  # as users report it (waditu/tushare #1822, #1914)
RATE_MSG = "抱歉，您每分钟最多访问该接口200次，权限的具体详情访问：https://tushare.pro/document/1?doc_id=108。"

# endpoint -> (points needed, or None for a separately granted permission; rows per call)
ENDPOINTS: dict[str, tuple[int | None, int]] = {
    "stock_basic": (2000, 6000),
    "daily_basic": (2000, 6000),
    "daily": (120, 6000),
    "fina_indicator_vip": (5000, 10000),
    "income_vip": (5000, 10000),
    "forecast_vip": (5000, 10000),
    "anns_d": (None, 2000),
}


@dataclass
class Grant:
    points: int
    permissions: set[str] = field(default_factory=set)  # separately granted endpoints, e.g. {"anns_d"}


def _ymd(d: dt.date) -> str:
    return f"{d:%Y%m%d}"


def _ts_code(code: str, exchange: str) -> str:
    return f"{code}.{exchange}"


class FakeTushare:
    def __init__(self, market: FakeMarket, faults: Faults, grants: dict[str, Grant]) -> None:
        self.market = market
        self.faults = faults
        self.grants = grants
        self.rejections: list[str] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def handle(self, method: str, path: str, body: bytes) -> Answer:
        if method != "POST" or not path.startswith("/dataapi/"):
            self.rejections.append(f"{method} {path}")
            return Reply(404, b"Not Found", "text/plain")
        api = path.removeprefix("/dataapi/")
        try:
            req = json.loads(body)
        except ValueError:
            return self._error(-1, "请求格式错误")
        if req.get("api_name") != api:
            self.rejections.append(f"path {api!r} but api_name {req.get('api_name')!r}")
            return self._error(-1, "api_name 与路径不一致")
        token, params, fields = req.get("token"), req.get("params") or {}, req.get("fields") or ""
        self.calls.append((api, dict(params)))
        grant = self.grants.get(token) if isinstance(token, str) else None
        if grant is None:
            return self._error(-2001, TOKEN_MSG)
        if api not in ENDPOINTS:
            self.rejections.append(f"unknown api {api}")
            return self._error(-1, f"接口名错误：{api}")
        needed, max_rows = ENDPOINTS[api]
        if (needed is None and api not in grant.permissions) or (needed is not None and grant.points < needed):
            return self._error(-2002, PERMISSION_MSG)
        endpoint = f"tushare:{api}"
        if endpoint in self.faults.rate_limited:
            return self._error(40203, RATE_MSG)
        if self.faults.tushare_ip_limited:
            return self._error(40101, IP_MSG)
        if endpoint in self.faults.status:
            return Reply(self.faults.status[endpoint], b"<html><body>502 Bad Gateway</body></html>", "text/html")
        ymd = str(params.get("ann_date") or params.get("trade_date") or "")
        if status := self.faults.status_days.get(endpoint, {}).get(f"{ymd[:4]}-{ymd[4:6]}-{ymd[6:]}"):
            return Reply(status, b"<html><body>502 Bad Gateway</body></html>", "text/html")
        producer, allowed, defaults = self._endpoint(api)
        unknown = set(params) - allowed - {"limit", "offset", "ts_type_name"}
        if unknown:
            self.rejections.append(f"{api}: unknown params {sorted(unknown)}")
            return self._error(-1, f"参数错误：{sorted(unknown)}")
        try:
            rows = [] if endpoint in self.faults.empty else self.faults.repeated(endpoint, producer(params))
        except ValueError as exc:
            return self._error(-1, str(exc))
        limit = min(int(params.get("limit") or max_rows), max_rows)
        offset = int(params.get("offset") or 0)
        page = rows[offset : offset + limit]
        # the server knows its own (possibly renamed) fields; a requested field it does not know is left out
        known = list(self.faults.shape(endpoint, dict.fromkeys(rows[0] if rows else defaults)))
        wanted = [f.strip() for f in fields.split(",") if f.strip()] if fields else known
        present = [f for f in wanted if f in known]
        shaped = [self.faults.shape(endpoint, r) for r in page]
        items = [[r.get(n) for n in present] for r in shaped]
        return self._ok(present, items, has_more=offset + limit < len(rows))

    # ---- envelope ---------------------------------------------------------------------------------------
    @staticmethod
    def _ok(fields: list[str], items: list[list[Any]], *, has_more: bool) -> Reply:
        body = {"request_id": uuid.uuid4().hex, "code": 0, "msg": "",
                "data": {"fields": fields, "items": items, "has_more": has_more}}
        return Reply(200, json.dumps(body, ensure_ascii=False).encode())

    @staticmethod
    def _error(code: int, msg: str) -> Reply:
        body = {"request_id": uuid.uuid4().hex, "code": code, "msg": msg, "data": None}
        return Reply(200, json.dumps(body, ensure_ascii=False).encode())

    # ---- endpoints --------------------------------------------------------------------------------------
    def _endpoint(self, api: str) -> tuple[Callable[[dict[str, Any]], list[dict[str, Any]]], set[str], list[str]]:
        table: dict[str, tuple[Callable[[dict[str, Any]], list[dict[str, Any]]], set[str], list[str]]] = {
            "stock_basic": (self._stock_basic, {"ts_code", "name", "exchange", "market", "is_hs", "list_status"},
                            ["ts_code", "symbol", "name", "area", "industry", "market", "list_date"]),
            "daily_basic": (self._daily_basic, {"ts_code", "trade_date", "start_date", "end_date"},
                            ["ts_code", "trade_date", "close", "turnover_rate", "turnover_rate_f", "volume_ratio",
                             "pe", "pe_ttm", "pb", "ps", "ps_ttm", "dv_ratio", "dv_ttm", "total_share",
                             "float_share", "free_share", "total_mv", "circ_mv"]),
            "daily": (self._daily, {"ts_code", "trade_date", "start_date", "end_date"},
                      ["ts_code", "trade_date", "open", "high", "low", "close", "pre_close", "change", "pct_chg",
                       "vol", "amount"]),
            "fina_indicator_vip": (self._fina, {"period", "ann_date", "start_date", "end_date"},
                                   ["ts_code", "ann_date", "end_date", "eps", "roe", "grossprofit_margin",
                                    "netprofit_yoy", "tr_yoy", "bps", "roe_waa", "update_flag"]),
            "income_vip": (self._income, {"period", "ann_date", "start_date", "end_date", "report_type"},
                           ["ts_code", "ann_date", "f_ann_date", "end_date", "report_type", "comp_type",
                            "total_revenue", "revenue", "n_income", "n_income_attr_p", "update_flag"]),
            "forecast_vip": (self._forecast, {"period", "ann_date", "start_date", "end_date", "type"},
                             ["ts_code", "ann_date", "end_date", "type", "p_change_min", "p_change_max",
                              "net_profit_min", "net_profit_max", "last_parent_net", "first_ann_date", "summary",
                              "change_reason"]),
            "anns_d": (self._anns, {"ts_code", "ann_date", "start_date", "end_date"},
                       ["ann_date", "ts_code", "name", "title", "url"]),
        }
        return table[api]

    def _stocks(self) -> Iterable[Any]:
        return self.market.listed()

    def _stock_basic(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        if p.get("list_status", "L") != "L":
            return []
        return [{"ts_code": _ts_code(s.code, s.exchange), "symbol": s.code, "name": s.name, "area": "测试",
                 "industry": s.industry, "market": s.board, "list_date": _ymd(s.list_date), "list_status": "L"}
                for s in self._stocks()]

    def _trade_date(self, p: dict[str, Any]) -> dt.date | None:
        if not p.get("trade_date") and not p.get("ts_code"):
            raise ValueError("trade_date与ts_code至少输入一个参数")
        day = dt.datetime.strptime(p["trade_date"], "%Y%m%d").date() if p.get("trade_date") else None
        return day

    def _daily_basic(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        if self._trade_date(p) != self.market.trade_date:
            return []
        as_of = self.market.trade_date
        out = []
        for s in self._stocks():
            if s.suspended:
                continue  # no session, no row
            mv = s.price * s.shares / 1e4
            ttm = self.market.ttm_net_profit(s.code, as_of=as_of)
            annual = self.market.published(s.code, dt.date(as_of.year - 1, 12, 31), as_of=as_of)
            out.append({
                "ts_code": _ts_code(s.code, s.exchange), "trade_date": _ymd(as_of), "close": s.price,
                "turnover_rate": 1.2, "turnover_rate_f": 2.1, "volume_ratio": 0.9,
                "pe": round(mv * 1e4 / annual.net_profit, 4) if annual and annual.net_profit > 0 else None,
                "pe_ttm": round(mv * 1e4 / ttm, 4) if ttm and ttm > 0 else None,  # 亏损的PE为空
                "pb": s.pb, "ps": None, "ps_ttm": None, "dv_ratio": None, "dv_ttm": None,
                "total_share": s.shares / 1e4, "float_share": s.float_shares / 1e4, "free_share": s.float_shares / 1e4,
                "total_mv": round(mv, 4), "circ_mv": round(s.price * s.float_shares / 1e4, 4),
            })
        return out

    def _daily(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        if self._trade_date(p) != self.market.trade_date:
            return []
        out = []
        for s in self._stocks():
            if s.suspended:
                continue
            pre = round(s.price / (1 + s.change_pct / 100), 2)
            out.append({"ts_code": _ts_code(s.code, s.exchange), "trade_date": _ymd(self.market.trade_date),
                        "open": pre, "high": max(pre, s.price), "low": min(pre, s.price), "close": s.price,
                        "pre_close": pre, "change": round(s.price - pre, 2), "pct_chg": s.change_pct,
                        "vol": 1000.0, "amount": 1000.0})
        return out

    def _period(self, p: dict[str, Any]) -> dt.date:
        try:
            day = dt.datetime.strptime(str(p["period"]), "%Y%m%d").date()
        except (KeyError, ValueError) as exc:
            raise ValueError("period 参数错误") from exc
        if day not in quarter_ends(day.year):
            raise ValueError("period 必须是季度末日期")
        return day

    def _reports(self, p: dict[str, Any]) -> list[FakeReport]:
        period = self._period(p)
        withheld = self.faults.withheld.get(period.isoformat(), set())
        return [r for r in self.market.reports(period) if r.code not in withheld]

    def _fina(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for r in self._reports(p):
            s = self.market.by_code[r.code]
            out.append({"ts_code": _ts_code(r.code, s.exchange), "ann_date": _ymd(r.notice_date),
                        "end_date": _ymd(r.period), "eps": r.eps,
                        # roe is on period-end equity, roe_waa on weighted-average equity (what 业绩报表 shows)
                        "roe": round(r.roe * 0.92, 4), "grossprofit_margin": r.gross_margin,
                        "netprofit_yoy": r.net_profit_yoy, "tr_yoy": r.revenue_yoy, "bps": r.bps, "roe_waa": r.roe,
                        "update_flag": "1"})
        return out

    def _income(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for r in self._reports(p):
            s = self.market.by_code[r.code]
            out.append({"ts_code": _ts_code(r.code, s.exchange), "ann_date": _ymd(r.notice_date),
                        "f_ann_date": _ymd(r.notice_date), "end_date": _ymd(r.period), "report_type": "1",
                        "comp_type": "1", "total_revenue": r.revenue, "revenue": r.revenue,
                        "n_income": r.net_profit * 1.02, "n_income_attr_p": r.net_profit, "update_flag": "1"})
        return out

    def _forecast(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for f in self.market.forecasts(self._period(p)):
            s = self.market.by_code[f.code]
            out.append({"ts_code": _ts_code(f.code, s.exchange), "ann_date": _ymd(f.notice_date),
                        "end_date": _ymd(f.period), "type": f.predict_type, "p_change_min": f.change_lower,
                        "p_change_max": f.change_upper, "net_profit_min": f.amount_lower / 1e4,
                        "net_profit_max": f.amount_upper / 1e4,
                        "last_parent_net": f.last_year / 1e4 if f.last_year is not None else None,
                        "first_ann_date": _ymd(f.notice_date), "summary": f.content, "change_reason": f.reason})
        return out

    def _anns(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        if not p.get("ann_date"):
            raise ValueError("ann_date 参数必填（本 fake 只按日提供）")
        day = dt.datetime.strptime(p["ann_date"], "%Y%m%d").date()
        out = []
        for a in self.market.announcements(day):
            s = self.market.by_code[a.code]
            out.append({"ann_date": _ymd(day), "ts_code": _ts_code(a.code, s.exchange), "name": a.name,
                        "title": a.title.split(":", 1)[-1], "url": f"https://static.example.invalid/{a.art_code}.pdf",
                        "rec_time": a.display_time})
        return out
