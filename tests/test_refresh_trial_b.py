"""A user trial's refresh findings (2026-12-07, s15/u5, B1-B4), each against the real SDKs and the fake remote ends.

B4: Tushare's short name of a delisting-period stock ("…退") was stored as st False (a regex of the ST prefixes
alone), so `universe show` said not ST while the screen, reading the name, said ST.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from screening.data.universe import Universe
from tests.fakes.market_proxy import FakeMarketRemote
from tests.refresh_trial import make_refresher, saturday_market

pytestmark = [pytest.mark.slow]  # real refreshes of a 300-stock fake market (seconds)

@pytest.fixture(scope="module")
def remote() -> Iterator[FakeMarketRemote]:
    with saturday_market() as r:
        yield r


def _delisting_name(r: dict[str, Any]) -> None:
    if r.get("ts_code") == "000021.SZ":
        r["name"] = "博虚退"


def test_a_delisting_period_name_is_stored_as_st_on_the_tushare_path(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refresher = make_refresher(remote, tmp_path, monkeypatch)
    remote.faults.edit["tushare:stock_basic"] = _delisting_name
    refresher.refresh(choice="tushare")
    rec = Universe.load(tmp_path / "universe.sqlite").record("000021.SZ")
    assert rec is not None and rec.stock.name == "博虚退"
    assert rec.stock.st is True, rec.stock.st
    assert rec.sources["st"] == "tushare:stock_basic(名称:退)", rec.sources


def _bse_move(remote: FakeMarketRemote, move: dict[str, str]) -> None:
    """Tushare answers these Beijing stocks under their 920 codes, names unchanged (the 2025-10-09 move)."""
    def moved(r: dict[str, Any]) -> None:
        if r.get("ts_code") in move:
            r["ts_code"] = move[r["ts_code"]]
            if "symbol" in r:
                r["symbol"] = r["ts_code"][:6]
    for api in ("stock_basic", "daily_basic", "daily", "fina_indicator_vip", "income_vip", "forecast_vip", "anns_d"):
        remote.faults.edit[f"tushare:{api}"] = moved


def test_a_bse_code_move_is_named_as_a_move_and_the_old_code_is_told_its_new_one(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """B3: the refresh called 830385.BJ -> 920385.BJ a delisting, and the typed old code was told to refresh."""
    from screening.data.unknown_codes import unknown_code_message

    refresher = make_refresher(remote, tmp_path, monkeypatch)
    refresher.refresh(choice="tushare")
    old = next(s for s in Universe.load(tmp_path / "universe.sqlite") if s.code.endswith(".BJ")
               and not s.code.startswith("920"))
    new = f"920{old.code[3:]}"
    _bse_move(remote, {old.code: new})
    outcome = refresher.refresh(choice="tushare")
    universe = Universe.load(tmp_path / "universe.sqlite")
    assert universe.get(new) is not None and universe.get(old.code) is None
    assert not any(old.code in n and "delisted" in n for n in outcome.notes), outcome.notes
    assert any(f"{old.code} {old.name} → {new}" in n for n in universe.info.notes), universe.info.notes
    message = unknown_code_message(old.code, universe)
    assert f"已改为 {new} {old.name}" in message and "universe refresh" not in message, message


def test_a_failed_row_says_the_refresh_s_failed_call_or_the_missing_quote_not_refresh_is_useless(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """B2: a loss-maker's PE-TTM needs income_vip, which failed in this refresh; a suspended stock has no quote.
    Both rows said "再次刷新多半仍没有" and named the sources "composed/tushare"."""
    from screening.data.load import codes_pool
    from screening.screen.pipeline import missing_message
    from screening.screen.rules import MissingData

    refresher = make_refresher(remote, tmp_path, monkeypatch)
    remote.faults.status["tushare:income_vip"] = 502
    refresher.refresh(choice="tushare")
    universe = Universe.load(tmp_path / "universe.sqlite")
    no_pe = [s for s in universe if s.pe_ttm is None]
    loss = next(s.code for s in no_pe if s.price is not None)
    suspended = [s.code for s in no_pe if s.price is None and s.market_cap is None]
    pool = codes_pool([loss, *suspended[:1]], refresher.settings, universe)
    messages = [missing_message(item.stock, MissingData("PE-TTM")) for item in pool.items if item.stock]
    assert "income_vip(" in messages[0] and "失败" in messages[0], messages[0]
    for text in messages:
        assert "再次刷新多半仍没有" not in text and "composed" not in text and "Tushare" in text, text
    if suspended:
        assert "多为停牌" in messages[1], messages[1]
