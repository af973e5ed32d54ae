"""A block pasted from Excel or a quote board after /screen: read as a table, not as a run of words.

``代码\t名称\t现价`` over rows like ``600519\t贵州茅台\t1,500.00`` arrived as eight tokens: the header words and the
prices were failed rows, and ``1`` of ``1,500.00`` was advised as 000001 (平安银行, another company; a trial, S22 jg).
Read as a table, a line with no code whose cells name a code or name column (``pool_headers``, the file reader's
own aliases) is the header, and in a row that has a code the cells that are plain numbers are its figures; both
are named once in the acknowledgement instead of being screened. Everything else is split as typed text is.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from screening.data.codes import split_codes
from screening.data.pool_headers import map_header

_CELL_GAP = re.compile(r"\t| {2,}")  # Excel copies cells with tabs; a quote board's text with runs of spaces
# a figure: a price, a percent, a signed change, with or without thousands commas; 6 bare digits are a code
_FIGURE = re.compile(r"[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?|-+|—+")  # -- is a quote board's "no value"
_SIX_DIGITS = re.compile(r"(?<!\d)\d{6}(?!\d)")
_HEADER_FIELDS = ("code", "name")
SHOWN_FIGURES = 5


@dataclass
class TypedTokens:
    """The tokens to resolve, and what of a pasted table was not read as a code (header cells, figures)."""

    tokens: list[str]
    header: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)

    def unread_note(self) -> str:
        """One sentence for the acknowledgement, empty when everything was read as a code or a name."""
        parts = []
        if self.header:
            parts.append(f"表头 {' '.join(self.header)}")
        if self.figures:
            more = " 等" if len(self.figures) > SHOWN_FIGURES else ""
            parts.append(f"{len(self.figures)} 个数字格 ({'、'.join(self.figures[:SHOWN_FIGURES])}{more})")
        return f"按表格读取, 未当作代码: {'; '.join(parts)}。" if parts else ""


def typed_tokens(text: str) -> TypedTokens:
    """The tokens of the text after /screen: a table's cells when it is one (``is_table``), else ``split_codes``."""
    if not is_table(text):
        return TypedTokens(split_codes(text))
    out = TypedTokens([])
    for row in text.splitlines():
        cells = [c.strip() for c in _CELL_GAP.split(row) if c.strip()]
        has_code = any(_is_code_cell(c) for c in cells)
        if not has_code and any(map_header(c)[0] in _HEADER_FIELDS for c in cells):
            out.header += [c for c in cells if c not in out.header]
            continue
        for cell in cells:
            if has_code and _is_figure(cell):
                out.figures.append(cell)
            else:
                out.tokens += split_codes(cell)
    return out


def is_table(text: str) -> bool:
    """Several lines, at least two of them cut into cells by a tab or a run of spaces: a paste, not a typed list
    (``600519 贵州茅台`` on one line, or one code a line, stays as it was read)."""
    rows = [r for r in text.splitlines() if r.strip()]
    return len(rows) >= 2 and sum(1 for r in rows if len(_CELL_GAP.split(r.strip())) > 1) >= 2


def _fold(cell: str) -> str:
    return unicodedata.normalize("NFKC", cell)


def _is_figure(cell: str) -> bool:
    folded = _fold(cell)
    return bool(_FIGURE.fullmatch(folded)) and not _SIX_DIGITS.fullmatch(folded)


def _is_code_cell(cell: str) -> bool:
    return not _is_figure(cell) and bool(_SIX_DIGITS.search(_fold(cell)))
