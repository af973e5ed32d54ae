"""Input to a Pool: one place that turns a file or a typed code list into the items to screen.

The CLI, the bot's upload and command handlers and the digest all come through here, so a file
is parsed and filled from the local universe the same way everywhere, and a typed token resolves
to a code or a name the same way everywhere. Screening never writes into the universe: one user's
file must not change what every other job sees (``universe import`` is the explicit way in).

Which universe: the real one (filled by ``universe refresh``), or, in demo mode only
(``--demo`` / ``universe.demo = true``), a separate file seeded from examples/ and the synthetic
market, whose every figure is labelled ``demo``. Demo data is never seeded by default.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

from screening.config import InputSettings, Settings, cache_dir
from screening.data.codes import CodeError, normalise_code, split_codes
from screening.data.fill_rows import annotate, fill_file_row
from screening.data.freshness import SHANGHAI
from screening.data.names import index_named, norm_name
from screening.data.pool import read_pool
from screening.data.pool_conflict import drop_readings, read_same_stock
from screening.data.pool_demo import DEMO_NOTE
from screening.data.pool_rows import fail_as_same_stock
from screening.data.stock_csv import read_stock_csv
from screening.data.synthetic import generate_market
from screening.data.typed_order import (
    code_after_its_index,
    index_after_its_code,
    index_twin_notes,
    is_name,
    names_beside_codes,
)
from screening.data.universe import SEED_AS_OF, Record, Universe, UniverseInfo
from screening.data.unknown_codes import (  # noqa: F401 - WHOLE_MARKET: tests and callers read it here
    WHOLE_MARKET,
    is_old_bse_code,
    moved_bse_code,
    unknown_code_message,
    unlisted_code,
)
from screening.models import InputProblem, Pool, PoolItem, PoolRejected, StockInput

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"
_FILE_SUFFIXES = frozenset({".csv", ".txt", ".tsv", ".xls", ".xlsx", ".xlsm"})

log = logging.getLogger("screening.load")


def demo_universe_path() -> Path:
    return cache_dir() / "demo-universe.sqlite"


def open_universe(settings: Settings) -> Universe:
    """The universe screens read: the real one, or in demo mode the (seeded once) demo universe."""
    if settings.universe.demo:
        return ensure_demo_universe(demo_universe_path(), EXAMPLES)
    return Universe.load(settings.universe_path())


def ensure_demo_universe(path: Path, examples_dir: Path) -> Universe:
    """The demo universe at ``path``, seeded on first use; every figure in it is labelled ``demo``.

    The seed is examples/sample_pool.csv (illustrative figures for well-known names) plus a
    SYNTHETIC market of 5,400 stocks (seed 0). Synthetic stocks that share a code or a name
    with the sample are left out, so 600519.SH is 贵州茅台 and not an invented company.
    """
    path = Path(path)
    universe = Universe.load(path)
    if len(universe) and universe.info.demo:
        return universe
    sample_file = Path(examples_dir) / "sample_pool.csv"
    sample = [s for s, _ in read_stock_csv(sample_file)] if sample_file.exists() else []
    sample_codes = {s.code for s in sample}
    sample_names = {norm_name(s.name) for s in sample if s.name}
    synthetic = [s for s in generate_market(5400, 0)
                 if s.code not in sample_codes and norm_name(s.name or "") not in sample_names]
    records = [Record(s, dict.fromkeys((f for f, v in s.data().items() if v is not None and f != "code"), "demo"),
                      {}, SEED_AS_OF) for s in [*synthetic, *sample]]
    universe.replace(records, UniverseInfo(provider="demo", demo=True,
                                           refreshed_at=dt.datetime.now(SHANGHAI).isoformat(timespec="seconds"),
                                           notes=["examples/sample_pool.csv (illustrative) + synthetic market"]))
    return universe


def load_file(path: Path, settings: Settings, universe: Universe, *, source_name: str | None = None,
              today: dt.date | None = None) -> Pool:
    """Parse a pool file, then fill what it lacks from the universe; the file's own figures win."""
    pool = read_pool(path, settings.input, source_name)
    mark_demo_rows(pool, Path(path))
    moved = move_bse_codes(pool, universe)
    for item in pool.items:
        if item.stock is not None:  # a second reading of its stock (pool_conflict) is filled as the first is
            item.stock = fill_file_row(item.stock, moved.get(item.index), universe, settings, today)
            item.readings = [(row, fill_file_row(stock, moved.get(item.index), universe, settings, today))
                             for row, stock in item.readings]
    return pool


def move_bse_codes(pool: Pool, universe: Universe) -> dict[int, str]:
    """Read each row under an old BSE code as its 920xxx stock where the data names it (``moved_bse_code``), and
    fail a row that then gives a stock another row already gave: {item index: the moved row's note}.

    Why here: the file's own duplicate check (``pool_rows.parse_row``) compares codes as written, before any
    data is read, and must not read it; that 830799 is 920799 only the data says. A file listing both gave two
    screened rows of one stock. Done before any row is filled, so a conflict is between the file's figures.

    Which row stays: the one under the 920 code, wherever it stands (the stock's current code; the old-code row
    fails as its duplicate); between rows under old codes only, the first, as for one code written twice. Nothing
    else (the figures, a date) is read as telling which row is newer. Two rows with other figures are one stock
    listed twice with a conflict: the other row is a reading of it, the worse verdict kept, as for one code written
    twice (pool_conflict.read_same_stock; it used to fail, the first-kept row screened alone, 按本行筛选)."""
    notes: dict[int, str] = {}
    read: list[tuple[PoolItem, PoolItem]] = []
    first: dict[str, tuple[PoolItem, str]] = {}
    column = next((header for header, field in pool.mapped.items() if field == "code"), None)
    for item in pool.items:
        if item.stock is None:
            continue
        given = item.stock.code
        note = moved_bse_code(item.stock, universe)
        for _, reading in item.readings:  # a second reading (pool_conflict) is of the same stock: its code moves too
            reading.code = item.stock.code
        kept, kept_given = first.setdefault(item.stock.code, (item, given))
        if kept is item:
            if note is not None:
                notes[item.index] = note
            continue
        dup = item
        if is_old_bse_code(kept_given) and not is_old_bse_code(given):  # 830799 first, then 920799: keep 920799
            kept, dup = item, kept
            first[given] = (item, given)  # a 920 code is never moved: given is the stock's code
            notes.pop(dup.index, None)
        code = item.stock.code
        name = next((i.stock.name for i in (item, dup) if i.stock is not None and i.stock.name), "")
        olds = "、".join(sorted({c[:6] for c in (kept_given, given) if c != code}))
        same = f"{olds} 即 {code} {name}".rstrip() + ": 北交所 2025-10-09 起的代码" if olds else f"同一代码 {code}"
        if read_same_stock(kept, dup, same):
            read.append((kept, dup))
        else:
            fail_as_same_stock(kept, dup, same, pool.source, column)
    by_item = {id(item): notes[item.index] for item in pool.items if item.index in notes}
    drop_readings(pool, read, "同一股票 (北交所旧代码与 920 代码)")  # renumbers the items: the notes follow their rows
    return {item.index: by_item[id(item)] for item in pool.items if id(item) in by_item}


def mark_demo_rows(pool: Pool, path: Path) -> None:
    """Put the demo note first on every row of ``pool`` that is demo data, as read from ``path``: all of a
    shipped example (illustrative figures, invented names on real codes in risk_pool.csv) or a copy of one, and
    each row copied from one into another file. A row whose file says so (the synthetic market's 数据来源
    column, pool_demo) has it from the reader. ``screen`` labels these rows, ``universe import`` refuses them."""
    sample = is_example(path)
    for item in pool.items:
        stock = item.stock
        if stock is not None and DEMO_NOTE not in stock.notes and (sample or _example_key(stock) in _example_rows()):
            stock.notes.insert(0, DEMO_NOTE)


def is_example(path: Path) -> bool:
    """A file shipped in examples/ (illustrative figures, never market data), or a byte-for-byte copy of one.

    A copy (``cp examples/risk_pool.csv my.csv``, or the sample uploaded to the bot, which saves it elsewhere)
    is still invented names on real codes; judged by the folder alone it lost its demo label.
    """
    if path.resolve().parent == EXAMPLES.resolve():
        return True
    try:
        size = path.stat().st_size
        return size in _example_sizes() and hashlib.sha256(path.read_bytes()).hexdigest() in _example_hashes()
    except OSError:
        return False


def _example_key(stock: StockInput) -> tuple[object, ...]:
    return (stock.code, stock.name, stock.pe_ttm, stock.roe, stock.eps, stock.report_text)


@cache
def _example_rows() -> frozenset[tuple[object, ...]]:
    """Every shipped example row as read, so a row copied from one into another file (or an example re-saved
    by Excel, which changes its bytes) keeps its demo label: its name, figures and text are all invented."""
    keys = set()
    for p in _example_files():
        try:
            pool = read_pool(p, InputSettings())
        except PoolRejected:
            continue
        keys |= {_example_key(i.stock) for i in pool.items if i.stock is not None}
    return frozenset(keys)


@cache
def _example_hashes() -> frozenset[str]:
    return frozenset(hashlib.sha256(p.read_bytes()).hexdigest() for p in _example_files())


@cache
def _example_sizes() -> frozenset[int]:
    return frozenset(p.stat().st_size for p in _example_files())


def _example_files() -> list[Path]:
    return [p for p in EXAMPLES.glob("*") if p.is_file() and p.suffix.lower() != ".md"]


def is_demo_pool(pool: Pool) -> bool:
    """Whether any row of the pool is demo data (the demo universe, a shipped example, a file that says so)."""
    return any(item.stock is not None and DEMO_NOTE in item.stock.notes for item in pool.items)


def looks_like_file(arg: str) -> bool:
    """An argument meant as a file: it has a path separator or a file suffix (a code never has)."""
    return "/" in arg or "\\" in arg or Path(arg).suffix.lower() in _FILE_SUFFIXES


def load_pool(inputs: list[str], settings: Settings, *, universe: Universe | None = None,
              today: dt.date | None = None) -> Pool:
    """A file becomes a pool filled from the universe; codes and names resolve against it.

    An argument that looks like a file but does not exist is unusable input (PoolRejected), never
    a failed "stock" named after the file; so are several files, or a file beside codes (one pool is one file).
    """
    inputs = [a for a in inputs if a.strip()]  # an empty argument (an unset shell variable) holds nothing
    if not inputs:  # and Path("") is the working folder: say what is wrong instead
        raise PoolRejected("参数为空: 请给出股票代码 (如 600519) 或表格文件的路径")
    universe = universe if universe is not None else open_universe(settings)
    if len(inputs) == 1 and _is(Path.is_file, inputs[0]):
        return load_file(Path(inputs[0]), settings, universe, today=today)
    missing = [a for a in inputs if (looks_like_file(a) or _is(Path.is_dir, a)) and not _is(Path.is_file, a)]
    if missing:
        what = "是文件夹, 不是文件: 请给出其中的表格文件" if _is(Path.is_dir, missing[0]) else "文件不存在"
        raise PoolRejected(f"{missing[0]}: {what}")
    files = [a for a in inputs if _is(Path.is_file, a)]
    if files:  # each file became one failed "stock" named after its path, its rows never read (the eighteenth session)
        raise PoolRejected(_one_file_at_a_time(files, [a for a in inputs if a not in files]))
    # a list pasted as one argument ("600519,000858") is split as chat splits it: the same text, the same rows
    return codes_pool([t for a in inputs for t in split_codes(argument_text(a))], settings, universe, today=today)


def _one_file_at_a_time(files: list[str], others: list[str]) -> str:
    """Why several files, or a file beside codes, are refused: one pool is one file (its rows numbered as the
    file numbers them, each problem naming it), and a typed code has no row in it."""
    shown = ", ".join(files)
    if len(files) > 1:
        return f"一次只筛选一个表格文件, 给出了 {len(files)} 个: {shown}; 请合并为一个文件, 或逐个运行"
    return (f"表格文件 {shown} 不能与代码一起给出 ({', '.join(others[:3])}{' ...' if len(others) > 3 else ''}): "
            "请把这些代码加进文件, 或分开运行")


def argument_text(arg: str) -> str:
    """A typed argument as text: a terminal that is not UTF-8 (a GBK console) passes bytes Python keeps as
    surrogates, which were screened as an unknown "code" and written raw into UTF-8 JSON. They are read as
    GB18030 (every GBK byte string is one) when that decodes, else shown as U+FFFD; a file path keeps its
    bytes (it is opened before this)."""
    if not any("\udc80" <= ch <= "\udcff" for ch in arg):
        return arg
    raw = os.fsencode(arg)
    try:
        text = raw.decode("gb18030")
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace")
    log.warning("参数 %s 不是 UTF-8, 按 GBK/GB18030 读作 %r: 请把终端设为 UTF-8", ascii(arg), text)
    return text


def _is(test: Callable[[Path], bool], arg: str) -> bool:
    """``Path.is_file`` / ``is_dir`` on a typed argument; text no file system accepts as a name (a pasted list
    longer than a file name may be) is no file."""
    try:
        return test(Path(arg))
    except (OSError, ValueError):
        return False


def codes_pool(tokens: list[str], settings: Settings, universe: Universe, source: str = "输入的代码", *,
               today: dt.date | None = None) -> Pool:
    """Typed codes and names -> a pool whose rows say what their figures are worth (演示数据, 数据过期).

    Every path from typed codes to rows goes through here (the CLI, chat's /screen), so a stale quote or
    demo data is flagged on the row wherever it was typed. It never reads a file: a chat token is text.
    """
    pool = pool_from_codes(tokens, universe, source)
    for item in pool.items:
        if item.stock is not None:
            item.stock = annotate(item.stock, universe, settings, today)
    return pool


# a name shorter than this resolves only when it is a stock's whole name: 茅 or A must not pick a company
SHORTEST_PART_NAME = 2


def _resolve(token: str, universe: Universe) -> tuple[str | None, StockInput | None, str | None]:
    """(code, stock, error) for one typed token: a code in any accepted form, or a stock name.

    A name that is part of one stock's name (茅台 -> 贵州茅台) resolves with a note on the row saying which
    stock it was read as, since 京东 -> 京东方A is a different company than the user may mean; an index's
    name is refused as an index, never looked up among the stocks."""
    try:
        code = normalise_code(token, typed=True)
    except CodeError as exc:
        index = index_named(token)
        if index is not None:
            return None, None, f"{index} 是指数, 不是股票: 指数不能筛选, 请给出个股代码"
        matches = universe.find_by_name(token)
        exact = [m for m in matches if norm_name(m.name or "") == norm_name(token)]
        if len(matches) == 1 and not exact and len(norm_name(token)) < SHORTEST_PART_NAME:
            return None, None, (f"名称 {token!r} 太短: 本地数据中只有 {matches[0].name}({matches[0].code}) 含它, "
                                "若要的是它请写代码或全名")
        if len(matches) == 1:
            if not exact:
                matches[0].notes.append(f"按名称 {token!r} 读作 {matches[0].name}({matches[0].code}): "
                                        "不是它请写代码")
            return matches[0].code, matches[0], None
        if len(matches) > 1:
            shown = "、".join(f"{m.name}({m.code})" for m in matches[:5])
            more = f" 等{len(matches)}只" if len(matches) > 5 else ""
            return None, None, f"名称 {token!r} 对应多只股票: {shown}{more}; 请写代码"
        if any(ch.isdigit() for ch in token):
            return None, None, str(exc)
        return None, None, f"不是A股代码, 本地数据中也没有名为 {token!r} 的股票"
    stock = universe.get(code)
    if stock is None:  # a valid code no data covers: a failed row that says what to do, never a guess
        return code, None, unknown_code_message(code, universe)
    return code, stock, None


def pool_from_codes(tokens: list[str], universe: Universe, source: str = "输入的代码", purpose: str = "screen") -> Pool:
    """One PoolItem per typed token, in order: resolved stock, or a per-item error; ``purpose`` (screen, watch)
    is what the list is for, said in a note on a code typed beside another stock's name (``BOTH_KEPT``).
    Nothing is dropped: an invalid token, an unknown code or a repeated code becomes a failed item that
    says why, so the reply accounts for every token the user typed; a name for a stock already given by
    its code (or the reverse) is a note on that stock's row, not a second, failed one.
    """
    pool = Pool(source=source)
    first_seen: dict[str, tuple[int, str]] = {}
    read: list[tuple[str, str | None]] = []  # each token and the code it read as, for names_beside_codes
    named: set[str] = set()  # codes a name typed beside them said which stock they are (no index twin note)
    for token in tokens:
        index = len(pool.items)
        if index_after_its_code(pool, token):
            first_seen.pop(pool.items[-1].code or "", None)
            read.append((token, None))
            continue
        if code_after_its_index(pool, token, universe):
            read.append((token, None))
            continue
        code, stock, error = _resolve(token, universe)
        read.append((token, code))
        if code is not None and code in first_seen:
            first_index, first_token = first_seen[code]
            first = pool.items[first_index].stock
            if first is not None and (is_name(token) or is_name(first_token)):
                # 600519 贵州茅台: the same stock said twice, one row with a note, not a failed row
                first.notes.append(f"{token} 即 {first_token} ({code}), 已合并为一行")
                named.add(code)
                continue
            error = f"与 {code} 重复 (第 {first_index + 1} 项 {first_token!r})"
            stock = None
        if error is not None or stock is None:
            problem = InputProblem(source=source, message=error or "无法使用的输入", value=token)
            pool.items.append(PoolItem(index=index, raw_code=token, error=problem, code=code))
            if code is not None:  # a code no data covers, typed again (830799 830799.BJ): 与…重复, not the same line
                first_seen.setdefault(code, (index, token))
            continue
        assert code is not None
        first_seen[code] = (index, token)
        pool.items.append(PoolItem(index=index, raw_code=token, stock=stock))
    names_beside_codes(pool, read, purpose)
    index_twin_notes(pool, named)
    return pool
