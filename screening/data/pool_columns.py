"""Which file column feeds each figure, when a header names a figure twice, and what its rows then say.

A header often names one figure twice: 净资产收益率 beside ROE, 市盈率(TTM) beside 滚动市盈率, or i问财's
ROE for two report periods. One column feeds the figure; the others are named in a warning. Two trials
found what that hid: a quarter's ROE column used (and flagged) while the annual one sat beside it, and a
row whose two ROE cells said 3 and 20 scored on the 3 with nothing on the row (2026-12-07). So the annual
column wins over a quarter's, and a row whose twin columns disagree carries a doubt note naming both.

Why its own module: pool.py finds the header and builds the pool; this maps one header's columns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from screening.data.pool_headers import (
    JOINED_TEXT_FIELDS,
    NUMERIC_FIELDS,
    header_stamp,
    header_unit,
    lookalike,
    map_header,
    unnamed_pe,
)
from screening.data.pool_rows import Column, read_figures
from screening.data.pool_table import RawRow
from screening.figures import figure
from screening.models import FIELD_LABELS, NOTE_COLUMN_CONFLICT, NOTE_QUARTER_ROE, InputProblem, Pool, PoolItem

# the month-day of a report period that is not the annual one, as i问财 stamps a column with it
QUARTER_STAMPS = {"0331": "一季报", "0630": "半年报", "0930": "三季报"}
# a figure whose column of the fiscal year before feeds another field: {this year's field: last year's}
PRIOR_YEAR = {"net_profit_y1": "net_profit_y2"}
# figures of a whole fiscal year, which a quarter's column (净利润(2026三季报), i问财's 净利润[20260930]) never feeds:
# read as this year's profit, a nine-month loss beside last year's screened 高 近两年连续亏损 (a trial, 2026-12-08)
ANNUAL_FIGURES = ("net_profit_y1", "net_profit_y2")


@dataclass
class Columns:
    """field -> the column feeding it, and field -> the other columns naming the same figure of the same period
    (compared on every row: ``flag_twins``)."""

    used: dict[str, Column]
    twins: dict[str, list[Column]] = field(default_factory=dict)
    # text columns joined into the report text as "<表头>: <文字>": every 备注/风险提示-like column, and a second
    # summary or title column (pool_unread.join_text_columns)
    texts: list[Column] = field(default_factory=list)


def period(name: str) -> str | None:
    """The quarter a header's i问财 stamp names (一季报 ...), None for an annual or unstamped column."""
    return QUARTER_STAMPS.get((header_stamp(name) or "")[4:])


def map_columns(header: list[str], header_row: int, source: str, pool: Pool) -> Columns:
    """The columns of one header row; a figure named twice is fed by the first column, or by the annual one when
    the first is a quarter's; each other column is named in a warning saying which column feeds the figure."""
    cols = Columns({})
    for idx, name in enumerate(header):
        fld, scale = map_header(name) if name else (None, 1.0)
        if fld is None:
            continue
        col = Column(idx, name, scale, header_unit(name))
        if fld in ANNUAL_FIGURES and period(name):
            said = f"列 {name!r} 是{period(name)}的累计值, 不是全年的{FIELD_LABELS[fld]} (近两年连续亏损按年报判断)"
            pool.warnings.append(InputProblem(source, said + "; 该列没有读入", row=header_row, column=name))
            continue
        if fld in JOINED_TEXT_FIELDS and (fld == "note_text" or fld in cols.used):
            cols.texts.append(col)
            pool.mapped[name] = fld
            continue
        first = cols.used.get(fld)
        if first is None:
            cols.used[fld] = col
            pool.mapped[name] = fld
            continue
        kept, other = (col, first) if _better(fld, col, first) else (first, col)
        if kept is col:
            cols.used[fld] = col
            del pool.mapped[first.name]
            pool.mapped[name] = fld
        if _year_before(fld, kept, other) and _later(other, cols.used.get(PRIOR_YEAR[fld])):
            prior = cols.used.get(PRIOR_YEAR[fld])
            cols.used[PRIOR_YEAR[fld]] = other  # 净利润(2024年报) beside 净利润(2025年报): last year's profit
            pool.mapped[other.name] = PRIOR_YEAR[fld]
            if prior is not None:  # 净利润(2023年报) before both: neither year's
                del pool.mapped[prior.name]
                pool.warnings.append(InputProblem(source, _twin_warning(fld, kept, prior), row=header_row,
                                                  column=prior.name))
            continue
        if _same_period(kept.name, other.name) and _compared(fld):
            cols.twins.setdefault(fld, []).append(other)
        pool.warnings.append(InputProblem(source, _twin_warning(fld, kept, other), row=header_row, column=name))
    _warn_lookalikes(header, header_row, source, pool, cols.used)
    return cols


def _year_before(fld: str, kept: Column, other: Column) -> bool:
    """Whether the column a figure's other column lost to is that figure's for the fiscal year before: two annual
    net-profit columns a year apart are this year's and last year's, what the two-year-loss rule reads. Read as one
    figure's twins, the older was dropped and two years of losses screened 中 (a trial, 2026-12-08)."""
    newer, older = header_stamp(kept.name), header_stamp(other.name)
    return (fld in PRIOR_YEAR and newer is not None and older is not None and not period(kept.name)
            and not period(other.name) and int(newer[:4]) - int(older[:4]) == 1)


def _later(col: Column, prior: Column | None) -> bool:
    """Whether ``col`` is of a later period than the column feeding a figure now (any column, when none does)."""
    if prior is None:
        return True
    ours, theirs = header_stamp(col.name), header_stamp(prior.name)
    return ours is not None and theirs is not None and ours > theirs


def _same_period(a: str, b: str) -> bool:
    """Whether two columns of a figure are of one period: neither names another (a quarter's, or another year's)."""
    stamp_a, stamp_b = header_stamp(a), header_stamp(b)
    return period(a) == period(b) and not (stamp_a and stamp_b and stamp_a != stamp_b)


def _better(fld: str, col: Column, first: Column) -> bool:
    """Whether a later column of a figure feeds it in place of the first: an annual ROE beats a quarter's, and a
    PE column that says TTM beats a plain ``PE`` (which may be the dynamic PE, and is flagged 市盈率口径未注明).
    A plain PE before 市盈率(TTM) screened on the plain one, the TTM column ignored (the eighteenth session).
    Of two columns of one kind stamped with two periods (ROE(2024年报) before ROE(2025年报)) the later wins: the
    first screened 京东方A 高 on last year's 3% with this year's 16% beside it (a trial, 2026-12-08)."""
    if bool(period(first.name)) != bool(period(col.name)):
        return bool(period(first.name))
    stamp_first, stamp_col = header_stamp(first.name), header_stamp(col.name)
    if stamp_first and stamp_col and stamp_first != stamp_col:
        return stamp_col > stamp_first
    return fld == "pe_ttm" and unnamed_pe(first.name) and not unnamed_pe(col.name)


def _twin_warning(fld: str, kept: Column, other: Column) -> str:
    label = FIELD_LABELS.get(fld, fld)
    first, second = sorted((kept, other), key=lambda c: c.idx)
    said = f"列 {first.name!r} 和 {second.name!r} 都表示{label}; "
    if period(other.name) and not period(kept.name):  # a column with no period named is no 年报列: read as a year's
        kind = "年报列" if header_stamp(kept.name) else "未注明报告期的列 (按全年读)"
        return said + f"{label}取自{kind} {kept.name!r}, 忽略{period(other.name)}列 {other.name!r}"
    if not _same_period(kept.name, other.name):
        return said + f"{label}取自报告期较新的列 {kept.name!r}, 忽略报告期较早的列 {other.name!r}"
    told = f"; 两列的值不同的行会标注 {NOTE_COLUMN_CONFLICT}" if _compared(fld) else ""
    why = " (写明 TTM 的列优先)" if fld == "pe_ttm" and unnamed_pe(other.name) and not unnamed_pe(kept.name) else ""
    return said + f"使用 {kept.name!r}{why}, 忽略 {other.name!r}{told}"


def _compared(fld: str) -> bool:
    """Whether twin columns of a field are compared row by row: the figures and the ST flag the rules read."""
    return fld in NUMERIC_FIELDS or fld == "st"


def _warn_lookalikes(header: list[str], header_row: int, source: str, pool: Pool, used: dict[str, Column]) -> None:
    for name in header:
        near = lookalike(name) if name else None
        if near is not None and near[0] not in used:
            fld, why, use = near
            pool.warnings.append(InputProblem(
                source, f"列 {name!r} 看起来是{FIELD_LABELS.get(fld, fld)}, 但没有读入 ({why}); "
                f"若它正是规则要的那一列, 请把表头改为 {use!r}", row=header_row, column=name))


def flag_twins(item: PoolItem, raw: RawRow, cols: Columns) -> None:
    """A row whose two columns for one figure give two values: the row says both, and which one it was screened on.

    Cells left blank or unreadable in the ignored column are no conflict (the kept column's value stands alone).
    """
    if item.stock is None or not cols.twins:
        return
    for fld, others in cols.twins.items():
        kept = getattr(item.stock, fld, None)
        for other in others:
            theirs = read_figures(raw, {fld: other}).get(fld)
            if kept is None or theirs is None or _same(kept, theirs):
                continue
            item.stock.notes.append(
                f"{NOTE_COLUMN_CONFLICT}: 列 {cols.used[fld].name!r} 为 {_shown(kept)}, 列 {other.name!r} 为 "
                f"{_shown(theirs)} (都表示{FIELD_LABELS.get(fld, fld)}); 按 {cols.used[fld].name!r} 筛选, 请核对文件")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9)
    return bool(a == b)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    return figure(value) if isinstance(value, float) else str(value)


def flag_stamped_quarter(pool: Pool, used: dict[str, Column]) -> None:
    """i问财 dates a financial column by its report period: ROE[20260930] is a quarter's cumulative ROE.

    Without a 报告期 or ROE报告期 column to say so per row (row_checks.quarter_roe), the header's stamp is what tells;
    the rows are flagged, never rescaled.
    """
    col = used.get("roe")
    kind = period(col.name) if col is not None else None
    if col is None or kind is None or "report_date" in used or "roe_period" in used:
        return
    stamp = header_stamp(col.name) or ""
    end = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:]}"  # the period as every other row note writes it (row_checks)
    for item in pool.items:
        if item.stock is not None and item.stock.roe is not None:
            item.stock.notes.append(
                f"{NOTE_QUARTER_ROE}: 文件的 ROE {figure(item.stock.roe)}% 是 {end} ({kind}) 的累计值 "
                f"(表头 {col.name!r}), 规则阈值 5%/15% 按全年; 请用年报 ROE")
