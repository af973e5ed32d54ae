"""The rows of an uploaded table as read from the file, before any cell means anything.

Both readers (text and xlsx) produce these, so header finding, trailers and row parsing are the
same for every format, and a row keeps the number the user sees for it in their own program.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Formula:
    """An xlsx formula cell: its text, and whether the file holds the result Excel last computed."""

    text: str
    cached: bool


@dataclass
class RawRow:
    """One row of the file: its cells as text, or why it could not be read into cells."""

    row: int  # the spreadsheet's own row number (a text file: the record as Excel/WPS would number it)
    cells: list[str]
    line: int | None = None  # text files: the editor line the record starts on
    broken: str | None = None  # the row could not be read (bad bytes, unbalanced quote); it fails with this
    formulas: dict[int, Formula] = field(default_factory=dict)  # column index -> formula (xlsx only)
    # column index -> the unit a numeric cell's number format shows ("%", "亿", "万" ...; xlsx only):
    # Excel stores a typed 34.19% as 0.3419 and shows it through the format, so the format is the unit
    formats: dict[int, str] = field(default_factory=dict)

    @property
    def blank(self) -> bool:
        return self.broken is None and not any(c.strip() for c in self.cells)
