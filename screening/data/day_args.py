"""A day given on the command line (``digest --date``, ``universe refresh --date``): read, or one clear line.

argparse's ``type=dt.date.fromisoformat`` answered ``2026-02-30`` or ``2026/12/09`` with a usage block and an
English ``invalid fromisoformat value`` (a trial, 2026-12-07), while ``universe import --as-of`` already read any
spelling of a whole day (row_checks.read_day). One reader for every day flag: the spellings a file's cells may use
(2026-12-09, 2026/12/09, 2026年12月9日, 20261209), the whole argument a day (an Excel serial or a month is no day
here), and a line naming the flag, the value and the form to write.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

from screening.data.row_checks import read_day

# the whole argument one day: four-digit year, month, day, with one separator kind or none (20261209)
_WHOLE_DAY = re.compile(r"^\d{4}(?:([-/.])\d{1,2}\1\d{1,2}|年\d{1,2}月\d{1,2}日?|\d{4})$")


def day_argument(text: str, flag: str) -> tuple[dt.date | None, str | None]:
    """(the day, None) or (None, the one line saying why ``text`` given to ``flag`` is no day)."""
    plain = unicodedata.normalize("NFKC", text).strip()
    day = read_day(plain) if _WHOLE_DAY.match(plain) else None
    if day is None:
        return None, f"错误: {flag} '{text}' 不是有效日期: 请写 YYYY-MM-DD, 如 2026-12-09"
    return day, None
