"""A small local universe saved for a test: the stocks given, dated and sourced as an import of a seed file."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.refresh import Refresher
from screening.data.universe import Universe
from screening.models import StockInput


def seeded_universe(tmp_path: Path, stocks: list[StockInput], as_of: str = "2026-12-04") -> Path:
    path = tmp_path / "u.sqlite"
    u = Universe.load(path)
    u.update(stocks, as_of=as_of, source="import:seed.csv")
    u.save()
    return path


def fixed_clock_refresher(tmp_path: Path, now: dt.datetime, provider: str = "akshare") -> Refresher:
    """The real Refresher over a universe file in ``tmp_path``, at a fixed clock, one attempt a call and no pacing:
    the refresh-level tests (announcement titles carried, missed or banned) start two refreshes at chosen times."""
    us = UniverseSettings(path=str(tmp_path / "universe.sqlite"), provider=provider, announcement_days=5, pace_s=0,
                          refresh_attempts=1)
    settings = Settings().model_copy(update={"universe": us, "digest": DigestSettings(calendar_dir=str(tmp_path))})
    return Refresher(settings, now=lambda: now)
