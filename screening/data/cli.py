"""``python -m screening universe refresh|status|show|import|export|probe``: the local market data by hand.

stdout carries only what was asked for (``show`` and ``status`` as text or JSON, ``export`` as
CSV); progress and logs go to stderr. Exit codes: 0 done, 1 the refresh failed (the last good
universe is kept and the message says why), 2 unusable input (unknown code, bad file).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from screening.config import InputSettings, load_settings
from screening.data.day_args import day_argument
from screening.data.file_dates import quote_day, report_periods
from screening.data.freshness import QUOTE_FIELDS, market_today
from screening.data.load import is_old_bse_code, mark_demo_rows, move_bse_codes, open_universe
from screening.data.pool import read_pool
from screening.data.pool_conflict import for_import
from screening.data.pool_demo import DEMO_COLUMN, DEMO_NOTE, DEMO_VALUE
from screening.data.providers.records import NOTICE
from screening.data.refresh import Refresher, RefreshFailed, note_line
from screening.data.refresh_open_risks import OpenRisks
from screening.data.row_checks import SAME_PLACES, name_conflict, quarter_roe, read_day
from screening.data.source_checks import loss_word_contradicted, pe_sign_conflict
from screening.data.stock_csv import AS_OF, UniverseError, read_stock_csv, stocks_csv
from screening.data.universe import Universe
from screening.models import NOTE_DUPLICATE_CONFLICT, Pool, PoolItem, PoolRejected, StockInput, is_doubt


def _import(universe: Universe, path: Path, as_of: str | None, limits: InputSettings) -> int:
    """Your own figures into the universe, read by the readers `screen` uses (同花顺/东方财富/通达信 exports,
    GBK, Chinese headers, "24.6%", .xlsx): a file `screen` takes, `import` takes. Failed rows are named.

    The universe is what every later screen of every user reads, so a row `screen` would only flag is not
    merged: a doubtful figure (``百分比存疑``) or a name that is another company's stays out, named with
    what to change. Each row is dated by ``--as-of``, else by the file's own ``as_of`` column (what
    ``universe export`` writes), else today: re-importing an export keeps its quotes as old as they are.
    """
    try:
        pool = read_pool(path, limits)
    except PoolRejected as exc:
        print(f"错误: {exc}", file=sys.stderr)
        return 2
    mark_demo_rows(pool, path)
    demo = demo_refusal(pool, path)
    if demo is not None:
        print(f"错误: {demo}", file=sys.stderr)
        return 2
    for warning in pool.warnings:
        print(f"注意: {warning}", file=sys.stderr)
    # an old BSE code read as its 920 stock, and a row that repeats a stock another row gives, as `screen` reads
    # them (a file listing 830799 and 920799 imported both into the one record, the later row's figures winning)
    moved = move_bse_codes(pool, universe)
    refusals = {item.index: import_refusal(item.stock, universe) for item in pool.ok_items if item.stock is not None}
    told: set[int] = set()  # kept rows whose refusal a duplicate's line already gave
    for item in pool.failed_items:
        print(f"注意: 未导入 {item.error}{_kept_row(item, pool.ok_items, refusals, told)}", file=sys.stderr)
    if as_of is not None and (why := _day_refusal(as_of, "--as-of", market_today())) is not None:
        print(f"错误: {why}", file=sys.stderr)
        return 2
    dated = _file_dates(path) if as_of is None and AS_OF in pool.columns else {}
    by_day: dict[str | None, list[StockInput]] = {}
    by_stated: dict[str, int] = {}  # rows dated by the quote date the file states (file_dates.quote_day)
    refused = 0
    for item in pool.ok_items:
        assert item.stock is not None
        why = refusals[item.index]
        if why is not None:
            refused += 1 + len(item.readings)  # a code's later row with other figures is its second reading
            if item.index not in told:
                print(f"注意: 未导入 {path.name}, 第{item.row}行 ({item.stock.code}): {why}", file=sys.stderr)
            continue
        if item.index in moved:
            print(f"注意: {path.name}, 第{item.row}行: {moved[item.index]}, 导入到 {item.stock.code}", file=sys.stderr)
        stated = None if as_of or item.stock.code in dated else quote_day(item.stock.file_dates)
        day = as_of or dated.get(item.stock.code) or stated
        where = AS_OF if item.stock.code in dated else "行情日期"
        if day is not None and (bad := _day_refusal(day, where, market_today())) is not None:
            refused += 1
            print(f"注意: 未导入 {path.name}, 第{item.row}行 ({item.stock.code}): {bad}", file=sys.stderr)
            continue
        read = read_day(day) if day is not None else None  # any spelling _day_refusal took, stored as ISO
        day = read.isoformat() if read is not None else None
        if stated is not None:
            by_stated[stated] = by_stated.get(stated, 0) + 1
        by_day.setdefault(day, []).append(item.stock)
    stocks = [s for group in by_day.values() for s in group]
    for day, count in sorted(by_stated.items()):
        print(f"注意: {path.name}: {count} 行按文件所写的行情日期 {day} 记录 (不是今天; 用 --as-of 可另指定)",
              file=sys.stderr)
    failed = len(pool.failed_items) + refused
    if not stocks:
        print(f"错误: {path.name}: 没有可导入的行 ({failed} 行未导入, 见上)", file=sys.stderr)
        return 2
    n = sum(universe.update(group, as_of=day, source=f"import:{path.name}", periods_of=report_periods)
            for day, group in by_day.items())
    universe.save()
    print(f"imported {len(stocks)} stocks from {path} ({n} new or changed, {failed} rows not imported); "
          f"universe has {len(universe)}", file=sys.stderr)
    if n < len(stocks):
        print(f"注意: {len(stocks) - n} 行没有改变本地数据: 与已有数字相同, 或比已有数字旧 (较旧的只补充缺少的数字; "
              "日期见 --as-of 或文件的 as_of 列)", file=sys.stderr)
    return 0


def _kept_row(dup: PoolItem, kept_items: list[PoolItem], refusals: dict[int, str | None], told: set[int]) -> str:
    """What a duplicate row's line adds: which row's figures were imported, or why that row was not either (then
    said here once, not on a line of its own). The same for one code written twice and for an old BSE code beside
    its 920 code; any other failed row adds nothing."""
    assert dup.error is not None
    kept = next((k for k in kept_items if dup.error.message.startswith(f"与第 {k.row} 行重复")), None)
    if kept is None or kept.stock is None:
        return ""
    given = kept.raw_code.strip() or kept.stock.code
    why = refusals.get(kept.index)
    if why is None:
        return f"; 导入的是第 {kept.row} 行 ({given}) 的数字"
    if kept.index in told:
        return f"; 第 {kept.row} 行 ({given}) 也未导入 (见上)"
    told.add(kept.index)
    if why.startswith(NOTE_DUPLICATE_CONFLICT):
        return f"; 第 {kept.row} 行 ({given}) 也未导入: 两行数字不同, 不猜哪一行较新; 改正文件后再导入"
    return f"; 第 {kept.row} 行 ({given}) 也未导入: {why}"


def demo_refusal(pool: Pool, path: Path) -> str | None:
    """Why a file holding demo rows (the synthetic market's, data/pool_demo.py; a shipped example's, or rows
    copied from one: load.mark_demo_rows) is not imported at all, or None.

    Refused whole, not stored marked demo: the universe is the market data every later screen of every user
    reads, its figures are labelled by provider and date, not per stock as demo, and the invented figures sit on
    real-looking codes, so they would stand in for real companies' figures. Nor are the file's other rows
    imported: a file that mixes invented rows with real ones is refused whole, as a malformed one is. Screening
    the file itself labels every row 演示数据; ``screen --demo`` screens against the demo market."""
    rows = [item for item in pool.ok_items if item.stock is not None and DEMO_NOTE in item.stock.notes]
    if not rows:
        return None
    return (f"{path.name}: {len(rows)} 行是演示数据 (第{rows[0].row}行起: 数据来源列写着 演示数据, 或是 examples/ "
            "中的示例行): "
            "合成的名称和数字不导入本地数据 (本地数据是所有筛选读取的行情, 合成数字会冒充真实公司的数字); "
            "直接筛选该文件即可 (每行标注 演示数据), 或用 screen --demo; "
            "文件中的真实数据请另存为不含这些行的文件再导入")


def import_refusal(stock: StockInput, universe: Universe) -> str | None:
    """Why a parsed row must not enter the shared universe, or None."""
    if is_old_bse_code(stock.code):  # one the data could not map by its name (load.moved_bse_code)
        return (f"北交所旧代码 {stock.code[:6]}: 2025-10-09 起为 920xxx, 本地数据中没有同名的 920 股票; 改用新代码"
                "后再导入 (旧代码下的数据不会被刷新, 也没有公告与ST标记, 还会与新代码各成一行)")
    # a cell under 1 among percents written with their decimals may be a real small ROE: screen flags it, import
    # takes it (a whole-market export holds hundreds; row_checks.SAME_PLACES)
    # as `screen` flags the row; a PE-TTM whose sign the local one contradicts would replace it for every later screen
    said = [quarter_roe(stock), loss_word_contradicted(stock, universe), pe_sign_conflict(stock, universe)]
    doubts = [n for n in [*stock.notes, *said] if n and is_doubt(n) and SAME_PLACES not in n]
    if doubts and doubts[0].startswith(NOTE_DUPLICATE_CONFLICT):
        return for_import(doubts[0])
    if doubts:
        return f"{doubts[0]}; 改正文件后再导入 (screen 只标记这样的行, import 会让所有人读到它)"
    conflict = name_conflict(stock, universe)
    if conflict is not None:
        return (f"{conflict}; 若代码写错请改正, 若公司已更名请先运行 universe refresh 或去掉名称列, "
                "导入从不改写另一家公司的数据")
    return None


def _day_refusal(text: str, where: str, today: dt.date) -> str | None:
    """Why a day a row would be stored under cannot be (each figure's age is read from it), or None.

    A day the clocks cannot read (``2025/01/02`` in an ``as_of`` cell, ``--as-of 'last friday'``) was stored as
    written and never aged: a quote of January 2025 screened in December 2026 with no 数据过期. A day after today
    (a typo) would be read as the newest data, overriding every later import (records merge by it), and its
    quotes would never age. Any spelling of a whole day is read (2025/01/02, 2025年1月2日, 20250102)."""
    day = read_day(text)
    if day is None:
        return f"{where} '{text}' 不是日期 (写作 2026-12-04); 日期决定数字的新旧与是否过期, 不猜"
    if day > today:
        return f"{where} {day} 晚于今天 ({today}); 改正日期后再导入 (未来的日期会被当作最新的数据, 且永不过期)"
    return None


def _file_dates(path: Path) -> dict[str, str]:
    """code -> the ``as_of`` a universe export wrote for it (empty for any other file)."""
    try:
        return {s.code: day for s, day in read_stock_csv(path) if day}
    except (UniverseError, ValueError, UnicodeDecodeError):
        return {}


def _export(universe: Universe) -> str:
    """The universe as CSV (`universe export`): each row's ``as_of``, which dates its quotes when the file is imported
    or screened as a pool. The demo universe's rows say 演示数据 in a 数据来源 column, as the synthetic market's file
    does, and no ``as_of``: its seed day (1970-01-01) is no date of data, and read as the quotes' day every row said
    数据过期 1970-01-01; unlabelled, its invented figures on real codes screened as the user's own and imported."""
    if universe.info.demo:
        return stocks_csv([(s, None) for s in universe], (DEMO_COLUMN, DEMO_VALUE), dates=universe.field_dates)
    return stocks_csv([(s, _quotes_day(universe, s.code)) for s in universe], dates=universe.field_dates)


def _quotes_day(universe: Universe, code: str) -> str | None:
    """The ``as_of`` an exported row carries: the oldest stored day of its quotes, else the record's last write. The
    record's ``as_of`` is its last write, and a ROE imported after the PE-TTM moved it past the quotes' session: the
    export then dated a 40-day-old PE-TTM today, on import and screened as a pool alike (no 数据过期; 2026-12-07)."""
    days = [d[:10] for f, d in universe.field_dates(code).items() if f in QUOTE_FIELDS and d]
    return min(days) if days else universe.as_of(code)


def add_universe_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")
    sub = parser.add_subparsers(dest="action", required=True)
    r = sub.add_parser("refresh", help="fetch the whole market and replace the universe (only when complete)")
    r.add_argument("--provider", choices=["auto", "akshare", "tushare"], default=None,
                   help="default: config universe.provider (auto: AKShare, then Tushare with TUSHARE_TOKEN)")
    r.add_argument("--date", help="trading day of the quotes, YYYY-MM-DD (default: today, Shanghai)")
    s = sub.add_parser("status", help="source, dates, stock count and age of the universe")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.add_argument("--demo", action="store_true", help="the demo universe (what `screen --demo` reads)")
    sh = sub.add_parser("show", help="one stock's figures with the source and date of each")
    sh.add_argument("code")
    sh.add_argument("--format", choices=["text", "json"], default="text")
    sh.add_argument("--demo", action="store_true", help="the demo universe (what `screen --demo` reads)")
    i = sub.add_parser("import", help="merge a file of your own figures into it (any pool file `screen` reads)")
    i.add_argument("file")
    i.add_argument("--as-of", help="date the figures are as of (default: today)")
    sub.add_parser("probe", help="one small request per Eastmoney host: ok, throttled, empty, schema drift, blocked")
    e = sub.add_parser("export", help="write the universe as CSV (stdout, or --out FILE)")
    e.add_argument("--out")


def _progress() -> tuple[Callable[[str, int, int], None], Callable[[], None]]:
    """A rich progress bar on stderr when it is a terminal; otherwise one log line per finished call."""
    if not sys.stderr.isatty():
        def line(step: str, done: int, total: int) -> None:
            if step != "fetch" and total and done >= total:
                print(f"universe refresh: {step} done ({total})", file=sys.stderr)
        return line, lambda: None
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(console=Console(stderr=True), transient=True)
    tasks: dict[str, Any] = {}
    bar.start()

    def update(step: str, done: int, total: int) -> None:
        if step not in tasks:
            tasks[step] = bar.add_task(step, total=total or None)
        bar.update(tasks[step], completed=done, total=total or None)

    return update, bar.stop


def info_dict(universe: Universe, today: dt.date) -> dict[str, Any]:
    info = universe.info
    age = None
    if info.trade_date:
        age = (today - dt.date.fromisoformat(info.trade_date[:10])).days
    return {"path": str(universe.path), "provider": info.provider, "provider_version": info.provider_version,
            "trade_date": info.trade_date, "report_period": info.report_period, "refreshed_at": info.refreshed_at,
            "stocks": len(universe), "age_days": age, "demo": info.demo, "degraded": info.degraded,
            "warnings": [n for n in info.notes if n.startswith("warning: ")], "notes": info.notes,
            "summary": info.label()}


def _status_text(d: dict, fmt: str) -> str:
    """`universe status`: JSON as is (null stays null), text with '-' for what is not known, then notes and
    warnings (an optional source that failed the last refresh) one per line."""
    if fmt == "json":
        return json.dumps(d, ensure_ascii=False, indent=1)
    lines = [f"{k}: {'-' if v is None or v == '' else v}" for k, v in d.items() if k not in ("notes", "warnings")]
    lines += [note_line(n) for n in d.get("notes") or []]  # a warning note once, as `warning: X`
    return "\n".join(lines)


def _show(universe: Universe, code: str, fmt: str) -> int:
    rec = universe.record(code)
    if rec is None:
        print(f"error: {code}: not in the local universe ({universe.info.label()})", file=sys.stderr)
        return 2
    fields = {k: v for k, v in rec.stock.data().items() if v is not None}
    # report figures: the period is the field's date; the first notice date of that report is kept beside it
    notices = {k[:-len(NOTICE)]: d for k, d in rec.dates.items() if k.endswith(NOTICE)}
    dates = {k: d for k, d in rec.dates.items() if not k.endswith(NOTICE)}
    view = universe.get(code)
    if fmt == "json":
        out = {"figures": fields, "sources": {k: universe.provenance(rec, k) for k in fields if k != "code"},
               "source_ids": rec.sources, "dates": dates, "notices": notices, "as_of": rec.as_of,
               "flags": view.notes if view else []}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
        return 0
    for k, v in fields.items():
        notice = f"; 首次公告 {notices[k]}" if k in notices else ""
        where = "" if k == "code" else f"   [{universe.provenance(rec, k)}; {rec.sources.get(k, '')}{notice}]"
        text = str(v).replace("\n", " ")
        sys.stdout.write(f"{k}: {text[:300]}{where}\n")
    return 0


def _probe() -> int:
    """One line per host on stdout, then what to change; exit 1 when no refresh could work."""
    from concurrent.futures import ThreadPoolExecutor

    from screening.data.providers.probe import advice, essential_ok, probes, run_probe, run_tushare_probe

    with ThreadPoolExecutor(max_workers=8) as pool:  # all at once: the whole probe takes one timeout at most
        eastmoney = [pool.submit(run_probe, p) for p in probes(market_today())]
        tushare = pool.submit(run_tushare_probe)
        results = [f.result() for f in eastmoney] + [tushare.result()]
    for r in results:
        sys.stdout.write(r.line() + "\n")
    for line in advice(results):
        sys.stdout.write(f"advice: {line}\n")
    return 0 if essential_ok(results) else 1


def cmd_universe(args: argparse.Namespace, open_risks: OpenRisks | None = None) -> int:
    """The ``universe`` command; ``open_risks`` (the text reader's, wired in screening/cli.py) lets a refresh keep
    the titles of open 高 risks older than its window (refresh_open_risks)."""
    day, refusal = day_argument(args.date, "--date") if getattr(args, "date", None) is not None else (None, None)
    if refusal is not None:  # before the settings: their log line is no part of the answer to a typo
        print(refusal, file=sys.stderr)
        return 2
    settings = load_settings(getattr(args, "config", None))
    today = market_today()  # Shanghai's day: a UTC host is a day behind until 08:00 there
    try:
        if args.action == "refresh":
            update, stop = _progress()
            try:
                outcome = Refresher(settings, open_risks=open_risks).refresh(choice=args.provider, trade_date=day,
                                                                             progress=update)
            finally:
                stop()
            for failure in outcome.failures:
                print(f"warning: {failure}", file=sys.stderr)
            print(f"universe refreshed from {outcome.provider}: {outcome.stocks} stocks (was {outcome.previous}), "
                  f"quotes {outcome.trade_date}, reports {outcome.report_period}", file=sys.stderr)
            for note in outcome.notes:
                print(note_line(note), file=sys.stderr)
            for note in open_universe(settings).info.notes:  # what the swap itself kept (your imports)
                if note not in outcome.notes:
                    print(note_line(note), file=sys.stderr)
            return 0
        if args.action == "probe":
            return _probe()
        if getattr(args, "demo", False):
            settings.universe.demo = True
        universe = open_universe(settings)
        if args.action == "status":
            sys.stdout.write(_status_text(info_dict(universe, today), args.format) + "\n")
            return 0
        if args.action == "show":
            return _show(universe, args.code, args.format)
        if args.action == "import":
            return _import(universe, Path(args.file), args.as_of, settings.input)
        text = _export(universe)
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
            print(f"wrote {len(universe)} stocks to {args.out}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return 0
    except RefreshFailed as exc:
        print(f"error: universe refresh failed: {exc}", file=sys.stderr)
        return 1
    except (UniverseError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
