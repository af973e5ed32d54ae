"""One day's announcement titles, each attached to the codes its own item names.

akshare 1.19.5's ``stock_notice_report`` (stock_fundamental/stock_notice.py) builds a frame of the items and a
second frame of one code per item, and sets them side by side: an item without an A-share code (a bond's,
an H share's) adds no code row, and every later title lands on the wrong company. This module sends the same
request (akshare 1.19.5's endpoint and parameters, pages of 100, ``ceil(total_hits / 100)`` pages) through one
``requests.Session`` with a timeout (akshare passes none), and reads each item on its own: its title goes to
every A-share code in its ``codes`` list (akshare's test: ``ann_type`` starting with "A"), to none when it names
none. The frame has akshare's column names (代码, 公告标题, 公告日期), so the adapter downstream is the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

NOTICE_URL = "https://np-anotice-stock.eastmoney.com/api/security/ann"
COLUMNS = ("代码", "公告标题", "公告日期")


def _day_params(day: str) -> dict[str, str]:
    iso = f"{day[:4]}-{day[4:6]}-{day[6:]}"
    return {"sr": "-1", "page_size": "100", "page_index": "1", "ann_type": "A", "client_source": "web",
            "f_node": "0", "s_node": "0", "begin_time": iso, "end_time": iso}


def items_to_rows(items: list[dict[str, Any]]) -> tuple[list[tuple[str, str, str]], int]:
    """(code, title, notice date) for every A-share code each item names, and how many items named none.

    Raises KeyError naming a field an item lacks (``title``, ``codes``, ``notice_date``): a renamed field.
    """
    rows: list[tuple[str, str, str]] = []
    without = 0
    for item in items:
        title, when = item["title"], item["notice_date"]
        codes = [c["stock_code"] for c in item["codes"] if str(c.get("ann_type", "")).startswith("A")]
        without += not codes
        rows.extend((code, title, when) for code in dict.fromkeys(codes))
    return rows, without


def notice_day(day: str, *, session: Any = None, timeout_s: float = 15.0,
               on_page: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """All announcement titles of ``day`` (YYYYMMDD), one row per (code, title); ``session``: the fetch's."""
    import requests

    own = session is None
    session = requests.Session() if own else session
    params = _day_params(day)
    rows: list[tuple[str, str, str]] = []
    try:
        page, pages = 1, 1
        while page <= pages:
            params["page_index"] = str(page)
            r = session.get(NOTICE_URL, params=params, timeout=timeout_s)
            r.raise_for_status()
            data = r.json()["data"]
            pages = math.ceil(data["total_hits"] / 100)
            found, _ = items_to_rows(data["list"])
            rows += found
            if on_page is not None and pages:
                on_page(page, pages)
            page += 1
    finally:
        if own:
            session.close()
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame["公告日期"] = pd.to_datetime(frame["公告日期"], errors="coerce").dt.date
    return frame
