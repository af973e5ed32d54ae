"""A ROE column in percent (15.2, 18.0) with one value under 1 written as a fraction (0.152: a cell formatted
as a percent in Excel exports its stored number) read 0.152 as 0.152 % and raised the risk without a word.

Such a row is flagged 百分比存疑 (counted as 数据存疑), naming the column and the value; the value is never
changed. A value under 1 written as its neighbours are (0.45 beside 15.23) may be a real ROE under 1 % or a
fraction from an export that writes two decimals everywhere (0.25 beside 34.20): since the eighteenth session it
is flagged too, with a note saying both readings (it used to pass, and a 25 % ROE read 0.25 % gave 高 unflagged);
nothing in a column that marks its percents with % is.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from screening.config import BatcherSettings, EngineSettings, InputSettings, Settings, UniverseSettings
from screening.data.load import load_file
from screening.data.pool import read_pool
from screening.data.universe import Universe
from screening.engines.rules_engine import RulesEngine
from screening.models import NOTE_PERCENT_DOUBT, Pool, is_doubt
from screening.output.report import summary
from screening.screen.pipeline import Screener

NAMES = {"600519": "贵州茅台", "000858": "五粮液", "000651": "格力电器", "600036": "招商银行"}


def _csv(tmp_path: Path, header: str, values: list[str]) -> Path:
    path = tmp_path / "pool.csv"
    rows = [f"{code},{NAMES[code]},{v}" for code, v in zip(NAMES, values, strict=False)]
    path.write_text("\n".join([f"代码,名称,{header}", *rows]) + "\n", encoding="utf-8")
    return path


def _doubts(pool: Pool) -> dict[str, list[str]]:
    return {i.stock.code: [n for n in i.stock.notes if n.startswith(NOTE_PERCENT_DOUBT)]
            for i in pool.items if i.stock is not None and any(n.startswith(NOTE_PERCENT_DOUBT) for n in i.stock.notes)}


def test_a_fraction_among_percents_is_flagged_on_its_row(tmp_path: Path) -> None:
    pool = read_pool(_csv(tmp_path, "ROE", ["15.2", "0.152", "18.0"]), InputSettings())
    assert [i.stock.roe for i in pool.items if i.stock] == [15.2, 0.152, 18.0]  # never rescaled
    assert _doubts(pool) == {"000858.SZ": [
        "百分比存疑: ROE 0.152 与同列其他行 (如 15.2) 量级不同: 可能是百分比格式导出的小数"]}
    (warning,) = [w for w in pool.warnings if NOTE_PERCENT_DOUBT in w.message]
    assert "第3行" in warning.message and "0.152 = 15.2%" in warning.message and "数值未改动" in warning.message
    assert (warning.column, warning.value) == ("ROE", "0.152")


def test_the_flag_reaches_the_screened_row_and_the_totals(tmp_path: Path) -> None:
    u_path = tmp_path / "u.sqlite"
    settings = Settings().model_copy(update={"universe": UniverseSettings(path=str(u_path))})
    path = tmp_path / "p.csv"
    path.write_text("代码,名称,市盈率(TTM),净资产收益率\n600519,贵州茅台,22.5,15.2\n000858,五粮液,15.1,0.152\n"
                    "000651,格力电器,7.5,18.0\n", encoding="utf-8")
    pool = load_file(path, settings, Universe.load(u_path))
    rows = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(pool.items)
    (flag,) = [f for r in rows if r.code == "000858.SZ" for f in r.flags if f.startswith(NOTE_PERCENT_DOUBT)]
    assert is_doubt(flag) and "净资产收益率 0.152" in flag and "如 15.2" in flag
    assert summary(rows)["data_doubt"] == 1


@pytest.mark.parametrize(("values", "doubted"), [
    (["15.2", "0.152", "18.0", "0.18"], {"000858.SZ", "600036.SH"}),  # 0.18 of 18% lost its trailing zero
    (["15", "0.2", "18"], {"000858.SZ"}),
    (["-12.5", "-0.125", "18.0"], {"000858.SZ"}),  # a loss's ROE exported as a fraction too
    (["15.23", "0.45", "18.04"], {"000858.SZ"}),  # written as the exporter writes every value: either reading
    (["34.20", "0.25", "22.50", "14.50"], {"000858.SZ"}),  # fixed two decimals: a 25 % ROE or a 0.25 % one
    (["34.2", "0.3", "22.5"], {"000858.SZ"}),
    (["15.2", "0", "18.0"], set()),  # 0 is 0 in any unit
    (["15.2%", "0.152%", "18%"], set()),  # every cell says it is a percent: 0.152 % is meant
])
def test_which_values_under_one_are_doubted(tmp_path: Path, values: list[str], doubted: set[str]) -> None:
    assert set(_doubts(read_pool(_csv(tmp_path, "ROE", values), InputSettings()))) == doubted


def test_a_column_all_under_one_keeps_the_whole_column_rule(tmp_path: Path) -> None:
    pool = read_pool(_csv(tmp_path, "ROE", ["0.152", "0.246", "0.18"]), InputSettings())
    assert all(notes == ["百分比存疑: ROE 整列小于 1"] for notes in _doubts(pool).values()) and len(_doubts(pool)) == 3
    assert len([w for w in pool.warnings if NOTE_PERCENT_DOUBT in w.message or "都小于 1" in w.message]) == 1


def test_a_column_marking_some_percents_keeps_its_own_note(tmp_path: Path) -> None:
    """15.2% marked: the unmarked 0.152 is named by the mark, once, not by both rules."""
    pool = read_pool(_csv(tmp_path, "ROE", ["15.2%", "0.152", "18.0"]), InputSettings())
    assert _doubts(pool) == {"000858.SZ": ["百分比存疑: ROE 0.152 没有 %, 同列其他值带 %"]}


def test_a_change_column_is_never_doubted(tmp_path: Path) -> None:
    """涨跌幅: a move of 0.152 % beside 3.2 % is every day's."""
    assert _doubts(read_pool(_csv(tmp_path, "涨跌幅", ["3.2", "0.152", "-1.5"]), InputSettings())) == {}


def test_an_xlsx_number_in_a_general_cell_among_percents(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["代码", "名称", "ROE"])
    for code, roe in [("600519", 15.2), ("000858", 0.152), ("000651", 18.0)]:
        ws.append([code, NAMES[code], roe])
    wb.save(tmp_path / "p.xlsx")
    assert set(_doubts(read_pool(tmp_path / "p.xlsx", InputSettings()))) == {"000858.SZ"}


def test_a_fraction_with_its_neighbours_decimals_is_flagged_through_the_cli(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """F10 of the eighteenth session's test: 0.25 among 34.20 and 22.50 was screened 0.25% → 高, with no flag."""
    import json
    import os

    from screening.cli import main
    path = tmp_path / "frac.csv"
    path.write_text("代码,名称,市盈率(TTM),ROE\n600519,贵州茅台,22.50,34.20\n000858,五粮液,16.00,0.25\n"
                    "300750,宁德时代,24.80,22.50\n", encoding="utf-8")
    os.environ["SCREENER_UNIVERSE__PATH"] = str(tmp_path / "u.sqlite")
    try:
        rc = main(["screen", str(path), "--engine", "rules", "--format", "json"])
    finally:
        del os.environ["SCREENER_UNIVERSE__PATH"]
    out, err = capsys.readouterr()
    rows = {r["code"]: r for r in json.loads(out)}
    assert rc == 0 and rows["000858.SZ"]["roe"] == 0.25  # never rescaled
    (flag,) = [f for f in rows["000858.SZ"]["flags"] if f.startswith(NOTE_PERCENT_DOUBT)]
    assert "ROE 0.25 小于 1" in flag and "如 34.2" in flag and is_doubt(flag)
    assert not any(f.startswith(NOTE_PERCENT_DOUBT) for c in ("600519.SH", "300750.SZ") for f in rows[c]["flags"])
    assert "第3行" in err and "'ROE'" in err and "数值未改动" in err  # the stderr warning names column and row
