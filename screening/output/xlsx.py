"""The XLSX a user opens in Excel/WPS: results, input and summary sheets, all in Chinese.

Headers are Chinese on every sheet (a Chinese user's workbook); the JSON contract's key of each
column is kept as the header cell's note, so a script can still map columns to ``--format json``.
Risk cells are coloured; every string is formula-escaped and stripped of characters a workbook
cannot hold, so no name or report text can break the file or run in the user's spreadsheet.
A demo workbook opens on a sheet that says 演示数据.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Font, PatternFill
from openpyxl.worksheet.worksheet import Worksheet

from screening.models import Pool, ResultRow
from screening.output.report import COLUMNS, HEADERS_ZH, cell, summary

RISK_FILL = {"高": "F8CBAD", "中": "FFE699", "低": "C6EFCE"}
INPUT_COLUMNS = {"row": "源文件行", "raw_code": "原始代码", "code": "代码", "name": "名称", "industry": "行业",
                 "pe_ttm": "PE-TTM", "pe_dynamic": "市盈率-动态", "roe": "ROE(%)", "eps": "每股收益", "st": "ST",
                 "report_text": "报告原文", "sources": "数据来源", "error": "错误"}
SUMMARY_LABELS = {"total": "总数", "ok": "成功", "failed": "失败", "高": "高风险", "中": "中风险", "低": "低风险",
                  "flagged": "有标记", "model_raised": "模型上调", "score_fixed": "评分校正", "data_doubt": "数据存疑",
                  "source": "来源", "data": "数据", "engine": "引擎", "seconds": "用时(秒)", "generated_at": "生成时间",
                  "job": "任务", "state": "状态", "digest_date": "摘要日期", "data_as_of": "数据截至",
                  "previous_digest": "上一期摘要"}
DEMO_TEXT = ("演示数据: 本文件的数字来自 examples/ 的示例和合成市场, 不是真实行情, 不能据此交易。"
             "真实数据请运行 python -m screening universe refresh。")


def _header(ws: Worksheet, keys: Sequence[str], labels: dict[str, str]) -> None:
    ws.append([labels.get(k, k) for k in keys])
    for c, key in zip(ws[1], keys, strict=True):
        c.font = Font(bold=True)
        c.comment = Comment(f"JSON: {key}", "ashare-screener")


def _results(ws: Worksheet, rows: Sequence[ResultRow]) -> None:
    _header(ws, COLUMNS, HEADERS_ZH)
    risk_col = COLUMNS.index("risk_level") + 1
    for r in rows:
        d = r.public()
        ws.append([cell(d[c]) for c in COLUMNS])
        fill = RISK_FILL.get(r.risk_level or "")
        if fill:
            ws.cell(row=ws.max_row, column=risk_col).fill = PatternFill("solid", fgColor=fill)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = ws.dimensions
    for col, width in zip("ABCDEFGHI", (12, 12, 12, 8, 6, 34, 40, 7, 40), strict=False):
        ws.column_dimensions[col].width = width


def _inputs(ws: Worksheet, pool: Pool) -> None:
    keys = list(INPUT_COLUMNS)
    _header(ws, keys, INPUT_COLUMNS)
    for item in pool.items:
        s = item.stock
        values: dict[str, Any] = {"row": item.row, "raw_code": item.raw_code,
                                  "error": str(item.error) if item.error else None}
        if s is not None:
            values.update({k: getattr(s, k) for k in keys if hasattr(s, k) and k not in values})
        ws.append([cell(values.get(k)) for k in keys])


def write_workbook(rows: Sequence[ResultRow], path: Path, pool: Pool | None = None,
                   meta: dict[str, Any] | None = None, *, demo: bool = False) -> Path:
    """Results (结果), input (输入, when a pool is given) and summary (汇总) sheets; 演示数据 first in demo mode."""
    wb = Workbook()
    first = wb.active
    assert first is not None
    if demo:
        first.title = "演示数据"
        first.append([DEMO_TEXT])
        first["A1"].font = Font(bold=True, color="C00000")
        ws = wb.create_sheet("结果")
    else:
        ws = first
        ws.title = "结果"
    _results(ws, rows)
    if pool is not None:
        _inputs(wb.create_sheet("输入"), pool)
    wsum = wb.create_sheet("汇总")
    _header(wsum, ["key", "value"], {"key": "项目", "value": "数值"})
    for key, value in {**summary(rows), **(meta or {})}.items():
        wsum.append([cell(SUMMARY_LABELS.get(key, key)), cell(value if isinstance(value, int | float) else str(value))])
    if demo:
        wsum.append(["数据", "演示数据 (非真实行情)"])
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(path)
    return path
