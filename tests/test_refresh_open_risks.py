"""A 高 risk announced before the announcement window stays in the text until a title ends it.

A refresh writes each stock's report text from the last ``announcement_days`` days of titles and replaces the old
text: a 立案告知书 of 2026-11-01 left it about 2026-12-01, the investigation still open, and the stock read 低/100
without a flag (a user's trial, 2026-12-07). The text reader decides which stored titles state an open 高 risk
(screen/open_risks.py, pure: tested on texts), and the real Refresher with akshare against the fake Eastmoney keeps
them past its window (two refreshes a week apart, a 2-day window).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.refresh import Refresher
from screening.data.refresh_open_risks import FLAG_OPEN_KEPT, HEADING, OPEN
from screening.data.refresh_titles import dated_titles
from screening.data.universe import Universe
from screening.screen.open_risks import open_risk_titles
from screening.screen.rules import assess
from tests.fakes.market_data import FakeMarket
from tests.fakes.market_proxy import FakeMarketRemote

CASE = "2026-09-01 关于收到中国证券监督管理委员会《立案告知书》的公告"
FROZEN = "2026-08-03 关于公司部分银行账户被冻结的公告"


def _text(*lines: str) -> str:
    return "\n".join(["近30日公告（新→旧）：", *lines])


def _kept(text: str) -> list[str]:
    return [f"{d.isoformat()} {t}" for d, t in open_risk_titles(text)]


def test_open_high_risk_titles_are_the_live_ones() -> None:
    text = _text("2026-11-20 关于召开2026年第三次临时股东大会的通知", "2026-10-09 关于股东减持股份的预披露公告", CASE,
                 FROZEN)
    assert _kept(text) == [CASE, FROZEN]  # 减持 is 中: news of its time, not kept


@pytest.mark.parametrize("ended", [
    "2026-11-25 关于收到中国证券监督管理委员会结案通知书的公告",
])
def test_a_risk_a_later_title_ended_is_not_kept(ended: str) -> None:
    assert _kept(_text(ended, CASE)) == []


def test_another_partys_risk_and_a_denial_are_not_kept() -> None:
    assert _kept(_text("2026-09-02 关于媒体报道公司被立案调查的澄清公告")) == []
    assert _kept(_text("2026-09-02 关于公司未收到立案调查通知的说明公告")) == []


SH = ZoneInfo("Asia/Shanghai")


def _refresh(market: FakeMarket, path: Path, now: dt.datetime, monkeypatch: pytest.MonkeyPatch,
             *, keep: bool, open_risk_days: int = 365) -> list[str]:
    us = UniverseSettings(path=str(path), provider="akshare", announcement_days=2, pace_s=0, refresh_attempts=1,
                          open_risk_days=open_risk_days)
    settings = Settings().model_copy(update={"universe": us, "digest": DigestSettings(calendar_dir=str(path.parent))})
    with FakeMarketRemote(market, clist_page_size=6000) as remote:
        for key, value in remote.env().items():
            monkeypatch.setenv(key, value)
        refresher = Refresher(settings, now=lambda: now, open_risks=open_risk_titles if keep else None)
        return refresher.refresh(choice="akshare").notes


@pytest.mark.slow  # six real refreshes of a 300-stock fake market (seconds each)
def test_an_investigation_older_than_the_window_stays_until_a_title_ends_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = dt.datetime(2026, 12, 4, 8, 0, tzinfo=SH)  # window 12-03..12-04
    later = dt.datetime(2026, 12, 11, 8, 0, tzinfo=SH)  # window 12-10..12-11: the first window's titles are out
    for keep in (False, True):
        path = tmp_path / f"keep-{keep}" / "universe.sqlite"
        path.parent.mkdir()
        _refresh(FakeMarket(300, trade_date=dt.date(2026, 12, 3)), path, first, monkeypatch, keep=keep)
        u = Universe.load(path)
        code = next(s.code for s in u if "立案告知书" in (s.report_text or ""))
        before = assess(u.get(code))  # type: ignore[arg-type]
        (title,) = [f"{d.isoformat()} {t}" for d, t in dated_titles(u.get(code).report_text)  # type: ignore[union-attr]
                    if "立案告知书" in t]
        assert before.risk == "高" and any(h.name == "立案调查" for h in before.signals)

        notes = _refresh(FakeMarket(300, trade_date=dt.date(2026, 12, 10)), path, later, monkeypatch, keep=keep)
        u = Universe.load(path)
        stock, rec = u.get(code), u.record(code)
        assert stock is not None and rec is not None
        after = assess(stock)
        if not keep:  # the fault this mends: the investigation left the text with the window
            assert title not in (stock.report_text or "") and not any(h.name == "立案调查" for h in after.signals)
            continue
        assert title in (stock.report_text or "") and HEADING in (stock.report_text or "")
        assert after.risk == "高" and any(h.name == "立案调查" and h.date == title[:10] for h in after.signals)
        assert rec.sources["report_text"].endswith(OPEN)
        assert any(n.startswith(FLAG_OPEN_KEPT) and title[:10] in n for n in stock.notes), stock.notes
        assert any("older than the 2-day announcement window" in n for n in notes)

        # a third refresh keeps it again, once (the text it reads holds it), and one with a cap of 5 days lets it go
        _refresh(FakeMarket(300, trade_date=dt.date(2026, 12, 10)), path, later, monkeypatch, keep=True)
        again = Universe.load(path).get(code)
        assert again is not None and (again.report_text or "").count(title) == 1
        _refresh(FakeMarket(300, trade_date=dt.date(2026, 12, 10)), path, later, monkeypatch, keep=True,
                 open_risk_days=5)
        gone = Universe.load(path).get(code)
        assert gone is not None and title not in (gone.report_text or "")
