"""The CSV a user opens in Excel/WPS keeps every code as written; a program reading the pipe gets the codes as given."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POOL = "code,name,pe_ttm,roe\n000001,平安银行,5.2,10.5\n600519.SH,贵州茅台,-15.2,34.2\n00001,短码,10,20\n"


def test_excel_text_marks_only_what_excel_would_turn_into_a_number() -> None:
    from screening.output.export_safety import excel_text

    assert [excel_text(v) for v in ("000001", "1e5", "600519", "0.000001")] == [
        '="000001"', '="1e5"', '="600519"', '="0.000001"']  # 0.000001 (东方财富's 平安银行) showed as 1E-06
    assert [excel_text(v) for v in ("600519.SH", "sh600036", "贵州茅台", "", None, 12)] == [
        "600519.SH", "sh600036", "贵州茅台", "", None, 12]


def test_a_typed_code_keeps_its_zeros_in_the_report_csv(tmp_path: Path) -> None:
    """A trial (2026-12-08): ``000001`` in a pool came back as 1 in the ``input`` column of screen.csv opened in
    Excel (a quoted field is still read as a number there); the figures stay plain numbers, -15.2 among them."""
    (tmp_path / "pool.csv").write_text(POOL, encoding="utf-8")
    env = {**os.environ, "SCREENER_UNIVERSE__PATH": str(tmp_path / "universe.sqlite"),
           "SCREENER_CONFIG": str(tmp_path / "absent.toml")}
    done = subprocess.run([sys.executable, "-m", "screening", "screen", str(tmp_path / "pool.csv"), "--engine",
                           "rules", "--format", "csv", "--out", str(tmp_path / "out")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    with (tmp_path / "out" / "screen.csv").open(encoding="utf-8-sig", newline="") as f:
        rows = {r["row"]: r for r in csv.DictReader(f)}
    assert rows["2"]["code"] == "000001.SZ" and rows["2"]["input"] == '="000001"'
    assert rows["3"]["input"] == "600519.SH" and rows["3"]["pe_ttm"] == "-15.2"
    assert rows["4"]["status"] == "failed" and rows["4"]["code"] == rows["4"]["input"] == '="00001"'
    piped = {r["row"]: r for r in csv.DictReader(done.stdout.splitlines())}
    assert piped["2"]["input"] == "000001" and piped["4"]["code"] == "00001"  # the machine contract: as given
    with (tmp_path / "out.csv").open("wb") as out:  # `> out.csv`: a file Excel opens, as the --out copy
        subprocess.run([sys.executable, "-m", "screening", "screen", str(tmp_path / "pool.csv"), "--engine", "rules",
                        "--format", "csv"], cwd=ROOT, env=env, stdout=out, timeout=120, check=True)
    assert '"=""000001"""' in (tmp_path / "out.csv").read_text(encoding="utf-8-sig")
