"""A new user's config mistakes, each one line naming the file, the key and the fix (session 22).

A bot token written into config.toml used to be read and used without a word, though secrets come from the
environment only; a typo'd key said only "not a setting"; and `doctor` called a config it had read from
~/.config "config.toml (absent: defaults + environment)".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from screening.config import ConfigKeyError, load_settings
from screening.ops import doctor

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "123456:ABC-secret-in-the-file"


def test_a_secret_in_the_file_is_refused_naming_the_variable(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[telegram]\ntoken = "{TOKEN}"\n[feishu]\napp_secret = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigKeyError) as err:
        load_settings(cfg)
    text = "\n".join(err.value.problems)
    assert "[telegram] token is a secret" in text and "export SCREENER_TELEGRAM__TOKEN=" in text, text
    assert "[feishu] app_secret is a secret" in text and "SCREENER_FEISHU__APP_SECRET" in text, text
    assert TOKEN not in text
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_")}
    p = subprocess.run([sys.executable, "-m", "screening", "screen", "600519", "--demo", "--engine", "rules",
                        "--config", str(cfg)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    assert "SCREENER_TELEGRAM__TOKEN" in p.stderr and str(cfg) in p.stderr and "Traceback" not in p.stderr
    assert TOKEN not in p.stderr


def test_a_typo_names_the_key_it_was_meant_to_be(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[engine]\nmodle = "/models/x"\n', encoding="utf-8")
    with pytest.raises(ConfigKeyError) as err:
        load_settings(cfg)
    assert "[engine] modle" in err.value.problems[0] and "did you mean model?" in err.value.problems[0]


def test_doctor_names_the_config_file_it_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From a folder without config.toml the user's own config is read: doctor must name it, not "absent"."""
    monkeypatch.delenv("SCREENER_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    settings, findings = doctor.check_config(None)
    assert settings is not None
    line = findings[0].message
    assert str(tmp_path / "xdg" / "ashare-screener" / "config.toml") in line and "absent" not in line, line
    (tmp_path / "xdg" / "ashare-screener" / "config.toml").write_text('[engine]\nmodle = "x"\n', encoding="utf-8")
    _, findings = doctor.check_config(None)
    assert "did you mean model?" in findings[0].message
    assert str(tmp_path / "xdg" / "ashare-screener" / "config.toml") in (findings[0].fix or ""), findings[0]
