"""The digest's files: the XLSX (results plus change sheets) and the chart PNG."""

from __future__ import annotations

import logging
from pathlib import Path

from openpyxl import load_workbook

from screening.digest.model import Digest
from screening.output import report
from screening.output.export_safety import escape_formula

log = logging.getLogger(__name__)


def write_files(digest: Digest, out_dir: Path) -> None:
    """The XLSX (report.write_xlsx plus a 变化 sheet) and the chart PNG."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"digest-{digest.date.isoformat()}-{digest.scope}"
    meta = {"digest_date": digest.date.isoformat(), "source": digest.source, "data_as_of": digest.data_as_of or "",
            "previous_digest": digest.previous_date.isoformat() if digest.previous_date else "",
            "engine": digest.engine, "generated_at": digest.generated_at.strftime("%Y-%m-%d %H:%M:%S")}
    xlsx = report.write_xlsx(digest.rows, out_dir / f"{stem}.xlsx", None, meta)
    try:
        wb = load_workbook(xlsx)
        ws = wb.create_sheet("变化")
        ws.append(["代码", "名称", "前一期风险", "本期风险", "前一期评分", "本期评分"])
        for c in digest.changes:
            ws.append([c.code, escape_formula(c.name or ""), c.old_risk, c.new_risk, c.old_score, c.new_score])
        ws2 = wb.create_sheet("新增ST")
        ws2.append(["代码", "名称", "风险", "评分"])
        for r in digest.new_st:
            ws2.append([r.code, escape_formula(r.name or ""), r.risk_level, r.score])
        wb.save(xlsx)
    except Exception:  # the main sheets are written; the extra ones are a nicety
        log.warning("could not add the change sheets to %s", xlsx, exc_info=True)
    digest.xlsx_path = xlsx
    digest.chart_path = report.write_chart(digest.rows, out_dir / f"{stem}.png",
                                           title=f"{digest.date.isoformat()} {digest.scope}")
