"""One stock listed twice in one answer (a trial, 2026-12-07, s15/u5 A4): both providers keep one row when the rows
agree, and no figure where they disagree, with a row flag and one refresh note naming the code and the values.

Tushare's daily_basic used to let the last row win (a pe_ttm of 999 became the stock's PE-TTM, unsaid); AKShare's
quote board kept the first. The real Refresher and SDKs against the fake remote ends, whose ``repeat`` fault lists
a record again as a page shift does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from screening.data.load import codes_pool
from screening.data.universe import Universe
from screening.screen.pipeline import missing_message
from screening.screen.rules import MissingData
from tests.fakes.market_proxy import FakeMarketRemote
from tests.refresh_trial import make_refresher, remote_fixture  # noqa: F401  (the module's fake market)

pytestmark = [pytest.mark.slow]  # real refreshes of a 300-stock fake market (seconds)

TWICE = "000021"  # listed again with another value
FLAG_SOURCE_CONFLICT = "数据源两值不一"  # the row flag (providers/duplicates.py), as the user reads it


def _same(remote: FakeMarketRemote) -> str:
    """A quoted stock other than TWICE, listed again with the same figures."""
    return next(s.code for s in remote.market.stocks if not s.suspended and not s.st and s.code != TWICE)


def _row_says(universe: Universe, code: str, settings: Any) -> tuple[list[str], str]:
    """The flags a typed code's row carries, and its failed row's message for a missing PE-TTM."""
    stock = codes_pool([code], settings, universe).items[0].stock
    assert stock is not None
    return stock.notes, missing_message(stock, MissingData("PE-TTM"))


def test_tushare_daily_basic_listing_a_stock_twice_with_two_pe_ttm_keeps_neither_and_says_so(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refresher = make_refresher(remote, tmp_path, monkeypatch)
    same = _same(remote)

    def again(r: dict[str, Any]) -> dict[str, Any] | None:
        code = r["ts_code"][:6]
        return {**r, "pe_ttm": 999.0} if code == TWICE else dict(r) if code == same else None

    remote.faults.repeat["tushare:daily_basic"] = again
    outcome = refresher.refresh(choice="tushare")
    universe = Universe.load(tmp_path / "universe.sqlite")
    stock, kept = universe.get(f"{TWICE}.SZ"), universe.get(next(s.code for s in universe if s.code[:6] == same))
    assert stock is not None and kept is not None
    assert stock.pe_ttm is None and stock.price is not None and stock.market_cap is not None  # only what differs
    assert kept.pe_ttm is not None and not any(f.startswith(FLAG_SOURCE_CONFLICT) for f in kept.notes)
    told = [n for n in outcome.notes if FLAG_SOURCE_CONFLICT in n]
    assert len(told) == 1 and f"{TWICE}.SZ PE-TTM" in told[0] and "999" in told[0], outcome.notes
    assert same not in told[0]  # rows that agree are one row, nothing said
    flags, message = _row_says(universe, f"{TWICE}.SZ", refresher.settings)
    assert any(f.startswith(FLAG_SOURCE_CONFLICT) and "999" in f and "PE-TTM" in f for f in flags), flags
    assert FLAG_SOURCE_CONFLICT in message and "再次刷新多半仍没有" not in message, message


def test_akshare_quote_board_listing_a_stock_twice_with_two_market_caps_keeps_neither_and_says_so(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same on the AKShare path: 总市值 given twice leaves it empty, and so the PE-TTM derived from it; the row
    says so instead of "多为停牌" (it has no 总市值 and no PE-TTM, as a suspended stock)."""
    refresher = make_refresher(remote, tmp_path, monkeypatch)
    same = _same(remote)

    def again(r: dict[Any, Any]) -> dict[Any, Any] | None:
        return {**r, 20: round(r[20] * 1.5, 2)} if r[12] == TWICE else dict(r) if r[12] == same else None

    remote.faults.repeat["spot"] = again
    outcome = refresher.refresh(choice="akshare")
    universe = Universe.load(tmp_path / "universe.sqlite")
    stock, kept = universe.get(f"{TWICE}.SZ"), universe.get(next(s.code for s in universe if s.code[:6] == same))
    assert stock is not None and kept is not None
    assert stock.market_cap is None and stock.pe_ttm is None and stock.price is not None and stock.roe is not None
    assert kept.market_cap is not None and kept.pe_ttm is not None
    assert not any(f.startswith(FLAG_SOURCE_CONFLICT) for f in kept.notes)
    told = [n for n in outcome.notes if FLAG_SOURCE_CONFLICT in n]
    assert len(told) == 1 and f"{TWICE}.SZ 总市值" in told[0] and same not in told[0], outcome.notes
    flags, message = _row_says(universe, f"{TWICE}.SZ", refresher.settings)
    assert any(f.startswith(FLAG_SOURCE_CONFLICT) and "总市值" in f for f in flags), flags
    assert FLAG_SOURCE_CONFLICT in message and "停牌" not in message, message
