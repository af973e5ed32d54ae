"""A pool file that says, in its own cells, that its figures are demo data (the synthetic market's file).

Why: ``python -m screening.synthetic market.csv`` writes invented names and figures, and the README suggests
screening that file for a large pool. Read back, it was the user's own file: every row screened with sources
``file`` and no 演示数据 anywhere (a trial, s15/u4 B5). The file now carries its label in a column that every
row holds, since a column survives what users do to a file (Excel re-saving it as GBK, sorting, filtering,
copying rows with their cells into another sheet) where a title line or a file name does not. The reader marks
each row that says so with the note the embedded demo data carries, and the loader then labels it exactly as it
labels a row copied from examples/ (data/load.py): sources ``demo``, 演示数据 on the row, the banner, the XLSX
sheet, the chart and the chat title. A user's own file without the label is untouched; a user's column that
says 演示数据 is the user saying the figures are not real, and is taken at its word.
"""

from __future__ import annotations

import unicodedata

from screening.data.pool_table import RawRow

DEMO_NOTE = "演示数据"  # the note on every demo row (the embedded demo universe's, the examples', this file's)
DEMO_COLUMN = "数据来源"  # the column the synthetic market's file writes first
DEMO_VALUE = "演示数据 (合成, 非真实行情)"  # its value on every row
# Headers of a column that says where a row's figures come from, compared folded (width, case, spaces, -/_)
SOURCE_HEADERS = ("数据来源", "来源", "资料来源", "source", "data_source", "datasource")
# Words in that column that mean the row's figures are invented, compared folded the same way
DEMO_WORDS = ("演示数据", "demodata", "synthetic")


def _fold(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if not ch.isspace() and ch not in "-_")


_SOURCE_KEYS = frozenset(_fold(h) for h in SOURCE_HEADERS)
_DEMO_KEYS = tuple(_fold(w) for w in DEMO_WORDS)


def demo_column(header: list[str]) -> int | None:
    """The index of the header's 数据来源 column, None when it has none."""
    return next((i for i, name in enumerate(header) if _fold(name) in _SOURCE_KEYS), None)


def says_demo(raw: RawRow, column: int | None) -> bool:
    """Whether the row's 数据来源 cell says its figures are demo data."""
    if column is None or column >= len(raw.cells):
        return False
    cell = _fold(raw.cells[column])
    return any(word in cell for word in _DEMO_KEYS)
