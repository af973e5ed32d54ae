"""The synthetic market: deterministic, and spread like the real one where the pipeline cares."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from screening.config import InputSettings
from screening.data.codes import normalise_code
from screening.data.load import is_demo_pool
from screening.data.pool import read_pool
from screening.data.pool_demo import DEMO_COLUMN, DEMO_NOTE, DEMO_VALUE
from screening.data.stock_csv import read_stock_csv
from screening.data.synthetic import generate_market, write_market_csv
from screening.models import StockInput
from screening.screen.rules import FLAG_DATA_DOUBT, assess, is_st, rule_risk

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def market() -> list[StockInput]:
    return generate_market()


def test_deterministic() -> None:
    assert generate_market(300, 7) == generate_market(300, 7)
    assert generate_market(300, 7) != generate_market(300, 8)
    assert generate_market(0) == []


def test_codes_valid_unique_and_boards(market: list[StockInput]) -> None:
    codes = [s.code for s in market]
    assert len(market) == 5400
    assert len(set(codes)) == 5400
    assert all(normalise_code(c) == c for c in codes)
    assert codes == sorted(codes)
    boards = Counter()
    for c in codes:
        if c.startswith("688"):
            boards["star"] += 1
        elif c.startswith("6"):
            boards["sh_main"] += 1
        elif c.startswith(("30",)):
            boards["chinext"] += 1
        elif c.endswith(".SZ"):
            boards["sz_main"] += 1
        else:
            assert c.endswith(".BJ")
            boards["bj"] += 1
    assert boards == {"sh_main": 1700, "star": 600, "sz_main": 1500, "chinext": 1300, "bj": 300}
    prefixes = {c[:3] for c in codes}
    assert {"600", "601", "603", "605", "688", "000", "001", "002", "300", "301", "920"} <= prefixes
    assert any(c[0] == "8" for c in codes)


def test_names(market: list[StockInput]) -> None:
    names = [s.name or "" for s in market]
    assert len(set(names)) == len(names)
    for name in names:
        base = re.sub(r"^\*?ST", "", name)
        assert 2 <= len(base) <= 4 and re.fullmatch(r"[\u4e00-\u9fff]+", base), name
    assert "贵州茅台" not in names


def test_st_and_loss_shares(market: list[StockInput]) -> None:
    st = [s for s in market if is_st(s.name, s.st)]
    assert 0.03 <= len(st) / len(market) <= 0.05
    assert all(s.st is is_st(s.name) for s in market)  # the flag agrees with the name
    assert any(s.name.startswith("*ST") for s in st) and any(s.name.startswith("ST") for s in st)
    loss = sum(1 for s in market if s.pe_ttm <= 0) / len(market)
    assert 0.16 <= loss <= 0.24
    both = sum(1 for s in market if s.net_profit_y1 < 0 and s.net_profit_y2 < 0)
    assert 0.05 * len(market) <= both <= 0.15 * len(market)


def test_figure_spreads(market: list[StockInput]) -> None:
    pe = [s.pe_ttm for s in market if s.pe_ttm > 0]
    assert 20 <= statistics.median(pe) <= 30
    assert sum(p > 100 for p in pe) >= 50  # a real tail
    roe = [s.roe for s in market]
    assert 6 <= statistics.mean(roe) <= 10 and 7 <= statistics.pstdev(roe) <= 11
    assert all(-60 <= r <= 60 for r in roe)
    assert all(s.eps is not None and (s.eps < 0) == (s.pe_ttm < 0) for s in market if abs(s.eps) > 0)
    industries = Counter(s.industry for s in market)
    assert 28 <= len(industries) <= 32
    assert {"银行", "医药生物", "电子", "电力设备", "食品饮料"} <= set(industries)
    assert {s.report_date for s in market} == {"2025-12-31", "2026-09-30"}
    risks = Counter(rule_risk(s)[0] for s in market)  # every synthetic stock is judgeable
    assert all(risks[r] > 200 for r in ("高", "中", "低"))


@pytest.mark.slow  # the rules over the whole 5,400-stock market
def test_report_lengths_and_special_cases(market: list[StockInput]) -> None:
    lengths = [len(s.report_text or "") for s in market]
    assert min(lengths) >= 80 and max(lengths) <= 1200
    assert 180 <= statistics.median(lengths) <= 400
    assert sum(n > 800 for n in lengths) >= 50  # long tail
    assert sum(n < 150 for n in lengths) >= 200
    doubt = sum(1 for s in market if any(f.startswith(FLAG_DATA_DOUBT) for f in assess(s).flags))
    assert 0.02 <= doubt / len(market) <= 0.045
    injected = sum(1 for s in market if "忽略" in (s.report_text or "") or "作废" in (s.report_text or ""))
    assert 0.005 * len(market) <= injected <= 0.02 * len(market)
    assert all(s.report_text.startswith("公司") for s in market)


def _in_yuan(stocks: list[StockInput]) -> list[StockInput]:
    """The market as its file holds it: money in 元 (the generator works in 亿)."""
    def yuan(v: float | None) -> float | None:
        return None if v is None else round(v * 1e8, 2)

    return [dataclasses.replace(s, market_cap=yuan(s.market_cap), net_profit_y1=yuan(s.net_profit_y1),
                                net_profit_y2=yuan(s.net_profit_y2)) for s in stocks]


def test_write_csv_and_cli(tmp_path: Path) -> None:
    out = tmp_path / "m.csv"
    assert write_market_csv(out, 120, 3) == 120
    assert [s for s, _ in read_stock_csv(out)] == _in_yuan(generate_market(120, 3))
    cli = tmp_path / "cli.csv"
    subprocess.run(
        [sys.executable, "-m", "screening.synthetic", str(cli), "--n", "50", "--seed", "2"],
        cwd=ROOT, check=True, capture_output=True,
    )
    assert [s for s, _ in read_stock_csv(cli)] == _in_yuan(generate_market(50, 2))


def test_the_file_reads_as_a_pool_without_a_failed_row(tmp_path: Path) -> None:
    """A trial (2026-12-07): written in 亿, every row failed as a pool on 总市值 70.33 元 (and universe import refused
    the file), although the docstring promised it could be screened as one."""
    out = tmp_path / "m.csv"
    write_market_csv(out, 200, 5)
    pool = read_pool(out, InputSettings())
    assert len(pool.items) == 200 and not pool.failed_items, pool.failed_items[:1]


def test_larger_markets_and_limits() -> None:
    big = generate_market(10000, 1)
    assert len({s.code for s in big}) == 10000
    with pytest.raises(ValueError):
        generate_market(50000)


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SCREENER_UNIVERSE__PATH": str(tmp_path / "universe.sqlite"),
           "SCREENER_CONFIG": str(tmp_path / "absent.toml"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "screening", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def test_every_row_of_the_file_says_it_is_demo_data_and_a_users_file_does_not(tmp_path: Path) -> None:
    """A trial (s15/u4 B5): the written market read back as the user's own file, its invented figures screened with
    sources 'file' and no 演示数据. Its 数据来源 column marks every row, also after Excel re-saves it as GBK; the same
    table without that column, or with a real source in it, is the user's and is not marked."""
    out = tmp_path / "m.csv"
    write_market_csv(out, 40, 5)
    header = out.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[0] == DEMO_COLUMN
    pool = read_pool(out, InputSettings())
    assert all(i.stock is not None and i.stock.notes[:1] == [DEMO_NOTE] for i in pool.items)
    resaved = tmp_path / "resaved.csv"  # Excel on a Chinese Windows: GBK, CRLF
    resaved.write_bytes(out.read_text(encoding="utf-8").replace("\n", "\r\n").encode("gbk", errors="replace"))
    assert is_demo_pool(read_pool(resaved, InputSettings()))
    lines = out.read_text(encoding="utf-8").splitlines()
    own = tmp_path / "own.csv"
    own.write_text("\n".join(ln.split(",", 1)[1] for ln in lines) + "\n", encoding="utf-8")
    assert not is_demo_pool(read_pool(own, InputSettings()))
    sourced = tmp_path / "sourced.csv"
    sourced.write_text("\n".join([lines[0], *(ln.replace(DEMO_VALUE, "通达信") for ln in lines[1:])]) + "\n",
                       encoding="utf-8")
    assert not is_demo_pool(read_pool(sourced, InputSettings()))


@pytest.mark.slow  # one CLI screen, about 6 s on two cores
def test_screening_the_file_labels_every_output_demo_as_the_demo_data_is(tmp_path: Path) -> None:
    """Rows (演示数据 flag, sources demo), the stderr banner and summary line, the XLSX 演示数据 sheet and 汇总 row,
    and the chat summary: as a screen of the embedded demo data says it."""
    from openpyxl import load_workbook

    from bot.core.replies import summary_lines
    from bot.core.text import to_plain
    from screening.models import ResultRow

    market = tmp_path / "m.csv"
    write_market_csv(market, 30, 5)
    done = _cli(tmp_path, "screen", str(market), "--engine", "rules", "--format", "json", "--out", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert len(rows) == 30 and all(r["status"] == "ok" and "演示数据" in r["flags"] for r in rows)
    assert {v for r in rows for v in r["sources"].values()} == {"demo"}
    assert "演示数据 (demo data)" in done.stderr  # the banner
    assert "演示数据" in done.stderr.strip().splitlines()[-1]  # the summary line
    wb = load_workbook(tmp_path / "o" / "screen.xlsx")
    assert "演示数据" in wb.sheetnames
    assert ("数据性质", "演示数据 (非真实行情)") in list(wb["汇总"].iter_rows(min_row=2, values_only=True))
    result = [ResultRow.from_dict({**r, "index": n}) for n, r in enumerate(rows)]
    chat = [to_plain(ln) for ln in summary_lines(result, job_id="j" * 12, data="本地数据为空")]
    assert any(ln.startswith("📊 演示数据") for ln in chat), chat


def test_universe_import_refuses_the_file_and_stores_nothing(tmp_path: Path) -> None:
    """The universe is the market data every screen reads, labelled by provider and date; the invented figures on
    real-looking codes would stand in for real companies'. Refused whole, with what to do instead."""
    market = tmp_path / "m.csv"
    write_market_csv(market, 20, 5)
    done = _cli(tmp_path, "universe", "import", str(market))
    assert done.returncode == 2 and "演示数据" in done.stderr and "screen --demo" in done.stderr, done.stderr
    assert done.stdout == ""
    status = _cli(tmp_path, "universe", "status", "--format", "json")
    assert json.loads(status.stdout)["stocks"] == 0


def test_universe_import_refuses_a_copy_of_a_shipped_example_too(tmp_path: Path) -> None:
    """examples/ holds illustrative figures (invented names on real codes in risk_pool.csv): `screen` labels them
    演示数据 wherever they are, and an import of a copy stored them as the market's figures for every user."""
    copy = tmp_path / "mine.csv"
    copy.write_bytes((ROOT / "examples" / "risk_pool.csv").read_bytes())
    done = _cli(tmp_path, "universe", "import", str(copy))
    assert done.returncode == 2 and "演示数据" in done.stderr and "examples/" in done.stderr, done.stderr
    assert json.loads(_cli(tmp_path, "universe", "status", "--format", "json").stdout)["stocks"] == 0
