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

from screening.data.codes import EXCHANGES, SH_INDICES, CodeError, exchange_of, index_name, normalise_code
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


def _pairs(read: list[tuple[str, str | None]]) -> list[tuple[int, int]]:
    """(code position, name position) of each code and name typed side by side as one pair.

    A list of pairs is typed one way throughout (a 同花顺 copy code first, a 东方财富 copy or a chat message name
    first), and a name agreeing with the code on one side says nothing about the code on its other side: in
    ``600519 贵州茅台 000858 五粮液`` 贵州茅台 is not 000858's name, and in ``贵州茅台 000858 五粮液 600519``
    五粮液 is 600519's, not 000858's. So the first code and name that stand side by side decide which way the
    list pairs (as the first market typed apart decides it for markets, ``codes.split_codes``); pairs are taken
    that way from the start, then what is left pairs the other way (``600519 贵州茅台 五粮液 000858``, a list
    that changed order halfway). Only tokens that read as a stock or a code count: garbage between them is
    its own failed row."""
    kinds = [None if code is None else is_name(token) for token, code in read]  # True: a name, False: a code
    sides = [a for a, b in pairwise(kinds) if a is not None and b is not None and a != b]
    first = sides[0] if sides else False
    taken: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for lead in (first, not first):
        at = 0
        while at + 1 < len(kinds):
            if kinds[at] is lead and kinds[at + 1] is (not lead) and not taken & {at, at + 1}:
                pairs.append((at + 1, at) if lead else (at, at + 1))
                taken |= {at, at + 1}
                at += 2
            else:
                at += 1
    return pairs


def names_beside_codes(pool: Pool, read: list[tuple[str, str | None]], purpose: str = "screen") -> None:
    """Note on both rows each code typed beside another stock's name, in either order (``600519 五粮液``,
    ``五粮液 600519``; ``row_checks.typed_name_conflict``). The same code's name merges into its row
    (``pool_from_codes``) and an index's name fails the code (``index_after_its_code``); another stock's name
    gave a second row with no word that the pair did not agree. Which name goes with which code is ``_pairs``'
    reading, by the tokens' order: one text is one list wherever it was typed (an argument, several, a chat
    message). Only codes the data holds: an old BSE code beside its 920 stock's name fails with its own line.
    Reading only code-then-name, ``五粮液 600519`` and ``贵州茅台 000858 五粮液 600519`` said nothing (a trial,
    2026-12-07)."""
    rows = {item.stock.code: item.stock for item in pool.items if item.stock is not None}
    for code_at, name_at in _pairs(read):
        (code_token, code), (name_token, named) = read[code_at], read[name_at]
        stock, other = rows.get(code or ""), rows.get(named or "")
        if stock is None or other is None:
            continue
        note = typed_name_conflict(code_token, stock, name_token, other, purpose, name_first=name_at < code_at)
        for row in (stock, other):
            if note is not None and note not in row.notes:
                row.notes.append(note)


def index_twin_notes(pool: Pool, named: set[str]) -> None:
    """Note on a row whose code was typed as a bare number that is also a Shanghai index (``000016`` 上证50 and
    深康佳A): the bare number is the Shenzhen stock by design, but the user may have meant the index, and the row
    said nothing (a trial, 2026-12-07). Not when a market (``000016.SZ``) or a name beside it (``000016 深康佳A``,
    ``named``) already said which. Informational, not 数据存疑: the row's data is the stock's and is not in doubt;
    what the note answers is which security the user meant, and the row names the stock it screened."""
    for item in pool.items:
        number = _bare_number(item.raw_code)
        index = SH_INDICES.get(number or "")
        if item.stock is None or index is None or item.stock.code in named:
            continue
        item.stock.notes.append(f"{number} 也是{index}的指数代码; 本行按深市股票 {item.stock.code} 筛选 "
                                f"(若要的是{index}: 指数不能筛选)")
