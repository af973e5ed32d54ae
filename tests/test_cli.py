"""``python -m screening screen`` as a user runs it: exit codes, the JSON shape, XLSX/CSV output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from openpyxl import load_workbook

from tests.xlsx_checks import formulas

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample_pool.csv"
KEYS = {"code", "name", "industry", "risk_level", "score", "reason", "flags", "status", "error"}


@pytest.fixture
def env(tmp_path):
    return {
        **os.environ,
        "SCREENER_UNIVERSE__PATH": str(tmp_path / "universe.sqlite"),
        "SCREENER_CONFIG": str(tmp_path / "absent.toml"),
    }


def screen(env, *args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "screening", "screen", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or ROOT,
        timeout=300,
    )


def test_json_one_object_per_input_stock(env):
    p = screen(env, str(SAMPLE), "--engine", "rules", "--format", "json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    n = len(SAMPLE.read_text(encoding="utf-8").strip().splitlines()) - 1
    assert len(rows) == n
    for r in rows:
        assert KEYS <= set(r)
        assert r["status"] == "ok" and r["risk_level"] in ("高", "中", "低") and isinstance(r["score"], int)
        assert r["error"] is None and isinstance(r["flags"], list)


def test_codes_resolve_against_universe_and_bad_ones_fail_alone(env, tmp_path):
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "cache")}  # the demo universe lives in the cache
    p = screen(env, "600519.SH", "300750", "sh600036", "abc", "000001.SH", "--engine", "rules", "--format", "json",
               "--demo")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["code"] for r in rows[:3]] == ["600519.SH", "300750.SZ", "600036.SH"]
    assert rows[0]["name"] == "贵州茅台" and rows[0]["status"] == "ok"
    assert "演示数据" in rows[0]["flags"] and set(rows[0]["sources"].values()) == {"demo"}
    assert "演示数据" in p.stderr  # every output says so
    assert rows[3]["status"] == "failed" and rows[3]["risk_level"] is None and "abc" in rows[3]["error"]
    assert rows[4]["status"] == "failed" and "SZ" in rows[4]["error"]


def test_a_fresh_install_never_invents_a_company(env):
    """Issue 14: without market data, a real code is a failed row that says what to do."""
    p = screen(env, "000001", "600000", "--engine", "rules", "--format", "json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["status"] for r in rows] == ["failed", "failed"] and [r["name"] for r in rows] == [None, None]
    assert all("本地数据中没有这只股票" in r["error"] and "universe refresh" in r["error"] for r in rows)
    assert rows[0]["code"] == "000001.SZ" and rows[0]["input"] == "000001"  # normalised; as given beside it


def test_a_missing_file_is_unusable_input(env, tmp_path):
    """Issue 15.4: an argument that looks like a file and does not exist is exit 2, not a failed stock."""
    for arg in ("nosuch.csv", str(tmp_path / "dir" / "pool.xlsx"), "sub/pool"):
        p = screen(env, arg, "--engine", "rules", "--format", "json")
        assert p.returncode == 2 and "文件不存在" in p.stderr and p.stdout == "", (arg, p.stderr)
    p = screen(env, str(tmp_path), "--engine", "rules", "--format", "json")  # a folder is not "missing"
    assert p.returncode == 2 and "是文件夹, 不是文件" in p.stderr and p.stdout == "", p.stderr
    p = screen(env, "", "--engine", "rules", "--format", "json")  # Path("") would be the working folder
    assert p.returncode == 2 and "参数为空" in p.stderr and p.stdout == "", p.stderr


def test_several_files_or_a_file_beside_codes_are_refused_naming_them(env, tmp_path):
    """The eighteenth session: ``screen a.csv b.csv`` (or ``a.csv 600519``) made each file one failed "stock"
    named after its path and exited 0, its rows never read. One pool is one file: exit 2, one line naming them."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for f in (a, b):
        f.write_text("代码,名称,市盈率(TTM),ROE\n600519,贵州茅台,22.5,34.2\n", encoding="utf-8")
    p = screen(env, str(a), str(b), "--engine", "rules", "--format", "json")
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr, p.stderr
    assert f"一次只筛选一个表格文件, 给出了 2 个: {a}, {b}" in p.stderr
    p = screen(env, str(a), "600519", "--engine", "rules", "--format", "json")
    assert p.returncode == 2 and p.stdout == "" and f"表格文件 {a} 不能与代码一起给出 (600519)" in p.stderr
    p = screen(env, str(a), "nosuch.csv", "--engine", "rules", "--format", "json")  # a missing one is named first
    assert p.returncode == 2 and "nosuch.csv: 文件不存在" in p.stderr


def test_unusable_input_exits_2_with_message(env, tmp_path):
    bad = tmp_path / "quotes.csv"
    bad.write_text("名称,最新价\n贵州茅台,1466.5\n", encoding="utf-8")
    p = screen(env, str(bad), "--engine", "rules", "--format", "json")
    assert p.returncode == 2
    assert "quotes.csv" in p.stderr and "名称" in p.stderr and p.stdout == ""
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    p = screen(env, str(empty), "--engine", "rules")
    assert p.returncode == 2 and "empty.csv" in p.stderr


def test_bad_row_fails_that_row_only(env, tmp_path):
    f = tmp_path / "pool.csv"
    f.write_text(
        "code,name,pe_ttm,roe\n600519,贵州茅台,25,30\n000858,五粮液,abc,20\n300750,宁德时代,22,x%\n", encoding="gbk"
    )
    rows = json.loads(screen(env, str(f), "--engine", "rules", "--format", "json").stdout)
    assert [r["status"] for r in rows] == ["ok", "failed", "failed"]
    assert "第3行" in rows[1]["error"] and "pe_ttm" in rows[1]["error"] and "abc" in rows[1]["error"]


def test_xlsx_report_sheets_and_escaping(env, tmp_path):
    f = tmp_path / "pool.csv"
    f.write_text('code,name,pe_ttm,roe,report_text\n600519,=HYPERLINK("http://x"),25,30,@SUM(1)\n', encoding="utf-8")
    out = tmp_path / "out"
    p = screen(env, str(f), "--engine", "rules", "--format", "xlsx", "--out", str(out))
    assert p.returncode == 0, p.stderr
    wb = load_workbook(out / "screen.xlsx")
    assert wb.sheetnames == ["结果", "输入", "汇总"]
    values = [c.value for row in wb["结果"].iter_rows() for c in row] + [
        c.value for row in wb["输入"].iter_rows() for c in row
    ]
    # literal, as typed string cells: never a formula, and no CSV apostrophe shown as part of the name (s15/u4 C2)
    assert '=HYPERLINK("http://x")' in values and "@SUM(1)" in values
    assert formulas(out / "screen.xlsx") == []
    assert (out / "screen.png").stat().st_size > 1000


def test_csv_and_table(env, tmp_path):
    p = screen(env, str(SAMPLE), "--engine", "rules", "--format", "csv")
    assert p.returncode == 0 and p.stdout.splitlines()[0].startswith("code,input,name,industry,risk_level")
    p = screen({**env, "XDG_CACHE_HOME": str(tmp_path / "cache")}, "600519", "--engine", "rules", "--demo")
    assert p.returncode == 0 and "贵州茅台" in p.stdout and "演示数据" in p.stdout  # the table's title says so


def test_csv_redirected_into_a_file_carries_the_byte_order_mark_excel_needs(env, tmp_path):
    """``> out.csv`` is opened in Excel, which reads a mark-less CSV as GBK on Chinese Windows; a pipe (above:
    the header is the first bytes) gets none."""
    target = tmp_path / "out.csv"
    with target.open("wb") as out:
        p = subprocess.run([sys.executable, "-m", "screening", "screen", str(SAMPLE), "--engine", "rules",
                            "--format", "csv"], stdout=out, stderr=subprocess.PIPE, env=env, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    data = target.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfcode,input,name,") and data.count(b"\xef\xbb\xbf") == 1
    assert "贵州茅台" in data.decode("utf-8-sig")


def test_bad_config_value_is_named_at_start(env):
    p = screen({**env, "SCREENER_REDIS__MAX_DELIVERIES": "abc"}, "600519", "--engine", "rules")
    assert p.returncode == 2
    assert "redis.max_deliveries" in p.stderr and "SCREENER_REDIS__MAX_DELIVERIES" in p.stderr
    assert "Traceback" not in p.stderr


def test_table_shows_markup_like_names_verbatim(env, tmp_path):
    f = tmp_path / "pool.csv"
    f.write_text("code,name,pe_ttm,roe\n600519,[/]茅台[bold],25,30\n", encoding="utf-8")
    p = screen({**env, "COLUMNS": "200"}, str(f), "--engine", "rules")
    assert p.returncode == 0, p.stderr
    assert "[/]茅台[bold]" in p.stdout


@pytest.mark.vllm
@pytest.mark.slow
def test_vllm_engine_json_stdout_is_only_the_array(env, tmp_path):
    """The default engine logs a lot while it starts: all of it goes to stderr, stdout parses as one JSON array."""
    cpu = {"SCREENER_ENGINE__KV_CACHE_GIB": "1", "SCREENER_ENGINE__ENFORCE_EAGER": "true"}  # as config.toml
    p = screen({**env, **cpu}, "600519", "300750", "--format", "json", "--demo")
    assert p.returncode == 0, p.stderr[-2000:]
    rows = json.loads(p.stdout)  # nothing before or after the array
    assert [r["code"] for r in rows] == ["600519.SH", "300750.SZ"]
    assert all(r["status"] == "ok" and r["model_risk"] is not None for r in rows), rows  # the model answered
    assert "vLLM" in p.stderr or "vllm" in p.stderr  # the engine's logs are there, on stderr


def test_a_name_after_its_own_code_is_a_note_and_an_index_is_named(env, tmp_path):
    """Issue 25.5: `600519 贵州茅台` is one stock said twice; sh000001 is 上证指数, not a stock."""
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    p = screen(env, "600519", "贵州茅台", "sh000001", "000300.SH", "--engine", "rules", "--format", "json", "--demo")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["input"] for r in rows] == ["600519", "sh000001", "000300.SH"]
    assert rows[0]["status"] == "ok" and "贵州茅台 即 600519 (600519.SH), 已合并为一行" in rows[0]["flags"]
    assert "sh000001 是上证指数, 不是股票" in rows[1]["error"] and rows[1]["fail_code"] == "input"
    assert "000300.SH 是沪深300, 不是股票" in rows[2]["error"]


def test_piped_table_is_ranked_with_pe_and_roe_and_never_cut(env, tmp_path):
    """Issue 25.7: stdout to a file: nothing cut short ("…"), risk order, PE-TTM and ROE, the pool's own title."""
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "80"}
    p = screen(env, str(SAMPLE), "--engine", "rules", "--demo")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].strip().startswith("sample_pool.csv · 20 只")  # the pool's count, not the universe's
    header = next(ln for ln in lines if "代码" in ln)
    assert "PE-TTM" in header and "ROE%" in header and "排序值" in header
    assert "…" not in p.stdout
    j = json.loads(screen(env, str(SAMPLE), "--engine", "rules", "--demo", "--format", "json").stdout)
    longest = max((f for r in j for f in r["flags"]), key=len)
    assert longest in p.stdout  # the longest flag, whole, on one line
    risks = [ln.split("│")[4].strip() for ln in lines if ln.startswith("│")]
    order = {"低": 0, "中": 1, "高": 2, "失败": 3}
    assert [order[r] for r in risks if r] == sorted(order[r] for r in risks if r)


def test_a_copy_of_a_shipped_example_is_still_labelled_demo(env, tmp_path):
    """A renamed copy of examples/risk_pool.csv (or the sample uploaded to the bot) is still invented names on
    real codes: every row says 演示数据 and its figures' source is demo. So is a row left as it was in a copy
    re-saved or edited (its bytes differ); a row the user changed is the user's."""
    copy = tmp_path / "my_pool.csv"
    copy.write_bytes((ROOT / "examples" / "risk_pool.csv").read_bytes())
    p = screen(env, str(copy), "--engine", "rules", "--format", "json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert rows and all("演示数据" in r["flags"] for r in rows)
    assert all(set(r["sources"].values()) <= {"demo"} for r in rows if r["status"] == "ok")
    edited = tmp_path / "edited.csv"
    text = copy.read_text(encoding="utf-8").replace("688001.SH,演示立案,电子,20.3", "688001.SH,演示立案,电子,21.7")
    edited.write_bytes(text.encode("gbk") + b"\r\n")  # re-saved by Excel: GBK, CRLF; one figure changed
    rows = json.loads(screen(env, str(edited), "--engine", "rules", "--format", "json").stdout)
    demo = {r["code"]: "演示数据" in r["flags"] for r in rows}
    assert demo.pop("688001.SH") is False and demo and all(demo.values()), demo


def test_a_list_pasted_as_one_argument_is_split_as_chat_splits_it(env, tmp_path):
    """`screen "600519,000858,..."`: a long paste crashed on the file-name check (OSError, exit 1), a short one
    became one failed "stock" named after the whole list."""
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    codes = ",".join(["600519", "000858", "300750", "002594"] * 12)  # longer than a file name may be
    p = screen(env, codes, "--engine", "rules", "--format", "json", "--demo")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert len(rows) == 48 and [r["code"] for r in rows if r["status"] == "ok"] == [
        "600519.SH", "000858.SZ", "300750.SZ", "002594.SZ"], [r["code"] for r in rows]
