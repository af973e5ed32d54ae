"""A user trial's refresh findings (2026-12-07, s15/u5, B1-B4), each against the real SDKs and the fake remote ends.

B4: Tushare's short name of a delisting-period stock ("…退") was stored as st False (a regex of the ST prefixes
alone), so `universe show` said not ST while the screen, reading the name, said ST.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from screening.data.universe import Universe
from tests.fakes.market_proxy import FakeMarketRemote
from tests.refresh_trial import make_refresher, remote_fixture  # noqa: F401  (the module's fake market)

pytestmark = [pytest.mark.slow]  # real refreshes of a 300-stock fake market (seconds)

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
    assert universe.info.bse_moves == {old.code: new}
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


@pytest.mark.parametrize("provider", ["akshare", "tushare"])
def test_a_report_one_answer_leaves_out_is_kept_from_the_last_good_universe_not_called_late(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str) -> None:
    """B1: a page shift leaves 000021 out of the 2026-09-30 answer and 600851 out of the 2025-12-31 one. Their
    newer figures were replaced by older ones (财报滞后 for a company that filed on time, PE-TTM changed unsaid), or
    ROE went empty with advice that a refresh would not help. A published report does not un-publish."""
    from screening.data.universe import FLAG_LATE_REPORT

    FLAG_REPORT_CARRIED = "财报沿用上次刷新"  # the row flag (data/refresh_reports.py), as the user reads it

    refresher = make_refresher(remote, tmp_path, monkeypatch)
    first = refresher.refresh(choice=provider)
    path = tmp_path / "universe.sqlite"
    before = Universe.load(path)
    q3, fy = before.record("000021.SZ"), before.record("600851.SH")
    assert q3 is not None and q3.stock.report_date == "2026-09-30" and q3.stock.pe_ttm is not None
    assert fy is not None and fy.dates["roe"] == "2025-12-31" and fy.stock.pe_ttm is not None
    remote.faults.withheld.update({"2026-09-30": {"000021"}, "2025-12-31": {"600851"}})
    outcome = refresher.refresh(choice=provider)
    after = Universe.load(path)
    for old in (q3, fy):
        rec = after.record(old.stock.code)
        assert rec is not None
        for name in ("report_date", "eps", "roe", "net_profit_y1"):  # each with its own period, source and notice
            assert getattr(rec.stock, name) == getattr(old.stock, name), (old.stock.code, name)
            assert (rec.sources[name], rec.dates[name]) == (old.sources[name], old.dates[name]), (old.stock.code, name)
            assert rec.dates.get(f"{name}@notice") == old.dates.get(f"{name}@notice")
        assert rec.stock.pe_ttm == pytest.approx(old.stock.pe_ttm, rel=1e-6)  # the same quotes, the same TTM
    q3_flags = after.get("000021.SZ").notes  # type: ignore[union-attr]
    assert not any(f.startswith(FLAG_LATE_REPORT) for f in q3_flags), q3_flags
    assert f"{FLAG_REPORT_CARRIED}: 本次刷新数据源缺少该股 2026-09-30 报告, 沿用 2026-12-05 刷新的数据" in q3_flags
    assert any("缺少该股 2025-12-31 报告" in f for f in after.get("600851.SH").notes)  # type: ignore[union-attr]
    told = [n for n in outcome.notes if FLAG_REPORT_CARRIED in n]
    assert len(told) == 1 and "000021.SZ 2026-09-30" in told[0] and "600851.SH 2025-12-31" in told[0], outcome.notes
    _says_what_the_rows_say(first.notes, outcome.notes, after, q3)
    # carried again by a refresh that still lacks them: the flag names the refresh that fetched the figures
    refresher.refresh(choice=provider)
    again = Universe.load(path)
    assert again.record("000021.SZ").stock.eps == q3.stock.eps  # type: ignore[union-attr]
    assert f"{FLAG_REPORT_CARRIED}: 本次刷新数据源缺少该股 2026-09-30 报告, 沿用 2026-12-05 刷新的数据" in \
        again.get("000021.SZ").notes  # type: ignore[union-attr]
    _says_what_the_rows_say(first.notes, again.info.notes, again, q3)


def _counting(notes: list[str]) -> list[str]:
    """The notes that count stocks by their reports: late filers per period, PE-TTM left empty (and why)."""
    return [n for n in notes if "late filers" in n or "PE-TTM left empty" in n]


def _says_what_the_rows_say(first: list[str], notes: list[str], after: Universe, q3: Any) -> None:
    """With the reports carried, the refresh says what its rows say: the same stocks as the first refresh's, which
    had every report, are counted late or without a PE-TTM (000021 was a late filer of 2026-06-30 in the notes
    beside a row with its 2026-09-30 report; on AKShare 600851 was counted without a PE-TTM its row had), and
    000021's report text is of its 2026-09-30 report, as its row's figures (it described 2026年半年报)."""
    assert _counting(notes) == _counting(first), (_counting(first), notes)
    assert _counting(after.info.notes) == _counting(notes)  # stored as told: `universe status` shows these
    rec = after.record("000021.SZ")
    assert rec is not None and rec.stock.report_text is not None
    assert rec.stock.report_text.splitlines()[0] == (q3.stock.report_text or "").splitlines()[0], rec.stock.report_text
    assert rec.stock.report_text.startswith("2026年三季报（截至2026-09-30") and "半年报" not in rec.stock.report_text
    source = rec.sources["report_text"]
    assert source.endswith(f"+财报沿用上次刷新:{q3.sources['report_date']}") and "20260630" not in source, source


def test_the_bse_move_note_names_twenty_moves_and_counts_the_rest(tmp_path: Path) -> None:
    """B3's tail: the move note listed every moved code; it names 20 and counts the rest, as the delisting note.
    The refresh keeps every move apart from the note, so the 25th old code typed is still told its new one."""
    from screening.data.refresh import leaving, left_the_list
    from screening.data.universe import UniverseInfo
    from screening.data.unknown_codes import moved_to

    before: dict[str, str | None] = {f"8300{i:02d}.BJ": f"虚拟{i}号" for i in range(25)}
    names: dict[str, str | None] = {f"9200{i:02d}.BJ": f"虚拟{i}号" for i in range(25)}
    notes = left_the_list(before, leaving(before, set(names), names))
    assert len(notes) == 1 and notes[0].startswith("25 Beijing stock(s)"), notes
    assert notes[0].count("→") == 20 and notes[0].endswith(" 等25只"), notes[0]
    universe = Universe(tmp_path / "u.sqlite")
    universe.info = UniverseInfo(provider="tushare", notes=notes,
                                 bse_moves={old: f"9200{old[4:]}" for old in before})
    assert moved_to("830024.BJ", universe) == "920024.BJ" and "830024.BJ" not in notes[0]
