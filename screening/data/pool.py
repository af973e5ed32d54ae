"""Read an uploaded stock-pool file (CSV / XLSX from 同花顺, 东方财富, Excel) into a Pool.

Every data row becomes exactly one PoolItem, usable or failed with a located problem (row,
column, value), so a stock is never dropped silently. Whole-file problems (too big, too many
rows, no code column, not a table) raise PoolRejected before anything is queued. Cells are
read as text: codes keep their leading zeros, "--" stays "no data", and nothing in a cell is
ever evaluated (CSV formulas stay text, xlsx formulas give their cached value or nothing).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from pathlib import Path
from typing import Any

import pandas as pd

from screening.config import InputSettings
from screening.data.codes import CodeError, normalise_code
from screening.data.values import parse_bool_flag, parse_number
from screening.data.xlsx_guard import check_xlsx
from screening.models import InputProblem, Pool, PoolItem, PoolRejected, StockInput

_MB = 1024 * 1024
HEADER_SCAN_ROWS = 10  # title lines some exports put above the header

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # old .xls, also password-protected .xlsx
XLSX_EXTENSIONS = {".xlsx", ".xlsm"}

# Header spellings per StockInput field, compared after _header_key().
HEADER_ALIASES: dict[str, tuple[str, ...]] = {
    "code": ("code", "代码", "股票代码", "证券代码", "symbol", "ts_code"),
    "name": ("name", "名称", "股票简称", "证券简称", "股票名称", "简称"),
    "industry": ("industry", "所属行业", "行业", "所属同花顺行业", "细分行业"),
    "pe_ttm": (
        "pe_ttm",
        "pe",
        "市盈率(TTM)",
        "市盈率-动态",
        "市盈率TTM",
        "PE-TTM",
        "市盈率(动)",
        "市盈(动)",
        "动态市盈率",
        "PE(TTM)",
    ),
    "roe": ("roe", "ROE(%)", "净资产收益率", "净资产收益率(%)", "ROE加权", "加权净资产收益率"),
    "eps": ("eps", "每股收益", "基本每股收益"),
    "report_text": ("report_text", "财报摘要", "摘要", "公告摘要"),
    "st": ("st", "是否ST", "ST标记"),
    "net_profit_y1": ("net_profit_y1", "净利润", "归母净利润"),
    "net_profit_y2": ("net_profit_y2", "上年净利润"),
    "report_date": ("report_date", "报告期", "报告日期"),
    "price": ("price", "最新价", "现价"),
    "change_pct": ("change_pct", "涨跌幅"),
    "pb": ("pb", "市净率"),
    "market_cap": ("market_cap", "总市值"),
}
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
)

# A bracketed unit in a header scales its values into yuan / percent: "总市值(亿)" 12.3 -> 1.23e9.
HEADER_UNITS: dict[str, float] = {"元": 1.0, "万": 1e4, "万元": 1e4, "亿": 1e8, "亿元": 1e8, "%": 1.0}
_BRACKETS = re.compile(r"[(\[【{]([^)\]】}]*)[)\]】}]")
_DROP = re.compile(r"[\s\-_·.:]+")


def _header_key(header: str) -> tuple[str, float]:
    """Comparable form of a header (case, width, spaces, brackets, -/_ ignored) and its unit scale."""
    text = unicodedata.normalize("NFKC", header).strip().casefold()
    scale = 1.0

    def unbracket(m: re.Match[str]) -> str:
        nonlocal scale
        inner = m.group(1).strip()
        if inner in HEADER_UNITS:
            scale = HEADER_UNITS[inner]
            return ""
        return inner

    text = _BRACKETS.sub(unbracket, text)
    text = _DROP.sub("", text).rstrip("%")
    return text, scale


_ALIAS_INDEX: dict[str, str] = {
    _header_key(alias)[0]: field for field, aliases in HEADER_ALIASES.items() for alias in aliases
}


def map_header(header: str) -> tuple[str | None, float]:
    """The StockInput field a file column feeds (None if unknown), and the unit scale of its values."""
    key, scale = _header_key(header)
    return _ALIAS_INDEX.get(key), scale


# ---------------------------------------------------------------- file level


def read_pool(path: str | Path, settings: InputSettings, source_name: str | None = None) -> Pool:
    """Parse a CSV/XLSX stock pool; raises PoolRejected when the file as a whole is unusable.

    ``source_name`` (e.g. the name the user uploaded) is what messages call the file;
    it defaults to the file name on disk.
    """
    p = Path(path)
    source = source_name or p.name
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise PoolRejected(f"{source}: cannot read the file ({exc.strerror or exc})") from exc
    limit = settings.max_file_mb * _MB
    if size > limit:
        raise PoolRejected(
            f"{source}: file is {size / _MB:.1f} MB, more than the limit of {settings.max_file_mb:g} MB "
            "(config key input.max_file_mb)"
        )
    if size == 0:
        raise PoolRejected(f"{source}: the file is empty (0 bytes): no rows to screen")
    with p.open("rb") as fh:
        head = fh.read(8)

    if head.startswith(OLE_MAGIC) or (
        p.suffix.lower() == ".xls" and not head.startswith(ZIP_MAGIC) and _looks_like_html(p)
    ):
        raise PoolRejected(
            f"{source}: old Excel .xls format (or a password-protected/HTML workbook) is not supported; "
            "open it in Excel/WPS and save it as .xlsx or CSV (UTF-8 or GBK)"
        )
    if head.startswith(ZIP_MAGIC) or p.suffix.lower() in XLSX_EXTENSIONS:
        rows = _read_xlsx_rows(p, source, settings)
    else:
        rows = _read_text_rows(p, source)
    return _build_pool(rows, source, settings)


def _looks_like_html(p: Path) -> bool:
    """东方财富-style ".xls" exports are sometimes HTML tables; 同花顺's are tab-separated text."""
    with p.open("rb") as fh:
        start = fh.read(512).lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return start.startswith((b"<", b"\xff\xfe<", b"\xfe\xff\x00<"))


def _decode(data: bytes, source: str) -> str:
    """UTF-8 (with or without BOM) first, then GB18030 (a superset of GBK/GB2312); UTF-16 by BOM."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise PoolRejected(f"{source}: broken UTF-16 text ({exc})") from exc
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise PoolRejected(f"{source}: text is neither UTF-8 nor GBK/GB18030; save the file as CSV UTF-8")


def _sniff_delimiter(text: str) -> str:
    """Comma normally; tab for 同花顺's text ".xls" exports; semicolon from some European Excels."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    counts = {d: first.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > counts[","] else ","


def _read_text_rows(p: Path, source: str) -> list[list[str]]:
    text = _decode(p.read_bytes(), source)
    if "\x00" in text:
        raise PoolRejected(f"{source}: binary data, not a CSV/text table; upload a CSV or .xlsx file")
    if not text.strip():
        raise PoolRejected(f"{source}: the file is empty: no rows to screen")
    sep = _sniff_delimiter(text)
    kwargs: dict[str, Any] = dict(
        sep=sep,
        header=None,
        dtype=str,
        keep_default_na=False,
        na_filter=False,
        skip_blank_lines=False,
        engine="c",
    )
    try:
        frame = pd.read_csv(io.StringIO(text), **kwargs)
    except pd.errors.ParserError:
        # ragged rows (a trailing delimiter on data rows only, ...): size the frame to the widest row
        width = max((len(r) for r in csv.reader(io.StringIO(text), delimiter=sep)), default=0)
        try:
            frame = pd.read_csv(io.StringIO(text), names=list(range(width)), **kwargs)
        except (pd.errors.ParserError, ValueError) as exc:
            raise PoolRejected(f"{source}: not a readable CSV table ({exc})") from exc
    except pd.errors.EmptyDataError as exc:
        raise PoolRejected(f"{source}: the file is empty: no rows to screen") from exc
    return _frame_rows(frame)


def _read_xlsx_rows(p: Path, source: str, settings: InputSettings) -> list[list[str]]:
    try:
        check_xlsx(p, settings)
    except PoolRejected as exc:  # name the file as the user knows it
        raise PoolRejected(str(exc).replace(p.name, source, 1)) from exc
    try:
        frame = pd.read_excel(
            p,
            sheet_name=0,
            header=None,
            dtype=str,
            engine="openpyxl",
            keep_default_na=False,
            na_filter=False,
            engine_kwargs={"read_only": True, "data_only": True, "keep_links": False},
        )
    except Exception as exc:  # openpyxl raises many types for malformed workbooks
        raise PoolRejected(f"{source}: cannot read the .xlsx workbook ({type(exc).__name__}: {exc})") from exc
    return _frame_rows(frame)


def _cell_text(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value)


def _frame_rows(frame: pd.DataFrame) -> list[list[str]]:
    return [[_cell_text(v) for v in row] for row in frame.itertuples(index=False, name=None)]


# ---------------------------------------------------------------- rows


def _find_header(rows: list[list[str]], source: str) -> int:
    """Index of the header row: the first of the top rows naming a code column."""
    for i, row in enumerate(rows[:HEADER_SCAN_ROWS]):
        if any(map_header(cell)[0] == "code" for cell in row):
            return i
    first = next((r for r in rows if any(c.strip() for c in r)), [])
    seen = ", ".join(repr(c.strip()) for c in first if c.strip()) or "(none)"
    raise PoolRejected(
        f"{source}: no stock code column found. Columns seen: {seen}. "
        "Name the code column one of: 代码, 股票代码, 证券代码, code, symbol, ts_code"
    )


def _build_pool(rows: list[list[str]], source: str, settings: InputSettings) -> Pool:
    if not any(any(c.strip() for c in r) for r in rows):
        raise PoolRejected(f"{source}: the file is empty: no rows to screen")
    header_at = _find_header(rows, source)
    header = [c.strip() for c in rows[header_at]]
    while header and not header[-1]:  # a trailing delimiter, or padding to the widest row
        header.pop()
    pool = Pool(source=source, columns=header)
    skipped = [r for r in rows[:header_at] if any(c.strip() for c in r)]
    if skipped:  # title lines such as "自选股 2024-06-28"; said aloud in case they were data
        pool.warnings.append(
            InputProblem(
                source,
                f"skipped {len(skipped)} line(s) above the header row",
                row=header_at + 1,
                value=" ".join(c.strip() for c in skipped[0] if c.strip()),
            )
        )

    # field -> (column index, column name, unit scale); the first column for a field wins
    used: dict[str, tuple[int, str, float]] = {}
    for idx, name in enumerate(header):
        field, scale = map_header(name) if name else (None, 1.0)
        if field is None:
            continue
        if field in used:
            first = used[field][1]
            pool.warnings.append(
                InputProblem(
                    source,
                    f"columns {first!r} and {name!r} both mean {field}; using {first!r}, ignoring {name!r}",
                    row=header_at + 1,
                    column=name,
                )
            )
            continue
        used[field] = (idx, name, scale)
        pool.mapped[name] = field

    data = [
        (i, r) for i, r in enumerate(rows[header_at + 1 :], start=header_at + 1) if any(c.strip() for c in r)
    ]
    if not data:
        raise PoolRejected(f"{source}: only a header row, no rows to screen")
    if len(data) > settings.max_rows:
        raise PoolRejected(
            f"{source}: {len(data)} rows, more than the limit of {settings.max_rows}; "
            "split the file or raise the limit (config key input.max_rows, env SCREENER_INPUT__MAX_ROWS)"
        )

    first_seen: dict[str, int] = {}
    width = len(header)
    for index, (row_idx, cells) in enumerate(data):
        row_no = row_idx + 1  # spreadsheet numbering, header line 1 when at the top
        item = _parse_row(index, row_no, cells, used, source, first_seen)
        pool.items.append(item)
        extra = [c for c in cells[width:] if c.strip()]
        if extra:
            pool.warnings.append(
                InputProblem(
                    source,
                    f"{len(extra)} cell(s) beyond the last header column ignored",
                    row=row_no,
                    value=extra[0],
                )
            )
    return pool


def _cell(cells: list[str], idx: int) -> str:
    return cells[idx] if idx < len(cells) else ""


def _parse_row(
    index: int,
    row_no: int,
    cells: list[str],
    used: dict[str, tuple[int, str, float]],
    source: str,
    first_seen: dict[str, int],
) -> PoolItem:
    """One data row -> a usable item, or a failed one carrying its first problem (row, column, value)."""
    code_idx, code_col, _ = used["code"]
    raw_code = _cell(cells, code_idx).strip()

    def fail(message: str, column: str, value: str) -> PoolItem:
        return PoolItem(
            index=index,
            raw_code=raw_code,
            row=row_no,
            error=InputProblem(source, message, row=row_no, column=column, value=value),
        )

    try:
        code = normalise_code(_unwrap_code(raw_code))
    except CodeError as exc:
        return fail(str(exc), code_col, raw_code)
    if code in first_seen:
        return fail(f"duplicate of row {first_seen[code]} (same code {code})", code_col, raw_code)
    first_seen[code] = row_no

    values: dict[str, Any] = {}
    problems: list[tuple[str, str, str]] = []
    for field, (idx, col, scale) in used.items():
        if field == "code":
            continue
        raw = _cell(cells, idx)
        if field in NUMERIC_FIELDS:
            try:
                number = parse_number(raw)
            except ValueError:
                problems.append((f"not a number in {field} column", col, raw))
                continue
            values[field] = None if number is None else number * scale
        elif field == "st":
            try:
                values[field] = parse_bool_flag(raw)
            except ValueError:
                problems.append(("not a yes/no ST flag (expected 是/否, Y/N, 1/0, true/false, ST)", col, raw))
        elif field == "report_text":
            values[field] = raw.strip() or None
        elif field == "report_date":
            values[field] = _clean_date(raw)
        else:
            values[field] = raw.strip() or None
    if problems:
        message, col, raw = problems[0]
        if len(problems) > 1:
            others = "; ".join(f"{c}={v!r}" for _, c, v in problems[1:4])
            message += f" (also bad: {others}{' ...' if len(problems) > 4 else ''})"
        return fail(message, col, raw)
    return PoolItem(index=index, raw_code=raw_code, row=row_no, stock=StockInput(code=code, **values))


_EXCEL_TEXT_CODE = re.compile(r'^=\s*"([^"]*)"$')


def _unwrap_code(raw: str) -> str:
    """Exports write ="000001" or '000001 so Excel keeps the zeros: take the literal, evaluate nothing."""
    m = _EXCEL_TEXT_CODE.match(raw)
    if m:
        return m.group(1)
    return raw[1:] if raw.startswith("'") else raw


def _clean_date(raw: str) -> str | None:
    """xlsx dates arrive as '2024-12-31 00:00:00'; keep the date part, leave any other text as written."""
    text = raw.strip()
    if not text:
        return None
    m = re.match(r"^(\d{4}-\d{2}-\d{2})[ T]00:00:00$", text)
    return m.group(1) if m else text
