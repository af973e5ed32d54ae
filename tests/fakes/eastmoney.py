"""The fake Eastmoney endpoints that akshare 1.19.5's five whole-market functions call.

Built from the pinned akshare source (site-packages/akshare, identical for these functions to 1.18.94):
- ``stock_zh_a_spot_em`` (stock_feature/stock_hist_em.py) and ``stock_zh_a_st_em`` (stock/stock_zh_a_special.py):
  GET https://82.push2.eastmoney.com/api/qt/clist/get resp. https://40.push2..., through
  ``akshare.utils.func.fetch_paginated_data``: page 1, then ``ceil(total / len(first page))`` pages with
  ``pn=2..`` and a 0.5-1.5 s sleep between pages; each request via ``request_with_retry`` (3 tries, raises for
  HTTP errors). akshare names the columns BY POSITION, so the server must emit the requested ``fields`` in its
  own order (ascending field number; ``f128`` brings ``f140``/``f141``): one field more or less and akshare fails
  with a pandas length mismatch.
- ``stock_yjbb_em(date)`` (stock_feature/stock_yjbb_em.py): GET https://datacenter-web.eastmoney.com/api/data/v1/get,
  reportName RPT_LICO_FN_CPD, pageSize 500, reads ``result.pages`` then pages 1..pages; columns BY POSITION (37).
- ``stock_yjyg_em(date)`` (stock_feature/stock_yjyg_em.py): GET https://datacenter.eastmoney.com/securities/api/
  data/v1/get, reportName RPT_PUBLIC_OP_NEWPREDICT; columns BY POSITION (27).
- ``stock_notice_report(symbol, date)`` (stock_fundamental/stock_notice.py): GET https://np-anotice-stock.
  eastmoney.com/api/security/ann, page_size 100, ``ceil(total_hits / 100)`` pages; columns BY NAME (rename map).
All five use ``requests`` (not curl_cffi); the datacenter and notice calls pass no timeout.
The project sends the datacenter and notice requests itself with the same parameters (screening/data/providers/
eastmoney_*.py), and the quote list's fallback host ``82.push2delay.eastmoney.com`` answers like push2.
Faults beyond faults.py's generic ones, each from akshare's issue tracker: ``null_period`` (#6522),
``host_drop``/``host_empty`` (RemoteDisconnected on one host, #6548 ...; push2 empty while push2delay answers,
#7206 #7230), ``withheld`` (a late filer), ``forecast_original`` (a revised 业绩预告), ``foreign_notices`` (items
without an A-share code, which shift akshare's positional title join). The ST board lists SH and SZ only.
The fake checks every query parameter akshare sends and answers a wrong one the way Eastmoney does (an error
code and no data) while recording it in ``rejections``, so a drift in akshare's requests fails the tests.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from tests.fakes.faults import Faults
from tests.fakes.market_data import FakeMarket, FakeStock, quarter_index

PUSH2_HOSTS = ("82.push2.eastmoney.com", "40.push2.eastmoney.com")
DELAY_HOST = "82.push2delay.eastmoney.com"  # the delayed-quote host: same path, parameters and answers
DATACENTER_WEB = "datacenter-web.eastmoney.com"
DATACENTER = "datacenter.eastmoney.com"
NOTICE_HOST = "np-anotice-stock.eastmoney.com"
HOSTS = (*PUSH2_HOSTS, DELAY_HOST, DATACENTER_WEB, DATACENTER, NOTICE_HOST)
UT = "bd1d9ddb04089700cf9c27f6f7426281"
A_SHARE_FS = "m:0 t:6,m:0 t:80,m:1 t:2,m:1 t:23,m:0 t:81 s:2048"
ST_FS = "m:0 f:4,m:1 f:4"


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    content_type: str = "application/json; charset=UTF-8"


class Drop:
    """Close the connection without an answer (how an Eastmoney ban and a dying page look to the client)."""


DROP = Drop()
Answer = Reply | Drop


def _json(obj: Any) -> Reply:
    return Reply(200, json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode())


def _html_error(status: int) -> Reply:
    body = f"<html><head><title>{status}</title></head><body><center><h1>{status}</h1></center><hr>" \
        "<center>nginx</center></body></html>"
    return Reply(status, body.encode(), "text/html")


def _day(d: dt.date) -> str:
    return f"{d:%Y-%m-%d} 00:00:00"


class FakeEastmoney:
    """Answers the Eastmoney requests of the five akshare functions from a FakeMarket."""

    def __init__(self, market: FakeMarket, faults: Faults, *, clist_page_size: int | None = None) -> None:
        """``clist_page_size``: None answers like the live server (``pz`` rows, at most 100). A number answers
        pages of that size whatever ``pz`` says: a TEST-SPEED concession, because akshare sleeps 0.5-1.5 s
        between pages and derives the page count from the first page's length, so its paging, concatenation
        and sorting still run, in fewer rounds."""
        self.market = market
        self.faults = faults
        self.clist_page_size = clist_page_size
        self.requests = 0
        self.rejections: list[str] = []
        self.served: list[tuple[str, int]] = []  # (endpoint, page) answered with data
        self._quotes: dict[str, dict[int, Any]] = {}
        self.clist_hosts: list[str] = []  # the host of every quote-list request answered

    # ---- entry ------------------------------------------------------------------------------------------
    def handle(self, host: str, path: str, query: str) -> Answer:
        self.requests += 1
        if self.faults.ban_after is not None and self.requests > self.faults.ban_after:
            return DROP
        if self.faults.host_drop.get(host, 0) > 0:
            self.faults.host_drop[host] -= 1
            return DROP
        params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        if host in (*PUSH2_HOSTS, DELAY_HOST) and path == "/api/qt/clist/get":
            if host in self.faults.host_empty:  # the quote host's empty answer (akshare #7206, #7230)
                return _json({"rc": 0, "rt": 6, "svr": 181669437, "lt": 1, "full": 1, "dlmkts": "", "data": None})
            self.clist_hosts.append(host)
            return self._clist(params)
        if host == DATACENTER_WEB and path == "/api/data/v1/get" and params.get("reportName") == "RPT_LICO_FN_CPD":
            return self._datacenter("yjbb", params, self._yjbb_records, "UPDATE_DATE,SECURITY_CODE", "REPORTDATE")
        if (
            host == DATACENTER
            and path == "/securities/api/data/v1/get"
            and params.get("reportName") == "RPT_PUBLIC_OP_NEWPREDICT"
        ):
            return self._datacenter(
                "yjyg", params, self._yjyg_records, "NOTICE_DATE,SECURITY_CODE", "REPORT_DATE", leading_space=True
            )
        if host == NOTICE_HOST and path == "/api/security/ann":
            return self._notices(params)
        self.rejections.append(f"unknown endpoint {host}{path}?{query}")
        return Reply(404, b"Not Found", "text/plain")

    def _reject(self, endpoint: str, why: str, answer: Answer) -> Answer:
        self.rejections.append(f"{endpoint}: {why}")
        return answer

    def _page_fault(self, endpoint: str, page: int) -> Answer | None:
        if endpoint in self.faults.delay:
            time.sleep(self.faults.delay[endpoint])
        if page in self.faults.drop_pages.get(endpoint, set()):
            return DROP
        if endpoint in self.faults.status:
            return _html_error(self.faults.status[endpoint])
        return None

    # ---- push2 clist (quotes, ST board) -------------------------------------------------------------------
    def _clist(self, p: dict[str, str]) -> Answer:
        bad = {"rc": 102, "rt": 6, "svr": 181669437, "lt": 1, "full": 1, "dlmkts": "", "data": None}
        fixed = {"po": ("0", "1"), "np": ("1",), "ut": (UT,), "fltt": ("2",), "invt": ("2",)}
        for key, allowed in fixed.items():
            if p.get(key) not in allowed:
                return self._reject("clist", f"{key}={p.get(key)!r}", _json(bad))
        if p.get("fs") == A_SHARE_FS:
            endpoint = "spot"
        elif p.get("fs") == ST_FS:
            endpoint = "st_board"
        else:
            return self._reject("clist", f"fs={p.get('fs')!r}", _json(bad))
        try:
            page, size = int(p["pn"]), int(p["pz"])
            fields = [int(f[1:]) for f in p["fields"].split(",") if re.fullmatch(r"f\d+", f)]
            fid = int(p["fid"][1:])
        except (KeyError, ValueError):
            return self._reject(endpoint, f"pn/pz/fields/fid malformed: {p}", _json(bad))
        if len(fields) != len(p["fields"].split(",")) or page < 1 or size < 1:
            return self._reject(endpoint, f"fields/pn/pz invalid: {p}", _json(bad))
        if fault := self._page_fault(endpoint, page):
            return fault
        if endpoint in self.faults.empty:
            return _json({**bad, "rc": 0})
        stocks = [s for s in self.market.listed() if self._matches(s, p["fs"])]
        rows = [self._quotes.get(s.code) or self._quotes.setdefault(s.code, self._quote(s)) for s in stocks]
        missing = "-"

        def sort_key(row: dict[int, Any]) -> tuple[int, Any]:
            v = row.get(fid, missing)
            return (0, v) if v != missing else (1, 0)

        rows.sort(key=sort_key, reverse=p["po"] == "1")
        if p["po"] == "1":  # "-" last, as the live board shows suspended stocks at the bottom
            rows = [r for r in rows if r.get(fid, missing) != missing] + [
                r for r in rows if r.get(fid, missing) == missing
            ]
        rows = self.faults.repeated(endpoint, rows)
        size = self.clist_page_size or min(size, 100)
        chunk = rows[(page - 1) * size : page * size]
        if not chunk:
            return _json({**bad, "rc": 0})
        emitted = sorted(set(fields) | ({140, 141} if 128 in fields else set()))
        diff = [self.faults.shape(endpoint, {f"f{n}": row.get(n, "-") for n in emitted}) for row in chunk]
        self.served.append((endpoint, page))
        return _json({"rc": 0, "rt": 6, "svr": 181669437, "lt": 1, "full": 1, "dlmkts": "",
                      "data": {"total": len(rows), "diff": diff}})

    @staticmethod
    def _matches(s: FakeStock, fs: str) -> bool:
        market = "1" if s.exchange == "SH" else "0"
        board_t = {"沪市主板": "2", "科创板": "23", "深市主板": "6", "创业板": "80", "北交所": "81"}[s.board]
        for clause in fs.split(","):
            terms = dict(t.split(":") for t in clause.split())
            if terms.get("m") != market:
                continue
            if "t" in terms and terms["t"] != board_t:
                continue
            if "s" in terms and not (terms["s"] == "2048" and s.board == "北交所"):
                continue
            # the risk-warning board lists SH and SZ only: BSE *ST stocks are not on it (issue 24)
            if "f" in terms and not (terms["f"] == "4" and s.st and s.exchange != "BJ"):
                continue
            return True
        return False

    def _quote(self, s: FakeStock) -> dict[int, Any]:
        """Field numbers as Eastmoney's fltt=2 board returns them; "-" for what a suspended stock lacks."""
        m = self.market
        prev_close = round(s.price / (1 + s.change_pct / 100), 2)
        market_cap = round(s.price * s.shares, 2)
        latest = m.latest_report(s.code, as_of=m.trade_date + dt.timedelta(days=1))
        ttm = m.ttm_net_profit(s.code, as_of=m.trade_date + dt.timedelta(days=1))
        pe_dyn: Any = "-"
        if latest is not None and latest.net_profit:
            pe_dyn = round(market_cap / (latest.net_profit * 4 / (quarter_index(latest.period) + 1)), 2)
        row: dict[int, Any] = {
            1: 2, 12: s.code, 13: 1 if s.exchange == "SH" else 0, 14: s.name, 18: prev_close,
            128: "-", 136: "-", 140: "-", 141: "-", 152: 2,
        }
        if s.suspended:
            return row
        rng_part = (int(s.code) % 97) / 97
        row.update({
            2: s.price, 3: s.change_pct, 4: round(s.price - prev_close, 2), 5: round(s.float_shares * 0.004),
            6: round(s.float_shares * 0.4 * s.price, 1), 7: round(abs(s.change_pct) + 1.1, 2),
            8: round(0.4 + rng_part * 3, 2), 9: pe_dyn, 10: round(0.6 + rng_part, 2), 11: 0.0,
            15: round(max(s.price, prev_close) * 1.01, 2), 16: round(min(s.price, prev_close) * 0.99, 2),
            17: prev_close, 20: market_cap, 21: round(s.price * s.float_shares, 2), 22: 0.0, 23: s.pb,
            24: round((rng_part - 0.4) * 30, 2), 25: round((rng_part - 0.3) * 40, 2),
            62: round((rng_part - 0.5) * 1e7, 1), 115: round(market_cap / ttm, 2) if ttm else "-",
        })
        return row

    # ---- datacenter (业绩报表, 业绩预告) -------------------------------------------------------------------
    def _datacenter(
        self,
        endpoint: str,
        p: dict[str, str],
        records: Callable[[dt.date], list[dict[str, Any]]],
        sort_columns: str,
        date_column: str,
        *,
        leading_space: bool = False,
    ) -> Answer:
        none = {"version": None, "result": None, "success": False, "message": "返回数据为空", "code": 9201}
        bad = {"version": None, "result": None, "success": False, "message": "参数错误", "code": 9501}
        fixed = {"sortColumns": sort_columns, "sortTypes": "-1,-1", "columns": "ALL"}
        for key, want in fixed.items():
            if p.get(key) != want:
                return self._reject(endpoint, f"{key}={p.get(key)!r}", _json(bad))
        pattern = rf"{' ' if leading_space else ''}\({date_column}='(\d{{4}}-\d{{2}}-\d{{2}})'\)"
        m = re.fullmatch(pattern, p.get("filter", ""))
        try:
            page, size = int(p.get("pageNumber", "")), int(p.get("pageSize", ""))
            period = dt.date.fromisoformat(m.group(1)) if m else None
        except ValueError:
            period = None
        if m is None or period is None or page < 1 or not 1 <= size <= 500:
            return self._reject(endpoint, f"filter/pageNumber/pageSize invalid: {p}", _json(bad))
        if (period.month, period.day) not in ((3, 31), (6, 30), (9, 30), (12, 31)):
            return _json(none)
        if fault := self._page_fault(endpoint, page):
            return fault
        if self.faults.take_null(endpoint, period.isoformat()):
            return _json(none)
        rows = [] if endpoint in self.faults.empty else records(period)
        if not rows:
            return _json(none)
        pages = math.ceil(len(rows) / size)
        chunk = rows[(page - 1) * size : page * size]
        if not chunk:
            return _json(none)
        self.served.append((endpoint, page))
        data = [self.faults.shape(endpoint, r) for r in chunk]
        return _json({"version": "8f2b6d3c0a7e4f1b9c5d2e6a3b7f0c1d", "result": {"pages": pages, "data": data,
                      "count": len(rows)}, "success": True, "message": "ok", "code": 0})

    def _market_codes(self, s: FakeStock) -> tuple[str, str, str]:
        if s.exchange == "SH":
            main = s.board == "沪市主板"
            return ("069001001001" if main else "069001001006", "上交所主板A股" if main else "上交所科创板",
                    f"{s.code}.SH")
        if s.exchange == "BJ":
            return "069001017", "北京证券交易所", f"{s.code}.BJ"
        return ("069001002001" if s.board == "深市主板" else "069001002002",
                "深交所主板A股" if s.board == "深市主板" else "深交所创业板", f"{s.code}.SZ")

    def _yjbb_records(self, period: dt.date) -> list[dict[str, Any]]:
        """RPT_LICO_FN_CPD records, keys in the live API's order (akshare labels them by position)."""
        out = []
        names = ("一季报", "中报", "三季报", "年报")
        for r in self.market.reports(period):
            if r.code in self.faults.withheld.get(period.isoformat(), set()):
                continue
            s = self.market.by_code[r.code]
            market_code, market_name, secucode = self._market_codes(s)
            out.append({
                "SECURITY_CODE": r.code, "SECURITY_NAME_ABBR": s.name, "TRADE_MARKET_CODE": market_code,
                "TRADE_MARKET": market_name, "SECURITY_TYPE_CODE": "058001001", "SECURITY_TYPE": "A股",
                "UPDATE_DATE": _day(r.update_date), "REPORTDATE": _day(r.period), "BASIC_EPS": r.eps,
                "DEDUCT_BASIC_EPS": r.deduct_eps, "TOTAL_OPERATE_INCOME": r.revenue, "PARENT_NETPROFIT": r.net_profit,
                "WEIGHTAVG_ROE": r.roe, "YSTZ": r.revenue_yoy, "SJLTZ": r.net_profit_yoy, "BPS": r.bps,
                "MGJYXJJE": r.ocf_ps, "XSMLL": r.gross_margin, "YSHZ": r.revenue_qoq, "SJLHZ": r.profit_qoq,
                "ASSIGNDSCRPT": None, "PAYYEAR": None, "PUBLISHNAME": s.industry, "ZXGXL": None,
                "NOTICE_DATE": _day(r.notice_date), "ORG_CODE": f"10{int(r.code):06d}",
                "TRADE_MARKET_ZJG": "0101" if s.exchange == "SH" else "0102", "ISNEW": "1",
                "QDATE": f"{period.year}Q{quarter_index(period) + 1}",
                "DATATYPE": f"{period.year}年 {names[quarter_index(period)]}", "DATAYEAR": str(period.year),
                "DATEMMDD": names[quarter_index(period)], "EITIME": f"{r.notice_date:%Y-%m-%d} 16:05:11",
                "SECUCODE": secucode, "BOARD_NAME": s.industry, "ORI_BOARD_CODE": "447", "BOARD_CODE": "BK0447",
            })
        return out

    def _yjyg_records(self, period: dt.date) -> list[dict[str, Any]]:
        """RPT_PUBLIC_OP_NEWPREDICT records (27 keys, live order)."""
        out = []
        for f in self.market.forecasts(period):
            s = self.market.by_code[f.code]
            market_code, market_name, secucode = self._market_codes(s)
            mid = None if f.change_lower is None or f.change_upper is None else (f.change_lower + f.change_upper) / 2
            out.append({
                "SECUCODE": secucode, "SECURITY_CODE": f.code, "SECURITY_NAME_ABBR": s.name,
                "ORG_CODE": f"10{int(f.code):06d}", "NOTICE_DATE": _day(f.notice_date),
                "REPORT_DATE": _day(f.period), "PREDICT_FINANCE_CODE": "004",
                "PREDICT_FINANCE": "归属于上市公司股东的净利润", "PREDICT_AMT_LOWER": f.amount_lower,
                "PREDICT_AMT_UPPER": f.amount_upper, "ADD_AMP_LOWER": f.change_lower, "ADD_AMP_UPPER": f.change_upper,
                "PREDICT_CONTENT": f.content, "CHANGE_REASON_EXPLAIN": f.reason, "PREDICT_TYPE": f.predict_type,
                "PREYEAR_SAME_PERIOD": f.last_year, "TRADE_MARKET": market_name, "TRADE_MARKET_CODE": market_code,
                "SECURITY_TYPE": "A股", "SECURITY_TYPE_CODE": "058001001", "INCREASE_JZ": mid,
                "FORECAST_JZ": (f.amount_lower + f.amount_upper) / 2, "FORECAST_STATE": "1", "IS_LATEST": "T",
                "PREDICT_RATIO_LOWER": None, "PREDICT_RATIO_UPPER": None, "PREDICT_HBMEAN": None,
            })
            if f.code in self.faults.forecast_original:  # the original this forecast revises, listed after it
                original = dict(out[-1], NOTICE_DATE=_day(f.notice_date - dt.timedelta(days=10)),
                                PREDICT_TYPE=self.faults.forecast_original[f.code], IS_LATEST="F",
                                CHANGE_REASON_EXPLAIN="原预告：市场需求下滑。")
                out.append(original)
        return out

    # ---- announcements -----------------------------------------------------------------------------------
    @staticmethod
    def _foreign_item(i: int, day: dt.date) -> dict[str, Any]:
        """An item whose codes are all H shares (ann_type H): akshare 1.19.5 adds no code row for it."""
        codes = [{"ann_type": "H,HK", "inner_code": str(900 + i), "market_code": "116", "short_name": f"港股{i}",
                  "stock_code": f"0{700 + i:04d}"} for _ in range(2)]
        return {"art_code": f"AN{day:%Y%m%d}H{i:09d}", "codes": codes,
                "columns": [{"column_code": "001002004001", "column_name": "重大事项"}],
                "display_time": f"{day} 18:00:00:000", "eiTime": f"{day} 18:00:00:000", "language": "0",
                "listing_state": "0", "notice_date": _day(day), "product_code": "", "sort_date": f"{day} 18:00:00:000",
                "source_type": "0", "title": f"港股{i}:关于H股发行的公告", "title_ch": f"港股{i}:关于H股发行的公告",
                "title_en": ""}

    def _notices(self, p: dict[str, str]) -> Answer:
        endpoint = "notice"
        fixed = {"sr": "-1", "page_size": "100", "ann_type": "A", "client_source": "web", "f_node": "0",
                 "s_node": "0"}
        err = {"data": None, "error": "参数错误", "success": 0}
        for key, want in fixed.items():
            if p.get(key) != want:
                return self._reject(endpoint, f"{key}={p.get(key)!r}", _json(err))
        try:
            page = int(p["page_index"])
            begin = dt.date.fromisoformat(p["begin_time"])
            end = dt.date.fromisoformat(p["end_time"])
        except (KeyError, ValueError):
            return self._reject(endpoint, f"page_index/begin_time/end_time invalid: {p}", _json(err))
        if "stock_list" in p:
            return self._reject(endpoint, "stock_list is not served by this fake", _json(err))
        if fault := self._page_fault(endpoint, page):
            return fault
        if status := self.faults.status_days.get(endpoint, {}).get(end.isoformat()):
            return _html_error(status)
        items = []
        if endpoint not in self.faults.empty:
            day = end
            while day >= begin:
                items.extend(self.market.announcements(day))
                day -= dt.timedelta(days=1)
        chunk = items[(page - 1) * 100 : page * 100]
        if chunk:
            self.served.append((endpoint, page))
        records = []
        for a in chunk:
            s = self.market.by_code[a.code]
            suffix = {"SH": "SHA", "SZ": "SZA", "BJ": "BJA"}[s.exchange]
            records.append(self.faults.shape(endpoint, {
                "art_code": a.art_code,
                "codes": [{"ann_type": f"A,{suffix}", "inner_code": str(10000 + int(a.code) % 90000),
                           "market_code": "1" if s.exchange == "SH" else "0", "short_name": a.name,
                           "stock_code": a.code}],
                "columns": [{"column_code": a.column_code, "column_name": a.column_name}],
                "display_time": a.display_time, "eiTime": a.display_time, "language": "0", "listing_state": "0",
                "notice_date": _day(a.day), "product_code": "", "sort_date": a.display_time, "source_type": "0",
                "title": a.title, "title_ch": a.title, "title_en": "",
            }))
        if page == 1 and items:  # items naming no A-share code (an H share's, a bond's) at the top of the day
            records[:0] = [self._foreign_item(i, begin) for i in range(self.faults.foreign_notices)]
        return _json({"data": {"list": records, "page_index": page, "page_size": 100, "total_hits": len(items)},
                      "error": "", "success": 1})
