"""业绩报表 and 业绩预告 from Eastmoney's datacenter, their fields read by name, through the fetch's session.

akshare 1.19.5's ``stock_yjbb_em`` and ``stock_yjyg_em`` (stock_feature/) send these requests and label the
fields of each record BY POSITION (37 and 27 of them): one field added upstream (业绩报表's BOARD_* fields of
2025-03, akshare #5933 #5937; a 业绩预告 column, #5997) breaks every column; and 业绩报表's first notice date
(NOTICE_DATE) is dropped while UPDATE_DATE is kept as "最新公告日期" (a 2023 Q1 report then shows as published
2024-04-27). This module sends akshare 1.19.5's requests (same endpoints, report names, sort, page size 500,
filters; ``result.pages`` pages) through one ``requests.Session`` with a timeout (akshare passes none) and
reads each field by its Eastmoney name into akshare's column names, plus 首次公告日期 from NOTICE_DATE. A
``result: null`` answer raises the TypeError akshare raises, so the caller's "no data" handling (and its
null-fault retry, #6522) is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

YJBB_URL = "https://datacenter-web.eastmoney.com/api/data/v1/get"
YJYG_URL = "https://datacenter.eastmoney.com/securities/api/data/v1/get"
# Eastmoney field -> akshare 1.19.5's column name (its positional labels, matched to the fields' order)
YJBB_FIELDS = {
    "SECURITY_CODE": "股票代码", "SECURITY_NAME_ABBR": "股票简称", "BASIC_EPS": "每股收益",
    "TOTAL_OPERATE_INCOME": "营业总收入-营业总收入", "YSTZ": "营业总收入-同比增长", "PARENT_NETPROFIT": "净利润-净利润",
    "SJLTZ": "净利润-同比增长", "WEIGHTAVG_ROE": "净资产收益率", "XSMLL": "销售毛利率", "PUBLISHNAME": "所处行业",
    "UPDATE_DATE": "最新公告日期", "NOTICE_DATE": "首次公告日期",
}
YJYG_FIELDS = {
    "SECURITY_CODE": "股票代码", "PREDICT_FINANCE": "预测指标", "PREDICT_CONTENT": "业绩变动",
    "CHANGE_REASON_EXPLAIN": "业绩变动原因", "PREDICT_TYPE": "预告类型", "NOTICE_DATE": "公告日期",
    # the row's own figures, as akshare labels them (FORECAST_JZ, PREYEAR_SAME_PERIOD, INCREASE_JZ): written into the
    # forecast line as the pool writes an export's (providers/forecast_words.py)
    "FORECAST_JZ": "预测数值", "PREYEAR_SAME_PERIOD": "上年同期值", "INCREASE_JZ": "业绩变动幅度",
}
# fields a record may lack without failing the table: a forecast line reads without its figures
OPTIONAL = frozenset({"FORECAST_JZ", "PREYEAR_SAME_PERIOD", "INCREASE_JZ"})
_TEXT = ("股票代码", "股票简称", "所处行业", "预测指标", "业绩变动", "业绩变动原因", "预告类型")
_DATES = ("最新公告日期", "首次公告日期", "公告日期")
OnPage = Callable[[int, int], None]


def _period(date: str) -> str:
    return f"{date[:4]}-{date[4:6]}-{date[6:]}"


def _all_pages(session: Any, url: str, params: dict[str, str], timeout_s: float,
               on_page: OnPage | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    page, pages = 1, 1
    while page <= pages:
        params["pageNumber"] = str(page)
        r = session.get(url, params=params, timeout=timeout_s)
        r.raise_for_status()
        result = r.json()["result"]
        rows += result["data"]
        pages = int(result["pages"])
        if on_page is not None:
            on_page(page, pages)
        page += 1
    return rows


def _frame(rows: list[dict[str, Any]], fields: dict[str, str]) -> pd.DataFrame:
    missing = [f for f in fields if rows and f not in rows[0] and f not in OPTIONAL]
    if missing:
        raise KeyError(f"{missing} not in index")
    frame = pd.DataFrame([[r.get(f) for f in fields] for r in rows], columns=list(fields.values()))
    for column in frame.columns:
        if column in _DATES:
            frame[column] = pd.to_datetime(frame[column], errors="coerce").dt.date
        elif column not in _TEXT:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


def _get(url: str, params: dict[str, str], fields: dict[str, str], session: Any, timeout_s: float,
         on_page: OnPage | None) -> pd.DataFrame:
    if session is not None:
        return _frame(_all_pages(session, url, params, timeout_s, on_page), fields)
    import requests

    with requests.Session() as own:
        return _frame(_all_pages(own, url, params, timeout_s, on_page), fields)


def report_period(date: str, *, session: Any = None, timeout_s: float = 30.0,
                  on_page: OnPage | None = None) -> pd.DataFrame:
    """The whole market's 业绩报表 for period ``date`` (YYYYMMDD), newest update first, akshare's columns."""
    params = {"sortColumns": "UPDATE_DATE,SECURITY_CODE", "sortTypes": "-1,-1", "pageSize": "500",
              "pageNumber": "1", "reportName": "RPT_LICO_FN_CPD", "columns": "ALL",
              "filter": f"(REPORTDATE='{_period(date)}')"}
    return _get(YJBB_URL, params, YJBB_FIELDS, session, timeout_s, on_page)


def forecast_period(date: str, *, session: Any = None, timeout_s: float = 30.0,
                    on_page: OnPage | None = None) -> pd.DataFrame:
    """The whole market's 业绩预告 for period ``date`` (YYYYMMDD), newest notice first, akshare's columns."""
    params = {"sortColumns": "NOTICE_DATE,SECURITY_CODE", "sortTypes": "-1,-1", "pageSize": "500",
              "pageNumber": "1", "reportName": "RPT_PUBLIC_OP_NEWPREDICT", "columns": "ALL",
              "filter": f" (REPORT_DATE='{_period(date)}')"}
    return _get(YJYG_URL, params, YJYG_FIELDS, session, timeout_s, on_page)
