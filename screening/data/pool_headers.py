"""Which StockInput field a column header of an export feeds, and in which unit its values are.

Trading software and people spell the same column many ways (市盈率(TTM), PE-TTM, 市盈(TTM) ...);
they are compared after folding width, case, spaces, brackets and -/_ so one alias covers them all.
A bracketed unit (总市值(亿)) scales the column's values; it is kept as written too, so a unit that a
column cannot take (ROE(亿)) can be named in the row's problem.
"""

from __future__ import annotations

import re
import unicodedata

# Header spellings per StockInput field, compared after _header_key().
HEADER_ALIASES: dict[str, tuple[str, ...]] = {
    "code": ("code", "代码", "股票代码", "证券代码", "symbol", "ts_code"),
    "name": ("name", "名称", "股票简称", "证券简称", "股票名称", "证券名称", "简称"),
    "industry": ("industry", "所属行业", "行业", "所属同花顺行业", "细分行业"),
    "pe_ttm": ("pe_ttm", "pe", "市盈率(TTM)", "市盈率TTM", "PE-TTM", "PE(TTM)", "市盈率-TTM", "滚动市盈率",
               "市盈(TTM)", "市盈率(PE,TTM)"),  # the last is i问财's
    # 市盈率-动态 annualises the latest quarter; it is NOT the trailing twelve months the rules use
    "pe_dynamic": ("pe_dynamic", "市盈率-动态", "市盈率(动)", "市盈(动)", "动态市盈率"),
    "roe": ("roe", "ROE(%)", "净资产收益率", "净资产收益率(%)", "ROE加权", "加权净资产收益率", "净资产收益率(加权)",
            "净资产收益率ROE(加权,公布值)", "净资产收益率ROE(加权)",  # these two are i问财's
            "净资产收益率ROE"),  # 同花顺's 净资产收益率ROE(%): unread, every row failed for want of an ROE
    "eps": ("eps", "每股收益", "基本每股收益"),
    "report_text": ("report_text", "财报摘要", "摘要", "公告摘要"),
    # the flag column as people name it in their own sheets: an unread 是 there came back 低/100 (2026-12-07)
    "st": ("st", "是否ST", "ST标记", "是否为ST", "是否ST股", "ST状态", "ST标志", "ST股", "*ST", "ST/*ST", "ST(是/否)",
           "特别处理", "风险警示", "是否风险警示"),
    "net_profit_y1": ("net_profit_y1", "净利润", "归母净利润"),
    "net_profit_y2": ("net_profit_y2", "上年净利润"),
    "report_date": ("report_date", "报告期", "报告日期"),
    # the period one report figure is of, on its own row (what `universe export` writes: PERIOD_OF): a refresh's ROE
    # is FY2025's beside a 报告期 of 2026-09-30, which read alone said a Q3 cumulative ROE (ROE非年报)
    "roe_period": ("roe_period", "ROE报告期", "净资产收益率报告期"),
    "net_profit_y1_period": ("net_profit_y1_period", "净利润报告期"),
    "net_profit_y2_period": ("net_profit_y2_period", "上年净利润报告期"),
    "eps_period": ("eps_period", "每股收益报告期"),
    # an announcement in two columns (a title and its date): joined into the report text as a dated title,
    # the way the providers write them, so the text-risk floor reads it (pool_rows.join_notice)
    "notice_title": ("notice_title", "公告标题", "最新公告", "公告名称", "公告", "最新公告标题", "最新公告名称",
                     "最近公告"),
    "notice_date": ("notice_date", "公告日期", "公告时间", "披露日期", "最新公告日期"),
    # the day a sheet's quotes are of (a 日期 column beside the PE-TTM): aged as the universe's quotes are. ``as_of`` is
    # the day `universe export` writes on each row, the day `universe import` dates the row's quotes by: unread, the
    # export screened as a pool aged no quote (a two-month-old PE-TTM came back 低/100, data_date null, 2026-12-07)
    "quote_date": ("quote_date", "日期", "交易日期", "数据日期", "行情日期", "as_of"),
    # 东方财富's 业绩预告 export (预告类型 续亏/首亏/预减/略增, 业绩变动, 业绩变动原因, 公告日期): joined into the
    # report text as the providers write a forecast (pool_rows.join_forecast); unread, a 续亏 row came back 低/100
    "forecast_kind": ("forecast_kind", "预告类型", "业绩预告类型", "预告类别"),
    "forecast_change": ("forecast_change", "业绩变动", "业绩预告", "预告内容", "业绩预告内容", "预告摘要",
                        "业绩预告摘要"),
    "forecast_reason": ("forecast_reason", "业绩变动原因", "变动原因", "预告原因"),
    # which figure the row forecasts (营业收入, 归属于上市公司股东的净利润, 每股收益 ...): 东方财富 writes a row per
    # 预测指标, and a forecast line without it did not say whether its 略增 was the revenue's or the profit's
    "forecast_metric": ("forecast_metric", "预测指标", "预告指标", "业绩预告指标"),
    # the row's own figures (东方财富 writes 预测数值(元), 上年同期值(元), 业绩变动幅度): unread, a row whose only
    # sign of a loss was 预测数值 -2.0E8 came back 低 (2026-12-07); written into its forecast line (join_forecast).
    # No bare 上年同期 or 预测值: a sheet's last-year profit or an analyst's estimate is no forecast of the company's
    "forecast_value": ("forecast_value", "预测数值", "预告数值"),
    "forecast_last_year": ("forecast_last_year", "上年同期值", "上年同期数值"),
    "forecast_change_pct": ("forecast_change_pct", "业绩变动幅度", "预告变动幅度"),
    # a user's own risk notes: every such column joins the report text as "<表头>: <文字>" (pool_unread)
    "note_text": ("note_text", "备注", "备注说明", "风险提示", "风险事项", "重要事项", "重大事项", "特别提示",
                  "大事提醒"),
    "price": ("price", "最新价", "现价"),
    # 通达信 writes 涨幅% (the percent sign is dropped by _header_key)
    "change_pct": ("change_pct", "涨跌幅", "涨幅", "最新涨跌幅"),
    "pb": ("pb", "市净率", "市净率(PB)"),
    "market_cap": ("market_cap", "总市值"),
}
# Columns that date a report figure rather than feed one: {column's field: the figure whose period it names}. Read
# into the row's file_dates (pool_dates.date_row), never into the stock; a figure's own period wins over the 报告期.
PERIOD_OF: dict[str, str] = {"roe_period": "roe", "net_profit_y1_period": "net_profit_y1",
                             "net_profit_y2_period": "net_profit_y2", "eps_period": "eps"}
# Text fields whose every column is read (joined into the report text, pool_unread.join_text_columns): a
# second 风险提示-like column, or a second summary or title column, must not be dropped as a twin.
JOINED_TEXT_FIELDS = ("note_text", "report_text", "notice_title")
NUMERIC_FIELDS = (
    "pe_ttm",
    "roe",
    "eps",
    "net_profit_y1",
    "net_profit_y2",
    "price",
    "change_pct",
    "pb",
    "market_cap",
    "pe_dynamic",
)

# A bracketed unit in a header scales its values into yuan / percent: "总市值(亿)" 12.3 -> 1.23e9.
HEADER_UNITS: dict[str, float] = {
    "元": 1.0, "万": 1e4, "万元": 1e4, "亿": 1e8, "亿元": 1e8, "万亿": 1e12, "万亿元": 1e12, "%": 1.0, "倍": 1.0}
# Units only some fields can take: a multiple (市盈率TTM(倍)) is a PE or PB; "ROE(倍)" feeds nothing.
UNIT_FIELDS: dict[str, tuple[str, ...]] = {"倍": ("pe_ttm", "pe_dynamic", "pb")}
_BRACKETS = re.compile(r"[(\[【{]([^)\]】}]*)[)\]】}]")
# i问财 stamps each column with the day it was asked (市盈率(pe,ttm)[20261204]), or a range of days
_DATE_STAMP = re.compile(r"\d{8}(?:-\d{8})?")
# 东方财富 and 同花顺 name a report column's period in words (ROE(2025年报), 净资产收益率(2026三季报)): read as the
# stamp of that period's last day. Unread, the header fed nothing, and a file whose ROE columns all said their
# period failed every row for want of an ROE (a trial, 2026-12-08). {the word: the period's last month-day}
PERIOD_WORDS: dict[str, str] = {
    "年报": "1231", "年度": "1231", "一季报": "0331", "一季度": "0331", "中报": "0630", "半年报": "0630",
    "半年度": "0630", "中期": "0630", "三季报": "0930", "三季度": "0930"}
_PERIOD_STAMP = re.compile(rf"((?:19|20)\d{{2}})\s*年?\s*({'|'.join(sorted(PERIOD_WORDS, key=len, reverse=True))})")
_DROP = re.compile(r"[\s\-_·.:,、\u200b-\u200f\ufeff]+")
# the sort mark a quote board writes after the column it is sorted by, kept in its export (市盈率(TTM)↓, 代码↑):
# no part of the name. Kept, a sorted 代码 column refused the whole file (no code column), a sorted 市盈率(TTM)
# fed nothing (a trial, 2026-12-08)
_SORT_MARKS = re.compile(r"[↑↓▲▼△▽⇧⇩]+")


def _header_parts(header: str) -> tuple[str, str | None]:
    """Comparable form of a header (case, width, spaces, brackets, -/_ ignored) and its bracketed unit."""
    text = _SORT_MARKS.sub("", unicodedata.normalize("NFKC", header)).strip().casefold()
    unit: str | None = None

    def unbracket(m: re.Match[str]) -> str:
        nonlocal unit
        inner = m.group(1).strip()
        if _DATE_STAMP.fullmatch(inner) or _PERIOD_STAMP.fullmatch(inner):
            return ""
        if inner in HEADER_UNITS:
            unit = inner
            return ""
        return inner

    text = _BRACKETS.sub(unbracket, text)
    if unit is None and text.rstrip().endswith("%"):
        unit = "%"
    text = _DROP.sub("", text).rstrip("%")
    return text, unit


def _header_key(header: str) -> tuple[str, float]:
    key, unit = _header_parts(header)
    return key, HEADER_UNITS[unit] if unit else 1.0


_ALIAS_INDEX: dict[str, str] = {
    _header_key(alias)[0]: field for field, aliases in HEADER_ALIASES.items() for alias in aliases
}


def map_header(header: str) -> tuple[str | None, float]:
    """The StockInput field a file column feeds (None if unknown), and the unit scale of its values."""
    key, unit = _header_parts(header)
    field = _ALIAS_INDEX.get(key)
    if unit in UNIT_FIELDS and field not in UNIT_FIELDS[unit]:
        return None, 1.0
    return field, HEADER_UNITS[unit] if unit else 1.0


def header_stamp(header: str) -> str | None:
    """The date i问财 stamps a column with ("净资产收益率[20260930]" -> "20260930"; a range: its end), or the last
    day of the report period a header names in words ("ROE(2026三季报)" -> "20260930"), else None."""
    stamps = [_stamp(m.group(1).strip()) for m in _BRACKETS.finditer(unicodedata.normalize("NFKC", header))]
    found = [s for s in stamps if s]
    return found[-1] if found else None


def _stamp(inner: str) -> str | None:
    if _DATE_STAMP.fullmatch(inner):
        return inner[-8:]
    m = _PERIOD_STAMP.fullmatch(inner)
    return m.group(1) + PERIOD_WORDS[m.group(2)] if m else None


def unnamed_pe(header: str) -> bool:
    """Whether a PE column's header says only PE (``PE``, ``PE(倍)``), not which PE: it is read as PE-TTM, the
    alias people mean most, but 同花顺 and 东方财富 also label the dynamic or static PE so; the rows say it."""
    return _header_parts(header)[0] == "pe"


def header_unit(header: str) -> str | None:
    """The unit a header writes in brackets or as a trailing % ("总市值(亿)" -> "亿"), None without one."""
    return _header_parts(header)[1]


CODE_HEADERS = "代码, 股票代码, 证券代码, code, symbol, ts_code"  # as the "no code column" advice lists them


# Headers that look like a field the rules read but are not it (or not surely it): they feed nothing, and a
# warning names them with the header to use, rather than dropping the column without a word. Matched on the
# folded header (see _header_parts) of a column that mapped to nothing; (pattern, field, what is wrong, header).
LOOKALIKES: tuple[tuple[re.Pattern[str], str, str, str], ...] = (
    (re.compile(r"市盈|^pe($|[^a-z]|ttm|lyr|ratio)"), "pe_ttm",
     "规则用滚动市盈率 (TTM), 这一列没写明是 TTM (静态、LYR、动态市盈率都不是它)", "市盈率(TTM)"),
    (re.compile(r"净资产收益|roe"), "roe",
     "规则用年度 (年报) ROE 的百分比; ROE(TTM)、摊薄、单季或写成倍数的 ROE 不是它", "净资产收益率(%)"),
    (re.compile(r"^(股票|证券|公司|a股)?(中文)?(名称|简称)$"), "name", "这个表头不在认得的名称列中", "名称"),
)


def lookalike(header: str) -> tuple[str, str, str] | None:
    """(field, why it feeds nothing, the header to use) for an unmapped header that looks like a rules field."""
    if map_header(header)[0] is not None:
        return None
    key = _header_parts(header)[0]
    return next(((field, why, use) for pattern, field, why, use in LOOKALIKES if pattern.search(key)), None)


def merged_header(top: list[str], sub: list[str]) -> list[str] | None:
    """The header two rows make (Excel's merged cells), or None when the lower row is no part of it.

    The lower row belongs to the header when it leaves the code column empty and, under some column, names a
    field the top cell alone does not: by itself (估值 over 市盈率(TTM)), or after the top cell it sits under,
    a merged top cell standing over the empty cells to its right (市盈率 merged over 动态 | TTM: 市盈率动态 and
    市盈率TTM). Read as data, such a row failed as 代码为空 and the TTM column was never read (a trial, 2026-12-07).
    """
    code_col = next((i for i, h in enumerate(top) if map_header(h)[0] == "code"), None)
    if code_col is None or (code_col < len(sub) and sub[code_col]):
        return None
    names: list[str] = []
    above, new = "", False
    for i in range(max(len(top), len(sub))):
        cell, below = (top[i] if i < len(top) else ""), (sub[i] if i < len(sub) else "")
        above = cell or (above if below else "")
        name = _lower_name(cell, above, below)
        field = map_header(name)[0]
        new = new or (field is not None and field != map_header(cell)[0])
        names.append(name)
    while names and not names[-1]:
        names.pop()
    return names if new else None


def _lower_name(cell: str, above: str, below: str) -> str:
    """One column's name under a two-row header: the lower cell if it names a field, else the upper and lower
    cells read as one name if that names a field, else the upper cell as written."""
    if below and map_header(below)[0] is not None:
        return below
    if below and above and map_header(above + below)[0] is not None:
        return above + below
    return cell
