"""What every workbook the product writes must hold, read from the file itself."""

from __future__ import annotations

import zipfile
from pathlib import Path


def formulas(path: Path) -> list[str]:
    """The sheets of ``path`` that hold a formula (an ``<f>`` element): a name or text from an uploaded file
    written as one would run when the workbook is opened (OWASP "CSV injection", in a workbook)."""
    with zipfile.ZipFile(path) as z:
        return [n for n in z.namelist() if n.startswith("xl/worksheets/") and b"<f>" in z.read(n)]
