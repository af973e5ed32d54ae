"""The digest as a user reads it (issue 25.6/25.7): the top list holds only 低 stocks ordered by the unclamped rank
value and shows it; the demo digest shows the demo's own date, never 1970-01-01; an empty universe says there is
no data and how to get it, with no empty XLSX; a pool's digest describes the pool in its footer."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.freshness import market_today
from screening.digest.build import make_digest
from screening.digest.render import render_json, render_markdown, render_markdown_parts
from screening.output.report import rank_value

DAY = dt.date(2026, 12, 4)
DS = DigestSettings(top_n=10)


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the demo universe is built there
    return Settings(universe=UniverseSettings(path=str(tmp_path / "u.sqlite")))


def _digest(settings: Settings, out: Path, **kw: object):
    return make_digest(settings, DAY, ds=DS, engine="rules", use_history=False, out_dir=out, **kw)  # type: ignore[arg-type]


def test_demo_digest_top_list_is_low_risk_by_rank_value_with_the_demo_date(settings: Settings, tmp_path: Path) -> None:
    settings.universe.demo = True
    d = _digest(settings, tmp_path / "out", codes=["600519", "300750", "600036", "000333", "601318", "000002"])
    # the day the demo universe was built, Shanghai's (market_today): the host's UTC date is a day behind from 16:00
    # UTC, and this failed the fresh-clone run of 2026-12-07 16:10 UTC ('2026-12-08' == '2026-12-07')
    assert d.data_as_of == market_today().isoformat()
    md = render_markdown(d, DS)
    assert "1970" not in md and f"数据截至 {d.data_as_of}" in md
    assert d.top and all(r.risk_level == "低" for r in d.top)
    values = [rank_value(r) for r in d.top]
    assert values == sorted(values, reverse=True)  # type: ignore[type-var]
    assert sum(r.score == 100 for r in d.top) >= 2  # the clamped score alone could not order them
    assert f"排序值 {values[0]:g}" in md and "评分前" in md
    assert render_json(d)["top"][0]["rank_value"] == values[0]
    # a pool's footer describes the pool, then where its figures came from
    assert "股票池: 自选 6 只 · 共 6 只; 补充数据: 演示数据" in md


def test_a_split_digest_numbers_its_parts_as_every_front_does(settings: Settings, tmp_path: Path) -> None:
    """The mark is the chat replies' (screening.output.text.part_label); on DingTalk, which joins single newlines,
    its line ends in two spaces, or the mark ran into the digest's next line."""
    settings.universe.demo = True
    d = _digest(settings, tmp_path / "out", codes=["600519", "300750", "600036", "000333", "601318", "000002"])
    for hard, sep in ((False, "\n"), (True, "  \n")):
        parts = render_markdown_parts(d, 400, DS, hard_breaks=hard)
        n = len(parts)
        assert n > 2 and all(len(p.encode()) <= 400 for p in parts)
        assert "（续" not in parts[0] and all(p.startswith(f"（续 {i}/{n}）{sep}") for i, p in enumerate(parts[1:], 2))


def test_no_low_risk_stock_says_so(settings: Settings, tmp_path: Path) -> None:
    settings.universe.demo = True
    d = _digest(settings, tmp_path / "out", codes=["000002"])  # 万科A: not 低 in the demo figures
    assert not d.top and "**评分前**: 无 (没有低风险股票)" in render_markdown(d, DS)


def test_an_empty_universe_says_there_is_no_data_and_writes_no_files(settings: Settings, tmp_path: Path) -> None:
    out = tmp_path / "out"
    d = _digest(settings, out)
    assert d.empty and d.xlsx_path is None and not out.exists()
    md = render_markdown(d, DS)
    assert "没有可筛选的数据" in md and "universe refresh" in md
    assert "全市场 0 只" not in md and "XLSX" not in md


def test_digest_demo_is_the_flag_screen_has(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``digest --demo`` (as ``screen --demo``) answered the top-level usage error (a trial, 2026-12-07); it digests
    the demo universe (seeded here with one stock: the full one takes a minute), saying 演示数据 in its head."""
    from screening.cli import main
    from screening.data.universe import Record, Universe, UniverseInfo
    from screening.models import StockInput

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(tmp_path / "real.sqlite"))  # empty: not what is digested
    Universe.load(tmp_path / "ashare-screener" / "demo-universe.sqlite").replace(
        [Record(StockInput(code="600519.SH", name="贵州茅台", roe=34.2, pe_ttm=22.5))],
        UniverseInfo(provider="demo", demo=True))
    assert main(["digest", "--demo", "--engine", "rules", "--no-files", "--no-history"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## 【演示数据】A股盘前摘要") and "600519.SH 贵州茅台" in out
