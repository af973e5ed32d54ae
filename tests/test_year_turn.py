"""Across the turn of 2026 into 2027, which no calendar library knows and no notice is out for yet (a trial,
2026-12-08): what the digest says the quotes are of, and which year's notice decides a day.

* A pool file whose 日期 column dates its quotes 2026-12-31, digested on 2027-01-04, was headed 数据时间未知 with an
  empty universe and 数据截至 2026-12-04 (the universe's import day) with one, though every quote screened was
  the file's: the file's stated day heads the digest now, as it is each row's ``data_date``.
* A weekday 31 December the next 元旦 may bridge (2029-12-31, a Monday before 元旦 2030 on the Tuesday, as
  2018-12-31 was closed by the 2019 notice) is the next year's notice's to decide: the year's own notice, imported
  first, declared it a trading day (``decide``: any weekday of a year with a notice is open), and every message
  named the wrong year's notice to import.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from screening.cli import main
from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.calendar_law import UNDECIDED, festival_of, notice_year, statutory_days
from screening.data.calendar_notice import Arrangement, decide
from screening.data.freshness import quote_age
from screening.data.trading_calendar import SHANGHAI, SessionUncertain, board_session, day_status, refresh_blocker
from screening.data.universe import Record, Universe, UniverseInfo
from screening.digest.build import behind_lines, make_digest
from screening.digest.render import render_markdown
from screening.models import StockInput

D = dt.date
POOL = "code,name,price,pe_ttm,roe,eps,report_date,日期\n600519.SH,贵州茅台,1500,22.5,34.2,68.6,2025-12-31,2026-12-31\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no stored notice: 2027 goes by the law
    return tmp_path


def _universe(path: Path, stocks: list[StockInput]) -> Settings:
    recs = [Record(s, dict.fromkeys(("price", "pe_ttm"), "import:x"), {}, "2026-12-04") for s in stocks]
    Universe.load(path).replace(recs, UniverseInfo(provider="import", count=len(recs)))
    return Settings(universe=UniverseSettings(path=str(path)))


@pytest.mark.parametrize("stored", [False, True])
def test_a_pool_files_stated_quote_day_heads_the_digest(cache: Path, stored: bool) -> None:
    stocks = [StockInput(code="600519.SH", name="贵州茅台", price=1400.0, pe_ttm=21.0)] if stored else []
    settings = _universe(cache / "u.sqlite", stocks)
    pool = cache / "pool.csv"
    pool.write_text(POOL, encoding="utf-8")
    d = make_digest(settings, D(2027, 1, 4), ds=DigestSettings(), pool_file=pool, engine="rules",
                    use_history=False, write=False)
    assert d.rows[0].data_date == "2026-12-31"
    assert (d.data_as_of, d.data_as_of_oldest) == ("2026-12-31", "2026-12-31")
    assert "数据截至 2026-12-31 · pool.csv" in render_markdown(d)


# ---- which year's notice decides a 31 December the next 元旦 may bridge -----------------------------------------

def _arrangement(year: int, closed: dict[dt.date, str] | None = None) -> Arrangement:
    return Arrangement(year, f"test: {year}", closed or {})


def test_the_next_years_notice_decides_a_december_bridge_day() -> None:
    eve = D(2029, 12, 31)  # Monday, 元旦 2030 on the Tuesday
    assert notice_year(eve) == 2030 and notice_year(D(2029, 12, 28)) == 2029 and notice_year(D(2026, 12, 31)) == 2026
    assert decide(eve, {2029: _arrangement(2029)}) is None  # 2029's notice says nothing about 元旦 2030's bridge
    assert decide(D(2029, 12, 28), {2029: _arrangement(2029)}) == (True, "工作日", _arrangement(2029))
    assert decide(eve, {2030: _arrangement(2030)}) == (True, "工作日", _arrangement(2030))
    closed = _arrangement(2030, {eve: "元旦", D(2030, 1, 1): "元旦"})
    assert decide(eve, {2029: _arrangement(2029), 2030: closed}) == (False, "元旦", closed)


def test_the_messages_name_the_notice_that_decides_the_day(tmp_path: Path) -> None:
    eve = D(2029, 12, 31)
    st = day_status(eve, store=tmp_path)
    assert st.open is None and "未导入 2030 年国务院放假通知" in (st.warning() or "")
    assert quote_age(D(2029, 12, 28), D(2030, 1, 2), store=tmp_path).pending() == (
        "另有 1 天交易与否待定: 2030年元旦调休安排未导入")
    with pytest.raises(SessionUncertain, match="import the 2030 notice"):
        board_session(dt.datetime(2030, 1, 1, 10, 0, tzinfo=SHANGHAI), store=tmp_path)
    blocker = refresh_blocker(D(2030, 1, 2), store=tmp_path)
    assert blocker is not None and blocker.day == eve
    lines = behind_lines("2029-12-27", quote_age(D(2029, 12, 27), D(2030, 1, 2), store=tmp_path), D(2030, 1, 2),
                         blocker)
    assert "导入 2030 年国务院放假通知后即可刷新" in lines[1]


# ---- `calendar YEAR` says no rather than list a year nothing here knows ------------------------------------------

def _calendar(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, str, list[str]]:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[digest]\ncalendar_dir = "{tmp_path / "calendar"}"\n', encoding="utf-8")
    rc = main(["calendar", *argv, "--config", str(cfg)])
    out, err = capsys.readouterr()
    return rc, out, [line for line in err.splitlines() if line.startswith("error:")]


def test_a_year_before_the_law_and_the_library_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rc, out, errors = _calendar(capsys, tmp_path, "2000")  # was "0 closed, 0 undecided": 春节 2000 listed open
    assert (rc, out, len(errors)) == (2, "", 1) and "calendar 2000: no source here knows" in errors[0]
    rc, out, errors = _calendar(capsys, tmp_path, "2027", "extra")
    assert (rc, out, len(errors)) == (2, "", 1) and "got '2027 extra'" in errors[0]
    rc, out, errors = _calendar(capsys, tmp_path, "2027")
    assert rc == 0 and "2027-01-01 周五  closed     statutory" in out and not errors


def _notice_2030(eve_closed: bool) -> str:
    """A made-up 2030 notice: each statutory weekday its own entry; 元旦 from 2029-12-31 when ``eve_closed``."""
    lines = ['year = 2030', 'source = "test: made-up 2030 arrangement"']
    for day, label in statutory_days(2030).items():
        if day.weekday() < 5:
            start = D(2029, 12, 31) if eve_closed and day == D(2030, 1, 1) else day
            lines += ["[[holidays]]", f'name = "{festival_of(label)}"', f"start = {start}", f"end = {day}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("eve_closed", "said"), [(True, "closed"), (False, "open")])
def test_importing_the_next_notice_says_how_it_settled_the_december_day(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, eve_closed: bool, said: str) -> None:
    store = tmp_path / "calendar"
    st = day_status(D(2029, 12, 31), store=store)
    assert st.open is None and st.note == "元旦与周末之间, 可能调休; 由 2030 年通知决定"
    path = tmp_path / "notice-2030.toml"
    path.write_text(_notice_2030(eve_closed), encoding="utf-8")
    rc, out, errors = _calendar(capsys, tmp_path, "import", str(path))
    assert rc == 0 and not errors and f"2029-12-31 {UNDECIDED} -> {said} (notice)" in out.splitlines()
    assert f"2030-12-31 {UNDECIDED}: not settled by this notice (元旦与周末之间, 可能调休; 由 2031 年通知决定)" in out
    assert "2030-12-31 调休待定 -> open" not in out  # it waits for the 2031 notice
    st = day_status(D(2029, 12, 31), store=store)
    assert (st.open, st.basis) == (not eve_closed, "notice")
