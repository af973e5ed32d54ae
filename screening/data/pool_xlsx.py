"""Read the sheet of an .xlsx that holds the table into rows, numbered as the sheet numbers them.

The sheet the user looks at: the active sheet when it holds a code header, else the first visible one that
does (a cover sheet of notes before the export is passed over; a hidden old list is never preferred). The
caller says which sheet was read and names every other sheet with a code column, which is not read.

The workbook is opened twice by openpyxl in read-only mode, once for the formulas and once for the
values Excel cached when it last saved, so a formula cell is known as a formula: its cached result
is used and said to be one, and a formula without a cached result (a workbook written by a script
and never opened in Excel) is a named problem of that cell, never a silent blank that the universe
then fills. Nothing is ever evaluated. The zip-bomb guard runs before either parse.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Any

from openpyxl import load_workbook

from screening.config import InputSettings
from screening.data.pool_formats import format_unit
from screening.data.pool_table import Formula, RawRow
from screening.data.xlsx_guard import check_xlsx
from screening.models import PoolRejected


@dataclass
class Sheet:
    """The rows read, the sheet they came from, and the sheets before it that held no table."""

    rows: list[RawRow]
    title: str = ""
    passed: list[str] = field(default_factory=list)  # sheets skipped for having no code header
    titles: list[str] = field(default_factory=list)  # every sheet of the workbook, in order
    unread: list[str] = field(default_factory=list)  # other sheets with a code header, not read (said, not lost)
    hidden: list[str] = field(default_factory=list)  # hidden sheets with a code header, passed over


def read_xlsx_rows(p: Path, source: str, settings: InputSettings,
                   has_table: Callable[[list[RawRow]], bool] = lambda rows: True) -> Sheet:
    """The first sheet whose rows ``has_table`` accepts (else the first sheet); PoolRejected when the
    workbook is hostile or unreadable."""
    try:
        check_xlsx(p, settings)
    except PoolRejected as exc:  # name the file as the user knows it
        raise PoolRejected(str(exc).replace(p.name, source, 1)) from exc
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # openpyxl's "no default style" and the like
            formulas = load_workbook(p, read_only=True, data_only=False, keep_links=False)
            values = load_workbook(p, read_only=True, data_only=True, keep_links=False)
    except Exception as exc:  # openpyxl raises many types for malformed workbooks
        raise PoolRejected(f"{source}: 无法读取 .xlsx 工作簿 ({type(exc).__name__}: {exc})") from exc
    try:
        return _pick(formulas, values, has_table)
    except PoolRejected:
        raise
    except Exception as exc:
        raise PoolRejected(f"{source}: 无法读取 .xlsx 工作簿 ({type(exc).__name__}: {exc})") from exc
    finally:
        formulas.close()
        values.close()


def _pick(formulas: Any, values: Any, has_table: Callable[[list[RawRow]], bool]) -> Sheet:
    """The sheet the user sees: the active one if it holds a table, else the first visible one that does.

    A hidden sheet (an old list the user put away) is never preferred to a visible one, and every other sheet
    with a code column is named, so a workbook split into 沪市 / 深市 sheets does not lose one of them quietly.
    """
    titles = [ws.title for ws in formulas.worksheets]
    tables: dict[int, list[RawRow]] = {}
    first: list[RawRow] | None = None
    for i, (ws_f, ws_v) in enumerate(zip(formulas.worksheets, values.worksheets, strict=True)):
        rows = _rows(ws_f, ws_v)
        if has_table(rows):
            tables[i] = rows
        first = rows if first is None else first
    if not tables:
        return Sheet(first or [], titles[0] if titles else "", [], titles)
    visible = [i for i in tables if getattr(formulas.worksheets[i], "sheet_state", "visible") == "visible"]
    shown = getattr(formulas.active, "title", None)  # a chartsheet can be the active sheet: no table there
    active = titles.index(shown) if shown in titles else -1
    pick = active if active in visible else (visible or list(tables))[0]
    hidden = [titles[i] for i in tables if i not in visible and i != pick]
    unread = [titles[i] for i in tables if i != pick and titles[i] not in hidden]
    return Sheet(tables[pick], titles[pick], [t for i, t in enumerate(titles[:pick]) if i not in tables], titles,
                 unread, hidden)


def _rows(ws_f: Any, ws_v: Any) -> list[RawRow]:
    # a writer may store wrong dimensions; read-only mode would trust them and cut the sheet short
    ws_f.reset_dimensions()
    ws_v.reset_dimensions()
    rows: list[RawRow] = []
    pairs = zip_longest(ws_f.iter_rows(), ws_v.iter_rows(values_only=True), fillvalue=())
    for row_no, (f_row, v_row) in enumerate(pairs, start=1):  # read-only mode yields missing rows as empty
        cells: list[str] = []
        found: dict[int, Formula] = {}
        units: dict[int, str] = {}
        for idx, cell in enumerate(f_row):
            cached = v_row[idx] if idx < len(v_row) else None
            value = cached if cell.data_type == "f" else cell.value
            if cell.data_type == "f":
                found[idx] = Formula(_formula_text(cell.value), cached is not None)
            cells.append(_cell_text(value))
            unit = _numeric_unit(cell, value)
            if unit is not None:
                units[idx] = unit
        rows.append(RawRow(row_no, cells, formulas=found, formats=units))
    return rows


def _numeric_unit(cell: Any, value: object) -> str | None:
    """The unit a number's cell format shows (0.3419 under 0.00% is 34.19%); None for text and General."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return format_unit(getattr(cell, "number_format", None))


def _formula_text(value: object) -> str:
    """A formula as written ("=B2"); array formulas come as objects carrying their text."""
    text = value if isinstance(value, str) else getattr(value, "text", None) or str(value)
    return text if text.startswith("=") else "=" + text


def _cell_text(value: object) -> str:
    """A cell as text, as a spreadsheet shows it: 600519.0 stored as a float is the integer 600519."""
    if value is None:
        return ""
    if isinstance(value, float):
        if value != value:
            return ""
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    return str(value)
