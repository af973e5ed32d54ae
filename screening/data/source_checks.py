"""Checks of a file row's figures against the local data's figures for the same stock.

A file's figures win over the stored ones (``load.load_file``), so the rules may read a mix: the file's ROE
beside the stored net profit. Two mixes were screened without a word before the eighteenth session, and the
row now says so (the figures are never changed, the file still wins):

* a profit and an ROE of opposite signs, one from each source (a file ROE of 18% beside two stored years of
  losses came back 高 for 近两年连续亏损 at score 100, the two halves of the verdict contradicting each other):
  ``盈亏与ROE矛盾``, as for the same contradiction within a file's own columns (``row_checks.sign_conflict``);
* a file ROE with no report period far from the stored ROE (12.0 against a stored FY2025 34.2: a quote
  board's ROE column exported in December is most often the Q3 cumulative figure): ``数据存疑``, naming both
  values and the stored period;
* a PE cell that states a loss (亏损, read as missing: data/pe_words.py) beside a positive stored PE: the file
  says loss, the data says profit, and the row is screened on the stored figure: ``数据存疑``, naming both;
* a file PE-TTM and a stored PE-TTM of opposite signs (the twentieth session: a file's +18.0 beside a refresh's
  -4265.0 came back 低, the loss-maker screened on the file's PE with no word): ``数据存疑``, naming both, their
  days and which is newer. Flagged whatever the days: a PE-TTM changes sign only when a report turns the trailing
  profit, and a file column that is another PE (static, dynamic) differs in sign on any day, so an older local PE
  is weaker evidence, said so in the note, not none.

Two stored figures that differ in sign are left alone, as ``sign_conflict`` leaves them: a provider's TTM ROE
beside last year's profit can. Demo data is no yardstick for a real file's figures and is never compared.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from screening.data.file_dates import quote_day
from screening.data.pe_words import stated_losses
from screening.data.pool_demo import DEMO_NOTE
from screening.data.row_checks import period_kind
from screening.data.universe import Universe
from screening.figures import figure, money
from screening.models import FIELD_LABELS, FLAG_DATA_DOUBT, NOTE_SIGN_CONFLICT, StockInput

# How far a file ROE with no period may sit from the stored one before the row says so, in percentage points.
# The rules' thresholds are 5 and 15 points apart and the score moves 5 per point: a gap of 5 can move a tier.
ROE_GAP_POINTS = 5.0


def _side(stock: StockInput, field: str) -> str | None:
    """'文件' or '本地数据 (<provider>@<date>)': where a filled stock's figure came from; None for demo or unknown."""
    source = stock.sources.get(field, "")
    if source == "file":
        return "文件"
    if source.startswith("universe:"):
        return f"本地数据 ({source.removeprefix('universe:')})"
    return None


def cross_sign_conflict(stock: StockInput, universe: Universe) -> str | None:
    """The note for a net profit and an ROE of opposite signs when one is the file's and the other the local
    data's, else None (one source's pair is ``row_checks.sign_conflict``'s)."""
    profit, roe = stock.net_profit_y1, stock.roe
    if profit is None or roe is None or profit * roe >= 0 or universe.info.demo:
        return None
    roe_side, profit_side = _side(stock, "roe"), _side(stock, "net_profit_y1")
    if roe_side is None or profit_side is None or (roe_side == "文件") == (profit_side == "文件"):
        return None
    rec = universe.record(stock.code)
    period = rec.stock.report_date if rec is not None and rec.stock.report_date else None
    loss = f"净利润 {money(profit)}" + (f" ({period} 报告期)" if period and profit_side != "文件" else "")
    earlier = stock.net_profit_y2
    # both years from one side: the same source, each year dated by its own period (a refresh's and an import's
    # FY2024 profit says @2024-12-31 beside FY2025's @2025-12-31), so the sides are compared, not their labels
    earlier_side = _side(stock, "net_profit_y2")
    if (profit < 0 and earlier is not None and earlier < 0 and earlier_side is not None
            and (earlier_side == "文件") == (profit_side == "文件")):
        loss = f"近两年净利润 {money(profit)}、{money(earlier)}" + (f" (最新 {period})" if period else "")
    return (f"{NOTE_SIGN_CONFLICT}: {roe_side}的 ROE {figure(roe)}% 与{profit_side}的{loss} 一正一负 "
            "(ROE=净利润/净资产, 应同号); 两者来源不同, 可能不是同一报告期, 请核对文件的 ROE")


def roe_disagrees(stock: StockInput, universe: Universe) -> str | None:
    """The note for a file ROE, its period not given, ``ROE_GAP_POINTS`` or more from the stored ROE, else None.
    A period is given by a 报告期 column, or by the ROE's own (a ``roe_period``/ROE报告期 cell, an i问财 stamp:
    ``file_dates['roe']``); such an ROE is dated and aged by it, not "未注明报告期"."""
    if (stock.roe is None or stock.sources.get("roe") != "file" or stock.sources.get("report_date") == "file"
            or "roe" in stock.file_dates):
        return None
    rec = universe.record(stock.code)
    if rec is None or rec.stock.roe is None or universe.info.demo:
        return None
    stored = rec.stock.roe
    if abs(stock.roe - stored) < ROE_GAP_POINTS:
        return None
    # the ROE's own period (a refresh dates it by its fiscal year), not the record's latest 报告期: a refresh's
    # FY2025 ROE beside its 2026-09-30 EPS was named "2026-09-30 三季报 ROE" (a trial, 2026-12-07), the reverse of
    # what the note then advises; an import dated by its day names no period
    period = rec.dates.get("roe")
    kind = period_kind(period)
    stored_as = (period if kind in period else f"{period} {kind}") if period and kind else "报告期不明"
    where = universe.provenance(rec, "roe").removeprefix("universe:")
    return (f"{FLAG_DATA_DOUBT}: 文件的 ROE {figure(stock.roe)}% 未注明报告期, 本地数据 ({where}) 的 {stored_as} "
            f"ROE 为 {figure(stored)}%, 相差 {figure(abs(stock.roe - stored))} 个百分点; 按文件筛选。"
            "若文件的是季报累计值 (年末导出的行情多为三季报累计), 请改用年报 ROE, 或加一列 报告期")


def loss_word_contradicted(stock: StockInput, universe: Universe) -> str | None:
    """The note for a PE cell that said 亏损 when the local data's PE is positive, else None. ``screen`` fills the
    cell with that PE (a file row's own figure is never compared); ``universe import`` refuses the row with it."""
    rec = universe.record(stock.code)
    if rec is None or universe.info.demo:
        return None
    for field, said in stated_losses(stock.notes).items():
        stored, own = getattr(rec.stock, field), getattr(stock, field)
        given = own is not None and not stock.sources.get(field, "").startswith("universe:")  # another column's
        if stored is None or stored <= 0 or given:
            continue
        where = universe.provenance(rec, field).removeprefix("universe:")
        label = FIELD_LABELS[field]
        return (f"{FLAG_DATA_DOUBT}: {said}, 而本地数据 ({where}) 的 {label} 为 {figure(stored)} (盈利), "
                f"两者矛盾; 按本地数据的 {label} 筛选。请核对: 若确是亏损, 在文件中填入实际的负市盈率")
    return None


def _profit_word(pe: float) -> str:
    """What a PE-TTM's sign says of the trailing profit; zero is a loss, as the rules' PE≤0 reads it."""
    return "盈利" if pe > 0 else "亏损" if pe < 0 else "为0, 按亏损计"


# what the two quote days say of the contradiction: (file day vs local day) -> the clause; {turn} is what the
# company would have done between them, read from the newer figure's sign
_AGE_CLAUSES: dict[str, str] = {
    "local newer": "本地数据较新 (文件的行情日期 {file} 早于 {local}), 其间公司可能已{turn}",
    "file newer": "本地数据较旧 ({local} 早于文件的行情日期 {file}), 证据较弱, 其间公司可能已{turn}",
    "same day": "两者同为 {local} 的行情, 盈亏不应相反, 文件的列多半不是 PE-TTM",
    "file undated": "文件未注明行情日期, 无从比较新旧",
}


def pe_sign_conflict(stock: StockInput, universe: Universe) -> str | None:
    """The note for a file PE-TTM and the local data's PE-TTM of opposite signs (zero counts as a loss), else None.
    Only a PE the file gave itself (one filled from the local data is that figure; an import's rows are not filled,
    so a figure with no source is the file's), never against demo data."""
    own = stock.pe_ttm
    if own is None or stock.sources.get("pe_ttm", "file") != "file" or universe.info.demo or DEMO_NOTE in stock.notes:
        return None
    rec = universe.record(stock.code)
    stored = rec.stock.pe_ttm if rec is not None else None
    if rec is None or stored is None or not (math.isfinite(own) and math.isfinite(stored)) or (own > 0) == (stored > 0):
        return None
    local, file = rec.dates.get("pe_ttm") or rec.as_of, quote_day(stock.file_dates)
    newer = own if file is not None and file > local else stored
    key = ("file undated" if file is None else "same day" if file == local
           else "file newer" if file > local else "local newer")
    age = _AGE_CLAUSES[key].format(file=file, local=local, turn="扭亏" if newer > 0 else "转亏")
    where = universe.provenance(rec, "pe_ttm").removeprefix("universe:")
    return (f"{FLAG_DATA_DOUBT}: 文件的 PE-TTM {figure(own)} ({_profit_word(own)}) 与本地数据 ({where}) 的 PE-TTM "
            f"{figure(stored)} ({_profit_word(stored)}) 盈亏相反; {age}; 按文件的 {figure(own)} 筛选。请核对两者的"
            "行情日期哪个较新、该列是否为 PE-TTM (静态或动态市盈率可与 TTM 异号): 本地数据为准则清空该格 "
            "(取本地数据), 文件为准则运行 universe refresh 更新本地数据")


# the checks `screen` runs on every file row, in the order its notes are listed (load.load_file)
SOURCE_CHECKS: tuple[Callable[[StockInput, Universe], str | None], ...] = (
    cross_sign_conflict, roe_disagrees, loss_word_contradicted, pe_sign_conflict)


def source_notes(stock: StockInput, universe: Universe) -> list[str | None]:
    """Each of ``SOURCE_CHECKS``' notes on a filled file row (None where a check finds nothing)."""
    return [check(stock, universe) for check in SOURCE_CHECKS]
