"""One data row of an uploaded pool -> a usable PoolItem, or a failed one carrying its first problem.

Everything that arrives in a cell is cleaned here, at the input edge, and said: control characters
are removed (a note on the stock), full-width codes and digits are folded, a cached formula result
is used with a note, a formula without one fails its cell, and a figure outside its column's
plausible range or in a unit the column cannot take fails its cell with the reason.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

from screening.data.codes import EXCHANGES, CodeError, normalise_code
from screening.data.names import index_named
from screening.data.pe_words import pe_word_note
from screening.data.pool_formats import FORMAT_NOTES, apply_format
from screening.data.pool_headers import NUMERIC_FIELDS, PERIOD_OF, UNIT_FIELDS, unnamed_pe
from screening.data.pool_table import Formula, RawRow
from screening.data.providers.forecast_words import figures_clause, forecast_body
from screening.data.value_bounds import check_value
from screening.data.values import is_missing, parse_bool_flag, parse_number_unit, strip_controls
from screening.figures import figure
from screening.models import (
    FIELD_LABELS,
    NOTE_DUPLICATE_CONFLICT,
    NOTE_IGNORED,
    NOTE_PE_UNNAMED,
    NOTE_SUSPENDED,
    InputProblem,
    PoolItem,
    StockInput,
)


@dataclass(frozen=True)
class Column:
    """A file column that feeds a StockInput field."""

    idx: int
    name: str  # the header as written
    scale: float  # the header's unit scale (总市值(亿) -> 1e8)
    unit: str | None  # the header's unit as written (亿, %, 元 ...)


Problem = tuple[str, str | None, str | None]  # message, column, value


def _cell(cells: list[str], idx: int) -> str:
    return cells[idx] if idx < len(cells) else ""


def _clean_value(value: str | None) -> str | None:
    return None if value is None else strip_controls(value)[0]


def parse_row(index: int, raw: RawRow, used: dict[str, Column], source: str,
              first_seen: dict[str, int]) -> PoolItem:
    """One data row -> an item; a duplicate code (by normalised code) fails against its first row."""
    code_col = used["code"]
    raw_code, code_changed = strip_controls(_cell(raw.cells, code_col.idx).strip())
    raw_code = raw_code.strip()

    def fail(message: str, column: str | None, value: str | None, code: str | None = None) -> PoolItem:
        problem = InputProblem(source, message, row=raw.row, column=column, value=_clean_value(value))
        name_col = used.get("name")
        name = strip_controls(_cell(raw.cells, name_col.idx).strip())[0] if name_col is not None else ""
        return PoolItem(index=index, raw_code=raw_code, row=raw.row, error=problem, name=name or None, code=code)

    if raw.broken is not None:
        return fail(raw.broken, None, None)
    notes: list[str] = []
    code_text = raw_code
    formula = raw.formulas.get(code_col.idx)
    if formula is not None:
        literal = unwrap_code(formula.text)  # ="000001" is a literal, not a computation
        if formula.cached:
            notes.append(f"公式单元格 {code_col.name}: 使用缓存值")
        elif literal != formula.text:
            code_text = literal
        else:
            return fail(_formula_problem(formula), code_col.name, formula.text)
    try:
        code = normalise_code(unwrap_code(unicodedata.normalize("NFKC", code_text).strip()))
    except CodeError as exc:
        return fail(str(exc), code_col.name, raw_code)
    if code in first_seen:  # a later row that agrees and adds text is merged into the first after (pool_merge)
        return fail(f"与第 {first_seen[code]} 行重复 (同一代码 {code})", code_col.name, raw_code, code)

    values: dict[str, Any] = {}
    problems: list[Problem] = []
    cleaned = [code_col.name] if code_changed else []
    for field, col in used.items():
        if field != "code":
            _read_field(field, col, raw, values, problems, notes, cleaned)
    named_index = index_named(values.get("name"))  # 通达信 lists 000001 上证指数 beside stocks: not 000001.SZ
    if named_index is not None and not problems:
        name_col = used["name"].name
        problems.append((f"{named_index} 是指数, 不是股票 ({code[:6]} 在{EXCHANGES[code[-2:]]}是一只股票的代码, "
                         "不按那只股票的数据筛选)",
                         name_col, named_index))
    if problems:
        message, col_name, value = problems[0]
        if len(problems) > 1:
            others = "; ".join(f"{c}={_clean_value(v)!r}" for _, c, v in problems[1:4])
            message += f" (另有错误: {others}{' ...' if len(problems) > 4 else ''})"
        return fail(message, col_name, value, code)
    # only a row that reads claims its code: a copy below a failed row is screened (the eighteenth session: a
    # cell 'abc' in the first copy failed the good second one as its duplicate, and the stock got no verdict)
    first_seen[code] = raw.row
    if cleaned:
        notes.append("已移除控制字符: " + ", ".join(cleaned))
    join_forecast(values)
    join_notice(values)
    for day in ("quote_date", *PERIOD_OF):  # days, not figures: pool_dates reads them into the row's file_dates
        values.pop(day, None)
    stock = StockInput(code=code, **values, notes=notes)
    return PoolItem(index=index, raw_code=raw_code, row=raw.row, stock=stock)


def differing_figures(kept: StockInput, raw: RawRow, used: dict[str, Column]) -> list[str]:
    """The figures a duplicate row gives otherwise than the row the job screens (``ROE 15.2 / 12.1``).

    Why: a file that lists one code twice with other figures gives two readings of one stock; the stock's row
    must name both (pool_conflict). Cells the duplicate leaves blank or cannot read are no conflict.
    """
    return _differing(kept, read_figures(raw, used))


FIGURE_FIELDS = (*NUMERIC_FIELDS, "st")


def differing_values(kept: StockInput, other: StockInput) -> list[str]:
    """The figures a row read as a stock of its own gives otherwise than ``kept`` (a blank agrees)."""
    return _differing(kept, {f: getattr(other, f, None) for f in FIGURE_FIELDS})


def read_figures(raw: RawRow, used: dict[str, Column], fields: tuple[str, ...] = FIGURE_FIELDS) -> dict[str, Any]:
    """The values a row's cells give under ``used`` for ``fields`` (the figures and ST flag unless told), as a row
    reads them (a text cell stripped, a date cell's time of day dropped); a cell that cannot be read gives none."""
    values: dict[str, Any] = {}
    for field, col in used.items():  # in the file's column order: the order a conflict names them in
        if field in fields:
            _read_field(field, col, raw, values, [], [], [])
    return values


def _differing(kept: StockInput, values: dict[str, Any]) -> list[str]:
    out = []
    for field, value in values.items():
        first = getattr(kept, field, None)
        if value is None or first is None or value == first:
            continue
        if isinstance(value, float) and isinstance(first, float) and math.isclose(value, first, rel_tol=1e-9):
            continue
        out.append(f"{FIELD_LABELS.get(field, field)} {_shown_value(first)} / {_shown_value(value)}")
    return out


def flag_conflict(kept: PoolItem, dup: PoolItem, differ: list[str]) -> None:
    """A duplicate row with other figures or another 报告期 (``differ``: pool_identity.differing): its failure names
    them, and the screened row carries a doubt note. A duplicate that reads becomes a second reading of the stock
    once the file is read, its note rewritten to name both rows (pool_conflict); one that does not stays so."""
    _note_conflict(kept, dup, differ, "同一代码")


def _note_conflict(kept: PoolItem, dup: PoolItem, differ: list[str], same: str) -> None:
    assert kept.stock is not None and dup.error is not None
    if not differ:
        return
    shown = "; ".join(differ)
    dup.error = replace(dup.error, message=f"{dup.error.message}; 两行数据不同 (第 {kept.row} 行 / 本行): {shown}")
    kept.stock.notes.append(f"{NOTE_DUPLICATE_CONFLICT}: 第 {dup.row} 行{same}数据不同 (本行 / 第 {dup.row} 行: "
                            f"{shown}); 按本行筛选, 请核对文件")


def link_failed_copy(failed: PoolItem, kept: PoolItem, raw: RawRow, used: dict[str, Column]) -> None:
    """A row that failed on a cell, then a readable row of the same code: the later one is screened. Both say
    so: the failed row that the other was used instead, the screened row that a copy failed, and, when
    the failed copy's readable figures differ, that the two differ (a doubt, as between two good copies)."""
    assert kept.stock is not None and failed.error is not None
    bad = failed.error
    failed.error = replace(bad, message=f"{bad.message}; 第 {kept.row} 行是同一代码且可读取, 已改用该行")
    differ = differing_figures(kept.stock, raw, used)
    if differ:
        kept.stock.notes.append(f"{NOTE_DUPLICATE_CONFLICT}: 第 {failed.row} 行同一代码 (该行读取失败) 数据不同 "
                                f"(本行 / 第 {failed.row} 行: {'; '.join(differ)}); 按本行筛选, 请核对文件")
    else:
        cell = f" ({bad.column} 值 {bad.value!r})" if bad.column and bad.value is not None else ""
        kept.stock.notes.append(f"重复行: 第 {failed.row} 行同一代码读取失败{cell}, 按本行筛选")


def fail_as_same_stock(kept: PoolItem, dup: PoolItem, same: str, source: str, column: str | None) -> None:
    """A row naming, under another code, the stock another row gives (830799 is 920799 since the BSE's
    2025-10-09 switch, known only once the local data is read): it fails as that row's duplicate, as one code
    written twice does in ``parse_row``, saying why the two codes are one stock (``same``), and a duplicate
    with other figures flags both rows (``flag_conflict``). Both items are as read, not yet filled from the
    data: a figure the duplicate leaves blank is no conflict."""
    assert dup.stock is not None
    values = {f: getattr(dup.stock, f, None) for f in (*NUMERIC_FIELDS, "st")}
    dup.error = InputProblem(source, f"与第 {kept.row} 行重复 ({same}, 同一只股票)", row=dup.row, column=column,
                             value=_clean_value(dup.raw_code))
    dup.name, dup.code, dup.stock = dup.stock.name, dup.stock.code, None
    assert kept.stock is not None
    _note_conflict(kept, dup, _differing(kept.stock, values), "同一股票")


def _shown_value(value: Any) -> str:
    if isinstance(value, bool):
        return "是" if value else "否"
    return figure(value) if isinstance(value, float) else str(value)


def _read_field(field: str, col: Column, raw: RawRow, values: dict[str, Any], problems: list[Problem],
                notes: list[str], cleaned: list[str]) -> None:
    text = _cell(raw.cells, col.idx)
    formula = raw.formulas.get(col.idx)
    if formula is not None:
        if not formula.cached:
            problems.append((_formula_problem(formula), col.name, formula.text))
            return
        notes.append(f"公式单元格 {col.name}: 使用缓存值")
    if field in IGNORABLE_FIELDS:
        own: list[Problem] = []
        _read_number(field, col, text, values, own, raw.formats.get(col.idx), notes)
        notes += [_ignored(col, text, message, field in FORECAST_FIGURES) for message, _, _ in own]
    elif field in NUMERIC_FIELDS:
        _read_number(field, col, text, values, problems, raw.formats.get(col.idx), notes)
    elif field == "st":
        try:
            values[field] = parse_bool_flag(text)
        except ValueError:
            problems.append(("不是 ST 是/否标记 (应为 是/否、Y/N、1/0、true/false 或 ST)", col.name, text))
    else:
        clean, changed = strip_controls(text, keep_layout=field == "report_text")
        if changed:
            cleaned.append(col.name)
        if field in ("name", "industry"):  # ="*ST康美" / '*ST康美: Excel's text wrappers, as on codes
            clean = unwrap_code(clean.strip())
        if field in LABEL_FIELDS and is_missing(clean):  # 报告期 '暂无', 名称 '--': no value, as in a figure column
            values[field] = None
        else:
            values[field] = _clean_date(clean) if field in DATE_FIELDS else clean.strip() or None


# Figures no rule reads and no figure is derived from in a file (a pool's PE-TTM is the file's, never 总市值 /
# 净利润): a cell of one that cannot be read (总市值 19100 with no unit in the header: 19,100 元) is dropped with
# a note, the row screened on its PE-TTM and ROE. Before the eighteenth session it failed the row, and a file
# whose 总市值 column was in 亿 came back with no verdict at all. The universe's own figure, if any, fills in.
# A 业绩预告's own figures (预测数值, 上年同期值, 业绩变动幅度) are read so too: a cell that is no number is said and
# dropped, the row's forecast line written without it (join_forecast). The quote columns beside the PE-TTM (最新价,
# 涨跌幅, 市净率, 市盈率-动态) are read so as well: a 市净率 of '暂无' failed a row whose PE-TTM and ROE were clean, and
# a 3% ROE (高) came back with no verdict for a 涨跌幅 of '暂无' (a trial, 2026-12-08).
FORECAST_FIGURES = ("forecast_value", "forecast_last_year", "forecast_change_pct")
IGNORABLE_FIELDS = frozenset({"market_cap", "price", "change_pct", "pb", "pe_dynamic", *FORECAST_FIGURES})


def _ignored(col: Column, text: str, message: str, forecast: bool = False) -> str:
    """The note of a dropped cell: its column, value and what was wrong, without the range's long why (a forecast
    figure's column is read where it reads: only this cell is left out of the row's forecast line)."""
    clause, _, rest = message.partition(" (") if "超出合理范围" in message else (message, "", "")
    hint = "; 若该列以万或亿计, 请在表头写明单位, 如 总市值(亿)" if "表头写明单位" in rest else ""
    dropped = "该值未写入业绩预告" if forecast else "该列不参与评级"
    return f"{NOTE_IGNORED}: {col.name} 值 {text.strip()!r}: {clause}{hint}; {dropped}, 本行照常筛选"


# What a word in a figure column most often means, said in the row's problem: (pattern, fields or () for
# any, advice). 同花顺 writes 亏损 for a loss-maker's PE; an xlsx cell in a date format reads as a date.
NOT_A_NUMBER_HINTS: tuple[tuple[re.Pattern[str], tuple[str, ...], str], ...] = (
    # a cell of the word alone reads as missing (pe_words.PE_WORDS); this is for one that says more (-35.2亏损)
    (re.compile(r"亏损|虧損|^亏$"), ("pe_ttm", "pe_dynamic"),
     "亏损股的市盈率为负: 填入实际的负市盈率, 或删去该值; 缺少市盈率的行会失败, 不会被猜"),
    # a hand-kept sheet's 净利润 '亏损': how much is not said, and 近两年连续亏损 reads the amounts
    (re.compile(r"亏损|虧損|^亏$"), ("net_profit_y1", "net_profit_y2"),
     "净利润写为亏损: 请填入实际的负金额, 如 -3.2亿; 这里不猜"),
    (re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}"), (),
     "单元格是日期格式: 把该列格式改为常规或数值后重新导出"),
    # accounting formats write a negative in brackets; (5.2) is never guessed to be -5.2
    (re.compile(r"^[(（]\s*[\d.,]+\s*(?:万亿|亿|万)?元?\s*[)）]$"), (),
     "括号是会计格式的负数写法: 若是负数请写成 -5.2 这样的形式"),
    (re.compile(r"^[+-]?\d+\.$"), (), "数字以小数点结尾: 去掉末尾的小数点 (写成 25 或 25.0)"),
)
# A unit a cell may write after its number, in the fields a header may carry it for (市盈率TTM(倍): 25.3倍)
CELL_UNITS: dict[str, tuple[str, ...]] = {unit: UNIT_FIELDS[unit] for unit in ("倍",)}


def _not_a_number(field: str, col: Column, text: str) -> str:
    hints = [h for rx, fields, h in NOT_A_NUMBER_HINTS if (not fields or field in fields) and rx.search(text)]
    return f"{col.name} 列的值不是数字" + (f" ({hints[0]})" if hints else "")


# What trading software writes in a quote cell of a suspended stock. Read as a number it failed the whole row on a
# column no rule reads (涨幅% '停牌', a trial, 2026-12-07), hiding the stock's known risks with it.
SUSPENDED_WORDS = frozenset({"停牌", "停牌中", "停盘"})
QUOTE_CELL_FIELDS = frozenset({"price", "change_pct", "pb", "market_cap", "pe_dynamic", "pe_ttm"})


def _suspended(field: str, col: Column, text: str, values: dict[str, Any], notes: list[str] | None) -> bool:
    """Whether the cell is a quote cell saying 停牌: then it reads as missing (a PE-TTM from the local data, or the
    row fails for want of one, as for any empty cell), and the row says so once."""
    if field not in QUOTE_CELL_FIELDS or unicodedata.normalize("NFKC", text).strip() not in SUSPENDED_WORDS:
        return False
    values[field] = None
    if notes is not None and not any(n.startswith(f"{NOTE_SUSPENDED}: ") for n in notes):
        notes.append(f"{NOTE_SUSPENDED}: 文件的 {col.name} 为 '停牌': 该股停牌中, 行情与市盈率是停牌前的; 该格按缺失读")
    return True


def _read_number(field: str, col: Column, text: str, values: dict[str, Any], problems: list[Problem],
                 cell_format: str | None = None, notes: list[str] | None = None) -> None:
    if _suspended(field, col, text, values, notes):
        return
    if (said := pe_word_note(field, col.name, text)) is not None:  # '-' or 亏损 for a loss-maker's PE: missing
        values[field] = None
        if notes is not None:
            notes.append(said)
        return
    try:
        number, unit = parse_number_unit(_without_cell_unit(field, text))
    except ValueError:
        problems.append((_not_a_number(field, col, text), col.name, text))
        return
    if number is None:
        values[field] = None
        return
    if cell_format is not None and unit is None:  # the xlsx cell's format is its unit: 0.3419 under 0.00%
        number, unit = apply_format(number, cell_format), cell_format
        shown = f"{number:g}{cell_format}"
        if notes is not None:
            notes.append(f"{FORMAT_NOTES[cell_format]}: {col.name}")
        text = f"{text} ({shown})"
    value, reason = check_value(field, text, number, unit, col.name, col.unit, col.scale)
    if reason is not None:
        problems.append((reason, col.name, text))
    else:
        values[field] = value
        if field == "pe_ttm" and notes is not None and unnamed_pe(col.name):
            notes.append(f"{NOTE_PE_UNNAMED}: 列 {col.name!r} 按滚动市盈率(TTM)读; 规则只用 TTM, 若它是动态或静态"
                         "市盈率, 请改导出 市盈率(TTM); 若确是 TTM, 把表头写成 PE-TTM")


def _without_cell_unit(field: str, text: str) -> str:
    """The cell without a unit its column may carry (25.3倍 in a PE column is 25.3, as 市盈率TTM(倍) says)."""
    body = unicodedata.normalize("NFKC", text).strip()
    unit = next((u for u, fields in CELL_UNITS.items() if field in fields and body.endswith(u)), None)
    return body[:-len(unit)] if unit and body[:-len(unit)].strip() else text


DATE_FIELDS = ("report_date", "notice_date", "quote_date", *PERIOD_OF)
# text cells a none-word empties (values.MISSING_MARKERS): a 报告期 of '--' was kept as the period '--' and imported so,
# a 名称 of '--' shown as the stock's name; a report text's 无 is words, and stays
LABEL_FIELDS = frozenset({"name", "industry", *DATE_FIELDS})


def join_forecast(values: dict[str, Any]) -> None:
    """A 业绩预告 in columns (预告类型, 业绩变动, 业绩变动原因, 预测数值, 上年同期值, 业绩变动幅度) becomes a line of
    the report text written as the providers write one (业绩预告（2026-10-20公告）：续亏。预计净利润亏损3亿元至4亿元。
    业绩变动原因：…。), so the text-risk floor reads it as it reads the universe's: a 续亏 is 高, a 首亏 or 预减 中.
    Unread, a 续亏 row came back 低/100 without a word (the eighteenth session), and a row whose only sign of a loss
    was 预测数值 -2.0E8 低 (the twentieth: its figures join the line's first sentence, providers/forecast_words.py).
    A 上年同期值 alone is no forecast. The 公告日期 dates the forecast unless a title column is beside it (then it is
    the title's date, join_notice)."""
    kind, change, reason, metric = (values.pop(f, None) for f in (
        "forecast_kind", "forecast_change", "forecast_reason", "forecast_metric"))
    value, last_year, change_pct = (values.pop(f, None) for f in FORECAST_FIGURES)
    if not (kind or change or reason or value is not None or change_pct is not None):
        return
    day = None if "notice_title" in values else values.get("notice_date")
    body = forecast_body(kind, change, reason, figures_clause(metric, value, last_year, change_pct))
    # the 预测指标 inside the head's brackets, after the day: written after the colon (净利润：-8,000万元), or before a
    # day (净利润，2026-10-15), the text-risk floor read a loss or a decline into a profit's 略增 or a growth range;
    # the figure after the head is read by this metric (screen/signal_forecast.py: a profit's -8,000万元 is a loss)
    head = "，".join(part for part in (f"{day}公告" if day else "", f"预测指标 {metric}" if metric else "") if part)
    line = f"业绩预告（{head}）：{body}" if head else f"业绩预告：{body}"
    text = values.get("report_text")
    values["report_text"] = f"{text}\n{line}" if text else line


def join_notice(values: dict[str, Any]) -> None:
    """A 公告标题 column (with its 公告日期) becomes a dated title line of the report text, as providers write it.

    The text-risk floor reads titles from the report text; a title column the reader did not know was
    dropped without a word (a 立案告知书 title came out 低/100). A date the file did not give stays absent:
    the title is then read undated, never given today's date.
    """
    title, day = values.pop("notice_title", None), values.pop("notice_date", None)
    if not title:
        return
    line = f"{day} {title}" if day else title
    text = values.get("report_text")
    values["report_text"] = f"{text}\n{line}" if text else line


def _formula_problem(formula: Formula) -> str:
    return (f"公式 {formula.text} 在文件中没有保存的结果 (由脚本生成、从未在 Excel/WPS 中打开保存的工作簿); "
            "这里从不计算公式: 请在 Excel/WPS 中打开并保存该文件, 或粘贴数值")


_EXCEL_TEXT_CODE = re.compile(r'^=\s*"([^"]*)"$')


def unwrap_code(raw: str) -> str:
    """Exports write ="000001" or '000001 so Excel keeps the zeros: take the literal, evaluate nothing."""
    m = _EXCEL_TEXT_CODE.match(raw)
    if m:
        return m.group(1)
    return raw[1:] if raw.startswith("'") else raw


def _clean_date(raw: str) -> str | None:
    """xlsx dates arrive as '2024-12-31 00:00:00'; keep the date part, leave any other text as written."""
    text = raw.strip()
    if not text:
        return None
    m = re.match(r"^(\d{4}-\d{2}-\d{2})[ T]00:00:00$", text)
    return m.group(1) if m else text
