"""Refuse hostile .xlsx files before pandas/openpyxl decompress them.

An .xlsx is a zip. A few KB upload can declare gigabytes of XML (a zip bomb) or tens of
thousands of entries; openpyxl would try to inflate all of it and take the bot down. Only the
central directory is read here, which is cheap. Python's zipfile stops inflating an entry at
its declared size (and fails the CRC), so the declared sizes checked here bound what the
parser can be made to read.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from screening.config import InputSettings
from screening.models import PoolRejected

MAX_COMPRESSION_RATIO = 200.0
# Tiny entries (styles, rels) may compress extremely well without being dangerous; the ratio
# test is for entries big enough to matter. The total-size limit still bounds all of them.
RATIO_CHECK_MIN_BYTES = 1 << 20

_MB = 1024 * 1024


def check_xlsx(path: str | Path, settings: InputSettings) -> None:
    """Raise PoolRejected unless ``path`` is a well-formed, bounded xlsx zip; returns None when safe."""
    p = Path(path)
    name = p.name
    try:
        with zipfile.ZipFile(p) as zf:
            infos = zf.infolist()
    except zipfile.BadZipFile as exc:
        raise PoolRejected(
            f"{name}: not a valid .xlsx file (not a zip archive or corrupt: {exc}); "
            "an old .xls or a password-protected workbook must be saved again as .xlsx or CSV"
        ) from exc
    except (OSError, EOFError, ValueError, NotImplementedError) as exc:
        raise PoolRejected(f"{name}: cannot open as .xlsx ({exc})") from exc

    if len(infos) > settings.max_xlsx_entries:
        raise PoolRejected(
            f"{name}: .xlsx has {len(infos)} zip entries, more than the limit of "
            f"{settings.max_xlsx_entries} (input.max_xlsx_entries); refused as a possible zip bomb"
        )
    names = {i.filename for i in infos}
    if "[Content_Types].xml" not in names:
        raise PoolRejected(
            f"{name}: a zip archive but not an Excel .xlsx workbook ([Content_Types].xml missing)"
        )
    total = 0
    for info in infos:
        if info.flag_bits & 0x1:
            raise PoolRejected(
                f"{name}: .xlsx entry {info.filename!r} is encrypted; save it without a password"
            )
        total += info.file_size
        if info.file_size >= RATIO_CHECK_MIN_BYTES:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > MAX_COMPRESSION_RATIO:
                raise PoolRejected(
                    f"{name}: .xlsx entry {info.filename!r} expands {ratio:.0f}x "
                    f"({info.compress_size} -> {info.file_size} bytes), "
                    f"over the {MAX_COMPRESSION_RATIO:.0f}x limit; refused as a zip bomb"
                )
    limit = settings.max_xlsx_uncompressed_mb * _MB
    if total > limit:
        raise PoolRejected(
            f"{name}: .xlsx expands to {total / _MB:.1f} MB, more than the limit of "
            f"{settings.max_xlsx_uncompressed_mb:g} MB (input.max_xlsx_uncompressed_mb); "
            "refused as a possible zip bomb"
        )
