"""Expected failures are one line on stderr in Chinese with an exit code; the traceback only with --debug
(issue 25.4). `universe import` reads every file `screen` reads (GBK 同花顺 exports, Chinese headers, 24.6%)."""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "SCREENER_CONFIG": str(tmp_path / "absent.toml"), "XDG_CACHE_HOME": str(tmp_path / "c"),
            "SCREENER_UNIVERSE__PATH": str(tmp_path / "u.sqlite")}


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "screening", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def last_line(p: subprocess.CompletedProcess[str]) -> str:
    return [ln for ln in p.stderr.splitlines() if ln.strip()][-1]


@pytest.mark.slow  # the openai client's connection retries take tens of seconds
def test_an_unreachable_openai_server_is_one_line(env: dict[str, str]) -> None:
    env = {**env, "SCREENER_ENGINE__BASE_URL": f"http://127.0.0.1:{closed_port()}/v1", "SCREENER_ENGINE__RETRIES": "0"}
    p = cli(env, "screen", "600519", "--engine", "openai", "--demo")
    assert p.returncode == 2 and p.stdout == "", p.stderr[-2000:]
    assert "Traceback" not in p.stderr
    line = last_line(p)
    assert line.startswith("错误: 连不上 OpenAI 兼容服务 http://127.0.0.1:") and "engine.base_url" in line
    debug = cli(env, "screen", "600519", "--engine", "openai", "--demo", "--debug")
    assert debug.returncode != 0 and "Traceback" in debug.stderr and "APIConnectionError" in debug.stderr


def test_a_missing_model_folder_is_named_before_vllm_starts(env: dict[str, str], tmp_path: Path) -> None:
    env = {**env, "SCREENER_ENGINE__MODEL": str(tmp_path / "no-such-model"), "SCREENER_ENGINE__LORA_ADAPTER": ""}
    p = cli(env, "screen", "600519", "--demo")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert last_line(p).startswith("错误: 模型目录不存在: ") and "no-such-model" in last_line(p)


def test_an_unreachable_redis_is_one_chinese_line(env: dict[str, str]) -> None:
    env = {**env, "SCREENER_REDIS__URL": f"redis://127.0.0.1:{closed_port()}/0"}
    p = cli(env, "screen", "600519", "--via-queue", "--demo", "--timeout", "5")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert last_line(p).startswith("错误: 连不上 Redis redis://127.0.0.1:")


def test_universe_import_reads_a_gbk_tonghuashun_export(env: dict[str, str], tmp_path: Path) -> None:
    table = tmp_path / "Table.xls"  # 同花顺: GBK tab-separated text with an .xls name and a trailing tab
    table.write_bytes(("代码\t名称\t所属行业\t市盈率(TTM)\t净资产收益率\t\n"
                       "600519\t贵州茅台\t白酒\t22.5\t24.6%\t\n"
                       "SZ000333\t美的集团\t家电\t12.1\t21.3%\t\n"
                       "ABC123\t坏行\t\t\t\t\n").encode("gbk"))
    p = cli(env, "universe", "import", str(table))
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert "imported 2 stocks" in p.stderr and "ABC123" in p.stderr  # the bad row is named, the rest imported
    shown = cli(env, "universe", "show", "600519.SH", "--format", "json")
    assert shown.returncode == 0, shown.stderr
    figures = json.loads(shown.stdout)
    assert "24.6" in json.dumps(figures, ensure_ascii=False) and "贵州茅台" in json.dumps(figures, ensure_ascii=False)
    # a file screen refuses, import refuses the same way: one line, exit 2
    binary = tmp_path / "x.csv"
    binary.write_bytes(bytes(range(256)) * 8)
    bad = cli(env, "universe", "import", str(binary))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and last_line(bad).startswith("错误: ")


def test_explain_finds_the_most_specific_known_class() -> None:
    import redis

    from screening.errors import explain
    from screening.models import PoolRejected

    assert explain(redis.ConnectionError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")) == (
        2, "错误: Redis 不可用 (Error 111 connecting to 127.0.0.1:6390. Connection refused.): 启动 redis-server "
           "(见 README), 或改 redis.url / SCREENER_REDIS__URL")
    assert explain(PoolRejected("pool.csv: no such file")) == (2, "错误: 输入无法使用: pool.csv: no such file")
    assert explain(FileNotFoundError(2, "No such file", "/x/config.toml"))[1] == "错误: 找不到文件: /x/config.toml"
    from screening.engines.types import EngineDead

    code, line = explain(EngineDead("vLLM's engine core died (EngineCore encountered an issue)"))
    assert code == 3 and "模型引擎中途退出" in line and "gpu_memory_utilization" in line and "\n" not in line
    code, line = explain(ValueError("engine.lora_adapter = 'bundled' is trained for the bundled SmolLM2-135M"))
    assert code == 1 and line.startswith("错误: ValueError: engine.lora_adapter") and "\n" not in line


@pytest.mark.parametrize("command", [["digest"], ["universe", "refresh"]])
@pytest.mark.parametrize("day", ["2026-02-30", "2026-12", "46365", "last friday", "2026-12/09"])
def test_a_date_flag_that_is_no_day_is_one_chinese_line(day: str, command: list[str],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """argparse said ``invalid fromisoformat value: '2026-02-30'`` in English, under a usage block (2026-12-07);
    ``universe refresh --date`` too. A month or an Excel serial is no day on the command line."""
    from screening.cli import main

    assert main([*command, "--date", day]) == 2
    assert capsys.readouterr().err == f"错误: --date '{day}' 不是有效日期: 请写 YYYY-MM-DD, 如 2026-12-09\n"


@pytest.mark.parametrize("day", ["2026-12-09", "2026/12/09", "2026.12.09", "20261209", "2026年12月9日",
                                 "２０２６-１２-０９"])
def test_a_date_flag_reads_the_spellings_a_file_may_use(day: str) -> None:
    """``universe import --as-of`` read any whole day (row_checks.read_day); the other day flags read the same."""
    from screening.data.day_args import day_argument

    assert day_argument(day, "--date") == (dt.date(2026, 12, 9), None)
