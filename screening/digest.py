"""The pre-market digest: screen the universe (or a pool) on the bulk lane, compare with the last one.

``make_digest`` screens through the Redis queue (a running worker) or in process with the rules
engine, then builds a ``Digest``: the date and the data's as-of, counts by risk level, the top N
by score with reasons, stocks whose risk level changed since the previous digest, stocks newly
marked ST, failed rows, the XLSX and the chart. Each digest's per-code risk/score/ST is stored
in Redis under its date, so the next one can show the day-over-day changes::

    P:digest:snap:{scope}:{YYYY-MM-DD}   hash code -> json [risk, score, st, name, status]
    P:digest:days:{scope}                zset of dates with a snapshot (score = date ordinal)

``scope`` is ``universe`` or ``pool-<sha1 of the sorted codes>``, so a chat's own pool is
compared with that pool's previous digest, never with the whole market's.

Renderers: Markdown (WeCom, DingTalk; split by UTF-8 bytes), Telegram HTML (every dynamic
string escaped; split at 4,096 UTF-16 units), Feishu post and interactive card, and JSON.
Every dynamic string in Markdown goes through ``md_esc``: the characters that would start
markup or a tag (``* _ ` [ ] < > #``, e.g. ``*ST``, or ``<at id=all>`` in a name) are replaced
by their full-width forms, so data can never format the message or mention anyone.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import html
import json
import logging
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import (  # the settings models live in config.py; re-exported for the push package
    DigestSettings,
    PushTarget,  # noqa: F401
    Settings,
    cache_dir,
    load_settings,
    parse_hhmm,  # noqa: F401
)
from .models import RISK_ORDER, PoolItem, ResultRow
from .trading_calendar import is_trading_day

log = logging.getLogger(__name__)
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RISK_BADGE = {"高": "🔴", "中": "🟡", "低": "🟢"}
WEEKDAYS = "一二三四五六日"
TELEGRAM_LIMIT = 4096  # UTF-16 code units
WECOM_LIMIT_BYTES = 4096  # markdown.content, UTF-8 bytes
DINGTALK_LIMIT_BYTES = 18000  # markdown.text; DingTalk's request cap is about 20,000 bytes
FEISHU_LIMIT_BYTES = 20 * 1024  # whole request body (documented: 20 KB)


def digest_settings(settings: Settings) -> DigestSettings:
    """The ``[digest]`` section (kept as a function: callers pass plain Settings)."""
    return settings.digest


# ------------------------------------------------------------------------------ the digest


@dataclass
class RiskChange:
    code: str
    name: str | None
    old_risk: str
    new_risk: str
    old_score: int | None
    new_score: int | None

    @property
    def worse(self) -> bool:
        return RISK_ORDER[self.new_risk] > RISK_ORDER[self.old_risk]


@dataclass
class Digest:
    date: dt.date
    generated_at: dt.datetime
    source: str  # "全市场" or the pool's name
    scope: str
    rows: list[ResultRow]
    counts: dict[str, int]
    top: list[ResultRow]
    changes: list[RiskChange]
    new_st: list[ResultRow]
    failed: list[ResultRow]
    previous_date: dt.date | None
    data_as_of: str | None
    data_as_of_oldest: str | None = None
    warnings: list[str] = field(default_factory=list)  # footer lines (calendar fallback, no history)
    xlsx_path: Path | None = None
    chart_path: Path | None = None
    engine: str = ""
    seconds: float = 0.0
    job_id: str | None = None  # the queue job that screened it (None when screened in process)

    @property
    def title(self) -> str:
        return f"A股盘前摘要 · {self.date.isoformat()} 周{WEEKDAYS[self.date.weekday()]}"


def history_key(prefix: str, scope: str, day: dt.date) -> str:
    return f"{prefix}:digest:snap:{scope}:{day.isoformat()}"


def days_key(prefix: str, scope: str) -> str:
    return f"{prefix}:digest:days:{scope}"


class History:
    """Per-day snapshots (code -> risk, score, ST) of each scope's digests, in Redis."""

    def __init__(self, r: Any, prefix: str, keep_days: int = 40) -> None:
        self.r, self.prefix, self.keep_days = r, prefix, keep_days

    def save(self, scope: str, day: dt.date, snap: dict[str, list[Any]]) -> None:
        key = history_key(self.prefix, scope, day)
        ttl = max(1, self.keep_days) * 86400
        pipe = self.r.pipeline(transaction=True)
        pipe.delete(key)
        items = [(code, json.dumps(v, ensure_ascii=False)) for code, v in snap.items()]
        for i in range(0, len(items), 1000):
            pipe.hset(key, mapping=dict(items[i:i + 1000]))
        pipe.expire(key, ttl)
        pipe.zadd(days_key(self.prefix, scope), {day.isoformat(): day.toordinal()})
        pipe.zremrangebyscore(days_key(self.prefix, scope), "-inf", day.toordinal() - self.keep_days - 1)
        pipe.expire(days_key(self.prefix, scope), ttl)
        pipe.execute()

    def previous(self, scope: str, day: dt.date) -> tuple[dt.date | None, dict[str, list[Any]]]:
        """The latest snapshot strictly before ``day`` (date, code -> [risk, score, st, name, status])."""
        for member in self.r.zrevrangebyscore(days_key(self.prefix, scope), day.toordinal() - 1, "-inf"):
            prev = dt.date.fromisoformat(member)
            raw = self.r.hgetall(history_key(self.prefix, scope, prev))
            if raw:
                return prev, {k: json.loads(v) for k, v in raw.items()}
        return None, {}


def scope_of(codes: Sequence[str] | None) -> str:
    if not codes:
        return "universe"
    digest = hashlib.sha1(",".join(sorted(set(codes))).encode()).hexdigest()[:16]
    return f"pool-{digest}"


def snapshot(rows: Sequence[ResultRow], st: dict[str, bool]) -> dict[str, list[Any]]:
    return {r.code: [r.risk_level, r.score, bool(st.get(r.code)), r.name, r.status] for r in rows}


def compare(rows: Sequence[ResultRow], st: dict[str, bool],
            prev: dict[str, list[Any]]) -> tuple[list[RiskChange], list[ResultRow]]:
    """Risk-level changes (ok rows present in both) and newly ST stocks (known, not ST before)."""
    changes: list[RiskChange] = []
    new_st: list[ResultRow] = []
    for r in rows:
        old = prev.get(r.code)
        if old is None:
            continue
        old_risk, old_score, old_st, _old_name, old_status = (list(old) + [None] * 5)[:5]
        if (r.status == "ok" and old_status == "ok" and old_risk in RISK_ORDER and r.risk_level in RISK_ORDER
                and old_risk != r.risk_level):
            changes.append(RiskChange(r.code, r.name, old_risk, r.risk_level or "", old_score, r.score))
        if st.get(r.code) and old_st is False:
            new_st.append(r)
    changes.sort(key=lambda c: (-(RISK_ORDER[c.new_risk] - RISK_ORDER[c.old_risk]), c.code))
    return changes, new_st


def build_digest(day: dt.date, rows: list[ResultRow], items: Sequence[PoolItem], *, ds: DigestSettings,
                 source: str, scope: str, history: History | None, now: dt.datetime | None = None,
                 as_of: tuple[str | None, str | None] = (None, None), out_dir: Path | None = None,
                 engine: str = "", seconds: float = 0.0, save_history: bool = True) -> Digest:
    """A Digest from screened rows; compares with (and then stores) the history when given."""
    from . import report
    from .rules import is_st

    now = now or dt.datetime.now(ds.tz)
    st = {i.stock.code: is_st(i.stock.name, i.stock.st) for i in items if i.stock is not None}
    warnings: list[str] = []
    trading, cal_warning = is_trading_day(day, ds.holiday_set())
    if cal_warning:
        warnings.append(cal_warning)
    if not trading:
        warnings.append(f"注意: {day} 不是上交所交易日 / not an SSE trading day")
    prev_date, prev = None, {}
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
    )
    if history is not None and save_history:
        try:
            history.save(scope, day, snapshot(rows, st))
        except Exception as exc:
            log.warning("could not store the digest snapshot for %s: %s", day, exc)
    if out_dir is not None:
        write_files(digest, out_dir)
    return digest


def write_files(digest: Digest, out_dir: Path) -> None:
    """The XLSX (report.write_xlsx plus a 变化 sheet) and the chart PNG."""
    from . import report

    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"digest-{digest.date.isoformat()}-{digest.scope}"
    meta = {"digest_date": digest.date.isoformat(), "source": digest.source, "data_as_of": digest.data_as_of or "",
            "previous_digest": digest.previous_date.isoformat() if digest.previous_date else "",
            "engine": digest.engine, "generated_at": digest.generated_at.strftime("%Y-%m-%d %H:%M:%S")}
    xlsx = report.write_xlsx(digest.rows, out_dir / f"{stem}.xlsx", None, meta)
    try:
        from openpyxl import load_workbook

        from .export_safety import escape_formula

        wb = load_workbook(xlsx)
        ws = wb.create_sheet("变化")
        ws.append(["代码", "名称", "前一期风险", "本期风险", "前一期评分", "本期评分"])
        for c in digest.changes:
            ws.append([c.code, escape_formula(c.name or ""), c.old_risk, c.new_risk, c.old_score, c.new_score])
        ws2 = wb.create_sheet("新增ST")
        ws2.append(["代码", "名称", "风险", "评分"])
        for r in digest.new_st:
            ws2.append([r.code, escape_formula(r.name or ""), r.risk_level, r.score])
        wb.save(xlsx)
    except Exception:  # the main sheets are written; the extra ones are a nicety
        log.warning("could not add the change sheets to %s", xlsx, exc_info=True)
    digest.xlsx_path = xlsx
    digest.chart_path = report.write_chart(digest.rows, out_dir / f"{stem}.png",
                                           title=f"{digest.date.isoformat()} {digest.scope}")


# ------------------------------------------------------------------------------ screening


AsOf = tuple[str | None, str | None]


def collect_items(settings: Settings, ds: DigestSettings, *, codes: Sequence[str] | None = None,
                  pool_file: str | Path | None = None) -> tuple[list[PoolItem], str, str, AsOf]:
    """(items, source label, scope, (newest as-of, oldest as-of)) of the universe, a code list or a file."""
    from .universe import ensure_default_universe, pool_from_codes

    universe = ensure_default_universe(settings.universe_path(), EXAMPLES)
    pool_file = pool_file or ds.pool_file or None
    if codes:
        pool = pool_from_codes(list(codes), universe, source="自选")
        items, source = pool.items, f"自选 {len(pool.items)} 只"
        scope = scope_of([i.stock.code if i.stock else i.raw_code for i in items])
    elif pool_file:
        from .cli import load_pool

        pool = load_pool([str(pool_file)], settings, update_universe=False)
        items, source = pool.items, Path(pool_file).name
        scope = scope_of([i.stock.code if i.stock else i.raw_code for i in items])
    else:
        items = [PoolItem(index=i, raw_code=s.code, stock=s) for i, s in enumerate(universe)]
        source, scope = f"全市场 {len(items)} 只", "universe"
    stamps = sorted({a for i in items if i.stock is not None and (a := universe.as_of(i.stock.code))})
    return items, source, scope, (stamps[-1] if stamps else None, stamps[0] if stamps else None)


def screen(settings: Settings, ds: DigestSettings, items: list[PoolItem], *, engine: str | None = None,
           queue: Any = None, source: str = "digest",
           timeout: float | None = None) -> tuple[list[ResultRow], str, str | None]:
    """(rows, engine name, job id) for ``items``: in process when ``engine`` is given (e.g. "rules"),
    else through the queue on ``ds.lane``."""
    if engine:
        from .engines import make_engine
        from .pipeline import Screener

        eng = make_engine(settings.engine, engine)
        try:
            return Screener(eng, settings.engine, settings.batcher).run(items), eng.name, None
        finally:
            eng.close()
    from .queue import JobQueue

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
                now: dt.datetime | None = None) -> Digest:
    """Screen and build the digest for ``day`` (blocking; the bot runs it in a thread)."""
    ds = ds or digest_settings(settings)
    t0 = time.perf_counter()
    items, source, scope, as_of = collect_items(settings, ds, codes=codes, pool_file=pool_file)
    rows, engine_name, job_id = screen(settings, ds, items, engine=engine, queue=queue, source=f"digest {day}")
    history = None
    if use_history:
        r = redis_client if redis_client is not None else (queue.r if queue is not None else None)
        if r is None:
            from .queue import make_client

            r = make_client(settings.redis.url)
        history = History(r, settings.redis.prefix, ds.history_days)
    target_dir = out_dir or (Path(ds.out_dir) if ds.out_dir else cache_dir() / "digests")
    digest = build_digest(day, rows, items, ds=ds, source=source, scope=scope, history=history, now=now,
                          as_of=as_of, out_dir=target_dir if write else None, engine=engine_name,
                          seconds=time.perf_counter() - t0)
    digest.job_id = job_id
    return digest


# ------------------------------------------------------------------------------ rendering

_MD_MAP = str.maketrans({"*": "＊", "_": "＿", "`": "｀", "[": "［", "]": "］", "<": "＜", ">": "＞",
                         "#": "＃", "~": "～", "|": "｜", "\r": " ", "\n": " "})


def md_esc(value: object, limit: int | None = None) -> str:
    """A dynamic string made inert for WeCom/DingTalk/Feishu Markdown (full-width markup characters)."""
    text = "" if value is None else str(value)
    if limit is not None and len(text) > limit:
        text = text[: max(1, limit - 1)] + "…"
    return text.translate(_MD_MAP)


def h_esc(value: object, limit: int | None = None) -> str:
    """A dynamic string escaped for Telegram HTML (cut first, so an entity is never cut)."""
    text = "" if value is None else str(value).replace("\r", " ").replace("\n", " ")
    if limit is not None and len(text) > limit:
        text = text[: max(1, limit - 1)] + "…"
    return html.escape(text, quote=True)


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _cut(text: str, limit: int, measure: Callable[[str], int]) -> str:
    while measure(text) > limit:
        text = text[: max(1, int(len(text) * 0.9)) - 1] + "…"
    return text


def split_lines(lines: Iterable[str], limit: int, measure: Callable[[str], int] = utf8_len,
                cut: Callable[[str, int], str] | None = None) -> list[str]:
    """Join lines into as few chunks as possible, each ``measure`` <= limit; splits only between lines
    (a single over-long line is cut, by ``cut`` when given: HTML needs a cut that keeps tags whole).
    Blank lines at a chunk's edges are dropped. The bot's message splitter is this function too."""
    chunks: list[str] = []
    cur: list[str] = []
    size = 0
    for line in lines:
        if measure(line) > limit:
            line = cut(line, limit) if cut else _cut(line, limit, measure)
        add = measure(line) + (measure("\n") if cur else 0)
        if cur and size + add > limit:
            chunks.append("\n".join(cur))
            cur, size, add = [], 0, measure(line)
        if not cur and not line.strip():
            continue
        cur.append(line)
        size += add
    if cur:
        chunks.append("\n".join(cur))
    return [c.strip("\n") for c in chunks if c.strip()]


def split_with_parts(lines: list[str], limit: int, measure: Callable[[str], int] = utf8_len,
                     label: Callable[[int, int], str] = lambda i, n: f"（续 {i}/{n}）") -> list[str]:
    """``split_lines`` plus a "（续 i/n）" line on every chunk after the first, still within ``limit``."""
    reserve = measure(label(99, 99)) + measure("\n")
    chunks = split_lines(lines, limit - reserve, measure)
    if len(chunks) <= 1:
        return split_lines(lines, limit, measure)
    return [c if i == 0 else f"{label(i + 1, len(chunks))}\n{c}" for i, c in enumerate(chunks)]


def _row_text(r: ResultRow, esc: Callable[..., str]) -> str:
    score = "—" if r.score is None else str(r.score)
    text = f"{esc(r.code)} {esc(r.name or '', 24)} · {esc(r.risk_level)} · {score}"
    if r.reason:
        text += f" — {esc(r.reason, 60)}"
    return text


def _change_text(c: RiskChange, esc: Callable[..., str]) -> str:
    arrow = "⬆️" if c.worse else "⬇️"
    score = f" ({'—' if c.old_score is None else c.old_score}→{'—' if c.new_score is None else c.new_score})"
    return f"{arrow} {esc(c.code)} {esc(c.name or '', 24)} {esc(c.old_risk)}→{esc(c.new_risk)}{score}"


def _sections(d: Digest, ds: DigestSettings, esc: Callable[..., str], head: Callable[[str], str],
              bold: Callable[[str], str], item: str) -> list[str]:
    """The digest as lines; ``head``/``bold`` wrap fixed text, ``esc`` escapes dynamic text."""
    c = d.counts
    as_of = f"数据截至 {esc(d.data_as_of)}" if d.data_as_of else "数据时间未知"
    if d.data_as_of_oldest and d.data_as_of_oldest != d.data_as_of:
        as_of += f" (最早 {esc(d.data_as_of_oldest)})"
    lines = [head(esc(d.title)),
             f"{as_of} · {esc(d.source, 60)} · 生成于 {d.generated_at.strftime('%H:%M')}",
             f"{bold('风险分布')}: 🔴 高 {c['高']} · 🟡 中 {c['中']} · 🟢 低 {c['低']} · ⚠️ 失败 {c['failed']}"
             f" (共 {c['total']})", ""]
    if d.top:
        lines.append(bold(f"评分前 {len(d.top)}"))
        lines += [f"{i}. {RISK_BADGE.get(r.risk_level or '', '')} {_row_text(r, esc)}" for i, r in enumerate(d.top, 1)]
        lines.append("")
    if d.previous_date is None:
        lines.append(f"{bold('风险变化')}: 无上一期摘要可对比 (首次)")
    elif not d.changes:
        lines.append(f"{bold('风险变化')} (对比 {d.previous_date}): 无")
    else:
        lines.append(f"{bold(f'风险变化 {len(d.changes)} 只')} (对比 {d.previous_date})")
        lines += [f"{item}{_change_text(ch, esc)}" for ch in d.changes[:ds.max_change_lines]]
        if len(d.changes) > ds.max_change_lines:
            lines.append(f"…另有 {len(d.changes) - ds.max_change_lines} 只, 见 XLSX「变化」表")
    if d.new_st:
        lines += ["", bold(f"新增 ST {len(d.new_st)} 只")]
        lines += [f"{item}{esc(r.code)} {esc(r.name or '', 24)}" for r in d.new_st[:ds.max_st_lines]]
        if len(d.new_st) > ds.max_st_lines:
            lines.append(f"…另有 {len(d.new_st) - ds.max_st_lines} 只, 见 XLSX")
    if d.failed:
        lines += ["", bold(f"失败 {len(d.failed)} 只")]
        lines += [f"{item}{esc(r.code, 24)} {esc(r.name or '', 24)}: {esc(r.error, 80)}"
                  for r in d.failed[:ds.max_failed_lines]]
        if len(d.failed) > ds.max_failed_lines:
            lines.append(f"…另有 {len(d.failed) - ds.max_failed_lines} 只失败, 见 XLSX")
    lines.append("")
    lines.append("完整结果见 XLSX。仅为规则筛选结果, 不构成投资建议。")
    lines += [f"⚠️ {esc(w)}" for w in d.warnings]
    return lines


def markdown_lines(d: Digest, ds: DigestSettings | None = None) -> list[str]:
    ds = ds or DigestSettings()
    return _sections(d, ds, md_esc, lambda t: f"## {t}", lambda t: f"**{t}**", "- ")


def render_markdown(d: Digest, ds: DigestSettings | None = None) -> str:
    return "\n".join(markdown_lines(d, ds))


def render_markdown_parts(d: Digest, limit_bytes: int, ds: DigestSettings | None = None,
                          hard_breaks: bool = False) -> list[str]:
    """Markdown messages, each at most ``limit_bytes`` UTF-8 bytes (WeCom: 4,096).

    ``hard_breaks`` ends every line with two spaces (DingTalk joins single newlines otherwise).
    """
    lines = markdown_lines(d, ds)
    if hard_breaks:
        lines = [f"{line}  " if line else line for line in lines]
    return split_with_parts(lines, limit_bytes, utf8_len)


def telegram_lines(d: Digest, ds: DigestSettings | None = None) -> list[str]:
    ds = ds or DigestSettings()
    return _sections(d, ds, h_esc, lambda t: f"<b>{t}</b>", lambda t: f"<b>{html.escape(t)}</b>", "• ")


def render_telegram(d: Digest, ds: DigestSettings | None = None, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """Telegram HTML messages, each at most ``limit`` UTF-16 units, split on line boundaries."""
    return split_with_parts(telegram_lines(d, ds), limit, utf16_len)


def plain_lines(d: Digest, ds: DigestSettings | None = None) -> list[str]:
    ds = ds or DigestSettings()
    return _sections(d, ds, _plain, lambda t: t, lambda t: t, "· ")


def _plain(value: object, limit: int | None = None) -> str:
    text = "" if value is None else str(value).replace("\r", " ").replace("\n", " ")
    if limit is not None and len(text) > limit:
        text = text[: max(1, limit - 1)] + "…"
    return text


def feishu_post_contents(d: Digest, ds: DigestSettings | None = None,
                         limit_bytes: int = FEISHU_LIMIT_BYTES - 1024) -> list[dict[str, Any]]:
    """Feishu ``post`` contents (``{"post": {"zh_cn": ...}}``); text tags are literal, so plain text."""
    lines = plain_lines(d, ds)
    title, body = lines[0], lines[1:]
    out = []
    # a JSON text element costs ~30 bytes of markup per line beyond the text itself
    chunks = split_with_parts(body, limit_bytes - utf8_len(title) - 200,
                              lambda s: utf8_len(json.dumps(s, ensure_ascii=False)) + 30 * (s.count("\n") + 1))
    for i, chunk in enumerate(chunks):
        t = title if len(chunks) == 1 else f"{title} ({i + 1}/{len(chunks)})"
        content = [[{"tag": "text", "text": line}] for line in chunk.split("\n")]
        out.append({"post": {"zh_cn": {"title": t, "content": content}}})
    return out


def feishu_cards(d: Digest, ds: DigestSettings | None = None,
                 limit_bytes: int = FEISHU_LIMIT_BYTES - 2048) -> list[dict[str, Any]]:
    """Feishu ``interactive`` cards: a header, the body as lark_md (escaped), the footer as a note."""
    lines = markdown_lines(d, ds)
    title = _plain(d.title)
    body = [ln.replace("## ", "", 1) if ln.startswith("## ") else ln for ln in lines[1:]]
    warn = [ln for ln in body if ln.startswith("⚠️ ")]
    body = [ln for ln in body if not ln.startswith("⚠️ ")]
    chunks = split_with_parts(body, limit_bytes - utf8_len(title) - sum(utf8_len(w) for w in warn) - 400,
                              lambda s: utf8_len(json.dumps(s, ensure_ascii=False)))
    cards = []
    for i, chunk in enumerate(chunks):
        t = title if len(chunks) == 1 else f"{title} ({i + 1}/{len(chunks)})"
        elements: list[dict[str, Any]] = [{"tag": "div", "text": {"tag": "lark_md", "content": chunk}}]
        if warn and i == len(chunks) - 1:
            elements += [{"tag": "hr"},
                         {"tag": "note", "elements": [{"tag": "plain_text", "content": "\n".join(warn)}]}]
        cards.append({"config": {"wide_screen_mode": True},
                      "header": {"title": {"tag": "plain_text", "content": t},
                                 "template": "orange" if d.warnings else "blue"},
                      "elements": elements})
    return cards


def render_json(d: Digest) -> dict[str, Any]:
    def row(r: ResultRow) -> dict[str, Any]:
        return {"code": r.code, "name": r.name, "risk_level": r.risk_level, "score": r.score, "reason": r.reason,
                "error": r.error, "flags": list(r.flags)}

    return {
        "date": d.date.isoformat(), "generated_at": d.generated_at.isoformat(), "source": d.source,
        "scope": d.scope, "data_as_of": d.data_as_of, "data_as_of_oldest": d.data_as_of_oldest,
        "counts": d.counts, "top": [row(r) for r in d.top],
        "previous_date": d.previous_date.isoformat() if d.previous_date else None,
        "risk_changes": [{"code": c.code, "name": c.name, "old_risk": c.old_risk, "new_risk": c.new_risk,
                          "old_score": c.old_score, "new_score": c.new_score} for c in d.changes],
        "new_st": [row(r) for r in d.new_st], "failed": [row(r) for r in d.failed],
        "warnings": list(d.warnings), "engine": d.engine, "seconds": round(d.seconds, 2),
        "job_id": d.job_id, "xlsx": str(d.xlsx_path) if d.xlsx_path else None,
        "chart": str(d.chart_path) if d.chart_path else None,
    }


# ------------------------------------------------------------------------------ CLI


def add_digest_args(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``python -m screening digest`` (renders one; never sends)."""
    parser.add_argument("--date", type=dt.date.fromisoformat, help="digest date YYYY-MM-DD (default: today, Shanghai)")
    parser.add_argument("--format", choices=["md", "json", "html"], default="md",
                        help="md (WeCom/DingTalk markdown), json, or html (Telegram)")
    parser.add_argument("--pool", help="a pool file (CSV/XLSX) instead of the whole universe")
    parser.add_argument("--engine", choices=["rules"],
                        help="screen in process with this engine instead of through the queue (no worker needed)")
    parser.add_argument("--out", help="directory for the XLSX and chart (default: [digest].out_dir)")
    parser.add_argument("--no-files", action="store_true", help="skip the XLSX and chart")
    parser.add_argument("--no-history", action="store_true",
                        help="neither read nor store the per-day snapshot in Redis (no day-over-day changes)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds to wait for the worker")
    parser.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")


def cmd_digest(args: argparse.Namespace) -> int:
    """Render a digest to stdout. 0 ok, 2 bad input, 1 when screening failed (no worker, timeout)."""
    from .models import PoolRejected

    settings = load_settings(getattr(args, "config", None))
    ds = digest_settings(settings)
    day = args.date or dt.datetime.now(ds.tz).date()
    if args.timeout is not None:
        ds = ds.model_copy(update={"screen_timeout_s": args.timeout})
    try:
        d = make_digest(settings, day, ds=ds, pool_file=args.pool, engine=args.engine,
                        use_history=not args.no_history, out_dir=Path(args.out) if args.out else None,
                        write=not args.no_files)
    except PoolRejected as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (TimeoutError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # redis down on the queue path, etc.
        print(f"error: digest failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    if args.format == "json":
        sys.stdout.write(json.dumps(render_json(d), ensure_ascii=False, indent=1) + "\n")
    elif args.format == "html":
        sys.stdout.write("\n\n----\n\n".join(render_telegram(d, ds)) + "\n")
    else:
        sys.stdout.write(render_markdown(d, ds) + "\n")
    for w in d.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if d.xlsx_path:
        print(f"wrote {d.xlsx_path} and {d.chart_path}", file=sys.stderr)
    return 0
