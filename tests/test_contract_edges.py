"""The edges issue 16 found: each as the user meets it, through the real CLI, a real worker and a real Redis.

Misplaced config keys, the webhook's default address, `$` in names on the chart, rules rows with long
names, the worker's INFO log, the engine a `--via-queue` summary names, and one-line exits for an
unreachable Redis.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from screening.config import ConfigKeyError, Settings, TelegramSettings, load_settings
from tests.fixtures_redis import worker_env

REPO = Path(__file__).resolve().parent.parent


def cli(args: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "screening", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_a_key_in_the_wrong_section_is_named_with_its_home(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[metrics]\nwebhook_url = "https://bot.example.com/hook"\nwebhook_port = 8443\n'
                   '[nosuch]\nx = 1\n', encoding="utf-8")
    with pytest.raises(ConfigKeyError) as err:
        load_settings(cfg)
    problems = err.value.problems
    assert any("[metrics] webhook_url" in p and "belongs in [telegram]" in p for p in problems), problems
    assert any("[metrics] webhook_port" in p and "belongs in [telegram]" in p for p in problems), problems
    assert any("[nosuch] is not a section" in p for p in problems), problems
    p = cli(["screen", "600519", "--engine", "rules"], {**os.environ, "SCREENER_CONFIG": str(cfg)})
    assert p.returncode == 2 and "belongs in [telegram]" in p.stderr and "Traceback" not in p.stderr
    assert p.stdout == ""


def test_the_webhook_listens_on_loopback_unless_told() -> None:
    assert TelegramSettings().webhook_listen == "127.0.0.1"
    assert load_settings(REPO / "config.toml").telegram.webhook_listen == "127.0.0.1"


def test_dollar_signs_in_user_strings_are_drawn_as_text(tmp_path: Path) -> None:
    """`$x^2$` would be matplotlib mathtext: a broken expression used to abort the chart and the whole job."""
    pool = tmp_path / "pool$1$.csv"
    pool.write_text("code,name,industry,pe_ttm,roe\n600519,茅台$\\frac{$,白酒$_{$,22.5,34.2\n"
                    "000001,平安$x^2$,银行$,5.0,9.8\n", encoding="utf-8")
    out = tmp_path / "out"
    env = {**os.environ, "SCREENER_CONFIG": str(tmp_path / "none.toml"),
           "SCREENER_UNIVERSE__PATH": str(tmp_path / "u.sqlite")}
    p = cli(["screen", str(pool), "--engine", "rules", "--format", "xlsx", "--out", str(out)], env)
    assert p.returncode == 0, p.stderr[-2000:]
    assert (out / "screen.png").stat().st_size > 10_000 and (out / "screen.json").exists()


def test_rules_rows_never_carry_model_flags_even_with_long_names(tmp_path: Path) -> None:
    long_name = "很长很长的一家公司名称股份有限公司集团控股"  # 22 characters, past any answer-schema limit
    pool = tmp_path / "pool.csv"
    pool.write_text(f"code,name,pe_ttm,roe\n600519,{long_name},22.5,34.2\n", encoding="utf-8")
    env = {**os.environ, "SCREENER_CONFIG": str(tmp_path / "none.toml"),
           "SCREENER_UNIVERSE__PATH": str(tmp_path / "u.sqlite")}
    p = cli(["screen", str(pool), "--engine", "rules", "--format", "json"], env)
    assert p.returncode == 0, p.stderr
    (row,) = json.loads(p.stdout)
    assert row["name"] == long_name and row["status"] == "ok"
    assert row["model_risk"] is None and row["model_score"] is None  # no model, no model verdict
    assert not any("模型" in f for f in row["flags"]), row["flags"]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_redis_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {**os.environ, "SCREENER_CONFIG": str(tmp_path / "none.toml"),
           "SCREENER_UNIVERSE__PATH": str(tmp_path / "u.sqlite"),
           "SCREENER_REDIS__URL": f"redis://127.0.0.1:{closed_port()}/0"}
    p = cli(["screen", "600519", "--via-queue", "--demo"], env, timeout=120)
    assert p.returncode == 2, (p.returncode, p.stderr[-1500:])
    lines = [ln for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith("==")]
    errors = [ln for ln in lines if "redis" in ln.lower()]
    assert errors and "Traceback" not in p.stderr, p.stderr[-1500:]
    assert p.stdout == ""


@pytest.mark.slow
def test_worker_logs_at_info_and_the_summary_names_the_rows_engine(queue_settings: Settings, tmp_path: Path) -> None:
    """`python -m screening worker` as documented logs each step; the client's own engine setting is not
    what made the rows: a rules worker did, and the summary says so."""
    env = worker_env(queue_settings, SCREENER_UNIVERSE__PATH=str(tmp_path / "u.sqlite"))
    worker = subprocess.Popen([sys.executable, "-m", "screening", "worker", "--engine", "rules"], cwd=REPO, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        client_env = {**env, "SCREENER_ENGINE__KIND": "vllm"}  # the client believes in vLLM
        p = cli(["screen", "600519", "000001", "--via-queue", "--demo", "--format", "json"], client_env, timeout=120)
        assert p.returncode == 0, p.stderr[-2000:]
        assert len(json.loads(p.stdout)) == 2
        # the one config line names the client's own settings (engine vllm); every other line, the summary
        # included, names the engine that made the rows
        said = "\n".join(ln for ln in p.stderr.splitlines() if not ln.startswith("config: "))
        assert "引擎 rules" in said and "engine vllm" not in said, p.stderr[-1000:]
        assert any(ln.startswith("config: ") and "engine vllm" in ln for ln in p.stderr.splitlines())
    finally:
        worker.terminate()
        out, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err[-2000:]
    info = [ln for ln in err.splitlines() if " INFO " in ln or ln.startswith("INFO")]
    assert any("engine rules" in ln for ln in info), err[-2000:]  # the start line
    assert any("rows:" in ln for ln in info), err[-2000:]  # every written batch
    assert out == ""  # a worker has no output to give: everything it says is a log line on stderr
