"""The quote list from Eastmoney's delayed-quote host when the live one refuses or answers empty.

In 2026-04 the quote hosts (``push2``) answered empty or dropped connections while the ``push2delay`` hosts
answered (akshare #7206, #7230; other projects added the same fallback). akshare 1.19.5 has no host setting:
``stock_zh_a_spot_em`` and ``stock_zh_a_st_em`` call ``akshare.utils.func.fetch_paginated_data`` on fixed
``82.push2`` / ``40.push2`` URLs. The fallback calls that same akshare function, with the same parameters
(copied from akshare 1.19.5's two functions), on ``82.push2delay.eastmoney.com``: akshare's own paging, retry
and sorting run, only the host differs. The columns are then named by Eastmoney's field ids (f12 -> 代码),
where akshare names them by position; the names are akshare's, so the adapter downstream is the same.
"""

from __future__ import annotations

import pandas as pd

DELAY_HOST = "82.push2delay.eastmoney.com"
DELAY_URL = f"https://{DELAY_HOST}/api/qt/clist/get"
_COMMON = {"pn": "1", "pz": "100", "po": "1", "np": "1", "ut": "bd1d9ddb04089700cf9c27f6f7426281", "fltt": "2",
           "invt": "2"}
# akshare 1.19.5 stock_feature/stock_hist_em.py stock_zh_a_spot_em, stock/stock_zh_a_special.py stock_zh_a_st_em
BOARDS: dict[str, dict[str, str]] = {
    "stock_zh_a_spot_em": {**_COMMON, "fid": "f12", "fs": "m:0 t:6,m:0 t:80,m:1 t:2,m:1 t:23,m:0 t:81 s:2048",
                           "fields": "f1,f2,f3,f4,f5,f6,f7,f8,f9,f10,f12,f13,f14,f15,f16,f17,f18,"
                                     "f20,f21,f23,f24,f25,f22,f11,f62,f128,f136,f115,f152"},
    "stock_zh_a_st_em": {**_COMMON, "fid": "f3", "fs": "m:0 f:4,m:1 f:4",
                         "fields": "f2,f3,f4,f5,f6,f7,f8,f9,f10,f12,f13,f14,f15,f16,f17,f18,f20,"
                                   "f21,f23,f24,f25,f22,f11,f62,f128,f136,f115,f152"},
}
COLUMNS = {"f12": "代码", "f14": "名称", "f2": "最新价", "f3": "涨跌幅", "f9": "市盈率-动态", "f23": "市净率",
           "f20": "总市值"}
_TEXT = ("代码", "名称")


def delayed_board(function: str) -> pd.DataFrame:
    """``function``'s board (spot or ST) from the push2delay host, with akshare's column names.

    Raises what akshare raises (requests errors, TypeError on a null answer), and KeyError naming a field
    the answer lacks, so the caller's classification is the same as for akshare's own call.
    """
    from akshare.utils.func import fetch_paginated_data

    frame = fetch_paginated_data(DELAY_URL, dict(BOARDS[function]))
    missing = [f for f in COLUMNS if f not in frame.columns]
    if missing:
        raise KeyError(f"{missing} not in index")
    out = frame[list(COLUMNS)].rename(columns=COLUMNS)
    for column in out.columns:
        if column not in _TEXT:
            out[column] = pd.to_numeric(out[column], errors="coerce")
    return out
