"""The digest's files: the XLSX (results plus change sheets) and the chart PNG."""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from openpyxl import load_workbook

from screening.digest.model import Digest
from screening.output.chart import draw_chart
from screening.output.xlsx import text_row, write_workbook

log = logging.getLogger(__name__)


def write_files(digest: Digest, out_dir: Path, chart_lock: AbstractContextManager[Any] | None = None) -> None:
    """The XLSX (the screen workbook plus 变化 and 新增ST sheets) and the chart PNG."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"digest-{digest.date.isoformat()}-{digest.scope}"
    meta = {"digest_date": digest.date.isoformat(), "source": digest.source, "data_as_of": digest.data_as_of or "",
            "previous_digest": digest.previous_date.isoformat() if digest.previous_date else "",
            "engine": digest.engine, "generated_at": digest.generated_at.strftime("%Y-%m-%d %H:%M:%S"),
            "data": digest.data_label}
    xlsx = write_workbook(digest.rows, out_dir / f"{stem}.xlsx", None, meta, demo=digest.demo)
    try:
        wb = load_workbook(xlsx)
        ws = wb.create_sheet("变化")
        ws.append(["代码", "名称", "前一期风险", "本期风险", "前一期评分", "本期评分"])
        for c in digest.changes:
            text_row(ws, [c.code, c.name or "", c.old_risk, c.new_risk, c.old_score, c.new_score])
        ws2 = wb.create_sheet("新增ST")
        ws2.append(["代码", "名称", "风险", "评分"])
        for r in digest.new_st:
            text_row(ws2, [r.code, r.name or "", r.risk_level, r.score])
        wb.save(xlsx)
    except Exception:  # the main sheets are written; the extra ones are a nicety
        log.warning("could not add the change sheets to %s", xlsx, exc_info=True)
    digest.xlsx_path = xlsx
    with chart_lock or nullcontext():  # matplotlib is not thread-safe; the lock is held only to draw
        digest.chart_path = draw_chart(digest.rows, out_dir / f"{stem}.png",
                                       title=f"{digest.title} · {digest.source} · {digest.data_label}")
