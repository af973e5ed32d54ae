"""A code listed twice with other figures: both rows are screened and the worse verdict stands (the twenty-first
session; data/pool_conflict.py, screen/readings.py).

Before, the first row was screened and the later one failed as its duplicate: ROE 30.2 / ST 否 came back 低/100
beside ROE 3.02 / ST 是, the verdict resting on whichever row came first. Now the higher risk wins, at equal risk
the lower score, whichever row holds it; the stock is still one row of the output, whose flags name both rows
and the values they differ in, and stderr names the later row. The same for a CSV and an .xlsx.
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from screening.cli import main
from screening.config import BatcherSettings, EngineSettings, InputSettings
from screening.data.pool import read_pool
from screening.engines.rules_engine import RulesEngine
from screening.models import NOTE_DUPLICATE_CONFLICT, PoolItem, is_doubt
from screening.screen.pipeline import Prepared, Screener

HEADER = ["代码", "名称", "市盈率(TTM)", "ROE(%)", "ST"]
MOUTAI_KIND, MOUTAI_ST = ["600519", "贵州茅台", 25.1, 30.2, "否"], ["600519", "贵州茅台", 25.1, 3.02, "是"]
PINGAN_12, PINGAN_10 = ["000001", "平安银行", 5.2, 12.1, "否"], ["000001", "平安银行", 5.2, 10.1, "否"]


def _write(path: Path, rows: list[list[object]]) -> Path:
    if path.suffix == ".csv":
        path.write_text("\n".join(",".join(map(str, r)) for r in [HEADER, *rows]) + "\n", encoding="utf-8")
        return path
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    for row in [HEADER, *rows]:
        ws.append(row)
    wb.save(path)
    return path


# (first row, later row, the row the verdict rests on, its risk/score and ROE, what the flag says differs)
CASES = [
    (MOUTAI_KIND, MOUTAI_ST, 3, "高", 3.02, "ROE 30.2 / 3.02; ST 否 / 是"),  # the kinder row first: before, 低/100
    (MOUTAI_ST, MOUTAI_KIND, 2, "高", 3.02, "ROE 3.02 / 30.2; ST 是 / 否"),
    (PINGAN_12, PINGAN_10, 3, "中", 10.1, "ROE 12.1 / 10.1"),  # equal risk: the lower score (10.1 scores lower)
    (PINGAN_10, PINGAN_12, 2, "中", 10.1, "ROE 10.1 / 12.1"),
]


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
@pytest.mark.parametrize(("first", "later", "used", "risk", "roe", "differ"), CASES)
def test_the_worse_of_two_conflicting_rows_decides(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, suffix: str,
        first: list[object], later: list[object], used: int, risk: str, roe: float, differ: str) -> None:
    monkeypatch.setenv("SCREENER_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(tmp_path / "u.sqlite"))
    path = _write(tmp_path / f"dup{suffix}", [first, later])
    assert main(["screen", str(path), "--engine", "rules", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    (row,) = json.loads(out)  # one row per code: the later row is a reading of it, not a failed row
    assert (row["status"], row["row"], row["risk_level"], row["roe"]) == ("ok", 2, risk, roe)
    conflict, picked = [f for f in row["flags"] if f.startswith(NOTE_DUPLICATE_CONFLICT)]
    assert f"第 2 行与第 3 行同一代码数据不同 (第 2 行 / 第 3 行: {differ}); 两行都筛选" in conflict
    assert is_doubt(conflict) and picked.startswith(f"{NOTE_DUPLICATE_CONFLICT}: 按第 {used} 行评级")
    assert f"第 2 行 {risk}/" in picked or f"第 3 行 {risk}/" in picked
    assert "第3行与第2行" in err  # the later row is named where every skipped or merged row is


def test_a_reading_travels_with_its_item(tmp_path: Path) -> None:
    """The queue hands items to the worker as JSON: the second reading must arrive, or the worker screens one."""
    (item,) = read_pool(_write(tmp_path / "dup.csv", [MOUTAI_KIND, MOUTAI_ST]), InputSettings()).items
    back = PoolItem.from_dict(json.loads(json.dumps(item.to_dict(), ensure_ascii=False)))
    assert back.readings == item.readings and [(r, s.roe, s.st) for r, s in back.readings] == [(3, 3.02, True)]


def test_import_refuses_both_rows_and_counts_them(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """import stores figures for every later screen: neither row is stored, the line names both, both are counted."""
    monkeypatch.setenv("SCREENER_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(tmp_path / "u.sqlite"))
    path = _write(tmp_path / "dup.csv", [MOUTAI_KIND, PINGAN_12, MOUTAI_ST])
    assert main(["universe", "import", str(path), "--as-of", "2026-12-04"]) == 0
    err = capsys.readouterr().err
    assert "未导入 dup.csv, 第2行 (600519.SH): 重复行不一致: 第 2 行与第 4 行同一代码数据不同" in err
    # what import does, not what screen does: it said 两行都筛选, 按风险较高的一行评级 (a trial, 2026-12-07)
    assert "ST 否 / 是); 两行都未导入: 不猜哪一行的数字正确; 改正文件 (只留正确的一行) 后再导入" in err
    assert "筛选" not in err and "评级" not in err
    assert "imported 1 stocks" in err and "2 rows not imported" in err


def test_a_second_prepare_of_the_item_gives_the_same_verdict(tmp_path: Path) -> None:
    """The worker prepares a job again one by one when its batch raised: the same reading, one note."""
    (item,) = read_pool(_write(tmp_path / "dup.csv", [MOUTAI_KIND, MOUTAI_ST]), InputSettings()).items
    screener = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings())
    first, again = screener.prepare(item), screener.prepare(item)
    assert isinstance(first, Prepared) and isinstance(again, Prepared)
    assert (first.verdict.risk, again.verdict.risk) == ("高", "高") and item.stock is not None
    assert [f for f in again.verdict.flags if f.startswith(f"{NOTE_DUPLICATE_CONFLICT}: 按第")] == [
        f for f in first.verdict.flags if f.startswith(f"{NOTE_DUPLICATE_CONFLICT}: 按第 3 行评级")]


@pytest.mark.parametrize("later_has_text", [False, True])
def test_a_later_rows_text_is_read_whichever_reading_wins(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        later_has_text: bool) -> None:
    """Text is the company's, not one row's: the first row's figures won (ST 是) and the later row's 立案 title
    was neither shown nor given to the model, as the first reading had only its own row's text."""
    monkeypatch.setenv("SCREENER_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(tmp_path / "u.sqlite"))
    title = "2026-11-20 关于收到中国证券监督管理委员会《立案告知书》的公告"
    st, kind = ",".join(map(str, MOUTAI_ST)), ",".join(map(str, MOUTAI_KIND))
    rows = [f"{st},", f"{kind},{title}"] if later_has_text else [f"{kind},{title}", f"{st},"]
    path = tmp_path / "dup.csv"
    path.write_text("\n".join([",".join([*HEADER, "公告标题"]), *rows]) + "\n", encoding="utf-8")
    assert main(["screen", str(path), "--engine", "rules", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["risk_level"] == "高" and "ST" in row["flags"]  # the ST reading decides either way
    assert any(s["signal"] == "立案调查" for s in row["signals"]), row["signals"]
