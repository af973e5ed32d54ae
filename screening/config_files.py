"""Which config file a command reads: found the same way from any folder, and said on stderr.

Only ``./config.toml`` used to be read, so a user running from their own folder got the built-in
GPU-leaning defaults (torch.compile on two cores, 90 % of RAM for the KV cache, no adapter, the
full prompt): three times slower and worse answers, with nothing saying so. The order now:
``--config``, then ``$SCREENER_CONFIG``, then ``./config.toml``, then the user's config
(``$XDG_CONFIG_HOME/ashare-screener/config.toml``), which is created on first use from the
default packaged with the program, fitted to the machine (a GPU: CUDA graphs on, no RAM-sized KV
cache). Every command prints one line naming the file it used, so "which settings ran?" is never a
guess.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

ENV_VAR = "SCREENER_CONFIG"
# The packaged default is the repository's config.toml (a link to it inside the package, so they cannot
# drift): the CPU engine settings and the bundled model's adapter.
PACKAGED = "defaults/config.toml"
# What a machine with a GPU changes in it: CUDA graphs on, the KV cache sized by gpu_memory_utilization.
GPU_EDITS: tuple[tuple[str, str], ...] = (
    ("enforce_eager = true ", "enforce_eager = false"),
    ("kv_cache_gib = 2.0 ", "# kv_cache_gib = 2.0"),
)


@dataclass(frozen=True)
class ConfigChoice:
    """The file settings come from (None: built-in defaults) and why that one."""

    path: Path | None
    why: str


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ashare-screener" / "config.toml"


def has_gpu() -> bool:
    """An NVIDIA device node or driver tool: cheap, and never imports torch just to choose defaults."""
    return Path("/dev/nvidiactl").exists() or shutil.which("nvidia-smi") is not None


def packaged_default(gpu: bool | None = None) -> str:
    """The packaged config.toml, fitted to this machine (or to ``gpu`` when given)."""
    text = (resources.files("screening") / PACKAGED).read_text(encoding="utf-8")
    if gpu if gpu is not None else has_gpu():
        for old, new in GPU_EDITS:
            text = text.replace(old, new, 1)
        text = "# fitted to a machine with a GPU when it was created (CUDA graphs on)\n" + text
    return text


def find_config(explicit: str | Path | None = None) -> ConfigChoice:
    """The config file to read, in the documented order; creates the user's config on first use.

    ``$SCREENER_CONFIG`` naming a file that does not exist means the built-in defaults (the tests and
    docker use this to run on defaults plus environment); ``--config`` naming one is an error.
    """
    if explicit:
        path = Path(explicit)
        if not path.exists():
            raise FileNotFoundError(f"config file not found: {path}")
        return ConfigChoice(path, "--config")
    named = os.environ.get(ENV_VAR)
    if named:
        path = Path(named)
        if path.exists():
            return ConfigChoice(path, f"${ENV_VAR}")
        return ConfigChoice(None, f"${ENV_VAR}={named} does not exist: built-in defaults and SCREENER_* variables")
    local = Path("config.toml")
    if local.exists():
        return ConfigChoice(local.resolve(), "./config.toml")
    user = user_config_path()
    if user.exists():
        return ConfigChoice(user, "your config")
    try:
        user.parent.mkdir(parents=True, exist_ok=True)
        user.write_text(packaged_default(), encoding="utf-8")
    except OSError as exc:
        fallback = resources.files("screening") / PACKAGED
        return ConfigChoice(Path(str(fallback)), f"the packaged default ({user} cannot be written: {exc.strerror})")
    return ConfigChoice(user, f"created from the packaged {'GPU' if has_gpu() else 'CPU'} default")


_announced: set[str] = set()


def announce(choice: ConfigChoice, summary: str) -> None:
    """One stderr line per process and file: which config, why, and the engine settings it gives."""
    key = str(choice.path)
    if key in _announced:
        return
    _announced.add(key)
    where = str(choice.path) if choice.path is not None else "none"
    print(f"config: {where} ({choice.why}); {summary}", file=sys.stderr)
