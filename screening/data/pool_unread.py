"""Text columns the report text does not come from by alias: a user's risk notes, and columns no alias names.

A trial of real exports (the eighteenth session) found risk stated in a file and dropped without a word: a
备注 column saying 公司收到证监会立案告知书, a 风险提示 column saying 控股股东资金占用未归还, a 最新公告标题 column
with a dated 立案告知书 title; each row came back 低/100 with no flag. Two rules now hold:

* a column whose header is a known risk-note header (``note_text``: 备注, 风险提示, 重要事项 ...), and a second
  summary or title column, joins the report text as ``<表头>: <文字>``, read by the same text-risk floor;
* any other column no field reads (its header on no alias list) keeps each row's cell with Chinese words in it
  on the stock (``StockInput.unread_text``, as (表头, 文字)), unread. The screen step reads them with the
  text-risk reader, once, where a stock enters it (screen/unread_text.py): a row whose cell states a live risk
  signal gets the cell's text in its report text (the floor counts it: a user expects the risk in their file to
  count) and a flag ``未识别列`` naming the column and the signal; the ``screen`` command names each such column
  once on stderr with how many rows. Reading it is the safer choice: the floor only ever raises a verdict, and
  both the flag and the signal's own flag quote the words, so a wrong reading is seen. The reading lives in the
  screen step, not here, since the data layer imports nothing above it (the eighteenth session).

Cost: only cells with Chinese words in them are kept (figures and codes hold no signal); the screen step reads
each distinct cell once.
"""

from __future__ import annotations

import re

from screening.data.pool_columns import Columns
from screening.data.pool_headers import lookalike, map_header
from screening.data.pool_table import RawRow
from screening.data.values import strip_controls
from screening.models import InputProblem, Pool, PoolItem, StockInput

_WORDS = re.compile(r"[\u4e00-\u9fff]{2}")  # a cell with no two Chinese characters in a row states no signal


def read_text_columns(items: list[PoolItem], rows: list[RawRow], header: list[str], cols: Columns,
                      source: str, pool: Pool, header_row: int | None) -> None:
    """Join the known text columns into each row's report text; keep the cells of columns nothing reads."""
    unread = unread_columns(header, cols)
    for item, raw in zip(items, rows, strict=True):
        if item.stock is not None:
            read_row_text(item.stock, raw, cols, unread)
    _warn_lone_date(cols, source, pool, header_row)


def unread_columns(header: list[str], cols: Columns) -> list[tuple[int, str]]:
    """(index, header) of the columns no field reads, no text column joins and no warning names."""
    read = {c.idx for c in cols.used.values()} | {c.idx for c in cols.texts}
    # skipped: read, a twin of a read figure (its warning names it), or a look-alike (warned about)
    return [(idx, name) for idx, name in enumerate(header)
            if idx not in read and name and map_header(name)[0] is None and lookalike(name) is None]


def read_row_text(stock: StockInput, raw: RawRow, cols: Columns, unread: list[tuple[int, str]]) -> None:
    """One row's text columns joined into its report text, and its unread cells kept on the stock.

    An unread cell is kept only with Chinese words in it, as a candidate: whether it states a risk is the
    screen step's reading (screen/unread_text.py), done once where a stock enters the screen; the data layer
    does not read signals (it sits below the screen step)."""
    for col in cols.texts:
        _append(stock, col.name, _text(raw, col.idx))
    for idx, name in unread:
        text = _text(raw, idx)
        if text and _WORDS.search(text):
            stock.unread_text.append((name, text))


def _warn_lone_date(cols: Columns, source: str, pool: Pool, header_row: int | None) -> None:
    """A 公告日期 column with no title or forecast column beside it dates nothing: said, not dropped silently."""
    date = cols.used.get("notice_date")
    partners = ("notice_title", "forecast_kind", "forecast_change", "forecast_reason", "forecast_value",
                "forecast_change_pct")
    if date is not None and not any(f in cols.used for f in partners):
        pool.warnings.append(InputProblem(
            source, f"列 {date.name!r} 旁没有公告标题列 (公告标题) 或业绩预告列 (预告类型、业绩变动), 这个日期没有读入",
            row=header_row, column=date.name))


def _text(raw: RawRow, idx: int) -> str:
    return strip_controls(raw.cells[idx], keep_layout=True)[0].strip() if idx < len(raw.cells) else ""


def _append(stock: StockInput, header: str, text: str) -> None:
    if not text:
        return
    line = f"{header}: {text}"
    stock.report_text = f"{stock.report_text}\n{line}" if stock.report_text else line
