"""同花顺 writes 亏损 in the 市盈率(TTM) / 市盈率(动) cell of a loss-maker (data/pe_words.py, the twentieth session).

The row failed (``市盈率(TTM) 列的值不是数字``) even where the local data held the stock's negative PE-TTM: exactly
the loss-makers came back with no verdict. The word now reads as missing, as a '-' does, with its own note; the
local PE-TTM fills in (a positive one contradicts the file: 数据存疑, naming both), and with none the row fails
for want of a PE-TTM, saying what to write. No negative PE is made up, on screen or on import.
Run as a user runs them: ``universe import`` of a CSV into a private universe, then ``screen`` of a pool file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from screening.cli import main
from screening.config import InputSettings
from screening.data.pool import read_pool
from screening.data.universe import Universe
from screening.models import FLAG_DATA_DOUBT, NOTE_PE_LOSS, is_doubt

STORED = ("code,name,pe_ttm,roe,report_date\n000002.SZ,万科A,-4.2,16.0,2025-12-31\n"
          "600519.SH,贵州茅台,22.5,34.2,2025-12-31\n300750.SZ,宁德时代,,22.5,2025-12-31\n")
POOL = ("代码,名称,市盈率(TTM),市盈率(动),净资产收益率\n000002,万科A,亏损,亏损,16.0\n600519,贵州茅台,亏损,,34.2\n"
        "300750,宁德时代,亏,,22.5\n601318,中国平安,负值,,18\n000651,格力电器,8.1,亏损,20\n")


# 亏损股 and the 繁體 虧損 are seen in exports (a 繁體 page writes 市盈率TTM虧損); NFKC folds neither to 亏损
@pytest.mark.parametrize("cell", ["亏损", "亏", "负值", "\u3000亏损 ", "亏损股", "虧損"])
@pytest.mark.parametrize("header", ["市盈率(TTM)", "市盈率(动)"])
def test_a_loss_word_in_a_pe_cell_reads_as_missing_and_says_so(tmp_path: Path, cell: str, header: str) -> None:
    path = tmp_path / "p.csv"
    path.write_text(f"代码,名称,{header},净资产收益率\n600519,贵州茅台,{cell},16.5\n", encoding="utf-8")
    (item,) = read_pool(path, InputSettings()).items
    assert item.stock is not None and (item.stock.pe_ttm, item.stock.pe_dynamic) == (None, None)
    assert item.stock.notes[0].startswith(f"{NOTE_PE_LOSS}: 文件的 {header} 为 {cell.strip()!r} (亏损股), 按缺失读")


@pytest.fixture
def universe_path(tmp_path: Path) -> Iterator[Path]:
    os.environ["SCREENER_UNIVERSE__PATH"] = str(tmp_path / "u.sqlite")
    yield tmp_path / "u.sqlite"
    del os.environ["SCREENER_UNIVERSE__PATH"]


def _screen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, object]]:
    (tmp_path / "stored.csv").write_text(STORED, encoding="utf-8")
    (tmp_path / "pool.csv").write_text(POOL, encoding="utf-8")
    assert main(["universe", "import", str(tmp_path / "stored.csv"), "--as-of", "2026-11-20"]) == 0
    capsys.readouterr()
    assert main(["screen", str(tmp_path / "pool.csv"), "--engine", "rules", "--format", "json"]) == 0
    return {str(r["code"]): r for r in json.loads(capsys.readouterr().out)}


def test_a_loss_word_takes_the_local_pe_ttm_or_fails_saying_what_to_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], universe_path: Path) -> None:
    rows = _screen(tmp_path, capsys)
    vanke, moutai, catl, pingan, gree = (rows[c] for c in ("000002.SZ", "600519.SH", "300750.SZ", "601318.SH",
                                                            "000651.SZ"))
    # the local PE-TTM is negative: the file's word agrees, the row is 中 on it and says where the PE came from
    assert (vanke["status"], vanke["risk_level"], vanke["reason"]) == ("ok", "中", "PE-TTM≤0(近12月亏损)")
    assert (vanke["pe_ttm"], vanke["sources"]["pe_ttm"]) == (-4.2, "universe:import@2026-11-20")  # type: ignore[index]
    assert f"{NOTE_PE_LOSS}: 文件的 市盈率(TTM) 为 '亏损' (亏损股), 按缺失读, PE-TTM 取本地数据" in vanke["flags"]
    assert not [f for f in vanke["flags"] if is_doubt(f)]  # type: ignore[attr-defined]
    # the local PE-TTM is positive: the file says loss, the data profit; screened on the data's, visibly doubtful
    assert (moutai["status"], moutai["pe_ttm"]) == ("ok", 22.5)
    (doubt,) = [f for f in moutai["flags"] if f.startswith(FLAG_DATA_DOUBT)]  # type: ignore[attr-defined]
    assert "文件的 市盈率(TTM) 为 '亏损'" in doubt and "本地数据 (import@2026-11-20) 的 PE-TTM 为 22.5" in doubt
    # no local PE-TTM (the stock stored without one, or not at all): the row fails, nothing guessed
    for row in (catl, pingan):
        assert (row["status"], row["pe_ttm"]) == ("failed", None)
        assert "缺少数据: PE-TTM" in str(row["error"]) and "写为亏损" in str(row["error"])
        assert "填入实际的负市盈率" in str(row["error"]) and "不猜" in str(row["error"])
    # 市盈率(动) 亏损 beside a PE-TTM (it failed the row too): the row screens on its PE-TTM and says so
    assert (gree["status"], gree["risk_level"], gree["pe_ttm"]) == ("ok", "低", 8.1)
    assert any(f.startswith(f"{NOTE_PE_LOSS}: 文件的 市盈率(动) 为") for f in gree["flags"])  # type: ignore[attr-defined]


def test_importing_loss_words_stores_no_pe_and_refuses_a_contradicted_row(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], universe_path: Path) -> None:
    (tmp_path / "stored.csv").write_text(STORED, encoding="utf-8")
    (tmp_path / "pool.csv").write_text(POOL, encoding="utf-8")
    assert main(["universe", "import", str(tmp_path / "stored.csv"), "--as-of", "2026-11-20"]) == 0
    capsys.readouterr()
    assert main(["universe", "import", str(tmp_path / "pool.csv"), "--as-of", "2026-11-21"]) == 0
    err = capsys.readouterr().err
    assert "未导入 pool.csv, 第3行 (600519.SH): 数据存疑: 文件的 市盈率(TTM) 为 '亏损'" in err
    stored = Universe.load(universe_path)
    pe = {c: s.pe_ttm for c in ("000002.SZ", "600519.SH", "300750.SZ", "601318.SH") if (s := stored.get(c))}
    assert pe == {"000002.SZ": -4.2, "600519.SH": 22.5, "300750.SZ": None, "601318.SH": None}
    pingan = stored.get("601318.SH")
    assert pingan is not None and pingan.roe == 18.0  # the row's other figures are imported
