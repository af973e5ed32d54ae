"""What the order of typed tokens says: a name beside a code is read with it, in either order.

Users type codes and names in pairs as their software lists them: code first (``600519 贵州茅台``, a 同花顺 copy)
or name first (``贵州茅台 600519``, a 东方财富 copy, a WeChat message). ``load.pool_from_codes`` merges a pair that
names one stock into one row; the functions here handle the pairs that do not agree: an index's name beside the
index's number (the number is then the index, never the Shenzhen stock sharing its digits), and a code beside
another stock's name (both rows say so). Reading only code-then-name, ``上证指数 000001`` screened 平安银行 as a
good row and ``贵州茅台 600519 五粮液 000858`` flagged both rows 名称与代码不符 (a trial, 2026-12-07).
"""

from __future__ import annotations

import unicodedata
from itertools import pairwise

from screening.data.codes import EXCHANGES, CodeError, exchange_of, index_name, normalise_code
from screening.data.names import fold_name, index_named
from screening.data.row_checks import typed_name_conflict
from screening.data.universe import Universe
from screening.models import InputProblem, Pool, PoolItem


def is_name(token: str) -> bool:
    """A token no code reading takes: a name (or garbage, which the resolver names)."""
    try:
        normalise_code(token)
    except CodeError:
        return True
    return False


def _bare_number(token: str) -> str | None:
    number = unicodedata.normalize("NFKC", token).strip()
    return number if number.isascii() and number.isdigit() and len(number) == 6 else None


def _paired(item: PoolItem) -> bool:
    """The item already took its partner (its error's value names both tokens): a third token starts anew."""
    return item.error is not None and item.error.value != item.raw_code


def _same_index(number: str, named: str) -> bool:
    index = index_name(number, "SH") or index_name(number)
    return index is not None and fold_name(index) == fold_name(named)


def _fail_as_index(pool: Pool, item: PoolItem, number: str, named: str, code: str | None, value: str) -> None:
    where = f"{number} 在{EXCHANGES[code[-2:]]}是一只股票的代码, 不按那只股票的数据筛选; " if code else ""
    item.stock, item.code = None, code
    item.error = InputProblem(source=pool.source, message=f"{number} {named} 是指数, 不是股票 ({where}"
                              "指数不能筛选)", value=value)


def index_after_its_code(pool: Pool, token: str) -> bool:
    """``000001 上证指数``: the name says the bare code before it meant the index, not the Shenzhen stock
    sharing its digits. That code's row becomes one failed row saying so (as a file's row does), and the
    name is part of it. True when ``token`` was taken that way."""
    named = index_named(token)
    if named is None or not pool.items:
        return False
    last = pool.items[-1]
    number = _bare_number(last.raw_code)
    if number is None or _paired(last) or not _same_index(number, named):
        return False
    code = last.stock.code if last.stock is not None else last.code
    _fail_as_index(pool, last, number, named, code, f"{number} {token}")
    return True


def code_after_its_index(pool: Pool, token: str, universe: Universe) -> bool:
    """``上证指数 000001``: the same pair, name first. The name's row failed as an index already; the number after
    it is that index too, and joins that row instead of screening the Shenzhen stock of those digits."""
    number = _bare_number(token)
    if number is None or not pool.items or pool.items[-1].stock is not None:
        return False
    last = pool.items[-1]
    named = index_named(last.raw_code)
    if named is None or _paired(last) or not _same_index(number, named):
        return False
    market = exchange_of(number)
    code = f"{number}.{market}" if market and universe.record(f"{number}.{market}") is not None else None
    _fail_as_index(pool, last, number, named, code, f"{last.raw_code} {token}")
    return True


def names_beside_codes(pool: Pool, read: list[tuple[str, str | None]], purpose: str = "screen") -> None:
    """Note on both rows each name typed right after a code (``600519 五粮液``) that reads as another stock
    (``row_checks.typed_name_conflict``). The same code's name merges into its row (``pool_from_codes``) and an
    index's name fails the code (``index_after_its_code``); another stock's name gave a second row with no
    word that the pair did not agree. By the tokens' order, as those two: one text is one list wherever it was
    typed (an argument, several, a chat message). Only codes the data holds: an old BSE code beside its 920
    stock's name fails with its own line. A code its own name came before (``贵州茅台 600519 五粮液 000858``, a
    list of name-code pairs) is paired already: the name after it starts the next pair."""
    rows = {item.stock.code: item.stock for item in pool.items if item.stock is not None}
    for at, ((code_token, code), (name_token, named)) in enumerate(pairwise(read)):
        if code is None or named is None or is_name(code_token) or not is_name(name_token):
            continue
        if at and read[at - 1][1] == code and is_name(read[at - 1][0]):
            continue
        stock, other = rows.get(code), rows.get(named)
        if stock is None or other is None:
            continue
        note = typed_name_conflict(code_token, stock, name_token, other, purpose)
        for row in (stock, other):
            if note is not None and note not in row.notes:
                row.notes.append(note)
