"""Checks of a file's row against what it claims, after it is read and before it is screened.

A pool row can be read cleanly and still be doubtful: its name is another company's than the one its code
holds (the universe fills that company's figures), or its ROE is a quarter's cumulative figure while the
rules' thresholds (5 %, 15 %) are annual. Neither is repaired by a guess; each becomes a note on the row
that every summary counts as 数据存疑, and ``universe import`` refuses such a row. A loss beside a positive
ROE from the same columns is flagged the same way.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

from screening.data.names import names_agree
from screening.data.universe import Universe
from screening.models import (
    FIELD_LABELS,
    NOTE_NAME_CONFLICT,
    NOTE_QUARTER_ROE,
    NOTE_SIGN_CONFLICT,
    NOTE_UNUSUAL,
    StockInput,
)

# How exports write a report period, and which period each spelling is. 12-31 / 年报 is the annual one.
_PERIOD_DATE = re.compile(r"(\d{4})\s*[-/.年]?\s*(\d{1,2})\s*[-/.月]?\s*(\d{1,2})")
_PERIOD_WORDS: tuple[tuple[str, str], ...] = (
    ("一季", "一季报"), ("中报", "半年报"), ("半年", "半年报"), ("中期", "半年报"),
    ("H1", "半年报"), ("三季", "三季报"), ("年报", "年报"), ("年度", "年报"), ("FY", "年报"),
)
# Q3 / 3Q next to a year (2026Q3, 2026-3Q, 3Q2026), never a digit of the year itself (2021Q4 is not 1Q)
_QUARTER_MARK = re.compile(r"(?<!\d)([1-4])Q|Q([1-4])(?!\d)")
_QUARTER_KINDS = {"1": "一季报", "2": "半年报", "3": "三季报", "4": "年报"}
_QUARTER_ENDS = {(3, 31): "一季报", (6, 30): "半年报", (9, 30): "三季报", (12, 31): "年报"}
# a period written by its month only (2026-09, 202609, 2026年9月), or as the number Excel stores a date as when
# the cell lost its date format (46295 = 2026-09-30): both were read as no period, so a Q3 ROE went unflagged
_PERIOD_MONTH = re.compile(r"^(\d{4})\s*[-/.年]?\s*(0?[1-9]|1[0-2])\s*月?(?:份|末)?$")
_QUARTER_MONTHS = {3: "一季报", 6: "半年报", 9: "三季报", 12: "年报"}
_EXCEL_SERIAL = re.compile(r"^(\d{5})(?:\.0+)?$")
_EXCEL_EPOCH = dt.date(1899, 12, 30)
ANNUAL = "年报"


def period_kind(report_date: str | None) -> str | None:
    """一季报 / 半年报 / 三季报 / 年报 for a report period as exports write it, None when it cannot tell."""
    if not report_date:
        return None
    text = unicodedata.normalize("NFKC", report_date).upper().strip()
    serial = _EXCEL_SERIAL.match(text)
    if serial and 36526 <= int(serial.group(1)) <= 73050:  # 2000-01-01 .. 2099-12-31
        day = _EXCEL_EPOCH + dt.timedelta(days=int(serial.group(1)))
        return _QUARTER_ENDS.get((day.month, day.day))
    month = _PERIOD_MONTH.match(text)
    if month:
        return _QUARTER_MONTHS.get(int(month.group(2)))
    m = _PERIOD_DATE.search(text)
    if m:
        return _QUARTER_ENDS.get((int(m.group(2)), int(m.group(3))))
    mark = _QUARTER_MARK.search(text)
    if mark:
        return _QUARTER_KINDS[mark.group(1) or mark.group(2)]
    return next((kind for word, kind in _PERIOD_WORDS if word in text), None)


def quarter_roe(stock: StockInput) -> str | None:
    """The note for a file's ROE that its own report period says is a quarter's cumulative ROE, else None."""
    from_file = all(stock.sources.get(f, "file") == "file" for f in ("roe", "report_date"))  # a parsed row: none
    if stock.roe is None or not from_file:
        return None
    kind = period_kind(stock.report_date)
    if kind is None or kind == ANNUAL:
        return None
    return (f"{NOTE_QUARTER_ROE}: 文件的 ROE {stock.roe:g}% 是 {stock.report_date} ({kind}) 的累计值, "
            "规则阈值 5%/15% 按全年; 请用年报 ROE")


def sign_conflict(stock: StockInput) -> str | None:
    """The note for a net profit and an ROE of opposite signs from one source (a file's columns of one report
    period), else None. ROE is profit over equity: a loss beside a positive ROE means a misread column, or
    negative equity, which is itself a risk; the verdict (低 on a 20% ROE) must not rest on it unsaid."""
    profit, roe = stock.net_profit_y1, stock.roe
    if profit is None or roe is None or profit * roe >= 0:
        return None
    if stock.sources.get("net_profit_y1", "file") != stock.sources.get("roe", "file"):
        return None  # another period can differ in sign (a provider's TTM ROE beside last year's profit)
    shown = f"{profit / 1e8:.4g}亿" if abs(profit) >= 1e6 else f"{profit:g}"
    return (f"{NOTE_SIGN_CONFLICT}: 净利润 {shown} 与 ROE {roe:g}% 一正一负 (ROE=净利润/净资产, 应同号, "
            "除非净资产为负); 请核对两列是否同一报告期、是否错列")


# Figures a real A share does not show, though the column's hard bounds (value_bounds) let them through, and
# each one decides the verdict: a ROE past ±100% scores 100 (or 0) by itself, a PE-TTM under 1 means a price
# under one year's earnings. Each is most often a slip (0.152 typed 152, a split cell, 1e-9): (field, low,
# high, unit, why). Outside the range the row is screened as given and flagged, never corrected.
USUAL_RANGES: tuple[tuple[str, float, float, str, str], ...] = (
    ("roe", -100.0, 100.0, "%", "A股 ROE 大约在 ±100% 以内; 超出多为错列、单位或小数点错误"),
    ("pe_ttm", 1.0, float("inf"), "倍",
     "正的 PE-TTM 低于 1 倍即股价不到一年每股收益, A股没有这样的股票; 多为小数点或单位错误"),
)


def unusual_figures(stock: StockInput) -> str | None:
    """The note naming each figure outside ``USUAL_RANGES`` (a loss's PE, <= 0, is the rules' own case)."""
    odd = []
    for field, low, high, unit, why in USUAL_RANGES:
        value = getattr(stock, field)
        if value is None or (field == "pe_ttm" and value <= 0) or low <= value <= high:
            continue
        source = stock.sources.get(field, "file")
        where = f"本地数据 {source.removeprefix('universe:')}" if source.startswith("universe:") else source
        odd.append(f"{FIELD_LABELS[field]} {value:g}{unit} (来自{_SOURCE_WORDS.get(source, where)}; {why})")
    return f"{NOTE_UNUSUAL}: " + "; ".join(odd) + "; 请核对原值" if odd else None


_SOURCE_WORDS = {"file": "文件", "demo": "演示数据"}


def name_conflict(stock: StockInput, universe: Universe) -> str | None:
    """The row's note when the file's name is another company's than the one its code holds, else None.

    The figures the universe fills come by the code; under a wrong name the verdict would read as that
    name's. Renames and board marks (*ST, XD, N, -U, cut names) agree (``names.names_agree``).
    """
    stored = universe.get(stock.code) if stock.name else None
    if stored is None or not stored.name or names_agree(stock.name or "", stored.name):
        return None
    return f"{NOTE_NAME_CONFLICT}: 文件写 {stock.name}, 本地数据中 {stock.code} 是 {stored.name}"
