"""One report period of 业绩报表 (RPT_LICO_FN_CPD), its fields read by name, with the first notice date.

akshare 1.19.5's ``stock_yjbb_em`` (stock_feature/stock_yjbb_em.py) sends this request and labels the 37 fields
of each record BY POSITION: one field added upstream (the BOARD_* fields of 2025-03, akshare #5933, #5937)
breaks every column, and the first notice date (NOTICE_DATE) is dropped while UPDATE_DATE is kept as
"最新公告日期" (a 2023 Q1 report then shows as published 2024-04-27). This module sends akshare 1.19.5's request
(same endpoint, report name, sort, page size 500, filter; ``result.pages`` pages) through one
``requests.Session`` with a timeout (akshare passes none) and reads each field by its Eastmoney name into
akshare's column names, plus 首次公告日期 from NOTICE_DATE. A ``result: null`` answer raises the same TypeError
akshare raises, so the caller's "no data" handling (and its null-fault retry, #6522) is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

YJBB_URL = "https://datacenter-web.eastmoney.com/api/data/v1/get"
# Eastmoney field -> akshare 1.19.5's column name (its positional labels, matched to the fields' order)
FIELDS = {
    "SECURITY_CODE": "股票代码", "SECURITY_NAME_ABBR": "股票简称", "BASIC_EPS": "每股收益",
    "TOTAL_OPERATE_INCOME": "营业总收入-营业总收入", "YSTZ": "营业总收入-同比增长", "PARENT_NETPROFIT": "净利润-净利润",
    "SJLTZ": "净利润-同比增长", "WEIGHTAVG_ROE": "净资产收益率", "XSMLL": "销售毛利率", "PUBLISHNAME": "所处行业",
    "UPDATE_DATE": "最新公告日期", "NOTICE_DATE": "首次公告日期",
}
_TEXT = ("股票代码", "股票简称", "所处行业")
_DATES = ("最新公告日期", "首次公告日期")


def _records(session: Any, params: dict[str, str], timeout_s: float) -> tuple[list[dict[str, Any]], int]:
    r = session.get(YJBB_URL, params=params, timeout=timeout_s)
    r.raise_for_status()
    result = r.json()["result"]
    return list(result["data"]), int(result["pages"])


def report_period(date: str, *, timeout_s: float = 30.0,
                  on_page: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """The whole market's reports for period ``date`` (YYYYMMDD), newest update first, akshare's columns."""
    import requests

    params = {"sortColumns": "UPDATE_DATE,SECURITY_CODE", "sortTypes": "-1,-1", "pageSize": "500",
              "pageNumber": "1", "reportName": "RPT_LICO_FN_CPD", "columns": "ALL",
              "filter": f"(REPORTDATE='{date[:4]}-{date[4:6]}-{date[6:]}')"}
    rows: list[dict[str, Any]] = []
    with requests.Session() as session:
        page, pages = 1, 1
        while page <= pages:
            params["pageNumber"] = str(page)
            found, pages = _records(session, params, timeout_s)
            rows += found
            if on_page is not None:
                on_page(page, pages)
            page += 1
    missing = [f for f in FIELDS if rows and f not in rows[0]]
    if missing:
        raise KeyError(f"{missing} not in index")
    frame = pd.DataFrame([[r.get(f) for f in FIELDS] for r in rows], columns=list(FIELDS.values()))
    for column in frame.columns:
        if column in _DATES:
            frame[column] = pd.to_datetime(frame[column], errors="coerce").dt.date
        elif column not in _TEXT:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame
