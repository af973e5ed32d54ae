"""One config, found the same way from any folder (issue 25.2), and named on stderr by every command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from screening.config import EngineSettings
from screening.config_files import find_config, packaged_default, user_config_path

ROOT = Path(__file__).resolve().parent.parent


def _env(home: Path, cache: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_") and k != "XDG_CONFIG_HOME"}
    return {**env, "HOME": str(home), "XDG_CACHE_HOME": str(cache), **extra}


def _screen(cwd: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "screening", "screen", "600519.SH", "300750", "--demo",
                           "--engine", "rules", "--format", "json", *extra],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def _config_line(stderr: str) -> str:
    return next(ln for ln in stderr.splitlines() if ln.startswith("config: "))


def test_same_answer_and_settings_from_another_folder_with_a_fresh_home(tmp_path: Path) -> None:
    cache = tmp_path / "cache"  # one demo universe for both runs
    clone = _screen(ROOT, _env(tmp_path / "home-a", cache))
    elsewhere_dir = tmp_path / "my-folder"
    elsewhere_dir.mkdir()
    home = tmp_path / "home-b"
    elsewhere = _screen(elsewhere_dir, _env(home, cache))
    assert clone.returncode == 0 and elsewhere.returncode == 0, (clone.stderr, elsewhere.stderr)
    assert json.loads(elsewhere.stdout) == json.loads(clone.stdout)
    here, there = _config_line(clone.stderr), _config_line(elsewhere.stderr)
    assert f"config: {ROOT / 'config.toml'} (./config.toml)" in here
    created = home / ".config" / "ashare-screener" / "config.toml"
    assert f"config: {created} (created from the packaged" in there and created.exists()
    # the same engine settings: the bundled model, its adapter, the compact prompt, the CPU engine
    assert here.split("; ", 1)[1] == there.split("; ", 1)[1]
    assert "adapter bundled, prompt compact, eager" in there
    again = _screen(elsewhere_dir, _env(home, cache))
    assert f"config: {created} (your config)" in _config_line(again.stderr)


def test_order_flag_then_env_then_folder_then_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("SCREENER_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    first = find_config()
    assert first.path == user_config_path() == tmp_path / "xdg" / "ashare-screener" / "config.toml"
    assert first.path.read_text(encoding="utf-8") == packaged_default()
    (tmp_path / "config.toml").write_text("[engine]\nkind = 'rules'\n", encoding="utf-8")
    assert find_config().why == "./config.toml"
    named = tmp_path / "named.toml"
    named.write_text("", encoding="utf-8")
    monkeypatch.setenv("SCREENER_CONFIG", str(named))
    assert find_config().path == named
    flag = tmp_path / "flag.toml"
    flag.write_text("", encoding="utf-8")
    assert find_config(flag).path == flag
    with pytest.raises(FileNotFoundError):
        find_config(tmp_path / "missing.toml")
    monkeypatch.setenv("SCREENER_CONFIG", str(tmp_path / "absent.toml"))
    assert find_config().path is None  # named but absent: built-in defaults, said so


def test_packaged_default_is_config_toml_and_fits_a_gpu() -> None:
    cpu = tomllib.loads(packaged_default(gpu=False))
    assert cpu == tomllib.loads((ROOT / "config.toml").read_text(encoding="utf-8"))
    gpu = tomllib.loads(packaged_default(gpu=True))
    assert gpu["engine"]["enforce_eager"] is False and "kv_cache_gib" not in gpu["engine"]
    assert gpu["engine"]["risk_signals"] is False and gpu["engine"]["lora_adapter"] == "bundled"


def test_the_bundled_model_never_gets_the_full_prompt_by_default() -> None:
    assert EngineSettings().risk_signals is False  # built-in defaults: the bundled model, the compact prompt
    assert EngineSettings(model="/models/Qwen3-8B").risk_signals is True
    assert EngineSettings(risk_signals=True).risk_signals is True  # said explicitly: kept (doctor warns)
