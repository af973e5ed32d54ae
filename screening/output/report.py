"""Result output for machines and terminals: JSON, CSV, the coloured table, and the counts they share.

Every string that came from an input file or the model is made safe for where it goes: formula
triggers escaped for spreadsheets (``export_safety``), characters a spreadsheet cannot hold
removed, rich markup never interpreted. The XLSX is output/xlsx.py, the chart output/chart.py.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

from screening.figures import figure
from screening.models import RISK_ORDER, ResultRow, is_doubt
from screening.output.export_safety import escape_formula, excel_text, fit_cell, strip_illegal
from screening.screen.rules import THRESHOLDS, formula_value
from screening.screen.signal_hit import CLARIFIED, CLEARED, EXCLUDED, RESOLVED, WHY_SHOWN

# The JSON/CSV/XLSX row contract, in order; README "The row contract" lists the same fields (a test checks it).
COLUMNS = ["code", "input", "name", "industry", "risk_level", "score", "rank_value", "reason", "flags", "status",
           "error", "fail_code", "rule_risk", "rule_score", "model_risk", "model_score", "pe_ttm", "roe", "row",
           "sources", "data_date", "signals"]
HEADERS_ZH = {
    "code": "代码", "input": "输入", "name": "名称", "industry": "行业", "risk_level": "风险等级", "score": "评分",
    "rank_value": "排序值", "reason": "理由", "flags": "标记", "status": "状态", "error": "错误",
    "fail_code": "失败类别", "rule_risk": "规则风险", "rule_score": "规则评分", "model_risk": "模型风险",
    "model_score": "模型评分", "pe_ttm": "PE-TTM", "roe": "ROE(%)", "row": "源文件行", "sources": "数据来源",
    "data_date": "数据日期", "signals": "文本信号",
}
DEMO_FLAG = "演示数据"  # the data layer's demo note (data/load.py): what the data is, not a doubt about a row
RISK_STYLE = {"高": "bold red", "中": "yellow", "低": "green"}


def public_row(r: ResultRow) -> dict[str, Any]:
    """One row as the contract has it: the row's public fields plus its rank value, in COLUMNS order."""
    d = r.public()
    d["rank_value"] = rank_value(r)
    return {c: d.get(c) for c in COLUMNS}


def to_json(rows: Sequence[ResultRow]) -> str:
    """One object per input stock, in input order (a script joins on ``code`` or on the order)."""
    return json.dumps([public_row(r) for r in rows], ensure_ascii=False, indent=1)


# how a signal that raises nothing says so (screen/signal_hit.py): shown as "(低)" these read as a live risk of tier
# 低 in chat and in the XLSX, the JSON alone naming the state (a trial, 2026-12-07)
STATE_SHOWN = {RESOLVED: "已解除, 不计", CLARIFIED: "澄清, 不计", CLEARED: "称已消除, 不计"}


def _state_shown(s: dict[str, Any]) -> str:
    state = str(s.get("state"))
    if state == EXCLUDED:  # 读作他方的事, 不计: the reading that set the words aside, as the flag names it
        return f"{WHY_SHOWN.get(str(s.get('why')), '读作无风险')}, 不计"
    return STATE_SHOWN.get(state, str(s.get("tier")))


def signal_text(s: dict[str, Any]) -> str:
    """One text signal of a row as a reader sees it: ``立案调查(高) 2026-11-20 关于收到…的公告``, or
    ``资金占用(称已消除, 不计) 「…」`` or ``债务违约(读作他方的事, 不计) 「…」`` for one that raises nothing."""
    where = " ".join(str(x) for x in (s.get("date"), s.get("text")) if x)
    return f"{s.get('signal')}({_state_shown(s)}) {where}".strip()


def cell(value: object, *, escape: bool = True) -> object:
    """One value as a spreadsheet/CSV cell: lists and maps as text, strings made inert and storable.

    ``escape=False`` for a workbook, which stores a string as a typed string cell (xlsx.text_row): Excel never
    evaluates one, so the CSV's apostrophe would only show as part of the name or text there."""
    if isinstance(value, list) and value and isinstance(value[0], dict) and "signal" in value[0]:
        value = [signal_text(s) for s in value]
    if isinstance(value, dict):
        value = "; ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, list):
        value = "; ".join(str(v) for v in value)
    if not isinstance(value, str):
        return value
    return fit_cell(escape_formula(strip_illegal(value)) if escape else strip_illegal(value))


CODE_COLUMNS = ("code", "input")  # the cells a spreadsheet must keep as written (leading zeros)


def to_csv(rows: Sequence[ResultRow], *, excel: bool = False) -> str:
    """The rows as CSV. ``excel``: the file is for Excel/WPS (``--out``, ``> out.csv``), so an all-digit code is
    written ``="000001"`` and keeps its zeros there; a pipe's reader (a program) gets the code as given."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(COLUMNS)
    for r in rows:
        d = public_row(r)
        w.writerow([excel_text(cell(d[c])) if excel and c in CODE_COLUMNS else cell(d[c]) for c in COLUMNS])
    return buf.getvalue()


def is_demo(rows: Sequence[ResultRow]) -> bool:
    """Whether any row is demo data: a demo pool on a real universe is as much demo as the demo universe,
    so every view that labels demo data asks the rows, not only the universe."""
    return any(DEMO_FLAG in r.flags for r in rows)


def demo_title(rows: Sequence[ResultRow], title: str) -> str:
    """``title`` led by 演示数据 when the rows are demo data and the title does not already say so."""
    if is_demo(rows) and DEMO_FLAG not in title:
        return f"{DEMO_FLAG} (非真实行情) · {title}" if title else f"{DEMO_FLAG} (非真实行情)"
    return title


def summary(rows: Sequence[ResultRow]) -> dict[str, int]:
    """Counts by risk and status, for the summary sheet, the CLI footer and the bot."""
    risk = Counter(r.risk_level for r in rows if r.status == "ok")
    return {
        "total": len(rows),
        "ok": sum(r.status == "ok" for r in rows),
        "failed": sum(r.status == "failed" for r in rows),
        "高": risk.get("高", 0),
        "中": risk.get("中", 0),
        "低": risk.get("低", 0),
        "flagged": sum(any(f != DEMO_FLAG for f in r.flags) for r in rows),  # 演示数据 is on every demo row
        "model_raised": sum(any(f.startswith("模型上调") for f in r.flags) for r in rows),
        "score_fixed": sum(any(f.startswith("评分已按") for f in r.flags) for r in rows),
        "data_doubt": sum(any(is_doubt(f) for f in r.flags) for r in rows),  # the rules' and the input's
        "text_raised": sum(text_raised(r) for r in rows),
    }


def text_raised(r: ResultRow) -> bool:
    """The row's risk was raised by a signal its announcements or report text state (screen/signals.py)."""
    return r.status == "ok" and any(s.get("raises") for s in r.signals)


def rank_value(r: ResultRow) -> float | None:
    """The score formula before clamping, 2 decimals: two stocks that both score 100 are not equally good.

    ``score`` stays the seed's clamped 0..100 integer; this is what tables, the XLSX and the digest sort
    by within a risk level. None on a failed row or one without PE-TTM and ROE.
    """
    if r.status != "ok" or r.pe_ttm is None or r.roe is None:
        return None
    return round(formula_value(r.pe_ttm, r.roe), 2)


def rank_key(r: ResultRow) -> tuple[int, int, float, str]:
    """Sort key of every ranked view: ok rows by risk (低 first), then rank value (highest first); failed last."""
    value = rank_value(r)
    return (r.status != "ok", RISK_ORDER.get(r.risk_level or "高", 2),
            -(value if value is not None else float(r.score or 0)), r.code)


def ranked(rows: Sequence[ResultRow]) -> list[ResultRow]:
    return sorted(rows, key=rank_key)


def top_picks(rows: Sequence[ResultRow], n: int = 10) -> list[ResultRow]:
    """The best stocks: only 低 rows (a 中 or 高 stock is no pick), by rank value; empty when none is 低."""
    return [r for r in ranked(rows) if r.status == "ok" and r.risk_level == "低"][:n]


PIPED_WIDTH = 400  # columns of the table when stdout is a file or a pipe


def _num(value: float | None) -> str:
    """A figure as given (``0.12`` stays 0.12, the figure the reason and the flags quote), else one decimal; written
    out and never rounded onto a rule's threshold (screening/figures.py: the table showed ROE 15 for 14.9999996)."""
    if value is None:
        return ""
    return f"{value:.1f}" if round(value, 1) == value and abs(value) < 1e16 else figure(value, THRESHOLDS)


def render_table(rows: Sequence[ResultRow], console: Any = None, title: str = "") -> None:
    """Coloured terminal table (rich); names and reasons shown verbatim (Text, never markup)."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    # piped or redirected, rich would cut cells at 80 columns: print at full width instead, and fold
    # (never "…") what still does not fit a terminal, so no reason or flag is ever cut short
    console = console or Console(width=None if sys.stdout.isatty() else PIPED_WIDTH)
    title = demo_title(rows, title)
    t = Table(show_lines=False, title=Text(title) if title else None, title_justify="left")
    for col in ("代码", "名称", "行业", "风险", "评分", "排序值", "PE-TTM", "ROE%", "理由", "标记/错误"):
        t.add_column(col, overflow="fold")
    for r in ranked(rows):
        style = RISK_STYLE.get(r.risk_level or "", "dim")
        # a failed row keeps its flags too (a 名称与代码不符 on a row that failed for a missing ROE)
        extra = "; ".join([r.error or "", *r.flags] if r.status == "failed" else r.flags).strip("; ")
        value = rank_value(r)
        cells = (r.code, r.name or "", r.industry or "", r.risk_level or "失败",
                 "" if r.score is None else str(r.score), "" if value is None else figure(value), _num(r.pe_ttm),
                 _num(r.roe), r.reason or "", extra or "")
        # Text, not str: a name or reason like "[bold]" or "[/]" is data, never rich markup
        t.add_row(*(Text(c) for c in cells), style=style)
    console.print(t)
    s = summary(rows)
    console.print(Text(
        f"共 {s['total']} 只: 高 {s['高']} / 中 {s['中']} / 低 {s['低']} / 失败 {s['failed']}; "
        f"模型上调 {s['model_raised']}, 文本信号上调 {s['text_raised']}, 评分校正 {s['score_fixed']}, "
        f"数据存疑 {s['data_doubt']}"))
