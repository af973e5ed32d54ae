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
            f"{name}: 不是有效的 .xlsx 文件 (不是 zip 压缩包或已损坏: {exc}); "
            "旧版 .xls 或加密的工作簿请另存为 .xlsx 或 CSV"
        ) from exc
    except (OSError, EOFError, ValueError, NotImplementedError) as exc:
        raise PoolRejected(f"{name}: 无法作为 .xlsx 打开 ({exc})") from exc

    if len(infos) > settings.max_xlsx_entries:
        raise PoolRejected(
            f"{name}: .xlsx 含 {len(infos)} 个 zip 条目, 超过上限 "
            f"{settings.max_xlsx_entries} (input.max_xlsx_entries); 疑似 zip 炸弹, 已拒绝"
        )
    names = {i.filename for i in infos}
    if "[Content_Types].xml" not in names:
        raise PoolRejected(
            f"{name}: 是 zip 压缩包, 但不是 Excel .xlsx 工作簿 (缺少 [Content_Types].xml)"
        )
    total = 0
    for info in infos:
        if info.flag_bits & 0x1:
            raise PoolRejected(
                f"{name}: .xlsx 条目 {info.filename!r} 已加密; 请不设密码另存"
            )
        total += info.file_size
        if info.file_size >= RATIO_CHECK_MIN_BYTES:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > MAX_COMPRESSION_RATIO:
                raise PoolRejected(
                    f"{name}: .xlsx 条目 {info.filename!r} 解压后膨胀 {ratio:.0f} 倍 "
                    f"({info.compress_size} -> {info.file_size} 字节), "
                    f"超过 {MAX_COMPRESSION_RATIO:.0f} 倍上限; 疑似 zip 炸弹, 已拒绝"
                )
    limit = settings.max_xlsx_uncompressed_mb * _MB
    if total > limit:
        raise PoolRejected(
            f"{name}: .xlsx 解压后 {total / _MB:.1f} MB, 超过上限 "
            f"{settings.max_xlsx_uncompressed_mb:g} MB (input.max_xlsx_uncompressed_mb); "
            "疑似 zip 炸弹, 已拒绝"
        )
