"""Lines of a pool file that are no stock: trailers (数据来源:通达信, 共 2 条记录, 以上数据仅供参考, an export time)
and summary rows (合计, 平均), wherever they sit.

A trial (2026-12-07) found them counted as failed stocks (不是A股代码: '共 2 条记录'), inflating the 失败 count:
trailers were taken off the end one at a time, so one line no pattern knew (以上数据仅供参考) kept every line
above it, and a 平均 row mid-file was never looked at. The words are data (NOTE_LINES), read by one function; a
row whose lead cell looks like a code is a stock whatever else it says, and fails as one when it is bad.
"""

from __future__ import annotations

import re
import unicodedata

from screening.data.codes import CodeError, normalise_code
from screening.data.pool_rows import unwrap_code
from screening.data.pool_table import Formula, RawRow
from screening.models import InputProblem, Pool

# How a line that is no stock begins or reads, matched on its lead cell after NFKC folding, and whether the
# pattern counts only when that cell is the line's only one (a colon alone says little in a row of figures).
NOTE_LINES: tuple[tuple[re.Pattern[str], bool], ...] = (
    (re.compile(r"^(数据来源|来源|数据提供|资料来源)"), False),  # 通达信's 数据来源:通达信
    (re.compile(r"^(导出时间|导出日期|更新时间)|导出$"), False),  # 2026-12-04 15:00:00 导出
    (re.compile(r"^共\s*\d+\s*[条只个行项家]"), False),  # 共 2 条记录
    (re.compile(r"^(合计|总计|小计|汇总|平均|均值|中位数)"), False),  # summary rows of a hand-kept sheet
    (re.compile(r"仅供参考|免责|不构成投资建议"), False),  # 以上数据仅供参考
    # an empty list's one line (东方财富's 自选股 with no stock exports 暂无数据): no stock, not a failed one
    (re.compile(r"^(暂无|没有|无)(符合条件的|相关)?(数据|记录|股票)"), True),
    (re.compile(r"[:：]"), True),  # any other 'label: text' line (注: ...)
)
_CODE_DIGITS = re.compile(r"\d{5,}")


def note_text(row: RawRow, code_idx: int) -> str | None:
    """The lead cell of a row that is no stock (a trailer or a summary row), None for a row to read as a stock.

    The lead cell is the row's first non-empty cell; it must sit in the code column, or the code cell be empty.
    A formula is content, its result saved or not (it counts as filled, so it is never the 'alone' of a 注: line),
    and no reason to read a row as a stock: an .xlsx 合计 row sums its column (=SUM(C2:C4)) and is a summary row
    as the CSV's is (it failed as a stock, 不是A股代码: '合计', in 2026-12-07's check). A lead formula cell reads as
    its saved result; one without a result reads as its literal if it is one (="合计", written by a script and
    never saved: it failed as 不是A股代码: '合计', as the code cell reads it so), else as nothing, and its row fails
    as a stock's would, saying why.
    """
    if row.broken is not None:
        return None
    filled = [i for i, c in enumerate(row.cells) if c.strip() or i in row.formulas]
    if not filled or (filled[0] != code_idx and code_idx in filled):
        return None
    lead = row.cells[filled[0]].strip() or _literal(row.formulas.get(filled[0]))
    text = unicodedata.normalize("NFKC", lead)
    alone = len(filled) == 1
    if _CODE_DIGITS.search(text) or not any(p.search(text) for p, only in NOTE_LINES if alone or not only):
        return None
    try:
        normalise_code(unwrap_code(text))
    except CodeError:
        return lead
    return None


def skip_notes(data: list[RawRow], code_idx: int, source: str, pool: Pool) -> list[RawRow]:
    """The data rows without trailers and summary rows, which one warning names."""
    notes = [(r, t) for r in data if (t := note_text(r, code_idx)) is not None]
    if not notes:
        return data
    named = ", ".join(f"第{r.row}行 {t!r}" for r, t in notes[:6]) + (" ..." if len(notes) > 6 else "")
    pool.warnings.append(InputProblem(
        source, f"{len(notes)} 行视为附注行或汇总行 (不是股票, 不计入): {named}",
        row=notes[0][0].row, value=notes[0][1]))
    skipped = {id(r) for r, _ in notes}
    return [r for r in data if id(r) not in skipped]


def _literal(formula: Formula | None) -> str:
    """The text of a formula that is a literal (="合计"), as the code cell reads it (pool_rows.unwrap_code); else ''.
    A computation (=SUM, =IF) is never evaluated."""
    if formula is None:
        return ""
    text = unwrap_code(formula.text)
    return text.strip() if text != formula.text else ""
