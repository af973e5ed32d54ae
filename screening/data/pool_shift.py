"""Text rows wider than their header: a cell that held the delimiter (an unquoted 1,466.50) shifts every cell
after it one column left, so the row fails naming the split instead of scoring on shifted figures; a column the
header did not name (every row has it) is ignored with a warning.

Why its own module: pool.py builds the pool, this decides what a wider row means (a trial on 2026-12-06 found a
split number hidden by an empty last cell, 1,234.5 read as PE 1 and ROE 234.5%, scored 低/100).
"""

from __future__ import annotations

import re
from dataclasses import replace

from screening.data.pool_headers import NUMERIC_FIELDS
from screening.data.pool_rows import Column
from screening.data.pool_table import RawRow
from screening.models import NOTE_DUPLICATE_CONFLICT, InputProblem, Pool, PoolItem

# How a number split by an unquoted thousands separator looks: "1,466.50" -> "1" | "466.50" (then more groups)
_SPLIT_HEAD = re.compile(r"^[+-]?\d{1,3}$")
_SPLIT_TAIL = re.compile(r"^\d{3}(?:\.\d+)?\s*(?:%|亿|万|元)?$")


def _trailing_empties(cells: list[str], width: int) -> int:
    """How many empty cells end a row past the header's last column."""
    count = 0
    while len(cells) - count > width and not cells[len(cells) - count - 1].strip():
        count += 1
    return count


def padding(header_cells: list[str], data: list[RawRow], width: int) -> int:
    """Empty cells every line ends in, which no shift made: the header's own trailing delimiters (同花顺's
    tab, Excel's ``,,``), or those every data row carries (two rows at least: one row alone says nothing).

    Why: a row is wider than its header only by cells past the padding; counting the padding made a good row
    with a whole-number PE before a 3-digit 总市值 (18 | 520.3) fail as a split 18,520.3 (a trial, 2026-12-07).
    """
    readable = [r.cells for r in data if r.broken is None and r.line is not None]
    rows = min((_trailing_empties(c, width) for c in readable), default=0) if len(readable) > 1 else 0
    return max(_trailing_empties(header_cells, width), rows)


def unpadded(raw: RawRow, width: int, pad: int) -> RawRow:
    """The row without the padding it ends in (only empty cells it has, never more than ``pad``)."""
    drop = min(pad, _trailing_empties(raw.cells, width))
    return replace(raw, cells=raw.cells[:len(raw.cells) - drop]) if drop else raw


def ignored_cells(pool: Pool, raw: RawRow, extra: list[str], source: str) -> None:
    pool.warnings.append(InputProblem(source, f"忽略了最后一个表头列之后的 {len(extra)} 个单元格",
                                      row=raw.row, value=extra[0]))


def split_cause(header: list[str], raw: RawRow, at: int) -> str:
    head, tail = raw.cells[at].strip(), raw.cells[at + 1].strip()
    return (f"{header[at]} 列的 {head!r} 和其后的 {tail!r} 多半是同一个数 {head},{tail}, "
            f"被没有引号的千位分隔符拆成了两格; 请给该单元格加引号 (\"{head},{tail}\") 或去掉千位分隔符")


def extra_cells(raw: RawRow, width: int) -> list[str]:
    """Non-empty cells past the header's last column (empty ones are a trailing delimiter: 同花顺's tab)."""
    return [c for c in raw.cells[width:] if c.strip()] if raw.broken is None else []


def split_number(raw: RawRow, width: int, used: dict[str, Column]) -> int | None:
    """The index of a figure column whose number an unquoted thousands separator split in two, if any."""
    numeric = sorted(c.idx for f, c in used.items() if f in NUMERIC_FIELDS and c.idx + 1 < len(raw.cells))
    for idx in numeric:
        if idx < width and _SPLIT_HEAD.match(raw.cells[idx].strip()) and _SPLIT_TAIL.match(raw.cells[idx + 1].strip()):
            return idx
    return None


def unheaded_column(data: list[RawRow], width: int, used: dict[str, Column]) -> bool:
    """Whether cells past the header are a column the header did not name (every row has them), not a shift.

    A shift is a row's own accident (a cell holding the delimiter), so it shows in some rows only; a column
    without a header shows in all of them. Rows that all hold a split number are shifted all the same, and
    one row alone says nothing either way: it is treated as shifted, since a wrong figure must not score.
    """
    readable = [r for r in data if r.broken is None]
    if len(readable) < 2 or not all(extra_cells(r, width) for r in readable):
        return False
    return not all(split_number(r, width, used) is not None for r in readable)


def shifted_row(item: PoolItem, raw: RawRow, extra: list[str], header: list[str], used: dict[str, Column],
             source: str) -> PoolItem:
    """A text row wider than its header: its cells sit under the wrong headers, so the row fails, saying why."""
    at = split_number(raw, len(header), used)
    if at is not None:
        cause = split_cause(header, raw, at)
    else:
        cause = ("多半是某个单元格含有没有引号的分隔符 (如千位分隔符 1,466.50, 或名称中的逗号); "
                 "请给该单元格加引号或去掉分隔符; 若多出的是一列, 请给它加表头")
    counted = f"{len(extra)} 个非空单元格 (第一个: {extra[0]!r})" if any(c.strip() for c in extra) else (
        f"{len(extra)} 个单元格 (多出的是末尾的空单元格)")
    message = f"该行比表头多 {counted}, 其后各列的值都错了位, 不按错位的值筛选: {cause}"
    if item.error is not None:
        message += f" (另有错误: {item.error.message})"
    stock = item.stock
    return PoolItem(index=item.index, raw_code=item.raw_code, row=raw.row,
                    error=InputProblem(source, message, row=raw.row, value=extra[0]),
                    name=stock.name if stock is not None else item.name,
                    code=stock.code if stock is not None else item.code)


def park_shifted(item: PoolItem, screened: dict[str, PoolItem], parked: dict[str, PoolItem]) -> None:
    """A shifted row claims no code: a row screened for it names it (``note_shifted_copy``), else it waits in
    ``parked`` for a readable copy below it (``claim_parked``).

    Why: it claimed its code before the shift was found, so a readable copy below it failed as its duplicate and
    the stock got no verdict at all, named a conflict of values no column held (PE-TTM 1 / 25.1; ROE 466.5 / 30.2
    from a split 1,466.50; a trial on 2026-12-07), as a readable copy below a row failed on a cell did once
    (pool_rows.link_failed_copy). No figure of a shifted row is known, so it is no reading of its stock either
    (which cell holds which is a guess), and nothing of it is compared."""
    if item.code is None:
        return
    kept = screened.get(item.code)
    if kept is not None:
        note_shifted_copy(kept, item)
    else:
        parked.setdefault(item.code, item)


def claim_parked(item: PoolItem, parked: dict[str, PoolItem]) -> None:
    """A readable row of a code a shifted row above it gives: it is screened, and both rows say so."""
    assert item.stock is not None
    moved = parked.pop(item.stock.code, None)
    if moved is None or moved.error is None:
        return
    moved.error = replace(moved.error, message=f"{moved.error.message}; 第 {item.row} 行是同一代码且可读取, 已改用该行")
    note_shifted_copy(item, moved)


def note_shifted_copy(kept: PoolItem, copy: PoolItem) -> None:
    """A copy of a screened code that a shift moved: the screened row names it, still as a doubt: with no figure
    read, that the copy agrees cannot be known (a failed copy whose readable figures agree is named without one,
    pool_rows.link_failed_copy)."""
    if kept.stock is not None:
        kept.stock.notes.append(f"{NOTE_DUPLICATE_CONFLICT}: 第 {copy.row} 行同一代码, 该行错位 (比表头多出单元格), "
                                "其数字无从核对; 按本行筛选, 请核对文件")
