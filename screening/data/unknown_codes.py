"""Codes the local data does not hold: what a typed code or a file row under one is told.

Apart from load.py (which turns input into a pool) because the answer depends on why the data lacks the code:
an index typed bare, a Beijing code from before the 2025-10-09 move, a stock the last refresh saw leave the list
(refresh.left_the_list stores that note with the universe), or a code no source ever listed. Each says what to
do; only the last is helped by a refresh.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from screening.data.codes import index_name
from screening.data.names import norm_name
from screening.data.universe import Universe
from screening.models import NOTE_NOT_LISTED, StockInput

# the words refresh.left_the_list opens its note with: the note a typed code is looked up in
LEFT_THE_LIST = "left the list since the last refresh"
# the words of refresh.left_the_list's note naming old Beijing codes a refresh found under their 920 code
MOVED_BSE = "moved to their 920 code (北交所新代码) since the last refresh"


# a universe of at least this many stocks lists the whole market (5,400 A shares; an import of a few is not)
WHOLE_MARKET = 3000


def left_the_list_at(code: str, universe: Universe) -> str | None:
    """When the refresh that wrote ``universe`` named ``code`` among the stocks that left the list (its
    ``refreshed_at``), else None: telling such a code to run a refresh sends the user round in a circle (a
    trial, 2026-12-08: the refresh had just run and named it). From the refresh's record of every such code
    (``UniverseInfo.left_list``), else (a universe written before it) its note, which names the first 20."""
    named = code in universe.info.left_list or any(
        LEFT_THE_LIST in note and (f"{code} " in note or note.endswith(code) or f"{code}、" in note)
        for note in universe.info.notes)
    if not named:
        return None
    return (universe.info.refreshed_at or "")[:16].replace("T", " ") or "最近一次"


def left_the_list(code: str, universe: Universe) -> str | None:
    """What a code the last refresh saw leave the list is told, typed (``unknown_code_message``) or as a file row
    lacking figures (``gap_causes``: the failed row's cause), else None. One sentence for both: a file row under
    such a code was told to run a refresh (a trial, 2026-12-07: ``screen watch.csv`` and ``digest --pool``, 600087),
    while the same code typed said a refresh cannot bring it back."""
    at = left_the_list_at(code, universe)
    if at is None:
        return None
    return f"{at} 的刷新发现它已不在行情列表中, 可能已退市或换了代码, 再刷新也不会有; 请核对代码"


def unknown_code_message(code: str, universe: Universe) -> str:
    """What a user is told for a valid code no data covers, with what to do about it."""
    where = "本地数据为空" if not len(universe) else universe.info.label()
    if (new := moved_to(code, universe)) is not None:  # the refresh saw it move: a refresh cannot tell more
        rec = universe.get(new)
        name = f" {rec.name}" if rec is not None and rec.name else ""
        return (f"{code}: 北交所旧代码, 已改为 {new}{name} (2025-10-09 起的代码, 刷新时按同名核对): "
                f"请改用 {new}")
    moved = ""
    index = index_name(code[:6])
    if index:  # 000300 typed bare: no stock has it, the index does
        moved = f"; {code[:6]} 也是{index}的指数代码, 指数不能筛选"
    if is_old_bse_code(code):
        # the BSE gave every listed stock a 920 code on 2025-10-09; old exports still carry 43/83/87
        moved = "; 北交所已于 2025-10-09 把全部股票改为 920xxx 代码: 请查到它的新代码"
    if not moved and (left := left_the_list(code, universe)) is not None:
        return f"{code}: 本地数据中没有这只股票 ({where}): {left}, 或上传含其数据的文件"
    return (f"{code}: 本地数据中没有这只股票 ({where}){moved}: 运行 "
            "`python -m screening universe refresh`, 或上传含其数据的文件")


def unlisted_code(stock: StockInput, universe: Universe) -> str | None:
    """A note for a file row whose code the local data does not hold: screened on the file's figures alone,
    without the announcements and ST mark the data would have added. A pre-2025-10-09 BSE code says why; any
    other code, in a market the data lists whole, is most likely delisted since the file was exported (a trial,
    2026-12-06: such a row came back 低/100 unflagged), and the row is counted as doubtful."""
    if universe.record(stock.code) is not None:
        return None
    if is_old_bse_code(stock.code):
        return f"北交所旧代码 {stock.code[:6]}: 2025-10-09 起为 920xxx, 本地数据查不到它, 未补入公告与ST标记"
    if len(universe) < WHOLE_MARKET or universe.info.demo:  # the demo market is invented: no delisting to tell
        return None
    day = f" (行情 {universe.info.trade_date})" if universe.info.trade_date else ""
    return (f"{NOTE_NOT_LISTED}: 本地全市场数据{day}中没有 {stock.code}, 可能已退市或代码有误; "
            "只按文件的数字筛选, 未补入公告与ST标记")


def is_old_bse_code(code: str) -> bool:
    """A pre-2025-10-09 Beijing code (43/83/87xxxx.BJ): the BSE moved every listed stock to 920xxx that day."""
    return code.endswith(".BJ") and not code.startswith("920")


def moved_bse_code(stock: StockInput, universe: Universe) -> str | None:
    """The note for a file row under a pre-2025-10-09 BSE code whose name is, exactly, one 920xxx stock's in the
    local data; the row's code is then that stock's, so the data adds its announcements and ST mark. Only by the
    full name the file gives: the new number is not derived from the old one (a guess), nor from a part of a name.

    Also where the local data still holds the old code (an import from before the move, which no refresh
    lists): the 920 stock of that name is the one the market data keeps current, and a file listing both codes
    would otherwise give two rows of one stock."""
    old = stock.code
    if not is_old_bse_code(old) or not stock.name:
        return None
    found = [m for m in universe.find_by_name(stock.name)
             if m.code.startswith("920") and norm_name(m.name or "") == norm_name(stock.name)]
    if len(found) != 1:
        return None
    stock.code = found[0].code
    left = "; 本地数据中旧代码的记录不再使用" if universe.record(old) is not None else ""
    return f"北交所旧代码 {old[:6]} 按名称读作 {found[0].code} {found[0].name} (2025-10-09 起的代码){left}"


def bse_moves(gone: Iterable[str], before: Mapping[str, str | None],
              names: Mapping[str, str | None]) -> dict[str, str]:
    """{old code: its 920 code} for the old Beijing codes that left the list while a 920 stock of, exactly, the
    same name is listed (``names``: this refresh's codes and names). Only by the full name, as ``moved_bse_code``:
    the new number is never derived from the old one. Without this the refresh called the move a delisting and
    the old code was told to run a refresh (a trial, 2026-12-07: 830385.BJ 隆虚新材 -> 920385.BJ)."""
    by_name: dict[str, list[str]] = {}
    for code, name in names.items():
        if code.startswith("920") and code.endswith(".BJ") and name:
            by_name.setdefault(norm_name(name), []).append(code)
    moves: dict[str, str] = {}
    for code in gone:
        name = before.get(code)
        if is_old_bse_code(code) and name and len(found := by_name.get(norm_name(name), [])) == 1:
            moves[code] = found[0]
    return moves


def moved_to(code: str, universe: Universe) -> str | None:
    """The 920 code the refresh that wrote ``universe`` found ``code`` moved to, or None: from the refresh's record
    of every move (``UniverseInfo.bse_moves``), else (a universe written before that record) its ``MOVED_BSE``
    note, which names the first 20."""
    if code in universe.info.bse_moves:
        return universe.info.bse_moves[code]
    for note in universe.info.notes:
        if MOVED_BSE in note and (found := re.search(rf"{re.escape(code)} [^、]*→ (920\d{{3}}\.BJ)", note)):
            return found.group(1)
    return None
