"""Every output of ``screen --out`` carries the same verdicts, flags and demo label, one row per input row.

The real CLI in a subprocess (``--engine rules``) on a universe imported into tmp_path, then the files it
wrote read back with the real csv/json/openpyxl readers: a flag that one format drops, a demo pool that
only its rows call demo, or a summary key left in English is a bug a user sees.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from openpyxl import load_workbook

from tests.xlsx_checks import formulas

ROOT = Path(__file__).resolve().parents[1]
UNIVERSE = ("code,name,industry,pe_ttm,roe,eps,as_of\n"
            "600519.SH,贵州茅台,食品饮料,22.5,34.2,68.6,2026-06-01\n"
            "000001.SZ,平安银行,银行,5.1,10.2,2.1,2026-12-03\n"
            "600036.SH,招商银行,银行,6.1,14.2,5.1,2026-12-03\n"
            "000002.SZ,万科A,房地产,8.1,,0.3,2026-12-03\n")
POOL = ("code,name,industry,pe_ttm,roe,eps,公告标题\n"
        "600519.SH,贵州茅台,,,,,\n"
        "000001.SZ,招商银行,银行,5.1,10.2,2.1,\n"
        '688001.SH,"=HYPERLINK(""x"")",电子,20.3,34.2,2.1,'
        "2026-11-20 关于收到中国证券监督管理委员会《立案告知书》的公告\n"
        "002002.SZ,无ROE公司,机械,18.6,,1.3,\n"
        "000001.SZ,平安银行,银行,5.1,10.2,2.1,\n"
        "000002.SZ,某某地产,,8.1,,,\n"
        "600036.SH,@招商,银行,6.1,14.2,5.1,\n")
# 000001.SZ twice with another name: one row, both readings screened, the second row named in its flag
# (screen/readings.py; it was a failed row of its own before the twenty-first session)
CODES = ["600519.SH", "000001.SZ", "688001.SH", "002002.SZ", "000002.SZ", "600036.SH"]


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SCREENER_UNIVERSE__PATH": str(tmp_path / "universe.sqlite"), "COLUMNS": "400"}
    return subprocess.run([sys.executable, "-m", "screening", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def screened(tmp_path: Path, pool: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    (tmp_path / "uni.csv").write_text(UNIVERSE, encoding="utf-8")
    assert cli(tmp_path, "universe", "import", str(tmp_path / "uni.csv")).returncode == 0
    out = tmp_path / "out"
    done = cli(tmp_path, "screen", pool, "--engine", "rules", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done, out


def test_every_format_has_every_row_once_with_the_same_flags(tmp_path: Path) -> None:
    (tmp_path / "pool.csv").write_text(POOL, encoding="utf-8")
    done, out = screened(tmp_path, str(tmp_path / "pool.csv"))
    rows = json.loads((out / "screen.json").read_text(encoding="utf-8"))
    assert [r["code"] for r in rows] == CODES  # input order, the failed rows included
    twice = next(r for r in rows if r["code"] == "000001.SZ")
    assert any(f.startswith("重复行不一致") and "第 6 行" in f for f in twice["flags"])
    with (out / "screen.csv").open(encoding="utf-8-sig", newline="") as f:
        table = list(csv.DictReader(f))
    assert [r["code"] for r in table] == CODES
    wb = load_workbook(out / "screen.xlsx")
    results = list(wb["结果"].iter_rows(values_only=True))
    head = list(results[0])
    xlsx = [dict(zip(head, r, strict=True)) for r in results[1:]]
    assert sorted(str(r["代码"]) for r in xlsx) == sorted(CODES)
    for r, c in zip(rows, table, strict=True):
        assert c["flags"] == "; ".join(r["flags"])  # no flag is cut or dropped in the CSV
        x = next(x for x in xlsx if x["源文件行"] == r["row"])
        assert (x["标记"] or "") == c["flags"] and (x["错误"] or "") == c["error"]
        assert x["状态"] == {"ok": "成功", "failed": "失败"}[r["status"]]
        for flag in r["flags"]:  # the terminal table shows every flag, on a failed row too
            assert flag.split(": ")[0] in done.stdout, (r["code"], flag)
    failed = next(r for r in rows if r["code"] == "000002.SZ")
    assert failed["status"] == "failed" and any(f.startswith("名称与代码不符") for f in failed["flags"])
    assert "文件写 某某地产" in done.stdout  # was dropped: a failed row's table cell showed only its error
    signal = next(c for c in table if c["code"] == "688001.SH")["signals"]
    assert "立案调查(高) 2026-11-20" in signal
    # the CSV's formula triggers escaped; the XLSX holds them as typed string cells, literal and never a formula
    assert not any(c["name"].startswith(("=", "@")) for c in table)
    assert '=HYPERLINK("x")' in {str(r["名称"]) for r in xlsx} and formulas(out / "screen.xlsx") == []
    labels = [str(r[0]) for r in wb["汇总"].iter_rows(min_row=2, values_only=True)]
    assert "文本信号上调" in labels and not any(lb.isascii() for lb in labels)  # text_raised was left in English
    sources = [str(r[11]) for r in wb["输入"].iter_rows(min_row=2, values_only=True) if r[11]]
    assert sources and not any("=file" in s or "universe:" in s for s in sources)  # read as the results sheet
    assert "文本信号上调 1" in done.stdout  # the terminal footer counts what the summary sheet counts


def test_a_demo_pool_on_a_real_universe_is_labelled_in_every_format(tmp_path: Path) -> None:
    done, out = screened(tmp_path, "examples/sample_pool.csv")
    rows = json.loads((out / "screen.json").read_text(encoding="utf-8"))
    assert rows and all("演示数据" in r["flags"] for r in rows)
    wb = load_workbook(out / "screen.xlsx")
    assert "演示数据" in wb.sheetnames  # was only for the demo universe: this workbook looked like market data
    title = done.stdout.splitlines()[0]
    assert "演示数据" in title


def test_an_out_path_that_is_a_file_is_one_line_before_the_screen(tmp_path: Path) -> None:
    (tmp_path / "pool.csv").write_text(POOL, encoding="utf-8")
    done = cli(tmp_path, "screen", str(tmp_path / "pool.csv"), "--engine", "rules", "--out",
               str(tmp_path / "pool.csv"))
    assert done.returncode == 2 and done.stdout == ""  # was exit 1 with a bare FileExistsError, after the screen
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("错误: --out ") and "不是目录" in last and "Traceback" not in done.stderr


def test_the_table_shows_a_figure_as_the_reason_quotes_it() -> None:
    from rich.console import Console

    from screening.models import ResultRow
    from screening.output.report import render_table

    row = ResultRow(index=0, code="601398.SH", name="工商银行", industry="银行", status="ok", risk_level="高", score=25,
                    reason="ROE 0.12%<5%", pe_ttm=5.0, roe=0.12, flags=["百分比存疑: roe 0.12 没有 %, 同列其他值带 %"])
    console = Console(width=400, record=True)
    render_table([row], console=console)
    line = next(x for x in console.export_text().splitlines() if "601398.SH" in x)
    assert "│ 0.12 " in line and "│ 5.0 " in line  # the ROE column read 0.1 beside a reason and flag saying 0.12
