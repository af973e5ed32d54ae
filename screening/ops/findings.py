"""One finding of ``doctor``: how bad, which check, what is wrong, and how to fix it (its own module, so
checks can live in modules of their own)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["ok", "info", "warn", "fail"]


@dataclass
class Finding:
    level: Level
    check: str
    message: str
    fix: str = ""
