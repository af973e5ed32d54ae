"""The stocks that left the list at a refresh are named by `universe status` afterwards, not only on the refresh.

A trial (2026-12-06, ``st_rename_delist``): the refresh printed the note naming a stock no longer on the board, but
the note was made after the universe had been written, so `universe status` (what a user reads later, and what a
file row flagged 已无此代码 sends them to) never showed it. The real Refresher and akshare against the fake
Eastmoney: a good refresh of 300 stocks, then one of the same market less two stocks, then the real CLI's
`universe status` in a subprocess.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.refresh import Refresher
from screening.data.universe import Universe
from tests.fakes.market_data import FakeMarket, FakeStock
from tests.fakes.market_proxy import FakeMarketRemote

pytestmark = [pytest.mark.slow]  # two real refreshes of a 300-stock fake market (seconds)

REPO = Path(__file__).resolve().parent.parent
SH = ZoneInfo("Asia/Shanghai")
FIRST = dt.datetime(2026, 12, 3, 8, 0, tzinfo=SH)
SECOND = dt.datetime(2026, 12, 4, 8, 0, tzinfo=SH)


class DelistedMarket(FakeMarket):
    """The same fake market (same seed, same figures) less the stocks in ``gone``: off the board, as delisted."""

    def __init__(self, n: int, gone: set[str], **kw: object) -> None:
        self.gone = gone
        super().__init__(n, **kw)  # type: ignore[arg-type]

    def _make_stocks(self, n: int) -> list[FakeStock]:
        return [s for s in super()._make_stocks(n) if s.code not in self.gone]


def _refresh(market: FakeMarket, path: Path, now: dt.datetime, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    us = UniverseSettings(path=str(path), provider="akshare", announcement_days=2, pace_s=0, refresh_attempts=1)
    settings = Settings().model_copy(update={"universe": us, "digest": DigestSettings(calendar_dir=str(path.parent))})
    with FakeMarketRemote(market, clist_page_size=6000) as remote:
        for key, value in remote.env().items():
            monkeypatch.setenv(key, value)
        return Refresher(settings, now=lambda: now).refresh(choice="akshare").notes


def _status(path: Path, fmt: str) -> str:
    (path.parent / "none.toml").write_text("", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_") and "proxy" not in k.lower()}
    env.update({"SCREENER_CONFIG": str(path.parent / "none.toml"), "SCREENER_UNIVERSE__PATH": str(path)})
    res = subprocess.run([sys.executable, "-m", "screening", "universe", "status", "--format", fmt], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def test_universe_status_names_the_stocks_that_left_at_the_last_refresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "universe.sqlite"
    day = dt.date(2026, 12, 3)
    full = FakeMarket(300, trade_date=day)
    gone = [s for s in full.stocks if s.exchange == "SH"][:2]
    first = _refresh(full, path, FIRST, monkeypatch)
    assert not any("left the list" in n for n in first)
    notes = _refresh(DelistedMarket(300, {s.code for s in gone}, trade_date=day), path, SECOND, monkeypatch)

    codes = [f"{s.code}.SH" for s in gone]
    (said,) = [n for n in notes if "left the list" in n]  # the refresh says it ...
    u = Universe.load(path)
    assert all(c not in u for c in codes) and said in u.info.notes  # ... and the universe's record keeps it
    assert u.info.left_list == sorted(codes) and u.info.bse_moves == {}  # every code, past the note's twenty too
    assert said.startswith("2 stock(s) left the list") and all(f"{c} {s.name}" in said for c, s in zip(
        codes, gone, strict=True)), said
    assert SECOND.isoformat() in said and FIRST.isoformat() in said  # which refresh, since which one

    text = _status(path, "text")
    assert f"note: {said}" in text.splitlines(), text
    assert said in json.loads(_status(path, "json"))["notes"]
