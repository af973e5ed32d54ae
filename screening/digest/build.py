"""The pre-market digest: screen the universe (or a pool) on the bulk lane, compare with the last one.

``make_digest`` screens through the Redis queue (a running worker) or in process with the rules
engine, then builds a ``Digest``: the date and the data's as-of, counts by risk level, the top N
by score with reasons, stocks whose risk level changed since the previous digest (digest/history.py),
stocks newly marked ST, failed rows, the XLSX and the chart (digest/files.py).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from screening.config import DigestSettings, Settings, cache_dir
from screening.data.calendar_law import UNDECIDED, notice_year
from screening.data.file_dates import file_quotes, quote_day
from screening.data.fill_rows import demo_date
from screening.data.freshness import QuoteAge, quote_age
from screening.data.load import load_pool, open_universe
from screening.data.trading_calendar import IMPORT_HINT, DayStatus, day_status, refresh_blocker
from screening.data.universe import SEED_AS_OF, Universe, UniverseInfo
from screening.digest.files import write_files
from screening.digest.history import History, compare, snapshot
from screening.digest.model import Digest, scope_of
from screening.digest.text_risk import text_risks
from screening.models import PoolItem, ResultRow
from screening.output import report
from screening.queue.client import JobQueue, make_client
from screening.screen.rules import is_st

log = logging.getLogger(__name__)


def build_digest(day: dt.date, rows: list[ResultRow], items: Sequence[PoolItem], *, ds: DigestSettings,
                 source: str, scope: str, history: History | None, now: dt.datetime | None = None,
                 as_of: tuple[str | None, str | None] = (None, None), out_dir: Path | None = None,
                 engine: str = "", seconds: float = 0.0, save_history: bool = True,
                 info: UniverseInfo | None = None, chart_lock: AbstractContextManager[Any] | None = None) -> Digest:
    """A Digest from screened rows; compares with (and then stores) the history when given."""
    now = now or dt.datetime.now(ds.tz)
    st = {i.stock.code: is_st(i.stock.name, i.stock.st) for i in items if i.stock is not None}
    warnings: list[str] = []
    day_basis = day_status(day, ds.holiday_set(), store=ds.calendar_store())
    if cal_warning := day_basis.warning():
        warnings.append(cal_warning)
    if day_basis.open is False:
        warnings.append(f"注意: {day} 不是上交所交易日 / not an SSE trading day")
    warnings += data_warnings(info, day, ds)
    prev_date: dt.date | None = None
    prev: dict[str, list[Any]] = {}
    if history is not None:
        try:
            prev_date, prev = history.previous(scope, day)
        except Exception as exc:
            log.warning("digest history unavailable: %s", exc)
            warnings.append("历史快照不可用, 未对比前一期 / history unavailable")
    else:
        warnings.append("未连接 Redis, 未对比前一期 / no history (Redis not used)")
    changes, new_st = compare(rows, st, prev)
    digest = Digest(
        date=day, generated_at=now, source=source, scope=scope, rows=rows, counts=report.summary(rows),
        top=report.top_picks(rows, ds.top_n), changes=changes, new_st=new_st,
        failed=[r for r in rows if r.status != "ok"], previous_date=prev_date, data_as_of=as_of[0],
        data_as_of_oldest=as_of[1], warnings=warnings, engine=engine, seconds=seconds,
        data_label=info.label() if info else "", demo=bool(info and info.demo), calendar_basis=day_basis.footer(),
        text_risks=text_risks(rows, prev, prev_date is not None), text_raised=report.summary(rows)["text_raised"],
    )
    if history is not None and save_history:
        try:
            history.save(scope, day, snapshot(rows, st))
        except Exception as exc:
            log.warning("could not store the digest snapshot for %s: %s", day, exc)
    if out_dir is not None and not digest.empty:  # an empty market gets no empty XLSX
        write_files(digest, out_dir, chart_lock)
    return digest



def data_warnings(info: UniverseInfo | None, day: dt.date, ds: DigestSettings) -> list[str]:
    """Footer lines about the data itself: demo data, an empty universe, quotes days behind."""
    if info is None:
        return []
    if info.demo:
        return ["演示数据: 合成市场, 不是真实行情 / demo data, not market data"]
    if not info.provider:
        return ["本地数据为空: 运行 `python -m screening universe refresh` / the universe is empty"]
    if info.trade_date:
        holidays, store = ds.holiday_set(), ds.calendar_store()
        age = quote_age(dt.date.fromisoformat(info.trade_date[:10]), day, holidays, store=store)
        if age.most > 1:
            return behind_lines(info.trade_date, age, day, refresh_blocker(day, holidays, store=store))
    return []


def behind_lines(trade_date: str, age: QuoteAge, day: dt.date, blocker: DayStatus | None) -> list[str]:
    """The footer for quotes more than a session behind: how many sessions (certain ones, the undecided ones
    apart), and why the refresh of ``day`` did not bring newer ones. A refresh the calendar kept from running (an
    undecided session, see ``refresh_blocker``) did not fail: the line names the day and the import that settles
    it, where "今日刷新未成功" sent the user looking for a fault (a trial, 2027-02-15)."""
    more = f"; {age.pending()}" if age.undecided else ""
    english = f"data is {age.known_en()} old" + (f", {len(age.undecided)} more undecided" if more else "")
    stale = f"数据已 {age.known} 个交易日未更新 (行情 {trade_date}{more})"
    if not age.known:  # only undecided days since: "已 0 个交易日未更新" would read as fresh
        stale = f"数据可能未更新: 行情 {trade_date} 之后{age.pending(lead='有 ')}"
    if blocker is None:
        return [f"{stale}; 今日刷新未成功 / {english}"]
    why = "交易与否未定, 定时刷新跳过" if blocker.day == day else "行情所属交易日无法确定, 刷新不猜日期"
    which = f"今天 {day}" if blocker.day == day else str(blocker.day)
    return [f"{stale} / {english}",
            f"今日未刷新 (非故障): {which} {UNDECIDED} ({blocker.note}), {why}; 导入 {notice_year(blocker.day)} "
            f"年国务院放假通知后即可刷新: `{IMPORT_HINT}` / refresh not run: {blocker.day} is undecided until the "
            "notice is imported"]


# ------------------------------------------------------------------------------ screening


AsOf = tuple[str | None, str | None]


def collect_items(settings: Settings, ds: DigestSettings, *, codes: Sequence[str] | None = None,
                  pool_file: str | Path | None = None,
                  today: dt.date | None = None) -> tuple[list[PoolItem], str, str, AsOf, UniverseInfo]:
    """(items, source label, scope, (newest, oldest as-of), universe info) of the universe, codes or a file.

    Every path goes through ``load_pool``, as a ``screen`` does, so a digest row carries the same notes a
    screen of that stock would (数据过期 as of ``today``, the digest's day; 演示数据): the whole market's rows
    once skipped that and were never flagged stale.
    """
    universe = open_universe(settings)
    pool_file = pool_file or ds.pool_file or None
    if codes:
        items = _loaded(list(codes), settings, universe, today, "自选")
        source = f"自选 {len(items)} 只"
        scope = scope_of([i.stock.code if i.stock else i.raw_code for i in items])
    elif pool_file:
        pool = load_pool([str(pool_file)], settings, universe=universe, today=today)
        items, source = pool.items, Path(pool_file).name
        scope = scope_of([i.stock.code if i.stock else i.raw_code for i in items])
    else:
        items = _loaded([s.code for s in universe], settings, universe, today, "全市场")
        source, scope = f"全市场 {len(items)} 只", "universe"
    if universe.info.demo:  # the demo's figures have one date: the day its universe was built (never 1970-01-01)
        built = demo_date(universe)
        return items, source, scope, (built, built), universe.info
    # a file that states its quotes' day (a 日期 column, a title line, i问财's stamps) dates its rows by it: the head
    # said 数据时间未知, or the universe's import day, over a pool file's 2026-12-31 quotes (a trial, 2026-12-08)
    stamps = sorted({a for i in items if i.stock is not None
                     and (a := quote_day(file_quotes(i.stock)) or universe.as_of(i.stock.code)) and a != SEED_AS_OF})
    return items, source, scope, (stamps[-1] if stamps else None, stamps[0] if stamps else None), universe.info


def _loaded(codes: list[str], settings: Settings, universe: Universe, today: dt.date | None,
            source: str) -> list[PoolItem]:
    """One item per code, filled and annotated by ``load_pool``; a failed item names ``source`` (自选, 全市场)."""
    if not codes:
        return []
    items = load_pool(codes, settings, universe=universe, today=today).items
    for item in items:
        if item.error is not None:
            item.error = dataclasses.replace(item.error, source=source)
    return items


def screen(settings: Settings, ds: DigestSettings, items: list[PoolItem], *, engine: str | None = None,
           queue: Any = None, source: str = "digest",
           timeout: float | None = None) -> tuple[list[ResultRow], str, str | None]:
    """(rows, engine name, job id) for ``items``: in process when ``engine`` is given (e.g. "rules"),
    else through the queue on ``ds.lane``."""
    if engine:
        from screening.engines import make_engine
        from screening.screen.pipeline import Screener

        eng = make_engine(settings.engine, engine)
        try:
            return Screener(eng, settings.engine, settings.batcher).run(items), eng.name, None
        finally:
            eng.close()
    q = queue or JobQueue(settings.redis.url, settings.redis)
    try:
        job_id = q.submit(items, lane=ds.lane, source=source, owner={"digest": True})
        st = q.wait(job_id, timeout=timeout if timeout is not None else ds.screen_timeout_s)
        if not st.finished:
            raise TimeoutError(f"digest job {job_id} not finished after {ds.screen_timeout_s:.0f} s "
                               f"({st.done}/{st.total}); is a worker running?")
        return q.results(job_id), "queue", job_id
    finally:
        if queue is None:
            q.close()


def make_digest(settings: Settings, day: dt.date, *, ds: DigestSettings | None = None,
                codes: Sequence[str] | None = None, pool_file: str | Path | None = None,
                engine: str | None = None, queue: Any = None, redis_client: Any = None,
                use_history: bool = True, out_dir: Path | None = None, write: bool = True,
                now: dt.datetime | None = None, chart_lock: AbstractContextManager[Any] | None = None) -> Digest:
    """Screen and build the digest for ``day`` (blocking; the bot runs it in a thread).

    ``chart_lock`` is held only while the chart is drawn (matplotlib is not thread-safe), never
    during the queue wait.
    """
    ds = ds or settings.digest
    t0 = time.perf_counter()
    items, source, scope, as_of, info = collect_items(settings, ds, codes=codes, pool_file=pool_file, today=day)
    rows, engine_name, job_id = screen(settings, ds, items, engine=engine, queue=queue, source=f"digest {day}")
    history = None
    if use_history:
        r = redis_client if redis_client is not None else (queue.r if queue is not None else None)
        if r is None:
            r = make_client(settings.redis.url)
        history = History(r, settings.redis.prefix, ds.history_days)
    target_dir = out_dir or (Path(ds.out_dir) if ds.out_dir else cache_dir() / "digests")
    digest = build_digest(day, rows, items, ds=ds, source=source, scope=scope, history=history, now=now,
                          as_of=as_of, out_dir=target_dir if write else None, engine=engine_name,
                          seconds=time.perf_counter() - t0, info=info, chart_lock=chart_lock)
    digest.job_id = job_id
    return digest
