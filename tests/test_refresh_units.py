"""A refresh whose figures are all present but in the wrong unit is refused; a provider's PE of 0 is no PE.

The real Refresher with akshare / tushare against the fake remote ends (300 stocks, a fixed clock). A trial
(2026-12-07, s15/u5): Eastmoney's WEIGHTAVG_ROE answered as a fraction (0.117 for 11.7%) replaced a good
universe and turned every stock 高 ("ROE 0.117183%<5%", no flag); 总市值 answered in 亿 made every derived PE-TTM
0.0, and each profitable stock read "PE-TTM≤0(近12月亏损)"; Tushare's daily_basic.pe_ttm of 0 for one profitable
stock did the same for it. Presence checks pass all three.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from screening.data.refresh import RefreshFailed
from screening.data.universe import Universe
from tests.fakes.market_proxy import FakeMarketRemote
from tests.refresh_trial import make_refresher, remote_fixture  # noqa: F401  (the module's fake market)

pytestmark = [pytest.mark.slow]  # real refreshes of a 300-stock fake market (seconds)

def _roe_fraction(r: dict[str, Any]) -> None:
    if r["WEIGHTAVG_ROE"] is not None:
        r["WEIGHTAVG_ROE"] = round(r["WEIGHTAVG_ROE"] / 100, 6)


def _cap_in_yi(r: dict[Any, Any]) -> None:
    if isinstance(r.get("f20"), int | float):  # 总市值, as the quote list answers it
        r["f20"] = round(r["f20"] / 1e8, 2)


def test_a_roe_answered_as_a_fraction_is_refused_and_the_good_universe_stays(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refresher = make_refresher(remote, tmp_path, monkeypatch)
    refresher.refresh(choice="akshare")
    good = Universe.load(tmp_path / "universe.sqlite").get("000021.SZ")
    assert good is not None and good.roe is not None and good.roe > 5
    remote.faults.edit["yjbb"] = _roe_fraction
    with pytest.raises(RefreshFailed) as err:
        refresher.refresh(choice="akshare")
    assert "roe median" in str(err.value) and "fraction" in str(err.value), str(err.value)
    assert Universe.load(tmp_path / "universe.sqlite").get("000021.SZ").roe == good.roe  # type: ignore[union-attr]


def test_a_market_cap_in_yi_is_refused_not_read_as_a_market_of_losses(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refresher = make_refresher(remote, tmp_path, monkeypatch)
    remote.faults.edit["spot"] = _cap_in_yi
    with pytest.raises(RefreshFailed) as err:
        refresher.refresh(choice="akshare")
    message = str(err.value)
    assert "market_cap median" in message and "stock_zh_a_spot_em" in message, message
    assert len(Universe.load(tmp_path / "universe.sqlite")) == 0


def test_a_tushare_pe_ttm_of_zero_is_no_pe_not_a_loss(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refresher = make_refresher(remote, tmp_path, monkeypatch)

    def zero(r: dict[str, Any]) -> None:
        if r["ts_code"] == "000021.SZ":
            r["pe_ttm"] = 0.0

    remote.faults.edit["tushare:daily_basic"] = zero
    refresher.refresh(choice="tushare")
    stock = Universe.load(tmp_path / "universe.sqlite").get("000021.SZ")
    assert stock is not None and stock.roe is not None and stock.roe > 0
    assert stock.pe_ttm is None  # 0 would read "PE-TTM≤0(近12月亏损)" on a profitable stock
