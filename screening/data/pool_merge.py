"""Rows of one code that are one stock: 东方财富's 业绩预告 export lists a stock once per 预测指标.

akshare's ``stock_yjyg_em`` and the page's own export write one row per forecast figure (营业收入,
归属于上市公司股东的净利润, 扣除非经常性损益后的净利润, 每股收益 ...), each with its 预告类型, 业绩变动 and 原因.
Read as a pasted-twice line, the second row failed as ``与第 2 行重复`` and its text never reached the screen: row 1
营业收入 略增 and row 2 净利润 首亏 "预计亏损2亿元" came back 低/100 without the loss, beside a failed row that was
no failed stock (the nineteenth session).

So a later row of a code is merged into the row screened for it when both hold: its figures and its 名称, 行业 and
报告期 agree with that row's (a blank agrees; the duplicate check's ``pool_identity.differing``: a 2026-09-30 forecast
beside a 2026-12-31 one is two records, not two 预测指标), and its text adds something that row does not have
(a report-text line, a forecast or title line, a note column's line, an unread cell). Its lines join the screened
row's report text, each its own dated forecast line naming its 预测指标, so the text-risk floor reads every one;
a figure the screened row left blank is taken from it; the screened row names the merged rows in a note, and one
warning names them on stderr, as skipped trailer rows are named. A row with another figure or 报告期 is a conflict
(which row is right, only the user knows): it becomes a second reading of the stock, screened too
(pool_conflict), and one that adds nothing (a line pasted twice) stays a failed duplicate: that is worth saying.

Why after the whole file is read: the screened row's own text columns are joined per header segment
(pool_unread), and the row it is compared with must hold all of them, or an exact repeat would look new.
"""

from __future__ import annotations

from dataclasses import dataclass

from screening.data.pool_columns import Columns
from screening.data.pool_dates import date_row
from screening.data.pool_identity import differing
from screening.data.pool_rows import parse_row
from screening.data.pool_table import RawRow
from screening.data.pool_unread import read_row_text
from screening.models import DATA_FIELDS, FIELD_LABELS, NOTE_MERGED_ROWS, InputProblem, Pool, PoolItem, StockInput

# the fields a merged row may fill where the screened row left them blank: every figure, not the code or the text
_FILLED = tuple(f for f in DATA_FIELDS if f not in ("code", "report_text"))


@dataclass(frozen=True)
class Candidate:
    """A row that failed as a later copy of a screened code, with its figures agreeing: maybe the same stock's
    next 预测指标. What reading its text needs comes with it (the columns of its own header segment)."""

    kept: PoolItem  # the item screened for the code
    dup: PoolItem  # the failed duplicate item, as parse_row gave it
    raw: RawRow
    cols: Columns
    unread: list[tuple[int, str]]  # the segment's unread columns (pool_unread.unread_columns)
    stamps: dict[str, str]  # the segment's header stamps (pool_dates.stamped_days)
    title: str | None  # the day of the title line above the header
    source: str
    failed_first: bool = False  # ``dup`` is an earlier row that failed on a cell, ``kept`` the readable copy below it


@dataclass
class _Merged:
    rows: list[int]
    filled: list[str]


def merge_rows(pool: Pool, candidates: list[Candidate]) -> None:
    """Merge each candidate that adds text into its screened row; drop it from the items, renumber them, and
    name the merged rows in one warning. The others stay as they are: failed duplicates."""
    live = {id(item) for item in pool.items}
    merged: dict[int, tuple[PoolItem, _Merged]] = {}
    gone: set[int] = set()
    for cand in candidates:
        kept = cand.kept
        # a screened row that later failed (a shifted row) is no longer in the pool: nothing to merge into
        if kept.stock is None or id(kept) not in live:
            continue
        row = _read(cand, kept.stock)
        if row is None:
            continue
        filled = _merge(kept.stock, row)
        entry = merged.setdefault(id(kept), (kept, _Merged([], [])))[1]
        entry.rows.append(cand.dup.row or 0)
        entry.filled += [f for f in filled if f not in entry.filled]
        gone.add(id(cand.dup))
    if not gone:
        return
    for kept, entry in merged.values():
        assert kept.stock is not None
        kept.stock.notes.append(_note(entry))
    pool.items = [item for item in pool.items if id(item) not in gone]
    for index, item in enumerate(pool.items):  # an item's index is its place in the job, 0-based
        item.index = index
    _warn(pool, [(kept, entry) for kept, entry in merged.values()], len(gone))


def _read(cand: Candidate, kept: StockInput) -> StockInput | None:
    """The candidate row read as a stock of its own, when it merges: figures agreeing, some text new."""
    if differing(kept, cand.raw, cand.cols.used):  # another figure or 报告期: a conflict (pool_conflict)
        return None
    row = read_copy(cand)
    if row is None or (not new_lines(kept, row) and not _new_cells(kept, row)):
        return None  # a cell it cannot read (a failed duplicate, as before), or nothing new: a line pasted twice
    return row


def read_copy(cand: Candidate) -> StockInput | None:
    """The candidate row read as a stock of its own (its text and dates too), None when a cell of it cannot be
    read."""
    used = cand.cols.used
    item = parse_row(cand.dup.index, cand.raw, used, cand.source, {})
    if item.stock is None:
        return None
    row = item.stock
    read_row_text(row, cand.raw, cand.cols, cand.unread)
    date_row(row, cand.raw, used, cand.stamps, cand.title)
    return row


def _lines(text: str | None) -> list[str]:
    return [line for line in (text or "").splitlines() if line.strip()]


def new_lines(kept: StockInput, row: StockInput) -> list[str]:
    have = set(_lines(kept.report_text))
    return [line for line in _lines(row.report_text) if line not in have]


def _new_cells(kept: StockInput, row: StockInput) -> list[tuple[str, str]]:
    return [cell for cell in row.unread_text if cell not in kept.unread_text]


def _merge(kept: StockInput, row: StockInput) -> list[str]:
    """Join the row's new text into ``kept``, fill what ``kept`` left blank; the fields filled."""
    lines = "\n".join(new_lines(kept, row))
    if lines:  # appended: the screened row's own text stays as it was written, its layout too
        kept.report_text = f"{kept.report_text}\n{lines}" if kept.report_text else lines
    kept.unread_text += _new_cells(kept, row)
    filled = [f for f in _FILLED if getattr(kept, f) is None and getattr(row, f) is not None]
    for f in filled:
        setattr(kept, f, getattr(row, f))
        if f in row.file_dates:
            kept.file_dates[f] = row.file_dates[f]
    # the latest announcement dates the stock's file notice: a future-dated forecast on a later row is still aged
    notice = row.file_dates.get("notice_date")
    if notice is not None and notice > kept.file_dates.get("notice_date", ""):
        kept.file_dates["notice_date"] = notice
    kept.notes += [n for n in row.notes if n not in kept.notes]
    return filled


def _note(entry: _Merged) -> str:
    rows = "、".join(map(str, entry.rows))
    note = f"{NOTE_MERGED_ROWS}: 第 {rows} 行是同一代码, 数据一致, 其文字 (如业绩预告的其他预测指标) 已并入本行"
    if entry.filled:
        note += f"; {'、'.join(FIELD_LABELS.get(f, f) for f in entry.filled)} 取自合并的行"
    return note


def _warn(pool: Pool, merged: list[tuple[PoolItem, _Merged]], count: int) -> None:
    shown = [f"第{'、'.join(map(str, entry.rows))}行并入第{kept.row}行 ({kept.stock.code if kept.stock else ''})"
             for kept, entry in merged]
    named = ", ".join(shown[:6]) + (" ..." if len(shown) > 6 else "")
    first = min(row for _, entry in merged for row in entry.rows)
    pool.warnings.append(InputProblem(
        pool.source, f"{count} 行是已读股票的同一代码 (如业绩预告每个预测指标一行), 数据一致, 已并入该代码的第一行 "
        f"(不是失败的股票, 不另计): {named}", row=first))
