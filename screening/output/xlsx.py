"""The XLSX a user opens in Excel/WPS: results, input and summary sheets, all in Chinese.

Headers are Chinese on every sheet (a Chinese user's workbook); the JSON contract's key of each
column is kept as the header cell's note, so a script can still map columns to ``--format json``.
Rows are ranked as every view ranks them (risk, then the unclamped rank value; failed rows last and
grey), risk cells coloured, status in Chinese, the sources in one readable cell. Every string is
formula-escaped and stripped of characters a workbook cannot hold, so no name or report text can
break the file or run in the user's spreadsheet. The workbook opens on the results; a demo workbook
says 演示数据 on every results row's flags, on a sheet of its own and in the summary, its results tab red.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.worksheet import Worksheet

from screening.models import FIELD_LABELS, Pool, ResultRow
from screening.output.report import COLUMNS, HEADERS_ZH, cell, is_demo, public_row, ranked, summary

RISK_FILL = {"高": "F8CBAD", "中": "FFE699", "低": "C6EFCE"}
FAILED_FILL = "D9D9D9"  # a failed row is grey across: it has no verdict, and must not pass for one
STATUS_ZH = {"ok": "成功", "failed": "失败"}
# how a figure's source reads in the one 数据来源 cell: file, demo, or "akshare 2026-12-02"
SOURCE_ZH = {"file": "文件", "demo": "演示数据"}
INPUT_COLUMNS = {"row": "源文件行", "raw_code": "原始代码", "code": "代码", "name": "名称", "industry": "行业",
                 "pe_ttm": "PE-TTM", "pe_dynamic": "市盈率-动态", "roe": "ROE(%)", "eps": "每股收益", "st": "ST",
                 "report_text": "报告原文", "sources": "数据来源", "error": "错误"}
SUMMARY_LABELS = {"total": "总数", "ok": "成功", "failed": "失败", "高": "高风险", "中": "中风险", "低": "低风险",
                  "flagged": "有标记", "model_raised": "模型上调",
                  "text_raised": "文本信号上调", "score_fixed": "评分校正", "data_doubt": "数据存疑",
                  "source": "来源", "data": "本地数据", "engine": "引擎", "seconds": "用时(秒)",
                  "generated_at": "生成时间",
                  "job": "任务", "state": "状态", "digest_date": "摘要日期", "data_as_of": "数据截至",
                  "previous_digest": "上一期摘要"}
DEMO_SUMMARY_LABEL = "数据性质"  # the 汇总 row of a demo workbook saying what its figures are
DEMO_TEXT = ("演示数据: 本文件的数字来自 examples/ 的示例和合成市场, 不是真实行情, 不能据此交易。"
             "真实数据请运行 python -m screening universe refresh。")


def _header(ws: Worksheet, keys: Sequence[str], labels: dict[str, str]) -> None:
    ws.append([labels.get(k, k) for k in keys])
    for c, key in zip(ws[1], keys, strict=True):
        c.font = Font(bold=True)
        c.comment = Comment(f"JSON: {key}", "ashare-screener")


def text_row(ws: Worksheet, values: Sequence[Any]) -> None:
    """Append one row of values, every string as a typed string cell, never a formula.

    openpyxl stores a string that starts with "=" as a formula, so names and texts from uploaded files were
    escaped with the CSV's apostrophe, which a workbook then showed as part of them (``'=cmd…``, ``'- 公司…``; a
    trial, s15/u4 C2). A string cell is never evaluated by Excel or WPS: written as one, it is inert and literal."""
    ws.append([cell(v, escape=False) for v in values])
    for c in ws[ws.max_row]:
        if c.data_type == "f":
            c.data_type = "s"


def sources_text(sources: dict[str, str]) -> str:
    """One readable cell: "文件" when every figure came from the file, else grouped by source:
    "文件: PE-TTM, ROE; akshare 2026-12-02: 行业"."""
    groups: dict[str, list[str]] = {}
    for field, src in sources.items():
        label = SOURCE_ZH.get(src) or src.removeprefix("universe:").replace("@", " ")
        groups.setdefault(label, []).append(FIELD_LABELS.get(field, field))
    if len(groups) == 1:
        return next(iter(groups))
    return "; ".join(f"{label}: {', '.join(fields)}" for label, fields in groups.items())


def _results(ws: Worksheet, rows: Sequence[ResultRow]) -> None:
    _header(ws, COLUMNS, HEADERS_ZH)
    risk_col = COLUMNS.index("risk_level") + 1
    for r in ranked(rows):
        d = public_row(r)
        d["status"] = STATUS_ZH.get(r.status, r.status)
        d["sources"] = sources_text(r.sources)
        text_row(ws, [d[c] for c in COLUMNS])
        if r.status != "ok":
            for c in ws[ws.max_row]:
                c.fill = PatternFill("solid", fgColor=FAILED_FILL)
        fill = RISK_FILL.get(r.risk_level or "")
        if fill:
            ws.cell(row=ws.max_row, column=risk_col).fill = PatternFill("solid", fgColor=fill)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = ws.dimensions
    widths = {"code": 11, "input": 11, "name": 10, "industry": 10, "risk_level": 8, "score": 6, "rank_value": 8,
              "reason": 34, "flags": 40, "status": 6, "error": 40, "sources": 30}
    for idx, key in enumerate(COLUMNS):
        if key in widths:
            ws.column_dimensions[ws.cell(row=1, column=idx + 1).column_letter].width = widths[key]


def _inputs(ws: Worksheet, pool: Pool) -> None:
    keys = list(INPUT_COLUMNS)
    _header(ws, keys, INPUT_COLUMNS)
    for item in pool.items:
        s = item.stock
        values: dict[str, Any] = {"row": item.row, "raw_code": item.raw_code,
                                  "error": str(item.error) if item.error else None}
        if s is None:  # a failed row keeps what the file said of it, so the user finds the row (figures failed)
            values.update({k: v for k, v in (("code", item.code), ("name", item.name)) if v and k in keys})
        if s is not None:
            values.update({k: getattr(s, k) for k in keys if hasattr(s, k) and k not in values})
            values["sources"] = sources_text(s.sources) if s.sources else None  # as the results sheet reads
        text_row(ws, [values.get(k) for k in keys])


def write_workbook(rows: Sequence[ResultRow], path: Path, pool: Pool | None = None,
                   meta: dict[str, Any] | None = None, *, demo: bool = False) -> Path:
    """Results (结果, the sheet it opens on), 演示数据 in demo mode, input (输入, when a pool is given), summary."""
    demo = demo or is_demo(rows)  # a demo pool on a real universe is demo data too (its rows say 演示数据)
    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "结果"
    _results(ws, rows)
    if demo:
        note = wb.create_sheet("演示数据")
        note.append([DEMO_TEXT])
        note["A1"].font = Font(bold=True, color="C00000")
        ws.sheet_properties.tabColor = "C00000"
    if pool is not None:
        _inputs(wb.create_sheet("输入"), pool)
    wsum = wb.create_sheet("汇总")
    _header(wsum, ["key", "value"], {"key": "项目", "value": "数值"})
    for key, value in {**summary(rows), **(meta or {})}.items():
        text_row(wsum, [SUMMARY_LABELS.get(key, key), value if isinstance(value, int | float) else str(value)])
    if demo:
        # its own label: the "data" row above is the local universe's (本地数据为空, akshare ...), and a demo run
        # showed two rows both labelled 数据 (a trial, s15/u4 C5)
        wsum.append([DEMO_SUMMARY_LABEL, "演示数据 (非真实行情)"])
    wb.active = 0  # Excel/WPS open on the results
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(path)
    return path
