"""A refresh's row flag is about one figure of one stock; a later write that replaces that figure leaves it stale.

The refresh stores its flags per stock and figure (``UniverseInfo.row_flags``, from ``ProvidedStock.flags``): the
source gave the figure twice with two values (数据源两值不一), a report its answer lacked was carried
(财报沿用上次刷新). A `universe import` that then gives the figure replaces it, and the flag no longer says anything
about what is stored. The row hid it (Universe._row_flags), but it stayed in the store, where a reader takes it as
the refresh's word on the figure as it stands (gap_causes._two_values: a 总市值 the user has since imported was
still named as given twice, and the PE-TTM's gap advised providing it; a helper's loose ends, 2026-12-07). So a
write drops the flags of the figures it replaced, and only those: a flag on a figure the write did not give, or
gave without changing the stored one, stays. A refresh writes its own flags whole (refresh.info_of), so it leaves
none of the last one's behind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from screening.data.universe import Record


def drop_replaced(row_flags: dict[str, dict[str, str]], stored: Mapping[str, Record],
                  written: Iterable[Record]) -> None:
    """Remove from ``row_flags`` each flag on a figure that ``stored`` (the records once ``written`` was merged)
    now holds from ``written``: the same source and date as the write gave it."""
    for rec in written:
        code = rec.stock.code
        flags, now = row_flags.get(code), stored.get(code)
        if not flags or now is None:
            continue
        for name in [n for n in flags if n in rec.sources and now.sources.get(n) == rec.sources[n]
                     and now.dates.get(n) == rec.dates.get(n)]:
            del flags[name]
        if not flags:
            del row_flags[code]
