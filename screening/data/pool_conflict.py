"""A code listed twice with other figures: both rows are screened, and the verdict is the worse one's.

Until the twenty-first session the first row was screened and the later one failed as its duplicate, flagged
重复行不一致: the first row may be the kinder one (ROE 30.2 beside ROE 3.02, ST 否 beside ST 是), and the verdict
rested on whichever came first. Which row is right only the user knows, and doubt may only raise risk, so the
later row is read too, as a second reading of the same stock (``PoolItem.readings``): its cells over the first
row's, a blank agreeing as it does in the duplicate check (``pool_identity.differing``), its text lines after
the first row's (a text signal only raises risk, so the reading with both is never kinder than either). The
screen step judges every reading and keeps the higher risk, at equal risk the lower score (screen/readings.py).

Nothing is lost: the stock stays one row of the output, and that row names both rows and every value they
differ in, so the file can be corrected; one warning names the rows read so. A later row with a cell that cannot
be read stays a failed duplicate (its readable figures flagged as before: pool_rows.flag_conflict), as does a
row that another header's shift moved (its cells are not where its header says).
"""

from __future__ import annotations

import copy

from screening.data.pool_identity import differing
from screening.data.pool_merge import Candidate, new_lines, read_copy
from screening.models import (
    DATA_FIELDS,
    FIELD_LABELS,
    NOTE_DUPLICATE_CONFLICT,
    InputProblem,
    Pool,
    PoolItem,
    StockInput,
)

_OVERLAID = tuple(f for f in DATA_FIELDS if f not in ("code", "report_text"))


def read_conflicts(pool: Pool, candidates: list[Candidate]) -> None:
    """Each candidate whose figures or identity differ from its screened row's and that reads becomes a reading
    of that row's item, named in its note; it leaves the items (renumbered) and one warning names it."""
    live = {id(item) for item in pool.items}
    read: list[tuple[PoolItem, PoolItem]] = []
    for cand in candidates:
        kept, dup = cand.kept, cand.dup
        if kept.stock is None or id(kept) not in live or id(dup) not in live:
            continue
        differ = differing(kept.stock, cand.raw, cand.cols.used)
        row = read_copy(cand) if differ else None
        if row is None:
            continue
        stale = f"{NOTE_DUPLICATE_CONFLICT}: 第 {dup.row} 行同一代码数据不同 "  # flag_conflict's, as read
        kept.stock.notes = [n for n in kept.stock.notes if not n.startswith(stale)]
        filled = _fill_blanks(kept.stock, row)
        taken = f"; 第 {kept.row} 行空白的 {'、'.join(filled)} 取自第 {dup.row} 行" if filled else ""
        kept.stock.notes.append(f"{NOTE_DUPLICATE_CONFLICT}: 第 {kept.row} 行与第 {dup.row} 行同一代码数据不同 "
                                f"(第 {kept.row} 行 / 第 {dup.row} 行: {'; '.join(differ)}); 两行都筛选, "
                                f"按风险较高的一行评级, 请核对文件{taken}")
        kept.readings.append((dup.row, _reading(kept.stock, row)))
        read.append((kept, dup))
    if not read:
        return
    gone = {id(dup) for _, dup in read}
    pool.items = [item for item in pool.items if id(item) not in gone]
    for index, item in enumerate(pool.items):  # an item's index is its place in the job, 0-based
        item.index = index
    shown = [f"第{dup.row}行与第{kept.row}行 ({kept.stock.code if kept.stock else ''})" for kept, dup in read]
    named = ", ".join(shown[:6]) + (" ..." if len(shown) > 6 else "")
    pool.warnings.append(InputProblem(
        pool.source, f"{len(read)} 行与同一代码的另一行数据不同, 不另列一行, 与该行一起读 (该代码的标记 "
        f"{NOTE_DUPLICATE_CONFLICT} 写明两行不同的值): {named}", row=min(dup.row or 0 for _, dup in read)))


def _fill_blanks(kept: StockInput, row: StockInput) -> list[str]:
    """A cell the first row leaves blank and the later row gives is no conflict (a blank agrees): the first
    reading takes it, so the two readings differ only where the rows disagree (one cannot fail for want of a
    figure the other has); the labels of the cells taken."""
    filled = [f for f in _OVERLAID if getattr(kept, f) is None and getattr(row, f) is not None]
    for name in filled:
        setattr(kept, name, getattr(row, name))
        if name in row.file_dates:
            kept.file_dates[name] = row.file_dates[name]
    return [FIELD_LABELS.get(f, f) for f in filled]


def _reading(kept: StockInput, row: StockInput) -> StockInput:
    """The later row's reading: ``kept`` with each cell the later row gives in its place (a blank agrees), the
    later row's new text lines after ``kept``'s, its unread cells, notes and dates added."""
    out = copy.deepcopy(kept)
    for name in _OVERLAID:
        value = getattr(row, name)
        if value is not None:
            setattr(out, name, value)
            if name in row.file_dates:
                out.file_dates[name] = row.file_dates[name]
    lines = "\n".join(new_lines(kept, row))
    if lines:
        out.report_text = f"{out.report_text}\n{lines}" if out.report_text else lines
    out.unread_text += [cell for cell in row.unread_text if cell not in out.unread_text]
    out.notes += [n for n in row.notes if n not in out.notes]
    notice = row.file_dates.get("notice_date")
    if notice is not None and notice > out.file_dates.get("notice_date", ""):
        out.file_dates["notice_date"] = notice
    return out
