"""A code listed twice with other figures: both rows are screened, and the verdict is the worse one's.

Until the twenty-first session the first row was screened and the later one failed as its duplicate, flagged
重复行不一致: the first row may be the kinder one (ROE 30.2 beside ROE 3.02, ST 否 beside ST 是), and the verdict
rested on whichever came first. Which row is right only the user knows, and doubt may only raise risk, so the
later row is read too, as a second reading of the same stock (``PoolItem.readings``): its cells over the first
row's, a blank agreeing as it does in the duplicate check (``pool_identity.differing``), its text lines after
the first row's (a text signal only raises risk, so the reading with both is never kinder than either). The
screen step judges every reading and keeps the higher risk, at equal risk the lower score (screen/readings.py).

Nothing is lost: the stock stays one row of the output, and that row names both rows and every value they
differ in, so the file can be corrected; one warning names the rows read so.

A later row with a cell that cannot be read (PE 'abc' beside ST 是) was a failed duplicate and the first row was
screened, 按本行筛选, its ST 是 never judged; so was a readable row below a copy that failed on a cell (the failed
copy, ``Candidate.failed_first``, is then the one read as the reading). Its readable figures are the user's too:
when they differ it is a reading as any other, its unreadable cells agreeing as blanks do (the other row's value
stands in; a reading is only ever added, so it can only raise the risk), and the note names each unreadable cell,
its value and why. When its readable figures agree it stays a failed duplicate, and the screened row names its
unreadable cells, as a failed first copy is named (pool_rows.link_failed_copy). A row that a column shift moved is
no reading: none of its cells is where its header says, so it has no figures to compare (pool_shift).

An old Beijing code beside its 920 code (load.move_bse_codes) is one stock listed twice: other figures make the
old-code row a reading of the 920 row the same way (``add_reading``), both rows and both codes named.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from screening.data.pool_dates import date_row
from screening.data.pool_identity import differing, differing_stocks
from screening.data.pool_merge import Candidate, new_lines, read_copy
from screening.data.pool_rows import FIGURE_FIELDS, parse_row
from screening.data.pool_unread import read_row_text
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
        if not differ:  # a line pasted twice, or one whose only difference is a cell it cannot read
            if not cand.failed_first:  # a failed first copy's row names it already (pool_rows.link_failed_copy)
                _name_unread(kept, dup, cand)
            continue
        row = read_copy(cand)
        got = (row, []) if row is not None else _read_past_unread(cand)
        if got is None:
            continue
        row, unread = got
        stale = f"{NOTE_DUPLICATE_CONFLICT}: 第 {dup.row} 行同一代码"  # flag_conflict's or link_failed_copy's
        kept.stock.notes = [n for n in kept.stock.notes if not n.startswith(stale)]
        bad = f"; 第 {dup.row} 行读不出: {'; '.join(unread)}, 该行的读数在此用第 {kept.row} 行的值" if unread else ""
        add_reading(kept, dup, row, f"第 {kept.row} 行与第 {dup.row} 行同一代码数据不同 "
                                    f"(第 {kept.row} 行 / 第 {dup.row} 行: {'; '.join(differ)}){bad}")
        read.append((kept, dup))
    drop_readings(pool, read)


def read_same_stock(kept: PoolItem, dup: PoolItem, same: str) -> bool:
    """Two rows that are one stock under two codes (``same`` says why: an old BSE code and its 920 code), both read
    as stocks: when their figures or identity differ, ``dup`` becomes a reading of ``kept``, both named with the
    codes they are written under; whether it did (the caller then drops it with ``drop_readings``)."""
    assert kept.stock is not None and dup.stock is not None
    # an old code written twice with other figures: its readings, and the note naming them, are the stock's too
    kept.readings += dup.readings
    kept.stock.notes += [n for n in dup.stock.notes
                         if n.startswith(NOTE_DUPLICATE_CONFLICT) and n not in kept.stock.notes]
    dup.readings = []
    differ = differing_stocks(kept.stock, dup.stock)
    if not differ:
        return False
    pair = f"第 {kept.row} 行 ({kept.raw_code}) 与第 {dup.row} 行 ({dup.raw_code}) 是同一股票 ({same})"
    add_reading(kept, dup, dup.stock, f"{pair}, 数据不同 (第 {kept.row} 行 / 第 {dup.row} 行: {'; '.join(differ)})")
    return True


# what a screen does with the two rows; `universe import` stores neither and says that instead (for_import)
SCREENED_BOTH = "; 两行都筛选, 按风险较高的一行评级, 请核对文件"
IMPORTED_NEITHER = "; 两行都未导入: 不猜哪一行的数字正确; 改正文件 (只留正确的一行) 后再导入"


def for_import(note: str) -> str:
    """A duplicate-conflict note as `universe import`'s refusal says it: what differs, then that neither row is
    stored. The screen's words (两行都筛选, 按风险较高的一行评级; a blank cell taken from the other row) are
    wrong there: an import screens nothing, and neither row's figures enter the data (a trial, 2026-12-07)."""
    return note.split(SCREENED_BOTH)[0] + IMPORTED_NEITHER


def add_reading(kept: PoolItem, dup: PoolItem, row: StockInput, said: str) -> None:
    """``row`` (``dup``'s row as read) becomes a reading of ``kept``, whose note says what differs (``said``)."""
    assert kept.stock is not None
    filled = _fill_blanks(kept.stock, row)
    taken = f"; 第 {kept.row} 行空白的 {'、'.join(filled)} 取自第 {dup.row} 行" if filled else ""
    kept.stock.notes.append(f"{NOTE_DUPLICATE_CONFLICT}: {said}{SCREENED_BOTH}{taken}")
    reading = _reading(kept.stock, row)
    kept.readings.append((dup.row, reading))
    _share_text(kept.stock, reading)


def _share_text(kept: StockInput, reading: StockInput) -> None:
    """The first reading reads the later row's text lines too. Text is about the company, not about one row's
    figures, and only raises risk: when the first row's figures were worse it won, its row showed no signal of
    the later row's 公告 and the model was never shown them (it is asked about the winning reading alone)."""
    kept.report_text = reading.report_text
    kept.unread_text += [cell for cell in reading.unread_text if cell not in kept.unread_text]
    notice = reading.file_dates.get("notice_date")
    if notice is not None and notice > kept.file_dates.get("notice_date", ""):
        kept.file_dates["notice_date"] = notice


def drop_readings(pool: Pool, read: list[tuple[PoolItem, PoolItem]], same: str = "同一代码") -> None:
    """The rows read as readings (each pair: its stock's item, the row) leave the items, which are renumbered;
    one warning names them (``same``: how they are one stock)."""
    if not read:
        return
    gone = {id(dup) for _, dup in read}
    pool.items = [item for item in pool.items if id(item) not in gone]
    for index, item in enumerate(pool.items):  # an item's index is its place in the job, 0-based
        item.index = index
    shown = [f"第{dup.row}行与第{kept.row}行 ({kept.stock.code if kept.stock else ''})" for kept, dup in read]
    named = ", ".join(shown[:6]) + (" ..." if len(shown) > 6 else "")
    pool.warnings.append(InputProblem(
        pool.source, f"{len(read)} 行与{same}的另一行数据不同, 不另列一行, 与该行一起读 (该代码的标记 "
        f"{NOTE_DUPLICATE_CONFLICT} 写明两行不同的值): {named}", row=min(dup.row or 0 for _, dup in read)))


def _read_past_unread(cand: Candidate) -> tuple[StockInput, list[str]] | None:
    """The candidate row read with each figure cell it cannot read left blank, and those cells named (column,
    value, why); None when it fails on anything else (an index's name, a broken line)."""
    raw, used = cand.raw, cand.cols.used
    unread: list[str] = []
    figures = {col.name: col for f, col in used.items() if f in FIGURE_FIELDS}
    while True:  # each turn blanks one more figure cell, and a blank cell reads: at most one turn a figure
        item = parse_row(cand.dup.index, raw, used, cand.source, {})
        error = item.error
        if item.stock is not None or error is None or error.column not in figures or len(unread) == len(figures):
            break
        said = error.message.split(" (另有错误")[0]  # the others are read, and named, one turn each
        unread.append(f"{said if error.column in said else f'{error.column}: {said}'} (值 {error.value!r})")
        idx = figures[error.column].idx
        raw = replace(raw, cells=[c if i != idx else "" for i, c in enumerate(raw.cells)],
                      formulas={i: f for i, f in raw.formulas.items() if i != idx})
    if item.stock is None:
        return None
    read_row_text(item.stock, raw, cand.cols, cand.unread)
    date_row(item.stock, raw, used, cand.stamps, cand.title)
    return item.stock, unread


def _name_unread(kept: PoolItem, dup: PoolItem, cand: Candidate) -> None:
    """A later copy whose readable figures agree: when it has cells that cannot be read, the screened row names
    them (it stays a failed duplicate, its error saying only that it repeats the code)."""
    got = _read_past_unread(cand) if read_copy(cand) is None else None
    if got is not None and got[1] and kept.stock is not None:
        kept.stock.notes.append(f"重复行: 第 {dup.row} 行同一代码, 读不出: {'; '.join(got[1])}; 其余数字与本行相同, "
                                "按本行筛选")


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
