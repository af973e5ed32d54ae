"""A fresh refresh through the real akshare against the fake Eastmoney screens almost unflagged, and the same data
screened once the next annual report is due is flagged 数据过期 on the rows the digest lists.

Before the fix the trial on 2026-12-05 counted, of 5,000 rows: 4,953 数据过期 (FY2025 ROE judged by the Q1 deadline),
4,534 数据存疑 (the composed text's Q3 cumulative ROE against the annual ROE), and the whole-market digest listed
its top rows without a single flag.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from screening.config import DigestSettings, Settings, UniverseSettings
from screening.data.universe import Universe
from screening.digest.build import make_digest
from screening.digest.render import render_json, render_markdown
from screening.models import ResultRow
from tests.fakes.market_proxy import FakeMarketRemote
from tests.test_universe_refresh import base_env, cli

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def refreshed(fake_market_remote: FakeMarketRemote, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    fake_market_remote.faults.reset()
    tmp = tmp_path_factory.mktemp("flags")
    path = tmp / "universe.sqlite"
    env = {**base_env(tmp, path), **fake_market_remote.env()}
    res = cli("universe", "refresh", "--provider", "akshare", "--date",
              fake_market_remote.market.trade_date.isoformat(), env=env, timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    yield path


def share(rows: list[ResultRow], pattern: str) -> float:
    return sum(any(re.match(pattern, f) for f in r.flags) for r in rows) / len(rows)


def test_fresh_data_is_not_flagged_and_aged_data_is_flagged_in_the_digest(
        refreshed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    settings = Settings(universe=UniverseSettings(path=str(refreshed)))
    ds = DigestSettings(top_n=10)
    universe = Universe.load(refreshed)
    texts = [s.report_text or "" for s in universe]
    assert sum("ROE（" in t for t in texts) > 0.9 * len(texts)  # the text's ROE names its period
    today = dt.datetime.now(ZoneInfo("Asia/Shanghai")).date()
    fresh = make_digest(settings, today, ds=ds, engine="rules", use_history=False, write=False)
    assert len(fresh.rows) > 4500
    assert share(fresh.rows, "数据过期") < 0.02, [r.flags for r in fresh.rows if r.flags][:5]
    assert share(fresh.rows, "数据存疑: 文本ROE") < 0.01
    assert "数据过期" not in render_markdown(fresh, ds)
    # the same data once FY+1's annual report is due: the annual figures are stale, and the digest says so
    fy = max(int(d[:4]) for s in universe if (d := universe.field_dates(s.code).get("roe")))
    aged = make_digest(settings, dt.date(fy + 2, 5, 1), ds=ds, engine="rules", use_history=False, write=False)
    assert share(aged.rows, rf"数据过期: 财报 .*ROE.* 为 {fy}-12-31 报告期") > 0.9
    assert all(any(f.startswith("数据过期: 财报") for f in r["flags"]) for r in render_json(aged)["top"])
    md = render_markdown(aged, ds)
    listed = [line for line in md.splitlines() if re.match(r"\d+\. ", line)]
    assert listed and all("⚠️" in line and "数据过期(财报)" in line for line in listed)
    assert re.search(r"\*\*数据提示\*\*: .*数据过期 \d+ 只", md)
