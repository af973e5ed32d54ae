"""The made-up 2027 holiday notice the calendar tests share (tests/data/notice-2027-test.toml).

The real 2027 notice is not out: every figure in it is test data, shaped like the 2025 and 2026 notices.
"""

from __future__ import annotations

from pathlib import Path

NOTICE_2027_PATH = Path(__file__).resolve().parent / "data" / "notice-2027-test.toml"
NOTICE_2027 = NOTICE_2027_PATH.read_text(encoding="utf-8")
