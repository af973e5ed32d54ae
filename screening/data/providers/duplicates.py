"""One stock listed twice in one whole-market answer: one row when the rows agree, no figure where they do not.

A paged answer read while the vendor updates it (Eastmoney's quote board sorted by a moving column, Tushare's
daily_basic during 15:00-17:00) can list one stock on two pages. Each provider used to pick a row without a word:
Tushare's ``_load_valuation`` kept the last, AKShare's ``quotes_of`` the first, so a pe_ttm of 999 on the second
row became the stock's PE-TTM on one path and not on the other (a trial, 2026-12-07, s15/u5 A4). Which row is
right cannot be known, so both providers hand their rows to ``one_row_per_code``: rows that agree are one row
and nothing is said; a figure the rows disagree on is kept by neither (None, as a figure the source did not
give), the stock's record carries a row flag naming the values (``FLAG_SOURCE_CONFLICT``), and the refresh gets
one note naming the codes and their values.

A pool file listing a code twice with other figures is read otherwise (data/pool_conflict.py): both rows are
screened and the worse verdict kept, since a file is screened once, for the user who wrote it, whose row names
both. A whole-market answer is stored for every later screen, and a stored figure is no verdict: keeping the value
of one row would be first-wins again, so neither is kept, and a PE-TTM left so fails the row saying why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from screening.data.providers.provider_base import NAMED, WARNING, more_than
from screening.models import FIELD_LABELS

FLAG_SOURCE_CONFLICT = "数据源两值不一"  # row flag: the source gave one stock two values of a figure; neither kept

Figures = dict[str, object]  # product field name (models.DATA_FIELDS) -> value


@dataclass
class OnePerCode:
    """Each code's figures once; for the codes listed with different values, a flag per field and one note."""

    figures: dict[str, Figures] = field(default_factory=dict)
    flags: dict[str, dict[str, str]] = field(default_factory=dict)  # code -> field -> row flag
    note: str | None = None


def _shown(value: object) -> str:
    return "空" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def one_row_per_code(rows: Iterable[tuple[str, Mapping[str, object]]], *, call: str, day: str) -> OnePerCode:
    """``rows``: (code, figures) in the answer's order. ``call`` names the answer (``daily_basic(20261207)``),
    ``day`` is the date its figures are as of, both for the flag and the note."""
    seen: dict[str, dict[str, list[object]]] = {}
    for code, figures in rows:
        mine = seen.setdefault(code, {})
        for name, value in figures.items():
            values = mine.setdefault(name, [])
            if value not in values:
                values.append(value)
    out = OnePerCode()
    told: list[str] = []
    for code, by_field in seen.items():
        out.figures[code] = {name: values[0] if len(values) == 1 else None for name, values in by_field.items()}
        differ = {name: values for name, values in by_field.items() if len(values) > 1}
        if not differ:
            continue
        said = {name: f"{FIELD_LABELS.get(name, name)} {' / '.join(map(_shown, values))}"
                for name, values in differ.items()}
        out.flags[code] = {name: f"{FLAG_SOURCE_CONFLICT}: {call} 对此股给出不同的 {text} ({day}), 均未采用"
                           for name, text in said.items()}
        told.append(f"{code} {', '.join(said.values())}")
    if told:
        out.note = (f"{WARNING}{call} listed {len(told)} stock(s) more than once with different figures; neither "
                    f"value is kept and the row says so ({FLAG_SOURCE_CONFLICT}): "
                    f"{'; '.join(told[:NAMED])}{more_than(told)}")
    return out
