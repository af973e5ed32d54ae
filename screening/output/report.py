"""Result output: the table for terminals, JSON/CSV for machines, XLSX for people, a chart PNG.

Every string that came from an input file or the model is escaped before it reaches a
spreadsheet (``export_safety.escape_formula``), so a name like ``=HYPERLINK(...)`` stays text.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from screening.models import Pool, ResultRow
from screening.output.export_safety import escape_formula

COLUMNS = [
    "code",
    "name",
    "industry",
    "risk_level",
    "score",
    "reason",
    "flags",
    "status",
    "error",
    "rule_risk",
    "rule_score",
    "model_risk",
    "model_score",
    "pe_ttm",
    "roe",
    "row",
]
HEADERS_ZH = {
    "code": "代码",
    "name": "名称",
    "industry": "行业",
    "risk_level": "风险等级",
    "score": "评分",
    "reason": "理由",
    "flags": "标记",
    "status": "状态",
    "error": "错误",
    "rule_risk": "规则风险",
    "rule_score": "规则评分",
    "model_risk": "模型风险",
    "model_score": "模型评分",
    "pe_ttm": "PE-TTM",
    "roe": "ROE(%)",
    "row": "源文件行",
}
RISK_FILL = {"高": "F8CBAD", "中": "FFE699", "低": "C6EFCE"}
CJK_FONT_FILES = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
)
RISK_STYLE = {"高": "bold red", "中": "yellow", "低": "green"}


def to_json(rows: Sequence[ResultRow]) -> str:
    return json.dumps([r.public() for r in rows], ensure_ascii=False, indent=1)


def _cell(value: object) -> object:
    if isinstance(value, list):
        value = "; ".join(str(v) for v in value)
    return escape_formula(value) if isinstance(value, str) else value


def to_csv(rows: Sequence[ResultRow]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(COLUMNS)
    for r in rows:
        d = r.public()
        w.writerow([_cell(d[c]) for c in COLUMNS])
    return buf.getvalue()


def summary(rows: Sequence[ResultRow]) -> dict:
    """Counts by risk and status, for the summary sheet, the CLI footer and the bot."""
    risk = Counter(r.risk_level for r in rows if r.status == "ok")
    return {
        "total": len(rows),
        "ok": sum(r.status == "ok" for r in rows),
        "failed": sum(r.status == "failed" for r in rows),
        "高": risk.get("高", 0),
        "中": risk.get("中", 0),
        "低": risk.get("低", 0),
        "flagged": sum(bool(r.flags) for r in rows),
        "model_raised": sum(any(f.startswith("模型上调") for f in r.flags) for r in rows),
        "score_fixed": sum(any(f.startswith("评分已按") for f in r.flags) for r in rows),
        "data_doubt": sum(any(f.startswith("数据存疑") for f in r.flags) for r in rows),
    }


def top_picks(rows: Sequence[ResultRow], n: int = 10) -> list[ResultRow]:
    ok = [r for r in rows if r.status == "ok" and r.score is not None]
    order = {"低": 0, "中": 1, "高": 2}
    return sorted(ok, key=lambda r: (order[r.risk_level or "高"], -(r.score or 0), r.code))[:n]


def write_xlsx(rows: Sequence[ResultRow], path: Path, pool: Pool | None = None, meta: dict | None = None) -> Path:
    """Results, input and summary sheets; risk cells coloured; every string formula-escaped."""
    from openpyxl import Workbook
    from openpyxl.styles import Font, PatternFill

    wb = Workbook()
    ws = wb.active
    ws.title = "结果"
    ws.append([HEADERS_ZH[c] for c in COLUMNS])
    for cell in ws[1]:
        cell.font = Font(bold=True)
    risk_col = COLUMNS.index("risk_level") + 1
    for r in rows:
        d = r.public()
        ws.append([_cell(d[c]) for c in COLUMNS])
        fill = RISK_FILL.get(r.risk_level or "")
        if fill:
            ws.cell(row=ws.max_row, column=risk_col).fill = PatternFill("solid", fgColor=fill)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = ws.dimensions
    for col, width in zip("ABCDEFGHI", (12, 12, 12, 8, 6, 34, 40, 7, 40), strict=False):
        ws.column_dimensions[col].width = width

    if pool is not None:
        wi = wb.create_sheet("输入")
        fields = ["row", "raw_code", "code", "name", "industry", "pe_ttm", "roe", "eps", "st", "report_text", "error"]
        wi.append(fields)
        for item in pool.items:
            s = item.stock
            values = [
                item.row,
                item.raw_code,
                s.code if s else None,
                s.name if s else None,
                s.industry if s else None,
                s.pe_ttm if s else None,
                s.roe if s else None,
                s.eps if s else None,
                s.st if s else None,
                s.report_text if s else None,
                str(item.error) if item.error else None,
            ]
            wi.append([_cell(v) for v in values])

    wsum = wb.create_sheet("汇总")
    for key, value in {**summary(rows), **(meta or {})}.items():
        wsum.append([_cell(str(key)), _cell(value if isinstance(value, int | float) else str(value))])
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(path)
    return path


def write_chart(rows: Sequence[ResultRow], path: Path, title: str = "") -> Path:
    """PNG: the risk mix and the score distribution by industry (top industries by count)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    # a CJK font if the machine has one (scripts/setup.sh and the bot image install WenQuanYi),
    # registered by path: matplotlib's font cache does not see fonts installed after it was built
    for font_file in CJK_FONT_FILES:
        if Path(font_file).exists() and not any(f.fname == font_file for f in font_manager.fontManager.ttflist):
            font_manager.fontManager.addfont(font_file)
    cjk = [
        f.name
        for f in font_manager.fontManager.ttflist
        if any(k in f.name for k in ("Noto Sans CJK", "WenQuanYi", "SimHei", "Source Han"))
    ]
    if cjk:
        plt.rcParams["font.sans-serif"] = [cjk[0], "DejaVu Sans"]
    labels = {"高": "high 高", "中": "mid 中", "低": "low 低"} if cjk else {"高": "high", "中": "mid", "低": "low"}
    ok = [r for r in rows if r.status == "ok"]
    s = summary(rows)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.5))
    counts = [s["高"], s["中"], s["低"], s["failed"]]
    a1.bar(
        [labels["高"], labels["中"], labels["低"], "failed"], counts, color=["#e06666", "#f6b26b", "#93c47d", "#999999"]
    )
    a1.set_title("risk mix")
    for i, c in enumerate(counts):
        a1.text(i, c, str(c), ha="center", va="bottom")
    by_ind: dict[str, list[int]] = {}
    for r in ok:
        by_ind.setdefault(r.industry or "?", []).append(r.score or 0)
    top = sorted(by_ind.items(), key=lambda kv: -len(kv[1]))[:12]
    if top:
        names = [k if cjk else f"#{i + 1}" for i, (k, _) in enumerate(top)]
        a2.boxplot([v for _, v in top], orientation="horizontal")
        a2.set_yticks(range(1, len(top) + 1), names)
    a2.set_title("score by industry")
    a2.set_xlim(0, 100)
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def render_table(rows: Sequence[ResultRow], console=None) -> None:
    """Coloured terminal table (rich); long pools stay readable because flags are shortened."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    t = Table(show_lines=False)
    for col in ("代码", "名称", "行业", "风险", "评分", "理由", "标记/错误"):
        t.add_column(col)
    for r in rows:
        style = RISK_STYLE.get(r.risk_level or "", "dim")
        extra = r.error if r.status == "failed" else "; ".join(r.flags)
        cells = (r.code, r.name or "", r.industry or "", r.risk_level or "失败",
                 "" if r.score is None else str(r.score), r.reason or "", extra or "")
        # Text, not str: a name or reason like "[bold]" or "[/]" is data, never rich markup
        t.add_row(*(Text(c) for c in cells), style=style)
    console.print(t)
    s = summary(rows)
    console.print(
        f"共 {s['total']} 只: 高 {s['高']} / 中 {s['中']} / 低 {s['低']} / 失败 {s['failed']}; "
        f"模型上调 {s['model_raised']}, 评分校正 {s['score_fixed']}, 数据存疑 {s['data_doubt']}"
    )
