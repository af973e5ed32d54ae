"""What a user trial of pool files found: a mixed-percent ROE column, rows wider than their header,
figure columns dropped without a word. Files are real CSV/xlsx written under tmp_path; the last tests
run the CLI on them against a universe filled by `universe import`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from screening.config import InputSettings
from screening.data.pool import map_header, read_pool
from screening.models import NOTE_PERCENT_DOUBT, NOTE_QUARTER_ROE, Pool, PoolRejected

ROOT = Path(__file__).resolve().parent.parent


def _read(tmp_path: Path, name: str, text: str) -> Pool:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return read_pool(path, InputSettings())


def _notes(pool: Pool) -> dict[str, list[str]]:
    return {i.stock.code: i.stock.notes for i in pool.items if i.stock}


def _doubted(pool: Pool) -> set[str]:
    return {code for code, notes in _notes(pool).items() if any(n.startswith(NOTE_PERCENT_DOUBT) for n in notes)}


def _mixed_xlsx(path: Path) -> Path:
    """茅台 0.342 under 0.00%, 五粮液 0.246 General, 格力 the text "25%", 宁德 0.225 General."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["代码", "名称", "ROE"])
    for code, name, roe, fmt in [("600519", "贵州茅台", 0.342, "0.00%"), ("000858", "五粮液", 0.246, None),
                                 ("000651", "格力电器", "25%", None), ("300750", "宁德时代", 0.225, None)]:
        ws.append([code, name, roe])
        if fmt:
            ws.cell(row=ws.max_row, column=3).number_format = fmt
    wb.save(path)
    return path


# ---------------------------------------------------------------- 1. a column that marks some of its percents


def test_mixed_xlsx_column_flags_each_unmarked_fraction(tmp_path: Path) -> None:
    pool = read_pool(_mixed_xlsx(tmp_path / "mixed.xlsx"), InputSettings())
    roe = {i.stock.code: i.stock.roe for i in pool.items if i.stock}
    assert roe == {"600519.SH": 34.2, "000858.SZ": 0.246, "000651.SZ": 25.0, "300750.SZ": 0.225}  # never rescaled
    assert _doubted(pool) == {"000858.SZ", "300750.SZ"}
    warning = next(w for w in pool.warnings if NOTE_PERCENT_DOUBT in w.message)
    assert "第3、5行" in warning.message and warning.column == "ROE"


def test_mixed_csv_column_flags_the_unmarked_fraction(tmp_path: Path) -> None:
    text = "代码,名称,ROE\n600519,贵州茅台,34.2%\n000858,五粮液,0.246\n000651,格力电器,25\n"
    pool = _read(tmp_path, "mixed.csv", text)
    assert _doubted(pool) == {"000858.SZ"}
    assert any("第3行" in w.message and w.column == "ROE" for w in pool.warnings)


def test_unmarked_columns_keep_the_whole_column_rule(tmp_path: Path) -> None:
    # no cell marked: a small value beside values >= 1 is doubted on its row whatever its decimals (0.2 beside
    # 34.2 since the eighteenth session: a real small ROE or a fraction; 0.246 beside 34.2 by its extra decimals)
    # (row_checks.flag_fractions); all under 1: every row
    pool = _read(tmp_path, "plain.csv", "代码,ROE\n600519,34.2\n000858,0.2\n")
    assert _doubted(pool) == {"000858.SZ"}
    pool = _read(tmp_path, "mixed.csv", "代码,ROE\n600519,34.2\n000858,0.246\n")
    assert _doubted(pool) == {"000858.SZ"}
    pool = _read(tmp_path, "fractions.csv", "代码,ROE\n600519,0.342\n000858,0.246\n")
    assert _doubted(pool) == {"600519.SH", "000858.SZ"}
    # every cell marked: 0.5% is a marked small ROE, and 0 is 0 in any unit
    pool = _read(tmp_path, "marked.csv", "代码,ROE\n600519,34.2%\n000858,0.5%\n000651,0\n")
    assert _doubted(pool) == set()


# ---------------------------------------------------------------- 2. rows wider than the header

SHIFTED = "代码,名称,最新价,市盈率(TTM),ROE\n600519,贵州茅台,1,466.50,22.5,34.2\n000858,五粮液,130.2,15.2,24.6\n"


def test_a_row_split_by_a_thousands_comma_fails_naming_the_cause(tmp_path: Path) -> None:
    pool = _read(tmp_path, "shifted.csv", SHIFTED)
    first, second = pool.items
    assert first.stock is None and first.error is not None
    assert first.error.row == 2 and first.error.value == "34.2" and first.name == "贵州茅台"
    assert "'1' 和其后的 '466.50' 多半是同一个数 1,466.50" in first.error.message
    assert "加引号" in first.error.message and "千位分隔符" in first.error.message
    assert second.stock is not None and second.stock.pe_ttm == 15.2


def test_every_row_split_alike_fails_too(tmp_path: Path) -> None:
    pool = _read(tmp_path, "all.csv", "代码,最新价,ROE\n600519,1,466.5,34.2\n000858,1,302.0,24.6\n")
    assert all(i.stock is None for i in pool.items)
    pool = _read(tmp_path, "one.csv", "代码,最新价,ROE\n600519,1,466.5,34.2\n")  # one row: no column to infer
    assert pool.items[0].stock is None


def test_an_unheaded_column_and_trailing_tabs_are_fine(tmp_path: Path) -> None:
    pool = _read(tmp_path, "unheaded.csv", "代码,名称,ROE\n600519,贵州茅台,34.2,备注\n000858,五粮液,24.6,备注\n")
    assert all(i.stock is not None for i in pool.items)
    assert any("最后一个表头列之后" in w.message for w in pool.warnings)
    pool = _read(tmp_path, "ths.xls", "代码\t名称\tROE\t\n600519\t贵州茅台\t34.2\t\n000858\t五粮液\t24.6\t\t\n")
    assert all(i.stock is not None for i in pool.items) and not pool.warnings


# ---------------------------------------------------------------- 3. figure columns dropped without a word


@pytest.mark.parametrize(
    ("header", "field"),
    [
        ("证券名称", "name"), ("市盈率TTM(倍)", "pe_ttm"), ("PE(倍)", "pe_ttm"), ("市净率(倍)", "pb"),
        ("净资产收益率(加权)", "roe"), ("市盈率(pe,ttm)[20261204]", "pe_ttm"),
        ("净资产收益率roe(加权,公布值)[20261204]", "roe"), ("净资产收益率roe(加权)[20251231]", "roe"),
        ("总市值[20261204]", "market_cap"),
        ("最新涨跌幅[20261204]", "change_pct"),
        # ambiguous or not the rules' figure: left unmapped (and warned about, below)
        ("市盈率(倍)", None), ("ROE(TTM)", None), ("ROE(倍)", None), ("市盈率(静)", None), ("PEG", None),
    ],
)
def test_header_aliases(header: str, field: str | None) -> None:
    assert map_header(header)[0] == field


def test_lookalike_headers_are_named_with_the_header_to_use(tmp_path: Path) -> None:
    pool = _read(tmp_path, "look.csv", "代码,中文名称,市盈率(倍),ROE(TTM),PEG\n600519,贵州茅台,22.5,34.2,1.2\n")
    said = {w.column: w.message for w in pool.warnings}
    assert "请把表头改为 '市盈率(TTM)'" in said["市盈率(倍)"] and "请把表头改为 '净资产收益率(%)'" in said["ROE(TTM)"]
    assert "请把表头改为 '名称'" in said["中文名称"] and "PEG" not in said
    # a lookalike beside the real column feeds nothing the rules lack: no warning
    pool = _read(tmp_path, "both.csv", "代码,市盈率(TTM),市盈率(静)\n600519,22.5,25.0\n")
    assert not pool.warnings


def test_the_trial_headers_feed_their_fields(tmp_path: Path) -> None:
    pool = _read(tmp_path, "h.csv", "证券代码,证券名称,市盈率TTM(倍),净资产收益率(加权)\n600519,贵州茅台,22.5,34.2\n")
    stock = pool.items[0].stock
    assert stock is not None and (stock.name, stock.pe_ttm, stock.roe) == ("贵州茅台", 22.5, 34.2)
    # i问财, its bracketed commas unquoted in a CSV: the header cells are joined back, with a warning
    header = "股票代码,股票简称,市盈率(pe,ttm)[20261204],净资产收益率roe(加权,公布值)[20261204]"
    pool = _read(tmp_path, "iwencai.csv", header + "\n600519.SH,贵州茅台,22.5,34.2\n")
    stock = pool.items[0].stock
    assert stock is not None and (stock.pe_ttm, stock.roe) == (22.5, 34.2) and not stock.notes
    assert any("括号里的逗号没有加引号" in w.message for w in pool.warnings)


def test_a_quarter_stamped_roe_is_flagged(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["股票代码", "股票简称", "净资产收益率roe(加权,公布值)[20260930]"])
    ws.append(["600519.SH", "贵州茅台", 24.6])
    wb.save(tmp_path / "q3.xlsx")
    stock = read_pool(tmp_path / "q3.xlsx", InputSettings()).items[0].stock
    assert stock is not None and stock.roe == 24.6
    assert any(n.startswith(NOTE_QUARTER_ROE) and "三季报" in n for n in stock.notes)


def test_a_folder_is_named_as_a_folder(tmp_path: Path) -> None:
    with pytest.raises(PoolRejected, match="是文件夹, 不是文件"):
        read_pool(tmp_path, InputSettings())


# ---------------------------------------------------------------- the CLI on the trial's files


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "SCREENER_UNIVERSE__PATH": str(tmp_path / "u.sqlite"),
           "SCREENER_CONFIG": str(ROOT / "config.toml")}
    universe = tmp_path / "universe.csv"
    universe.write_text("code,name,industry,pe_ttm,roe,eps,st,net_profit_y1,net_profit_y2,report_date\n"
                        "600519.SH,贵州茅台,食品饮料,22.5,34.2,68.6,false,862.3,747.3,2025-12-31\n"
                        "000858.SZ,五粮液,食品饮料,15.2,24.6,8.2,false,318.0,302.1,2025-12-31\n"
                        "000651.SZ,格力电器,家用电器,7.5,25.0,5.2,false,290.0,270.0,2025-12-31\n"
                        "300750.SZ,宁德时代,电力设备,24.8,22.5,11.6,false,507.4,441.2,2025-12-31\n", encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "screening", "universe", "import", str(universe)],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    return env


def _screen(path: Path, env: dict[str, str]) -> tuple[dict[str, dict[str, object]], str]:
    cmd = [sys.executable, "-m", "screening", "screen", str(path), "--engine", "rules", "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    return {str(r["code"]): r for r in json.loads(p.stdout)}, p.stderr


def test_cli_on_the_trial_files(tmp_path: Path, cli_env: dict[str, str]) -> None:
    rows, err = _screen(_mixed_xlsx(tmp_path / "mixed.xlsx"), cli_env)
    assert any(str(f).startswith(NOTE_PERCENT_DOUBT) for f in rows["000858.SZ"]["flags"])  # type: ignore[attr-defined]
    assert "第3、5行" in err
    shifted = tmp_path / "shifted.csv"
    shifted.write_text(SHIFTED, encoding="utf-8")
    rows, _ = _screen(shifted, cli_env)
    assert rows["600519.SH"]["status"] != "ok" and "千位分隔符" in str(rows["600519.SH"]["error"])
    assert rows["000858.SZ"]["status"] == "ok"
    headers = tmp_path / "headers.csv"
    headers.write_text("证券代码,证券名称,市盈率TTM(倍),净资产收益率(加权),ROE(TTM)\n600519,贵州茅台,30.5,31.0,30.0\n",
                       encoding="utf-8")
    rows, err = _screen(headers, cli_env)
    assert rows["600519.SH"]["pe_ttm"] == 30.5 and rows["600519.SH"]["roe"] == 31.0  # the file's, not the universe's
    assert "ROE(TTM)" not in err  # its field is fed by 净资产收益率(加权): nothing to warn about


def test_cli_import_of_a_folder_is_one_line(tmp_path: Path, cli_env: dict[str, str]) -> None:
    p = subprocess.run([sys.executable, "-m", "screening", "universe", "import", str(tmp_path)],
                       capture_output=True, text=True, env=cli_env, cwd=ROOT, timeout=300)
    assert p.returncode == 2 and "是文件夹, 不是文件" in p.stderr and "Errno" not in p.stderr
