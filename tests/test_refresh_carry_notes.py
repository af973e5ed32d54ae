"""What the refresh stores agrees with the rows it stores (a helper's loose ends, 2026-12-07), against the real SDKs
and the fake remote ends.

Tushare's note counting the PE-TTM left empty was tallied while its records were built and never counted again: a
loss-maker the answer left out of the annual report its TTM needs had its PE-TTM derived again by the carry
(refresh_reports.py), and the note still counted it empty. A field's row flag (数据源两值不一) stayed stored after a
`universe import` gave that field a value: hidden on the row, but still in the universe's record of the refresh.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from screening.cli import main
from screening.data.universe import Universe
from tests.fakes.market_proxy import FakeMarketRemote
from tests.refresh_trial import make_refresher, remote_fixture  # noqa: F401  (the module's fake market)

pytestmark = [pytest.mark.slow]  # real refreshes of a 300-stock fake market (seconds)

FLAG_SOURCE_CONFLICT = "数据源两值不一"  # the row flag (providers/duplicates.py), as the user reads it


def _pe_note(notes: list[str]) -> str | None:
    found = [n for n in notes if "PE-TTM left empty" in n]
    assert len(found) <= 1, found
    return found[0] if found else None


def _empty_quoted(universe: Universe) -> int:
    """The stored rows with a quote and no PE-TTM: the stocks the Tushare note counts."""
    return sum(1 for s in universe if s.pe_ttm is None and s.price is not None)


def test_tushare_s_empty_pe_ttm_note_counts_the_stored_rows_after_the_carry(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refresher = make_refresher(remote, tmp_path, monkeypatch)
    path = tmp_path / "universe.sqlite"
    first = refresher.refresh(choice="tushare")
    before = Universe.load(path)
    # a loss-maker of 2026 Q3: its TTM is 2026-09-30 + 2025-12-31 - 2025-09-30, so it needs the annual report
    loss = next(rec for s in before if (rec := before.record(s.code)) is not None and rec.stock.pe_ttm is not None
                and rec.stock.pe_ttm < 0 and rec.dates.get("report_date") == "2026-09-30")
    remote.faults.withheld["2025-12-31"] = {loss.stock.code[:6]}
    outcome = refresher.refresh(choice="tushare")
    after = Universe.load(path)
    rec = after.record(loss.stock.code)
    assert rec is not None and rec.stock.pe_ttm == pytest.approx(loss.stock.pe_ttm, rel=1e-6)  # derived again
    assert any("财报沿用上次刷新" in n and loss.stock.code in n for n in outcome.notes), outcome.notes
    assert _pe_note(outcome.notes) == _pe_note(first.notes), (_pe_note(first.notes), outcome.notes)
    assert _pe_note(after.info.notes) == _pe_note(first.notes)  # stored as told: `universe status` shows it
    note = _pe_note(after.info.notes)
    told = int(re.findall(r"PE-TTM left empty for (\d+) ", note)[0]) if note else 0
    assert told == _empty_quoted(after), (note, _empty_quoted(after))


def test_an_import_that_gives_a_flagged_field_drops_its_stored_flag(
        remote: FakeMarketRemote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """daily_basic lists 000021 twice with two pe_ttm: none is stored, and the flag says why. The user's file then
    gives its PE-TTM: the flag is about a figure the universe no longer holds, so it is not kept either; a file
    that gives another figure leaves it."""
    refresher = make_refresher(remote, tmp_path, monkeypatch)
    path = tmp_path / "universe.sqlite"

    def again(r: dict[str, Any]) -> dict[str, Any] | None:
        return {**r, "pe_ttm": 999.0} if r["ts_code"] == "000021.SZ" else None

    remote.faults.repeat["tushare:daily_basic"] = again
    refresher.refresh(choice="tushare")
    assert Universe.load(path).info.row_flags["000021.SZ"]["pe_ttm"].startswith(FLAG_SOURCE_CONFLICT)
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(path))
    for column, value in (("roe", "12.5"), ("pe_ttm", "18.5")):
        (tmp_path / "mine.csv").write_text(f"code,{column},as_of\n000021,{value},2026-12-06\n", encoding="utf-8")
        assert main(["universe", "import", str(tmp_path / "mine.csv")]) == 0
        universe = Universe.load(path)
        flags = universe.info.row_flags.get("000021.SZ", {})
        assert ("pe_ttm" in flags) is (column != "pe_ttm"), (column, flags)
        stock = universe.get("000021.SZ")
        assert stock is not None and (stock.pe_ttm is None) is (column != "pe_ttm")
