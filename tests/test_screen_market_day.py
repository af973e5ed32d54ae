"""A screen ages its figures by the market's day (Shanghai), as the digest does, whatever the host's zone.

A trial (s15/u2, 2026-12-07): on a UTC host at Thu 07:30 Beijing (Wed 23:30 UTC) a typed code on Friday's quotes came
back unflagged while the digest of the same instant flagged every row 数据过期.
"""

from __future__ import annotations

import datetime as dt
import types
from pathlib import Path

import pytest

from screening.config import Settings, UniverseSettings
from screening.data import freshness
from screening.data.freshness import market_today
from screening.data.load import load_pool
from screening.data.universe import Universe
from screening.models import StockInput

UTC_EVENING = dt.datetime(2026, 12, 9, 23, 30, tzinfo=dt.UTC)  # Thu 2026-12-10 07:30 in Shanghai


class _Clock(dt.datetime):
    @classmethod
    def now(cls, tz: dt.tzinfo | None = None) -> dt.datetime:  # type: ignore[override]
        return UTC_EVENING.astimezone(tz) if tz is not None else UTC_EVENING.replace(tzinfo=None)


def test_a_screen_before_eight_beijing_on_a_utc_host_flags_fridays_quotes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(freshness, "dt", types.SimpleNamespace(datetime=_Clock, date=dt.date, timedelta=dt.timedelta,
                                                                 time=dt.time))
    assert market_today() == dt.date(2026, 12, 10)

    path = tmp_path / "u.sqlite"
    u = Universe.load(path)
    u.update([StockInput(code="600088.SH", name="丰虚重工", pe_ttm=12.0, roe=20.0)], as_of="2026-12-04",
             source="akshare")
    u.save()
    settings = Settings(universe=UniverseSettings(path=str(path)))
    (item,) = load_pool(["600088.SH"], settings, universe=Universe.load(path)).items
    assert item.stock is not None
    assert any(n.startswith("数据过期: 行情") and "2026-12-04" in n for n in item.stock.notes), item.stock.notes
