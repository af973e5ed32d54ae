"""Plausible ranges and units per column (issue 15.3) and values that overflow after unit scaling
(issue 16.1): the cell fails with the reason, the other rows go on, nothing non-finite gets through."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from screening.config import InputSettings
from screening.data.pool import NUMERIC_FIELDS, read_pool
from screening.data.value_bounds import BOUNDS
from screening.models import Pool

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def settings() -> InputSettings:
    return InputSettings()


def pool_of(tmp_path: Path, settings: InputSettings, header: str, *rows: str) -> Pool:
    path = tmp_path / "p.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return read_pool(path, settings)


def test_every_numeric_field_has_a_range_with_a_reason() -> None:
    assert set(BOUNDS) == set(NUMERIC_FIELDS)
    assert all(b.low < b.high and b.why for b in BOUNDS.values())


def test_money_unit_in_a_roe_column_fails_with_a_hint(tmp_path: Path, settings: InputSettings) -> None:
    pool = pool_of(tmp_path, settings, "代码,名称,ROE,市盈率(TTM)", "600519,贵州茅台,12.5亿,25", "000001,平安银行,10,5")
    err = pool.items[0].error
    assert err is not None and (err.row, err.column, err.value) == (2, "ROE", "12.5亿")
    assert "是百分比" in err.message and "亿" in err.message
    assert pool.items[1].stock is not None and pool.items[1].stock.roe == 10


@pytest.mark.parametrize(
    ("header", "cell", "says"),
    [
        ("ROE", "1500", "超出合理范围"),  # ROE in percent: ±1000% at most
        ("ROE", "-1e308", "超出合理范围"),  # finite, but (15-ROE)*5 would overflow the score
        ("市盈率(TTM)", "3.5亿", "单元格中的 亿 放大了它"),
        ("市盈率(TTM)", "25%", "不是百分比"),
        ("每股收益", "2.5万", "超出合理范围"),  # a company total, not per share
        ("净利润", "1e14", "超出合理范围"),
    ],
)
def test_values_outside_their_columns_range_fail(tmp_path: Path, settings: InputSettings, header: str, cell: str,
                                                 says: str) -> None:
    pool = pool_of(tmp_path, settings, f"代码,{header}", f"600519,{cell}", "000001,")
    err = pool.items[0].error
    assert err is not None and err.column == header and err.value == cell and says in err.message, err
    assert pool.items[1].stock is not None  # the other row goes on


@pytest.mark.parametrize(
    ("header", "cell"),
    [("涨跌幅", "-120"),  # a price cannot fall more than 100%
     ("最新价", "-3"), ("市净率", "2e6"), ("市盈率(动)", "2e9")],
)
def test_a_quote_cell_outside_its_range_is_dropped_and_said_not_the_row(tmp_path: Path, settings: InputSettings,
                                                                        header: str, cell: str) -> None:
    """No rule reads these columns: the row is screened on its PE-TTM and ROE, the cell named on it (until
    2026-12-08 the row failed, and a 3% ROE (高) came back with no verdict for a 涨跌幅 of '暂无')."""
    pool = pool_of(tmp_path, settings, f"代码,市盈率(TTM),ROE,{header}", f"600519,20,3,{cell}")
    stock = pool.items[0].stock
    assert stock is not None and (stock.pe_ttm, stock.roe) == (20.0, 3.0), pool.items[0].error
    assert any(n.startswith(f"已忽略: {header} 值 {cell!r}: ") and "超出合理范围" in n for n in stock.notes)


@pytest.mark.parametrize(("header", "cell", "shown"), [("ROE", "-1e308", "-1×10³⁰⁸"), ("ROE", "5000", "5,000")])
def test_a_figure_past_its_range_is_named_without_scientific_notation(tmp_path: Path, settings: InputSettings,
                                                                      header: str, cell: str, shown: str) -> None:
    err = pool_of(tmp_path, settings, f"代码,{header}", f"600519,{cell}").items[0].error
    assert err is not None and f"{header} {shown} " in err.message and "e+" not in err.message, err


@pytest.mark.parametrize(
    ("header", "cell", "field", "value"),
    [
        ("ROE", "-35.2", "roe", -35.2), ("ROE(%)", "32.78%", "roe", 32.78), ("涨跌幅", "20.01%", "change_pct", 20.01),
        ("市盈率(TTM)", "-12.5", "pe_ttm", -12.5), ("市盈率(TTM)", "12000", "pe_ttm", 12000.0),
        ("每股收益", "68.64元", "eps", 68.64), ("最新价", "0", "price", 0.0),
        ("总市值(亿)", "18400", "market_cap", 1.84e12),
        ("总市值", "2.1万亿", "market_cap", 2.1e12), ("净利润", "-3.2亿", "net_profit_y1", -3.2e8),
        ("市净率", "-1.5", "pb", -1.5),
    ],
)
def test_real_extremes_pass(tmp_path: Path, settings: InputSettings, header: str, cell: str, field: str,
                            value: float) -> None:
    stock = pool_of(tmp_path, settings, f"代码,{header}", f"600519,{cell}").items[0].stock
    assert stock is not None and getattr(stock, field) == pytest.approx(value)


@pytest.mark.parametrize(
    ("header", "cell"), [("ROE(亿)", "1e301"), ("净利润(万亿)", "-1e300")])
def test_overflow_after_unit_scaling_is_a_failed_cell(tmp_path: Path, settings: InputSettings, header: str,
                                                      cell: str) -> None:
    pool = pool_of(tmp_path, settings, f"代码,{header}", f"600519,{cell}", "000001,")
    err = pool.items[0].error
    assert err is not None and err.column == header and err.value == cell and "溢出" in err.message
    for item in pool.ok_items:
        assert item.stock is not None
        assert all(math.isfinite(getattr(item.stock, f)) for f in NUMERIC_FIELDS if getattr(item.stock, f) is not None)


def test_percent_column_with_a_money_header_unit(tmp_path: Path, settings: InputSettings) -> None:
    err = pool_of(tmp_path, settings, "代码,ROE(亿)", "600519,12").items[0].error
    assert err is not None and "表头 'ROE(亿)'" in err.message and "是百分比" in err.message


def test_overflowing_file_does_not_take_the_job_down(tmp_path: Path) -> None:
    """The CLI run of issue 16.1: exit 0, the bad rows failed with the reason, the good row scored."""
    path = tmp_path / "inf.csv"
    path.write_text("代码,名称,ROE(亿),市盈率(TTM)\n600519,贵州茅台,1e301,25\n000001,平安银行,-1e308,5\n"
                    "300750,宁德时代,,20\n", encoding="utf-8")
    env = {**os.environ, "SCREENER_UNIVERSE__PATH": str(tmp_path / "u.sqlite"),
           "SCREENER_CONFIG": str(tmp_path / "absent.toml"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    p = subprocess.run([sys.executable, "-m", "screening", "screen", str(path), "--engine", "rules", "--format",
                        "json", "--demo"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["status"] for r in rows] == ["failed", "failed", "ok"]
    assert all("溢出" in r["error"] and "ROE(亿)" in r["error"] for r in rows[:2])


@pytest.mark.parametrize(
    ("header", "cell", "says"),
    [
        ("总市值", "12%", "不是百分比"),
        ("总市值", "18400", "若该列以万或亿计, 请在表头写明单位"),
        ("总市值", "1e17", "1×10¹⁷"),  # named without scientific notation, as a failed cell's reason is
        ("总市值(亿)", "1e301", "溢出"),
        ("总市值", "abc", "不是数字"),
    ],
)
def test_a_market_cap_no_rule_reads_is_dropped_not_the_row(tmp_path: Path, settings: InputSettings, header: str,
                                                           cell: str, says: str) -> None:
    """总市值 feeds no rule and no file PE-TTM is derived from it: a cell of it that cannot be read (a column in 亿
    with no unit in its header) is dropped with a note naming column and value, and the row is screened on its
    PE-TTM and ROE (the eighteenth session; it failed the row, and such a file came back with no verdict)."""
    pool = pool_of(tmp_path, settings, f"代码,市盈率(TTM),ROE,{header}", f"600519,22.5,34.2,{cell}",
                   "000001,5.1,10.2,")
    stock = pool.items[0].stock
    assert stock is not None and stock.market_cap is None and (stock.pe_ttm, stock.roe) == (22.5, 34.2)
    (note,) = [n for n in stock.notes if n.startswith("已忽略")]
    assert f"{header} 值 {cell!r}" in note and says in note and "e+" not in note
    (warning,) = [w for w in pool.warnings if w.column == header]
    assert "第2行的值已忽略" in warning.message and says in warning.message
