"""Real market data end to end: ``universe refresh`` through the real akshare against the fake Eastmoney, then
screens and digests that show each figure's source and date.

Every step is the CLI a user runs, in a subprocess whose SDKs reach only the fakes (tests/fakes/fixtures.py).
The refresh is one module-scoped run (akshare walks 5,000 stocks' reports; ~1 minute), the later tests read
copies of the universe it wrote, so none of them can disturb another.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from screening.data.universe import Universe
from tests.fakes.fixtures import board_session_now
from tests.fakes.market_proxy import FakeMarketRemote

pytestmark = [pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent


def cli(*args: str, env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "screening", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def base_env(tmp: Path, universe: Path) -> dict[str, str]:
    """No config file of the repo's, a universe of the test's own, one attempt per call (no backoff waits)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_") and "proxy" not in k.lower()}
    env.update({"SCREENER_CONFIG": str(tmp / "none.toml"), "SCREENER_UNIVERSE__PATH": str(universe),
                "SCREENER_UNIVERSE__ATTEMPTS": "1", "XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", "")})
    if not env["XDG_CACHE_HOME"]:
        del env["XDG_CACHE_HOME"]
    (tmp / "none.toml").write_text("", encoding="utf-8")
    return env


@pytest.fixture(scope="module")
def refreshed(fake_market_remote: FakeMarketRemote, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One real refresh of the whole fake market; the universe file it wrote."""
    fake_market_remote.faults.reset()
    tmp = tmp_path_factory.mktemp("refresh")
    path = tmp / "universe.sqlite"
    env = {**base_env(tmp, path), **fake_market_remote.env()}
    # the board stands for the session it shows now (any other --date is refused): the real clock's
    res = cli("universe", "refresh", "--provider", "akshare", "--date", board_now().isoformat(), env=env,
              timeout=900)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout == ""  # progress and the summary go to stderr
    assert "universe refreshed from akshare" in res.stderr
    yield path


def board_now() -> dt.date:
    """The session Eastmoney's board shows at this moment (the fake's quotes stand for it)."""
    return board_session_now()


def copy_of(src: Path, tmp: Path) -> Path:
    dest = tmp / "universe.sqlite"
    shutil.copyfile(src, dest)
    return dest


def test_refresh_covers_the_market_with_sources(refreshed: Path, fake_market_remote: FakeMarketRemote,
                                               tmp_path: Path) -> None:
    env = base_env(tmp_path, copy_of(refreshed, tmp_path))
    status = json.loads(cli("universe", "status", "--format", "json", env=env).stdout)
    market = fake_market_remote.market
    assert status["provider"] == "akshare" and not status["demo"]
    assert status["trade_date"][:10] == board_now().isoformat()
    assert status["stocks"] >= 0.9 * len(market.stocks)  # the coverage floor the refresh enforces
    stock = next(s for s in market.stocks if not s.suspended and not s.st)
    suffix = {"SH": "SH", "SZ": "SZ", "BJ": "BJ"}[stock.exchange]
    shown = cli("universe", "show", f"{stock.code}.{suffix}", "--format", "json", env=env)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["figures"]["name"] == stock.name
    for fld in ("name", "pe_ttm"):
        assert fld in data["sources"] and data["sources"][fld], data["sources"]  # each figure names its source
    assert "akshare" in json.dumps(data["source_ids"]).lower() or "eastmoney" in json.dumps(data).lower()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens there


def test_offline_refresh_fails_and_keeps_the_last_good_universe(refreshed: Path, tmp_path: Path) -> None:
    path = copy_of(refreshed, tmp_path)
    before = Universe.load(path).info
    count = len(Universe.load(path))
    dead = f"http://127.0.0.1:{closed_port()}"
    env = {**base_env(tmp_path, path), "HTTPS_PROXY": dead, "https_proxy": dead, "HTTP_PROXY": dead,
           "http_proxy": dead, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    env.pop("TUSHARE_TOKEN", None)
    res = cli("universe", "refresh", "--provider", "akshare", env=env, timeout=300)
    assert res.returncode == 1, (res.returncode, res.stderr[-2000:])
    assert res.stdout == ""
    assert "kept" in res.stderr.lower() or "last good" in res.stderr.lower() or "unchanged" in res.stderr.lower(), \
        res.stderr[-1500:]
    after = Universe.load(path)
    assert count >= 4500 and len(after) == count and after.info.refreshed_at == before.refreshed_at  # untouched


def quote_only_export(tmp: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    """What 东方财富's 自选股 export holds: code, name, price, dynamic PE; no PE-TTM, no ROE."""
    path = tmp / "自选股.csv"
    lines = ["代码,名称,最新价,市盈率-动态", *(",".join(r) for r in rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8-sig")
    return path


def test_quote_only_export_is_filled_from_the_universe_with_sources(refreshed: Path, tmp_path: Path,
                                                                    fake_market_remote: FakeMarketRemote) -> None:
    path = copy_of(refreshed, tmp_path)
    universe = Universe.load(path)
    known = [r for r in (universe.record(f"{s.code}.{s.exchange}") for s in fake_market_remote.market.stocks)
             if r is not None and r.stock.pe_ttm is not None and r.stock.roe is not None][:3]
    assert len(known) == 3
    rows = [(r.stock.code.split(".")[0], r.stock.name or "", "10.00", "12.3") for r in known]
    absent = next(f"{n}.SH" for n in range(603999, 603000, -1) if universe.record(f"{n}.SH") is None)
    rows.append((absent[:6], "不在库里", "1.00", "5.0"))  # a real board, not in the universe
    export = quote_only_export(tmp_path, rows)
    res = cli("screen", str(export), "--engine", "rules", "--format", "json", env=base_env(tmp_path, path))
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout)
    got = {r["code"]: r for r in out}
    for rec in known:
        row = got[rec.stock.code]
        assert row["status"] == "ok", row
        assert row["pe_ttm"] == pytest.approx(rec.stock.pe_ttm)  # from the universe, not the file's dynamic PE
        assert row["data_date"] and row["sources"], row  # the row says where its figures came from
        assert any("akshare" in str(v).lower() or "eastmoney" in str(v).lower() for v in row["sources"].values())
    miss = got[absent]
    assert miss["status"] == "failed" and "universe refresh" in miss["error"], miss
    assert "演示" not in res.stdout  # real data is never labelled demo


def test_digest_footer_names_the_data(refreshed: Path, tmp_path: Path) -> None:
    env = base_env(tmp_path, copy_of(refreshed, tmp_path))
    label = Universe.load(Path(env["SCREENER_UNIVERSE__PATH"])).info.label()
    res = cli("digest", "--engine", "rules", "--no-files", "--no-history", "--format", "md", env=env, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    assert label in res.stdout, (label, res.stdout[-1500:])
    assert "演示数据" not in res.stdout


def test_status_says_what_is_not_known_and_show_reads_the_demo_universe(tmp_path: Path) -> None:
    """An empty universe's status reads '-' for what is not known (never Python's None); `show --demo` gives
    a demo stock's figures with `demo` as their source, as `screen --demo` would screen it."""
    env = base_env(tmp_path, tmp_path / "empty.sqlite")
    status = cli("universe", "status", env=env)
    assert status.returncode == 0, status.stderr
    assert "None" not in status.stdout and "provider: -" in status.stdout and "stocks: 0" in status.stdout
    assert json.loads(cli("universe", "status", "--format", "json", env=env).stdout)["provider"] is None
    show = cli("universe", "show", "600519.SH", "--demo", env=env)
    assert show.returncode == 0, show.stderr
    assert "name: 贵州茅台" in show.stdout and "[demo;" in show.stdout
    assert cli("universe", "status", "--demo", env=env).stdout.count("provider: demo") == 1
