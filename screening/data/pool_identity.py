"""Whether a later row of a screened code is the same record: the figures it gives, and the cells that say which
stock and which period its figures are of (名称, 行业, 报告期).

东方财富's 业绩预告 export writes a stock once per 预测指标, and such rows are merged into one stock (pool_merge) when
their figures agree. Its 报告期 was not compared: a 2026-09-30 forecast and a 2026-12-31 one of one code (two records,
two periods) merged into one stock without a word, the later period's text read as the screened row's. A row that
names another 报告期, 行业 or 名称 is now a conflict as a row with another figure is: a second reading of the stock,
screened too, the worse verdict kept, the stock's doubt note naming the column and both values (pool_conflict).
A blank cell agrees, and two spellings of one period (2026-12-31, 2026年报) or of one name (width, spaces) are one.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from screening.data.pool_rows import Column, differing_figures, differing_values, read_figures
from screening.data.pool_table import RawRow
from screening.data.row_checks import period_end
from screening.models import FIELD_LABELS, StockInput

# the cells that say which stock and which period a row is about, as the row reads them (StockInput fields)
IDENTITY_FIELDS = ("name", "industry", "report_date")


def differing(kept: StockInput, raw: RawRow, used: dict[str, Column]) -> list[str]:
    """What a later row of ``kept``'s code says otherwise (``ROE 15.2 / 12.1``, ``报告期 2026-12-31 / 2026-09-30``):
    its figures first, then its identity cells, each as ``<label> <screened row's> / <this row's>``."""
    return differing_figures(kept, raw, used) + differing_identity(kept, raw, used)


def differing_stocks(kept: StockInput, other: StockInput) -> list[str]:
    """``differing`` for a row already read as a stock (an old BSE code's row beside its 920 code's: load.py)."""
    identity = [f"{FIELD_LABELS[f]} {getattr(kept, f)} / {getattr(other, f)}" for f in IDENTITY_FIELDS
                if getattr(kept, f) is not None and getattr(other, f) is not None
                and not _same(f, getattr(kept, f), getattr(other, f))]
    return differing_values(kept, other) + identity


def differing_identity(kept: StockInput, raw: RawRow, used: dict[str, Column]) -> list[str]:
    """The identity cells (``IDENTITY_FIELDS``) a later row gives otherwise than ``kept``; a blank cell agrees."""
    out = []
    for field, value in read_figures(raw, used, IDENTITY_FIELDS).items():
        first = getattr(kept, field)
        if value is not None and first is not None and not _same(field, first, value):
            out.append(f"{FIELD_LABELS[field]} {first} / {value}")
    return out


def _same(field: str, a: Any, b: Any) -> bool:
    """Two cells naming one thing: equal but for width and spaces, or (报告期) two spellings of one period."""
    if _folded(a) == _folded(b):
        return True
    end = period_end(a) if field == "report_date" else None
    return end is not None and end == period_end(b)


def _folded(text: Any) -> str:
    return "".join(unicodedata.normalize("NFKC", str(text)).split())
