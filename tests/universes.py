"""A small local universe saved for a test: the stocks given, dated and sourced as an import of a seed file."""

from __future__ import annotations

from pathlib import Path

from screening.data.universe import Universe
from screening.models import StockInput


def seeded_universe(tmp_path: Path, stocks: list[StockInput], as_of: str = "2026-12-04") -> Path:
    path = tmp_path / "u.sqlite"
    u = Universe.load(path)
    u.update(stocks, as_of=as_of, source="import:seed.csv")
    u.save()
    return path
