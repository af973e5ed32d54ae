"""A first refresh (no universe yet) that brings an essential field blank for the whole market is refused.

The real Refresher and akshare against the fake Eastmoney (300 stocks, a fixed clock). Before, with nothing to
compare with, a snapshot whose every WEIGHTAVG_ROE was empty became the universe ("300 stocks (was 0)") and every
screen then failed "缺少数据: ROE ... 运行 universe refresh", sending the user back to the refresh that caused it.
The refusal names the blank field and the calls that gave it, not the weekend's empty announcement days.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.refresh import Refresher, RefreshFailed
from screening.data.universe import Universe
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import FakeMarketRemote

pytestmark = [pytest.mark.slow]  # real refreshes of a 300-stock fake market (seconds)

SH = ZoneInfo("Asia/Shanghai")
SATURDAY = dt.datetime(2026, 12, 5, 7, 30, tzinfo=SH)  # the board shows Friday 12-04; 12-05 has no announcements
SESSION = dt.date(2026, 12, 4)


@pytest.fixture(scope="module")
def remote() -> Iterator[FakeMarketRemote]:
    with FakeMarketRemote(FakeMarket(300, trade_date=SESSION, as_of=SATURDAY.date()), clist_page_size=6000) as r:
        yield r


def _refresh(remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Refresher:
    for key, value in remote.env(tushare_token=None).items():
        monkeypatch.setenv(key, value)
    us = UniverseSettings(path=str(tmp_path / "universe.sqlite"), provider="akshare", announcement_days=3, pace_s=0,
                          refresh_attempts=1)
    settings = Settings().model_copy(update={"universe": us, "digest": DigestSettings(calendar_dir=str(tmp_path))})
    return Refresher(settings, now=lambda: SATURDAY)


@pytest.mark.parametrize(("blank", "field"), [("WEIGHTAVG_ROE", "ROE"), ("BASIC_EPS", "EPS")])
def test_a_first_refresh_with_a_field_blank_everywhere_is_refused_naming_its_calls(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blank: str, field: str) -> None:
    remote.faults.reset()
    remote.faults.blank_fields["yjbb"] = {blank}
    refresher = _refresh(remote, tmp_path, monkeypatch)
    with pytest.raises(RefreshFailed) as err:
        refresher.refresh(choice="akshare")
    message = str(err.value)
    assert f"{field} present for 0 of the 300 stocks (0%, under 50% on a first refresh)" in message, message
    assert "stock_yjbb_em(20260930) ok" in message and "answered without the field" in message
    assert "stock_notice_report" not in message  # the empty Saturday is not the culprit
    assert "the universe stays empty" in message
    assert len(Universe.load(tmp_path / "universe.sqlite")) == 0


def test_a_complete_first_refresh_passes_the_floor(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    remote.faults.reset()
    refresher = _refresh(remote, tmp_path, monkeypatch)  # the proxy's environment only: the SDK runs as it is
    outcome = refresher.refresh(choice="akshare")
    assert (outcome.previous, outcome.trade_date) == (0, SESSION.isoformat()) and outcome.stocks > 250


def test_a_field_left_blank_for_many_stocks_is_a_refresh_warning() -> None:
    """A trial (2026-12-06): a first refresh with ROE null for 45% of its stocks passed with no warning. Pure:
    field_gaps on a snapshot, the share over GAP_WARN_SHARE named with the calls that gave it."""
    from screening.data.providers.base import MarketSnapshot, ProvidedStock
    from screening.data.refresh import GAP_WARN_SHARE, field_gaps
    from screening.models import StockInput

    def stock(i: int, roe: float | None) -> ProvidedStock:
        return ProvidedStock(StockInput(code=f"600{i:03d}.SH", price=10.0, pe_ttm=20.0, roe=roe, eps=1.0,
                                        industry="银行"))

    def snapshot(blank: int) -> MarketSnapshot:
        return MarketSnapshot("akshare", "1.19.5", "2026-12-04", "2026-09-30", "2026-12-06T10:00:00+08:00",
                              [stock(i, None if i < blank else 10.0) for i in range(100)], [])

    (note,) = field_gaps(snapshot(45))
    assert note.startswith("warning: ROE empty for 45 of the 100 stocks (45%)") and "their rows fail" in note
    assert field_gaps(snapshot(int(GAP_WARN_SHARE * 100))) == []


def test_stocks_the_refresh_no_longer_lists_are_named(tmp_path: Path) -> None:
    """A trial (2026-12-06): a delisted stock left the universe without a word. Pure: left_the_list against a
    universe after the replace; a few named, the rest counted."""
    from screening.data.refresh import leaving, left_the_list
    from screening.models import StockInput

    u = Universe.load(tmp_path / "u.sqlite")
    u.update([StockInput(code="600519.SH", name="贵州茅台", pe_ttm=20.0, roe=30.0)], as_of="2026-12-04")
    before: dict[str, str | None] = {"600519.SH": "贵州茅台", "600088.SH": "桂拟酒业", "600089.SH": None}
    (note,) = left_the_list(before, leaving(before, u))
    assert note == "2 stock(s) left the list since the last refresh (delisted?): 600088.SH 桂拟酒业、600089.SH"
    kept: dict[str, str | None] = {"600519.SH": "贵州茅台"}
    assert left_the_list(kept, leaving(kept, u)) == []
