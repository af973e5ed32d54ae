"""Checks of a file's row against what it claims, after it is read and before it is screened.

A pool row can be read cleanly and still be doubtful: its name is another company's than the one its code
holds (the universe fills that company's figures), or its ROE is a quarter's cumulative figure while the
rules' thresholds (5 %, 15 %) are annual. Neither is repaired by a guess; each becomes a note on the row
that every summary counts as 数据存疑, and ``universe import`` refuses such a row. A loss beside a positive
ROE from the same columns is flagged the same way, and so is a percent cell its column says may be a fraction
(``flag_fractions``: the one check here that reads a whole column, since only the other rows tell).
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from dataclasses import dataclass

from screening.data.names import names_agree, norm_name
from screening.data.pool_formats import PERCENT
from screening.data.pool_rows import Column
from screening.data.pool_table import RawRow
from screening.data.universe import Universe
from screening.data.values import parse_number_unit
from screening.figures import figure, money
from screening.models import (
    FIELD_LABELS,
    NOTE_IGNORED,
    NOTE_NAME_CONFLICT,
    NOTE_PERCENT_DOUBT,
    NOTE_QUARTER_ROE,
    NOTE_SIGN_CONFLICT,
    NOTE_UNUSUAL,
    InputProblem,
    Pool,
    PoolItem,
    StockInput,
)

# How exports write a report period, one table read by one parser (``read_period``): every spelling of a period
# gives its kind and, when it names the year, its last day, so that each check (ROE非年报, 数据过期, a period not yet
# over) reads 2026.06.30, 2026年中报 and 2026H1 as it reads 2026-06-30. A user trial (2026-12-07, the eighteenth
# session) found only 2026-06-30 and 20260630 aged: 2026Q1 in December was flagged a quarter's, never stale.
_KIND_ENDS = {"一季报": (3, 31), "半年报": (6, 30), "三季报": (9, 30), "年报": (12, 31)}
_QUARTER_ENDS = {end: kind for kind, end in _KIND_ENDS.items()}
_QUARTER_MONTHS = {month: kind for kind, (month, _) in _KIND_ENDS.items()}
_EXCEL_EPOCH = dt.date(1899, 12, 30)
SERIAL, MONTH, DAY = "serial", "month", "day"
# Days written out, tried first: the number Excel stores a date as when the cell lost its date format (46295 =
# 2026-09-30), a month alone (2026-09, 202609, 2026年9月: its quarter's end), a whole day in any separator.
DAY_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(\d{5})(?:\.0+)?$"), SERIAL),
    (re.compile(r"^(\d{4})\s*[-/.年]?\s*(0?[1-9]|1[0-2])\s*月?(?:份|末)?$"), MONTH),
    (re.compile(r"(\d{4})\s*[-/.年]?\s*(\d{1,2})\s*[-/.月]?\s*(\d{1,2})"), DAY),
)
# Periods named in words or marks, first match wins, the year (if any) read beside them: Q3 / 3Q next to a year
# (2026Q3, 2026-3Q, 3Q2026), never a digit of the year itself (2021Q4 is not 1Q); 半年 before 年报 (2026年半年报).
WORD_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<!\d)1Q|Q1(?!\d)|一季"), "一季报"),
    (re.compile(r"(?<!\d)2Q|Q2(?!\d)|中报|半年|中期|H1"), "半年报"),
    (re.compile(r"(?<!\d)3Q|Q3(?!\d)|三季"), "三季报"),
    (re.compile(r"(?<!\d)4Q|Q4(?!\d)|年报|年度|FY|(?<=\d)A$"), "年报"),  # 2026A: an annual figure
)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
ANNUAL = "年报"


@dataclass(frozen=True)
class Period:
    """A report period as a cell or a header stamp writes it: its kind (None when the text names a day that ends no
    quarter, 2026-08-25) and the day it names (a period's last day; None when no year is written: 一季报)."""

    kind: str | None
    end: dt.date | None


def read_period(text: str | None) -> Period | None:
    """The period (or day) a report-period cell names, by ``DAY_FORMS`` then ``WORD_FORMS``; None if it names none."""
    if not text:
        return None
    text = unicodedata.normalize("NFKC", text).upper().strip()
    for pattern, form in DAY_FORMS:
        m = pattern.search(text)
        if m is None or (form == SERIAL and not 36526 <= int(m.group(1)) <= 73050):  # 2000-01-01 .. 2099-12-31
            continue
        day = _day(form, m)
        if day is not None or form == MONTH:
            return Period(_QUARTER_ENDS.get((day.month, day.day)) if day else None, day)
    for pattern, kind in WORD_FORMS:
        if pattern.search(text):
            year = _YEAR.search(text)
            return Period(kind, dt.date(int(year.group(1)), *_KIND_ENDS[kind]) if year else None)
    return None


def read_day(text: str | None) -> dt.date | None:
    """The whole day a cell or a title line writes (2026-09-01 anywhere in it, 2026年9月1日, 20260901, Excel's serial),
    None when it writes none: a quote's trading day, an announcement's day, never a month or a period's name."""
    text = unicodedata.normalize("NFKC", text or "").strip()
    for pattern, form in DAY_FORMS:
        m = pattern.search(text)
        if m is not None and form != MONTH and (form == DAY or 36526 <= int(m.group(1)) <= 73050):
            return _day(form, m)
    return None


def _day(form: str, m: re.Match[str]) -> dt.date | None:
    """The day one of ``DAY_FORMS`` names: a month alone names its quarter's end (None for another month)."""
    if form == SERIAL:
        return _EXCEL_EPOCH + dt.timedelta(days=int(m.group(1)))
    year, month = int(m.group(1)), int(m.group(2))
    if form == MONTH:
        kind = _QUARTER_MONTHS.get(month)
        return dt.date(year, *_KIND_ENDS[kind]) if kind else None
    try:
        return dt.date(year, month, int(m.group(3)))
    except ValueError:
        return None


def period_kind(report_date: str | None) -> str | None:
    """一季报 / 半年报 / 三季报 / 年报 for a report period as exports write it, None when it cannot tell."""
    period = read_period(report_date)
    return period.kind if period else None


def period_end(report_date: str | None) -> dt.date | None:
    """The last day of the period a cell names (2026年中报 -> 2026-06-30), None when it names no dated period."""
    period = read_period(report_date)
    return period.end if period and period.kind else None


def quarter_roe(stock: StockInput) -> str | None:
    """The note for a file's ROE that its period says is a quarter's cumulative ROE, else None.

    The ROE's own period, where the file states one (its row's ``roe_period`` / ROE报告期 cell, or its column's
    i问财 stamp: ``file_dates``), is the period it is of; the row's 报告期 only when none is stated. Why: a universe
    export writes the latest quarter as 报告期 beside the last fiscal year's ROE (as a refresh stores them), and
    read by the 报告期 alone every annual ROE was a Q3 one: its import refused 6 rows of 7 (a trial, 2026-12-07)."""
    if stock.roe is None or stock.sources.get("roe", "file") != "file":  # a parsed row has no sources yet
        return None
    if any(n.startswith(NOTE_QUARTER_ROE) for n in stock.notes):
        return None  # a row its column's stamp flagged already (pool_columns.flag_stamped_quarter) is told once
    own = read_period(stock.file_dates.get("roe"))
    if own is not None and own.kind and own.end:
        said: str | None = own.end.isoformat()
    elif stock.sources.get("report_date", "file") == "file":  # the local data's 报告期 says nothing of the file's ROE
        said = stock.report_date
    else:
        return None
    kind = period_kind(said)
    if kind is None or kind == ANNUAL:
        return None
    period = said if kind in (said or "") else f"{said} ({kind})"  # 2026三季报 as written
    return (f"{NOTE_QUARTER_ROE}: 文件的 ROE {figure(stock.roe)}% 是 {period} 的累计值, "
            "规则阈值 5%/15% 按全年; 请用年报 ROE")


def part_year_profits(stock: StockInput) -> dict[str, str]:
    """{net-profit field: the note saying why the file's figure is no fiscal year's} for a row whose period says its
    净利润 is a quarter's cumulative figure; the reader then drops the figure (``pool_dates.date_row``).

    A figure's own period (净利润报告期, a header stamp) says what it is; without one, the row's 报告期 does: a plain
    净利润 beside 报告期 2026-09-30 is the nine months' profit. Read as a year's, a nine-month loss beside last year's
    loss screened 高 近两年连续亏损 on a quarter's figure (a trial, 2026-12-08), and an import stored it as FY2025's.
    上年净利润 with no period of its own beside such a row is of no knowable year (上年同期 or 上年全年?), so it goes
    too unless 净利润 states its own fiscal year: the local data's pair, if any, fills both, one source's two years."""
    row = read_period(stock.report_date)
    out = {}
    for field in ("net_profit_y1", "net_profit_y2"):
        value, own = getattr(stock, field), read_period(stock.file_dates.get(field))
        period, said = (own, own.end.isoformat() if own and own.end else None) if own else (row, stock.report_date)
        if value is None or period is None or period.kind in (None, ANNUAL) or not said:
            continue
        if own is None and field == "net_profit_y2" and read_period(stock.file_dates.get("net_profit_y1")):
            continue  # 净利润 of a stated fiscal year: 上年净利润 is the year before it (file_dates.report_periods)
        shown = said if period.kind in said else f"{said} ({period.kind})"
        label = FIELD_LABELS[field]
        what = (f"是 {shown} 的累计值, 不是全年的{label}" if own or field == "net_profit_y1" else
                f"未注明报告期, 本行报告期为 {shown}: 不知是上年同期还是上年全年")
        out[field] = (f"{NOTE_IGNORED}: 文件的 {label} {money(value)} {what} (近两年连续亏损按年报判断); "
                      "该值不参与评级, 本行照常筛选")
    return out


def sign_conflict(stock: StockInput) -> str | None:
    """The note for a net profit and an ROE of opposite signs from one source (a file's columns of one report
    period), else None. ROE is profit over equity: a loss beside a positive ROE means a misread column, or
    negative equity, which is itself a risk; the verdict (低 on a 20% ROE) must not rest on it unsaid."""
    profit, roe = stock.net_profit_y1, stock.roe
    if profit is None or roe is None or profit * roe >= 0:
        return None
    if stock.sources.get("net_profit_y1", "file") != stock.sources.get("roe", "file"):
        return None  # another period can differ in sign (a provider's TTM ROE beside last year's profit)
    shown = money(profit)
    return (f"{NOTE_SIGN_CONFLICT}: 净利润 {shown} 与 ROE {figure(roe)}% 一正一负 (ROE=净利润/净资产, 应同号, "
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


# Figures that exactly zero are no figure at all, with why: a PE is price over earnings, so earnings of 0 leave it
# undefined, not 0, and several tools (and Excel sums of empty cells) export "no value" as 0. The rules still read
# it by the seed's PE-TTM≤0 (中, scored as PE 100), so the row says that its 中 rests on a cell that may be empty.
ZERO_MEANS_NONE: dict[str, str] = {
    "pe_ttm": "市盈率恰为 0 无意义 (盈利为 0 时市盈率无定义), 多为导出时把缺失值写成 0; 按规则仍作 PE-TTM≤0(亏损) 计",
}


def unusual_figures(stock: StockInput) -> str | None:
    """The note naming each figure outside ``USUAL_RANGES`` (a loss's PE, < 0, is the rules' own case) and each
    exact zero that ``ZERO_MEANS_NONE`` says stands for no value."""
    odd = []
    for field, low, high, unit, why in USUAL_RANGES:
        value = getattr(stock, field)
        if value == 0 and field in ZERO_MEANS_NONE:
            why = ZERO_MEANS_NONE[field]
        elif value is None or (field == "pe_ttm" and value < 0) or low <= value <= high:
            continue
        source = stock.sources.get(field, "file")
        where = f"本地数据 {source.removeprefix('universe:')}" if source.startswith("universe:") else source
        odd.append(f"{FIELD_LABELS[field]} {figure(value)}{unit} (来自{_SOURCE_WORDS.get(source, where)}; {why})")
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


# What was done with both stocks of a code typed beside another stock's name, by what the typed list is for:
# /screen and the CLI screen both, /watch watches both. The note's other words are one for every entry point.
BOTH_KEPT = {"screen": "两只都已筛选, 若只指一只请核对代码或名称",
             "watch": "两只都已加入自选股票池, 若只指一只请核对代码或名称后重新 /watch"}


def typed_name_conflict(code_token: str, stock: StockInput, name_token: str, named: StockInput,
                        purpose: str = "screen", name_first: bool = False) -> str | None:
    """The note on both rows when a name typed with a code (``600519 五粮液``, ``600519五粮液``, ``五粮液 600519``
    when ``name_first``: the note quotes the pair as typed) is another stock's, else None: the user who writes a
    code and its name means one stock, so one of the two is wrong, and only they know which. Both are kept (a
    list may mix codes and names: neither is dropped), and each row says so (``purpose`` picks what keeping
    them did: ``BOTH_KEPT``); without it the pair read as two rows with nothing said, on /screen and then on
    /watch (trials, 2026-12-07)."""
    if stock.code == named.code or names_agree(name_token, stock.name or ""):
        return None
    whole = f" {named.name}" if named.name and norm_name(named.name) != norm_name(name_token) else ""  # 五粮 -> 五粮液
    typed = f"{name_token} {code_token}" if name_first else f"{code_token} {name_token}"
    return (f"{NOTE_NAME_CONFLICT}: 输入 {typed}, 但 {stock.code} 是 {stock.name or '另一只股票'}, "
            f"{name_token} 是 {named.code}{whole}; {BOTH_KEPT[purpose]}")


def typed_pair_notes(stocks: list[StockInput]) -> list[str]:
    """The distinct 名称与代码不符 notes of typed rows, in order: what a reply that screens nothing (/watch) must
    still say, since the rows that carry them are not shown."""
    notes = [n for s in stocks for n in s.notes if n.startswith(NOTE_NAME_CONFLICT)]
    return list(dict.fromkeys(notes))


# Percent columns whose values under 1 may be fractions (0.3419 for 34.19%), not tiny percentages: no A-share
# pool has only ROEs under 1%, and one ROE of 0.152 beside 15.2 and 18.0 is most often a percent-formatted
# cell exported as its stored number. 涨跌幅 is left out: a quiet day has every move under 1%, and a move of
# 0.15 beside 3.2 is every day's.
FRACTION_SUSPECT_FIELDS = ("roe",)
# The words of the weaker doubt (a cell under 1 written with its neighbours' decimals); ``universe import``
# still takes such a row (data/cli.import_refusal), since a real ROE under 1% reads the same.
SAME_PLACES = "小数位与同列相同, 可能确是不到 1% 的 ROE, 也可能是小数"
Cell = tuple[PoolItem, RawRow, float]  # a row, its cells as read, and the column's value on it


def flag_fractions(pool: Pool, data: list[RawRow], used: dict[str, Column], source: str) -> None:
    """Flag (never rescale) percent cells that may be fractions written without a % sign or % format.

    What tells is the rest of the column, in three cases. Some cells are marked (``34.2%``, a ``0.00%`` cell
    format): an unmarked cell under 1 is most likely a fraction its neighbours' marks would have scaled.
    None is marked, but values >= 1 say the column is in percent (15.2, 18.0): every cell under 1 is doubted.
    One written with more decimals than any of them (0.152: the precision of a fraction of such a value) is
    most likely a fraction; one written as they are (0.25 beside 34.20: exporters that write two decimals
    everywhere) may be a real ROE under 1% or a fraction, and only the file's author can tell, so since the
    eighteenth session it is flagged too, its note saying both readings (it used to pass unflagged and a 25%
    ROE read 0.25% gave 高 without a word). That weaker note does not keep the row out of ``universe import``
    (``SAME_PLACES``): a whole-market export holds hundreds of real ROEs under 1%. In those two cases only
    the cell's row is flagged. The whole column under 1 and unmarked: every row is flagged.
    """
    for field in FRACTION_SUSPECT_FIELDS:
        col = used.get(field)
        if col is None:
            continue
        cells = [(item, raw, getattr(item.stock, field)) for item, raw in zip(pool.items, data, strict=True)
                 if item.stock is not None and getattr(item.stock, field) is not None]
        unmarked = [c for c in cells if not _percent_marked(c[1], col.idx)]
        small = [c for c in unmarked if 0 < abs(c[2]) < 1]
        big = [c for c in unmarked if abs(c[2]) >= 1]
        if len(unmarked) < len(cells):
            _flag_rows(pool, col, small, source, "没有 %, 同列其他值带 %",
                       ("有的值带 % (或 % 格式)", "没有 % 且小于 1"))
        elif big:
            places = max(_decimals(raw, col.idx) for _, raw, _ in big)
            example = f"{big[0][2]:g}"
            finer = [c for c in small if _decimals(c[1], col.idx) > places]
            _flag_rows(pool, col, finer, source,
                       f"与同列其他行 (如 {example}) 量级不同: 可能是百分比格式导出的小数",
                       (f"的值多在 1 以上 (如 {example})", "小于 1 且小数位多于它们"))
            _flag_rows(pool, col, [c for c in small if c not in finer], source,
                       f"小于 1, 同列其他行多在 1 以上 (如 {example}); {SAME_PLACES}",
                       (f"的值多在 1 以上 (如 {example})", "小于 1 (小数位与它们相同, 也可能确是不到 1% 的 ROE)"))
        elif any(value for _, _, value in cells):
            _flag_whole_column(pool, col, cells, source)


def _flag_rows(pool: Pool, col: Column, cells: list[Cell], source: str, note: str, contrast: tuple[str, str]) -> None:
    """Each doubted cell's row gets ``百分比存疑: {column} {value} {note}``; the pool one warning naming the rows."""
    if not cells:
        return
    for item, _, value in cells:
        assert item.stock is not None
        item.stock.notes.append(f"{NOTE_PERCENT_DOUBT}: {col.name} {value:g} {note}")
    rows = "、".join(str(raw.row) for _, raw, _ in cells[:10]) + (" ..." if len(cells) > 10 else "")
    first = cells[0][2]
    pool.warnings.append(InputProblem(
        source, f"{col.name} 列{contrast[0]}, 而第{rows}行的值{contrast[1]} (如 {first:g}): "
        f"若是小数 ({first:g} = {first * 100:g}%), 请写成百分数或带上 %; 这些行已标记 {NOTE_PERCENT_DOUBT!r}, "
        "数值未改动", row=cells[0][1].row, column=col.name, value=f"{first:g}"))


def _flag_whole_column(pool: Pool, col: Column, cells: list[Cell], source: str) -> None:
    note = f"{NOTE_PERCENT_DOUBT}: {col.name} 整列小于 1"
    pool.warnings.append(InputProblem(
        source, f"{col.name} 的每个值都小于 1 (如 {cells[0][2]:g}): 若这些是小数 (0.3419 = 34.19%), "
        f"请写成百分数 (34.19) 或给单元格设置 % 格式; 每行已标记 {note!r}", column=col.name))
    for item, _, _ in cells:
        assert item.stock is not None
        item.stock.notes.append(note)


def _cell(raw: RawRow, idx: int) -> str:
    return raw.cells[idx] if idx < len(raw.cells) else ""


def _percent_marked(raw: RawRow, idx: int) -> bool:
    """Whether a cell says it is a percent: a % after the number, or an xlsx % number format."""
    if raw.formats.get(idx) == PERCENT:
        return True
    try:
        return parse_number_unit(_cell(raw, idx))[1] == PERCENT
    except ValueError:
        return False


_DECIMALS = re.compile(r"\.(\d+)")


def _decimals(raw: RawRow, idx: int) -> int:
    """How many decimals a cell writes (15.2 -> 1, 0.152 -> 3, 18 -> 0), as the export wrote it."""
    m = _DECIMALS.search(unicodedata.normalize("NFKC", _cell(raw, idx)))
    return len(m.group(1)) if m else 0
