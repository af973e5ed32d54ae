"""Where ``screen --out DIR`` writes its report files, checked before the screen runs.

A path that is a file, or a folder that cannot be made or written, used to surface only after the whole
pool was screened, as a generic ``FileExistsError`` line (exit 1) or a misleading "找不到文件"; a user
waiting on thousands of rows should hear it at once, in one line naming the path, exit 2 like bad input.
"""

from __future__ import annotations

import os
from pathlib import Path

REPORT_FILES = ("screen.xlsx", "screen.png", "screen.json", "screen.csv")


def out_dir_problem(path: Path) -> str | None:
    """None when ``path`` is (or now is) a writable folder for the report files, else why not, in Chinese."""
    if path.exists() and not path.is_dir():
        return f"--out {path}: 已存在且不是目录 (请给一个目录)"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"--out {path}: 无法创建目录 ({exc.strerror or type(exc).__name__})"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"--out {path}: 目录不可写"
    for name in REPORT_FILES:
        if (path / name).is_dir():
            return f"--out {path}: {name} 是一个目录, 无法写入报告文件"
    return None
