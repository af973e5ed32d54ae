"""The row contract as README states it (issue 25.3), checked against real outputs of every path so the two
cannot drift: `--format json`, `--format csv`, `--out`'s screen.json and the XLSX's results sheet."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from openpyxl import load_workbook

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample_pool.csv"


def readme_fields() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- row-contract -->", 1)[1].split("<!-- /row-contract -->", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.M)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("contract")
    return {**os.environ, "SCREENER_CONFIG": str(tmp / "absent.toml"), "XDG_CACHE_HOME": str(tmp / "cache"),
            "SCREENER_UNIVERSE__PATH": str(tmp / "u.sqlite")}


def screen(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([sys.executable, "-m", "screening", "screen", *args, "--engine", "rules"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    return p


def test_json_rows_have_exactly_the_readme_fields_and_failed_rows_keep_normalised_codes(env: dict[str, str]) -> None:
    fields = readme_fields()
    assert len(fields) >= 20 and fields[:2] == ["code", "input"]
    rows = json.loads(screen(env, "600519.SH", "sh600036", "SZ000333", "600519", "abc", "--demo",
                             "--format", "json").stdout)
    for r in rows:
        assert list(r) == fields
        assert (r["fail_code"] is None) == (r["status"] == "ok")
    assert [r["input"] for r in rows] == ["600519.SH", "sh600036", "SZ000333", "600519", "abc"]
    assert [r["code"] for r in rows[:4]] == ["600519.SH", "600036.SH", "000333.SZ", "600519.SH"]
    dup = rows[3]
    assert dup["status"] == "failed" and dup["fail_code"] == "input" and "重复" in dup["error"]
    assert rows[4]["code"] == "abc" and rows[4]["fail_code"] == "input"  # never parsed: the input is all there is
    ok = rows[0]
    assert isinstance(ok["rank_value"], float) and ok["score"] == 100 and ok["rank_value"] > 100
    assert set(ok["sources"].values()) == {"demo"}
    assert ok["data_date"] and not ok["data_date"].startswith("1970")


def test_every_path_writes_the_same_fields(env: dict[str, str], tmp_path: Path) -> None:
    fields = readme_fields()
    out = tmp_path / "out"
    p = screen(env, str(SAMPLE), "--demo", "--format", "csv", "--out", str(out))
    assert next(csv.reader(io.StringIO(p.stdout))) == fields
    assert sorted(f.name for f in out.iterdir()) == ["screen.csv", "screen.json", "screen.png", "screen.xlsx"]
    rows = json.loads((out / "screen.json").read_text(encoding="utf-8"))
    assert rows and all(list(r) == fields for r in rows)
    # the shipped sample's figures are illustrative: demo, as the README promises, never "file"
    assert {v for r in rows for v in r["sources"].values()} == {"demo"}
    assert all(r["data_date"] and not r["data_date"].startswith("1970") for r in rows)
    wb = load_workbook(out / "screen.xlsx")
    assert wb.active is not None and wb.active.title == "结果"  # opens on the results
    keys = [c.comment.text.removeprefix("JSON: ") for c in next(wb["结果"].iter_rows(max_row=1))]
    assert keys == fields
    for fmt in ("json", "table"):
        again = tmp_path / fmt
        screen(env, str(SAMPLE), "--demo", "--format", fmt, "--out", str(again))
        assert sorted(f.name for f in again.iterdir()) == ["screen.csv", "screen.json", "screen.png", "screen.xlsx"]


def test_examples_readme_names_only_files_and_functions_that_exist() -> None:
    """examples/README.md once named a universe.csv and a function that did not exist (issue 25.8)."""
    import importlib

    text = (ROOT / "examples" / "README.md").read_text(encoding="utf-8")
    for name in set(re.findall(r"`([\w-]+\.csv)`", text)):
        assert (ROOT / "examples" / name).exists(), name
    for dotted in set(re.findall(r"`(screening(?:\.\w+)+)`", text)):
        module, _, attr = dotted.rpartition(".")
        assert hasattr(importlib.import_module(module), attr), dotted
    assert "universe.csv" not in text
