"""Read an uploaded stock-pool file (CSV / text / XLSX from 同花顺, 东方财富, 通达信, Excel) into a Pool.

Every data row becomes exactly one PoolItem, usable or failed with a located problem (row,
column, value), so a stock is never dropped silently; the only rows that make none are trailers and summary
lines (pool_notes), later rows of one stock merged into its first (pool_merge) and later rows of a code with other
figures, read as a second reading of its stock (pool_conflict), each named in a warning.
Whole-file problems (too big, too many rows, no code column, not a table) raise PoolRejected before
anything is queued. Cells are read as text: codes keep their leading zeros, "--" stays "no data",
and nothing in a cell is ever evaluated (CSV formulas stay text, xlsx formulas give their cached value, said
so, or fail).

The readers live beside this module (pool_text, pool_xlsx); rows become items in pool_rows. What
stays here is what every format shares: the header row, title lines above it, trailer lines
below the last stock, and the file-level limits.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from screening.config import InputSettings
from screening.data.pool_columns import Columns, flag_stamped_quarter, flag_twins, map_columns
from screening.data.pool_conflict import read_conflicts
from screening.data.pool_dates import date_row, stamped_days, title_day
from screening.data.pool_demo import DEMO_NOTE, demo_column, says_demo
from screening.data.pool_headers import CODE_HEADERS, HEADER_ALIASES, NUMERIC_FIELDS, map_header, merged_header
from screening.data.pool_identity import differing
from screening.data.pool_merge import Candidate, merge_rows
from screening.data.pool_notes import skip_notes
from screening.data.pool_rows import IGNORABLE_FIELDS, Column, flag_conflict, link_failed_copy, parse_row
from screening.data.pool_shift import (
    claim_parked,
    extra_cells,
    ignored_cells,
    padding,
    park_shifted,
    shifted_row,
    split_cause,
    split_number,
    unheaded_column,
    unpadded,
)
from screening.data.pool_table import RawRow
from screening.data.pool_text import HEADER_SCAN_ROWS, read_text_rows
from screening.data.pool_unread import read_text_columns, unread_columns
from screening.data.pool_xlsx import Sheet, read_xlsx_rows
from screening.data.row_checks import flag_fractions
from screening.data.values import strip_controls
from screening.models import FLAG_DATA_DOUBT, NOTE_IGNORED, InputProblem, Pool, PoolItem, PoolRejected

__all__ = ["HEADER_ALIASES", "NUMERIC_FIELDS", "map_header", "read_pool"]

_MB = 1024 * 1024
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # old .xls, also password-protected .xlsx
XLSX_EXTENSIONS = {".xlsx", ".xlsm"}
# Most rows unreadable: the file is not the table it claims to be; refused rather than 5,000 failed rows.
MAX_BROKEN_SHARE = 0.5


def read_pool(path: str | Path, settings: InputSettings, source_name: str | None = None) -> Pool:
    """Parse a CSV/text/XLSX stock pool; raises PoolRejected when the file as a whole is unusable.

    ``source_name`` (e.g. the name the user uploaded) is what messages call the file;
    it defaults to the file name on disk.
    """
    p = Path(path)
    source = source_name or p.name
    if p.is_dir():  # stat() of a folder succeeds, and open() would fail with a bare errno
        raise PoolRejected(f"{source}: 是文件夹, 不是文件: 请给出其中的表格文件")
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise PoolRejected(f"{source}: 无法读取文件 ({exc.strerror or exc})") from exc
    limit = settings.max_file_mb * _MB
    if size > limit:
        raise PoolRejected(
            f"{source}: 文件 {size / _MB:.1f} MB, 超过上限 {settings.max_file_mb:g} MB "
            "(配置项 input.max_file_mb)"
        )
    if size == 0:
        raise PoolRejected(f"{source}: 文件为空 (0 字节): 没有可筛选的行")
    with p.open("rb") as fh:
        head = fh.read(8)

    if head.startswith(OLE_MAGIC) or (
        p.suffix.lower() == ".xls" and not head.startswith(ZIP_MAGIC) and _looks_like_html(p)
    ):
        raise PoolRejected(
            f"{source}: 不支持旧版 Excel .xls 格式 (或加密/HTML 工作簿); "
            "请在 Excel/WPS 中打开并另存为 .xlsx 或 CSV (UTF-8 或 GBK)"
        )
    if head.startswith(ZIP_MAGIC) or p.suffix.lower() in XLSX_EXTENSIONS:
        return _xlsx_pool(read_xlsx_rows(p, source, settings, lambda rows: _header_index(rows) is not None),
                          source, settings)
    return build_pool(read_text_rows(p.read_bytes(), source), source, settings)


def _xlsx_pool(sheet: Sheet, source: str, settings: InputSettings) -> Pool:
    """The pool of the sheet that holds the table, saying so when it is not the first."""
    try:
        pool = build_pool(sheet.rows, source, settings)
    except PoolRejected as exc:
        if len(sheet.titles) < 2:
            raise
        shown = ", ".join(map(repr, sheet.titles))
        raise PoolRejected(f"{exc} (读取的是第一个工作表 {sheet.titles[0]!r}; 工作表 {shown} 都没有代码列)") from exc
    if sheet.passed:
        pool.warnings.insert(0, InputProblem(
            source, f"工作表 {', '.join(map(repr, sheet.passed))} 没有股票代码列; 读取的是工作表 {sheet.title!r}"))
    if sheet.unread or sheet.hidden:
        others = ", ".join(map(repr, sheet.unread + sheet.hidden))
        hidden = f" (其中隐藏的: {', '.join(map(repr, sheet.hidden))})" if sheet.hidden else ""
        pool.warnings.insert(0, InputProblem(
            source, f"只读取了工作表 {sheet.title!r}; 工作表 {others}{hidden} 也有股票代码列, 其中的股票没有筛选: "
                    "请把它们合并到一张表, 或分别上传"))
    return pool


def _looks_like_html(p: Path) -> bool:
    """东方财富-style ".xls" exports are sometimes HTML tables; 同花顺's are tab-separated text."""
    with p.open("rb") as fh:
        start = fh.read(512).lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return start.startswith((b"<", b"\xff\xfe<", b"\xfe\xff\x00<"))


# ---------------------------------------------------------------- header, titles, trailers


def _find_header(rows: list[RawRow], source: str) -> int:
    """Index of the header row: the first of the top rows naming a code column."""
    found = _header_index(rows)
    if found is None:
        looked = [r for r in rows if not r.blank][:HEADER_SCAN_ROWS]
        raise PoolRejected(_no_code_column(source, looked))
    return found


def _header_index(rows: list[RawRow]) -> int | None:
    looked = [i for i, r in enumerate(rows) if not r.blank][:HEADER_SCAN_ROWS]
    return next((i for i in looked
                 if rows[i].broken is None and any(map_header(c)[0] == "code" for c in rows[i].cells)), None)


def _sub_header(rows: list[RawRow], header_at: int, header: list[str]) -> tuple[int, list[str]] | None:
    """The row under a two-row header (Excel's merged cells) and the header both rows make, or None.

    Read as data it failed as 代码为空 while the universe's figures filled its stocks in place of the file's own
    (a trial, 2026-12-06); pool_headers.merged_header says which lower rows belong to the header.
    """
    below = next((i for i in range(header_at + 1, len(rows)) if not rows[i].blank), None)
    if below is None or rows[below].broken is not None:
        return None
    merged = merged_header(header, [strip_controls(c)[0].strip() for c in rows[below].cells])
    return None if merged is None else (below, merged)


def _shown(cells: list[str]) -> str:
    return ", ".join(repr(strip_controls(c)[0].strip()) for c in cells if c.strip()) or "(无)"


def _no_code_column(source: str, looked: list[RawRow]) -> str:
    """Why no header was found, naming the likely cause rather than just the first line."""
    parts = [f"{source}: 前 {len(looked)} 个非空行中没有股票代码列"]
    broken = [r for r in looked if r.broken]
    if broken:
        parts.append(f"第{broken[0].row}行无法读取 ({broken[0].broken})")
    readable = [r for r in looked if not r.broken]
    if readable:
        widest = max(readable, key=lambda r: sum(1 for c in r.cells if c.strip()))
        parts.append(f"第{widest.row}行的列: {_shown(widest.cells)}")
        lone = [c.strip() for c in widest.cells if c.strip()]
        if len(lone) == 1 and any(map_header(w)[0] == "code" for w in lone[0].split()):
            parts.append("该行写了代码列, 但各列用空格分隔; 请用制表符或逗号 (CSV) 导出")
    parts.append(f"代码列的表头请用其中之一: {CODE_HEADERS}")
    return "。".join(parts)


# ---------------------------------------------------------------- the pool


def build_pool(rows: list[RawRow], source: str, settings: InputSettings) -> Pool:
    """Rows of any format -> the Pool: header, warnings for lines that are not stocks, one item per stock."""
    if all(r.blank for r in rows):
        raise PoolRejected(f"{source}: 文件为空: 没有可筛选的行")
    header_at = _find_header(rows, source)
    head = rows[header_at]
    header = [strip_controls(c)[0].strip() for c in head.cells]
    while header and not header[-1]:  # a trailing delimiter, or padding to the widest row
        header.pop()
    joined = _rejoin_brackets(header) if head.line is not None else header
    if joined != header and _fits(joined, rows[header_at + 1:]):
        rejoined = [h for h in joined if h not in header]
        header = joined
    else:
        rejoined = []
    pool = Pool(source=source, columns=header)
    if rejoined:
        pool.warnings.append(InputProblem(
            source, f"表头 {', '.join(map(repr, rejoined))} 括号里的逗号没有加引号, 把表头拆成了几格; "
            "已按括号合并为一列 (数据行的列数与之相符)", row=head.row))
    skipped = [r for r in rows[:header_at] if not r.blank]
    title = title_day(skipped)  # 通达信's "沪深A股 2026-12-02": the day of the file's quotes
    if skipped:  # title lines such as "沪深A股 2026-12-02"; said aloud in case they were data
        dated = f"; 其中的日期 {title} 读作文件行情的日期" if title else ""
        pool.warnings.append(
            InputProblem(source, f"跳过表头 (第{head.row}行) 上方的 {len(skipped)} 行{dated}",
                         row=skipped[0].row, value=" ".join(c.strip() for c in skipped[0].cells if c.strip())))
    sub = _sub_header(rows, header_at, header)
    if sub is not None:  # 估值 (merged) over 市盈率(TTM) | 市盈率(动), or 市盈率 (merged) over 动态 | TTM
        sub_at, header = sub
        pool.columns = header
        pool.warnings.append(InputProblem(
            source, f"第{rows[sub_at].row}行是表头的第二行 (合并单元格的表头), 已与第{head.row}行合起来读: "
            f"列为 {_shown(header)}", row=rows[sub_at].row))
        header_at = sub_at
    cols = map_columns(header, head.row, source, pool)

    data = skip_notes([r for r in rows[header_at + 1:] if not r.blank], cols.used["code"].idx, source, pool)
    _check_counts(data, source, settings)

    first_seen: dict[str, int] = {}
    screened: dict[str, PoolItem] = {}
    failed: dict[str, _Failed] = {}
    candidates: list[Candidate] = []  # later rows of a screened code, figures agreeing: merged if they add text
    parked: dict[str, PoolItem] = {}  # a shifted row, by its code, until a readable copy is screened (pool_shift)
    for seg in _segments(data, _Segment(header, cols, head.cells, at=head.row), source, pool):
        part = Pool(source=source, columns=seg.header)
        _read_rows(part, seg, source, first_seen, (screened, failed, candidates, parked), len(pool.items), title)
        pool.items += part.items
        pool.warnings += part.warnings
    merge_rows(pool, candidates)
    read_conflicts(pool, candidates)  # the rest, with other figures: second readings of their stock
    return pool


@dataclass
class _Segment:
    """The rows under one header row: its names, its columns and its cells as read (their trailing delimiters)."""

    header: list[str]
    cols: Columns
    cells: list[str]
    rows: list[RawRow] = field(default_factory=list)
    at: int | None = None  # the header's row, as the file numbers it


def _header_row(raw: RawRow) -> list[str] | None:
    """The cells of a data row that is itself a header (two exports pasted into one sheet), else None:
    it names a code column and at least one other field, as the header the file opened with did."""
    if raw.broken is not None:
        return None
    cells = [strip_controls(c)[0].strip() for c in raw.cells]
    fields = [map_header(c)[0] for c in cells if c]
    if "code" not in fields or sum(f is not None for f in fields) < 2:
        return None
    while cells and not cells[-1]:
        cells.pop()
    return cells


def _segments(data: list[RawRow], first: _Segment, source: str, pool: Pool) -> list[_Segment]:
    """The data cut at every header row below the first: the rows under a header are read by its columns.

    A header repeated as it was is not a stock (said in a warning); one in another column order starts a new
    column map, since reading the rows under it by the first header's columns swaps their figures (a trial,
    2026-12-07: ROE 15.1 / PE 6.5 came back as PE 15.1 / ROE 6.5, 中/54 for 低/99, unflagged).
    """
    out = [first]
    for raw in data:
        again = _header_row(raw)
        if again is None:
            out[-1].rows.append(raw)
            continue
        if again == out[-1].header:
            pool.warnings.append(InputProblem(source, "重复的表头行 (不是股票), 已跳过", row=raw.row,
                                              value=_shown(again)))
            continue
        pool.warnings.append(InputProblem(
            source, f"第{raw.row}行是另一张表的表头 (列为 {_shown(again)}); 其下各行按这一行的列读取",
            row=raw.row))
        out.append(_Segment(again, map_columns(again, raw.row, source, pool), raw.cells, at=raw.row))
    return [seg for seg in out if seg.rows]


# a row that failed on a figure's cell, by its code: a later readable copy is screened and both rows say so, and
# when its readable figures differ it is that copy's second reading (pool_conflict): its Candidate, kept for now
# the failed row itself, is the later copy's once one comes
_Failed = Candidate


def _read_rows(pool: Pool, seg: _Segment, source: str, first_seen: dict[str, int],
               seen: tuple[dict[str, PoolItem], dict[str, _Failed], list[Candidate], dict[str, PoolItem]], start: int,
               title: str | None) -> None:
    """One item per data row under one header (into ``pool``), with the checks that read the whole column;
    ``title`` is the day the title line above the header writes (pool_dates). A later row of a screened code
    whose figures agree is also a merge candidate (pool_merge), decided once the whole file is read."""
    screened, failed, candidates, parked = seen
    header, used, width = seg.header, seg.cols.used, len(seg.header)
    unread = unread_columns(header, seg.cols)
    stamps = stamped_days(used)
    figure_columns = {col.name for f, col in used.items() if f not in ("code", "name")}
    unheaded = unheaded_column(seg.rows, width, used)
    pad = padding(seg.cells, seg.rows, width)
    demo = demo_column(header)  # a 数据来源 column saying 演示数据: the synthetic market's file (pool_demo)
    for index, raw in enumerate(seg.rows, start):
        fitted = unpadded(raw, width, pad)  # the empty cells every line ends in are no shift
        extra = extra_cells(fitted, width)
        split = split_number(fitted, width, used) if raw.line is not None and len(fitted.cells) > width else None
        # a text row wider than its header, or with a split number (one ending in an empty cell, 1,234.5,3.2, then
        # the empty last column, has no non-empty cell past the header, yet every cell after the split sits one
        # column left); xlsx cells sit in their own columns, and a column the header did not name is no shift
        if (extra or split is not None) and raw.line is not None and not (extra and unheaded):
            # its cells are not under their headers: it fails saying why, and claims no code (pool_shift)
            item = parse_row(index, raw, used, source, dict(first_seen))
            item = shifted_row(item, fitted, extra or fitted.cells[width:], header, used, source)
            park_shifted(item, screened, parked)
            pool.items.append(item)
            continue
        if extra:
            ignored_cells(pool, raw, extra, source)
        item = parse_row(index, raw, used, source, first_seen)
        if item.stock is not None:
            screened.setdefault(item.stock.code, item)
            flag_twins(item, raw, seg.cols)
            date_row(item.stock, raw, used, stamps, title)
            if extra and split is not None:  # the same width as its neighbours, split all the same?
                item.stock.notes.append(f"{FLAG_DATA_DOUBT}: {split_cause(header, raw, split)}")
            if item.stock.code in failed:
                bad = failed.pop(item.stock.code)
                link_failed_copy(bad.dup, item, bad.raw, bad.cols.used)
                candidates.append(replace(bad, kept=item))
            claim_parked(item, parked)
            if says_demo(raw, demo) and DEMO_NOTE not in item.stock.notes:
                item.stock.notes.insert(0, DEMO_NOTE)
        elif item.code in screened:
            kept = screened[item.code]
            assert kept.stock is not None
            flag_conflict(kept, item, differing(kept.stock, raw, used))
            candidates.append(Candidate(kept, item, raw, seg.cols, unread, stamps, title, source))
        elif item.code is not None and item.error is not None and item.error.column in figure_columns:
            failed.setdefault(item.code, Candidate(item, item, raw, seg.cols, unread, stamps, title, source, True))
        pool.items.append(item)
    flag_fractions(pool, seg.rows, used, source)
    _warn_ignored(pool, used, source)
    flag_stamped_quarter(pool, used)
    read_text_columns(pool.items, seg.rows, header, seg.cols, source, pool, seg.at)


def _warn_ignored(pool: Pool, used: dict[str, Column], source: str) -> None:
    """One warning per column whose cells were dropped (``pool_rows.IGNORABLE_FIELDS``), naming its rows and
    the first value with the reason: the rows carry it each, stderr says it once."""
    for name in sorted(IGNORABLE_FIELDS):
        col = used.get(name)
        if col is None:
            continue
        mark = f"{NOTE_IGNORED}: {col.name} "
        hits = [(item, n) for item in pool.items if item.stock is not None
                for n in item.stock.notes if n.startswith(mark)]
        if not hits:
            continue
        rows = "、".join(str(item.row) for item, _ in hits[:10]) + (" ..." if len(hits) > 10 else "")
        first, note = hits[0]
        pool.warnings.append(InputProblem(
            source, f"{col.name} 列第{rows}行的值已忽略 (这些行照常按 PE-TTM 与 ROE 筛选): "
            f"{note.removeprefix(mark)}", row=first.row, column=col.name))


def _rejoin_brackets(header: list[str]) -> list[str]:
    """Header cells that an unquoted comma inside brackets split (i问财's 市盈率(pe,ttm)), joined back."""
    out: list[str] = []
    for cell in header:
        if out and _open_bracket(out[-1]):
            out[-1] += "," + cell
        else:
            out.append(cell)
    return out


def _open_bracket(text: str) -> bool:
    depth = 0
    for ch in unicodedata.normalize("NFKC", text):
        depth += ch in "([【{"
        depth -= ch in ")]】}"
    return depth > 0


def _fits(header: list[str], data: list[RawRow]) -> bool:
    """Whether the data rows are no wider than a rejoined header (their own cells were not split too)."""
    widths = [max((i + 1 for i, c in enumerate(r.cells) if c.strip()), default=0)
              for r in data if r.broken is None and not r.blank]
    return bool(widths) and max(widths) <= len(header)


def _check_counts(data: list[RawRow], source: str, settings: InputSettings) -> None:
    if not data:
        raise PoolRejected(f"{source}: 只有表头, 没有可筛选的行")
    if len(data) > settings.max_rows:
        raise PoolRejected(
            f"{source}: {len(data)} 行, 超过上限 {settings.max_rows}; "
            "请拆分文件或调高上限 (配置项 input.max_rows, 环境变量 SCREENER_INPUT__MAX_ROWS)"
        )
    broken = [r for r in data if r.broken]
    if len(broken) > 3 and len(broken) > MAX_BROKEN_SHARE * len(data):
        raise PoolRejected(
            f"{source}: {len(data)} 行中有 {len(broken)} 行无法读取, 这不是看上去的那种表格; "
            f"第一处在第{broken[0].row}行: {broken[0].broken}"
        )
