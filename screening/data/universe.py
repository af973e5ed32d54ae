"""The local universe: the fundamentals store that fills in what an uploaded file lacks.

Exports from 同花顺/东方财富 mostly carry quotes but no ROE and no report text. The universe keeps,
per stock, the latest known value of every figure together with where it came from (a provider
call, an imported file, or the demo market) and the date it is as of, so a filled row can say
``universe:akshare@2026-12-03`` for each figure, and a stock it does not know stays visibly
incomplete instead of being guessed.

Storage is one SQLite file in WAL mode: readers (the bot, the worker, the digest) never block the
writer, and writers are serialised by SQLite's own lock (``BEGIN IMMEDIATE``). ``save`` replays
this process's pending merges onto what is in the file at that moment, inside one transaction,
so twenty concurrent ``universe import`` runs lose nothing; ``replace`` (a refresh) swaps the
whole universe in one transaction, so a reader sees the old one or the new one, never a mix.
Nothing non-finite, no invalid code and no control character is ever written (``check_stock``).
"""

from __future__ import annotations

import json
import math
import sqlite3
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from screening.data.codes import CodeError, normalise_code
from screening.data.freshness import REPORT_FIELDS, intraday_time, market_today
from screening.data.late_report import FLAG_LATE_REPORT, late_report  # re-exported: digest/render.py reads it here
from screening.data.names import norm_name, st_mark
from screening.data.row_flags import drop_replaced
from screening.data.stock_csv import UniverseError
from screening.models import DATA_FIELDS, NOTE_ST_CONFLICT, StockInput

SEED_AS_OF = "1970-01-01"  # demo rows: any real data is newer
_SCHEMA = """
CREATE TABLE IF NOT EXISTS stocks (code TEXT PRIMARY KEY, record TEXT NOT NULL, sources TEXT NOT NULL,
                                   dates TEXT NOT NULL, as_of TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass
class Record:
    """One stock as stored: its figures, each figure's source id and as-of date, the record's stamp."""

    stock: StockInput
    sources: dict[str, str] = field(default_factory=dict)  # field -> e.g. "akshare:stock_yjbb_em(20260930)"
    dates: dict[str, str] = field(default_factory=dict)  # field -> ISO date the value is as of
    as_of: str = SEED_AS_OF


@dataclass
class UniverseInfo:
    """What the universe as a whole is: who filled it, for which day, and whether it is demo data."""

    provider: str | None = None  # "akshare", "tushare", "import", "demo"; None: never filled
    provider_version: str = ""
    trade_date: str | None = None  # the quotes' trading day
    report_period: str | None = None  # the latest report period used
    refreshed_at: str | None = None
    count: int = 0
    demo: bool = False
    notes: list[str] = field(default_factory=list)
    # row flags from the refresh: an optional source failed, so every row lacks what it gives (公告数据缺失)
    degraded: list[str] = field(default_factory=list)
    # one stock's row flags from the refresh, per figure they are about (ProvidedStock.flags): the source gave two
    # values, a report its answer lacked was carried from the last good universe
    row_flags: dict[str, dict[str, str]] = field(default_factory=dict)
    # {old Beijing code: its 920 code} the refresh found moved (unknown_codes.bse_moves): every one, where the
    # refresh's note names the first 20, so an old code typed later is told its new code whatever its place
    bse_moves: dict[str, str] = field(default_factory=dict)
    # every code the refresh found gone from the list since the last good universe (its note names the first 20)
    left_list: list[str] = field(default_factory=list)

    def label(self) -> str:
        """One line for footers and /data: source, dates, size; 演示数据 when it is demo data."""
        if self.demo:
            return f"演示数据 (合成市场, 非真实行情) · {self.count} 只"
        if not self.provider:
            return "本地数据为空 (运行 `python -m screening universe refresh`)"
        parts = [f"数据来源 {self.provider} {self.provider_version}".rstrip()]
        if self.trade_date:  # quotes fetched mid-session say so (盘中 10:30): they are not the close
            at = intraday_time(self.trade_date, self.refreshed_at)
            parts.append(f"行情 {self.trade_date}" + (f" 盘中 {at}" if at else ""))
        elif self.provider == "import":  # each imported row has its own date: no one date stands for them all
            parts.append("行情日期见各行来源 (导入文件)")
        if self.report_period:
            parts.append(f"财报 {self.report_period}")
        parts.append(f"{self.count} 只")
        parts += [f"⚠ {flag}" for flag in self.degraded]
        return " · ".join(parts)


def check_stock(stock: StockInput, where: str) -> StockInput:
    """The stock as it may be stored: code normalised, every number finite, no control characters.

    Raises UniverseError naming ``where`` for what cannot be stored (a non-finite number would
    poison every later screen: the rules and the score formula would overflow on it).
    """
    try:
        code = normalise_code(stock.code)
    except CodeError as exc:
        raise UniverseError(f"{where}: {exc}") from None
    clean: dict[str, Any] = {"code": code}
    for name in DATA_FIELDS[1:]:
        value = getattr(stock, name)
        if isinstance(value, float) and not math.isfinite(value):
            raise UniverseError(f"{where}: {name} is not a finite number: {value!r}")
        if isinstance(value, str):
            value = "".join(ch for ch in value if ch in "\n\t" or unicodedata.category(ch)[0] != "C") or None
        clean[name] = value
    return StockInput(**clean)


class Universe:
    """Latest known figures per stock code, with their sources, persisted in SQLite at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._records: dict[str, Record] = {}
        self._pending: list[Record] = []  # merges not yet saved
        self._names: dict[str, list[str]] | None = None  # normalised name -> codes, built lazily
        self.info = UniverseInfo()

    # -- reading ---------------------------------------------------------------------------
    @classmethod
    def load(cls, path: Path) -> Universe:
        """Read the store; a missing file is an empty universe, a file that is not one raises."""
        universe = cls(path)
        if universe.path.exists() and universe.path.stat().st_size:
            with universe._connect() as db:
                universe._read(db)
        return universe

    def _connect(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise UniverseError(f"{self.path}: not a universe database ({exc}); move it away and run "
                                "`python -m screening universe refresh` (or `universe import FILE`)") from None
        return db

    def _read(self, db: sqlite3.Connection) -> None:
        self._records.clear()
        self._names = None
        for code, record, sources, dates, as_of in db.execute("SELECT code, record, sources, dates, as_of "
                                                              "FROM stocks"):
            self._records[code] = Record(StockInput(**json.loads(record)), json.loads(sources), json.loads(dates),
                                         as_of)
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        self.info = UniverseInfo(**json.loads(meta["info"])) if "info" in meta else UniverseInfo()
        self.info.count = len(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, code: object) -> bool:
        return self.get(str(code)) is not None

    def __iter__(self) -> Iterator[StockInput]:
        """Copies of all stored stocks (with their provenance), in code order."""
        for code in sorted(self._records):
            yield self._view(self._records[code])

    def _key(self, code: str) -> str | None:
        try:
            return normalise_code(code)
        except CodeError:
            return None

    def record(self, code: str) -> Record | None:
        key = self._key(code)
        return self._records.get(key) if key else None

    def get(self, code: str) -> StockInput | None:
        """A copy of the stored stock (any accepted code spelling), or None if unknown or invalid."""
        rec = self.record(code)
        return self._view(rec) if rec else None

    def as_of(self, code: str) -> str | None:
        """When the stock's record was last written (ISO date), or None if unknown."""
        rec = self.record(code)
        return rec.as_of if rec else None

    def provenance(self, rec: Record, name: str) -> str:
        """The label a row shows for one stored figure: ``universe:<provider>@<date>`` or ``demo``."""
        if self.info.demo:
            return "demo"
        provider = rec.sources.get(name, "").split(":", 1)[0]
        if provider in ("", "derived"):
            provider = self.info.provider or "universe"
        return f"universe:{provider}@{rec.dates.get(name) or rec.as_of}"

    def _view(self, rec: Record) -> StockInput:
        stock = replace(rec.stock)
        stock.sources = {f: self.provenance(rec, f) for f in DATA_FIELDS[1:] if getattr(stock, f) is not None}
        stock.data_date = self._data_date(rec)
        stock.notes = [*stock.notes, *self._row_flags(rec)]
        return stock

    def _row_flags(self, rec: Record, given: Iterable[str] = ()) -> list[str]:
        """The flags a row filled from this universe carries: what the refresh could not get (公告数据缺失), the
        refresh's flags on this stock's figures (unless ``given``, the figures a file gave, or an import since
        replaced the figure), and 财报滞后 for a stock whose next report is past its legal deadline (a late filer)."""
        flags = list(self.info.degraded)
        mine = self.info.row_flags.get(rec.stock.code, {})
        flags += dict.fromkeys(flag for name, flag in mine.items()
                               if name not in given and not rec.sources.get(name, "").startswith("import:"))
        late = late_report(rec.stock.report_date, self.info.trade_date)
        if late is not None:
            flags.append(f"{FLAG_LATE_REPORT}: 最新财报为 {rec.stock.report_date} 报告期, "
                         f"{late} 报告期已过法定披露期限")
        return flags

    def find_by_name(self, name: str) -> list[StockInput]:
        """Stocks whose name equals ``name``; if none, all whose name contains it.

        Returns every candidate (copies) so a caller can say "ambiguous: A, B" rather than
        pick one; a name resolves to a stock only when exactly one is returned.
        """
        key = norm_name(name or "")
        if not key:
            return []
        if self._names is None:
            self._names = {}
            for code, rec in self._records.items():
                if rec.stock.name:
                    self._names.setdefault(norm_name(rec.stock.name), []).append(code)
        exact = self._names.get(key)
        codes = sorted(exact) if exact else sorted(c for n, cs in self._names.items() if key in n for c in cs)
        return [self._view(self._records[c]) for c in codes]

    def _data_date(self, rec: Record) -> str | None:
        """The date a row's figures are as of; demo figures have none (their seed date is not a date of data)."""
        if self.info.demo or rec.as_of == SEED_AS_OF:
            return None
        return self.info.trade_date or rec.as_of

    def fill(self, stock: StockInput) -> StockInput:
        """A copy of ``stock`` whose missing figures come from the stored stock of the same code.

        Figures given in the input win (the user's file is the fresher source for what it has) and
        are marked ``file``; filled ones carry the universe's label.
        """
        out = replace(stock, sources=dict(stock.sources), notes=list(stock.notes))
        for name in DATA_FIELDS[1:]:
            if getattr(stock, name) is not None:
                out.sources.setdefault(name, "file")
        rec = self.record(stock.code)
        if rec is None:
            return out
        filled = False
        for name in DATA_FIELDS[1:]:
            stored = getattr(rec.stock, name)
            if getattr(out, name) is None and stored is not None:
                setattr(out, name, stored)
                out.sources[name] = self.provenance(rec, name)
                filled = filled or name not in ("name", "industry")  # labels, not dated figures
        if filled:  # every figure from the file: its date is not known (the row contract's null)
            out.data_date = self._data_date(rec)
        given = {name for name, src in out.sources.items() if src == "file"}
        out.notes += [f for f in self._row_flags(rec, given) if f not in out.notes]
        self._add_stored_text(out, rec)
        return self._keep_st_mark(out, rec)

    def _add_stored_text(self, out: StockInput, rec: Record) -> None:
        """A file's own text (a 摘要 column) is read with the stored announcement titles after it, not instead.

        The text floor reads the titles (立案告知书, 退市风险警示); a summary in the file must not hide them,
        or a stock under investigation is rated on its figures alone. The source says both.
        """
        stored = (rec.stock.report_text or "").strip()
        given = (out.report_text or "").strip()
        if not stored or not given or stored in given or out.sources.get("report_text") != "file":
            return
        out.report_text = f"{given}\n{stored}"
        out.sources["report_text"] = f"file+{self.provenance(rec, 'report_text')}"

    def _keep_st_mark(self, out: StockInput, rec: Record) -> StockInput:
        """The stored ST mark (the exchange's risk-warning list, or an ST name) stays on the row, visibly.

        A file's own figures win, but a file's 否 or an unmarked name never clears a risk the market data
        states: the rules only raise risk. The row says both sides, so a stale store is seen as such.
        """
        marked = rec.stock.st or st_mark(rec.stock.name) is not None
        if not marked or out.st or st_mark(out.name) is not None:
            return out
        where = self.provenance(rec, "st" if rec.stock.st else "name")
        said = "标为非ST" if out.st is False else f"名称 {out.name} 无ST标记"
        out.st = True
        out.sources["st"] = where
        out.notes.append(f"{NOTE_ST_CONFLICT}: 文件{said}, {where} 为ST ({rec.stock.name})")
        return out

    def field_dates(self, code: str) -> dict[str, str]:
        rec = self.record(code)
        return dict(rec.dates) if rec else {}

    # -- writing ---------------------------------------------------------------------------
    def update(self, stocks: Iterable[StockInput], as_of: str | None = None, source: str = "import",
               periods_of: Callable[[StockInput], dict[str, str]] | None = None) -> int:
        """Merge stocks (figures given win over stored ones when newer); returns how many changed.

        ``as_of`` (ISO date, default today in Shanghai) orders writes: a newer record replaces the figures it
        provides and keeps the rest; an older one only fills figures still missing. ``periods_of`` dates a stock's
        report figures by their periods (freshness.REPORT_CLOCKS), the rest by ``as_of``. Pending until ``save``.
        Raises UniverseError for a stock that cannot be stored."""
        stamp = as_of or market_today().isoformat()
        changed = 0
        for stock in stocks:
            clean = check_stock(stock, f"stock {stock.code!r}")
            given = [f for f in DATA_FIELDS[1:] if getattr(clean, f) is not None]
            # a report figure is as of its period where the row states one (file_dates.report_periods), as a
            # refresh's are: dated by the import's day, a FY2024 ROE read as current and was never flagged 数据过期
            periods = {f: d for f, d in (periods_of(stock) if periods_of else {}).items() if f in REPORT_FIELDS}
            rec = Record(clean, dict.fromkeys(given, source), {f: periods.get(f, stamp) for f in given}, stamp)
            if _merge_into(self._records, rec):
                changed += 1
                self._names = None
            self._pending.append(rec)
        return changed

    def save(self) -> None:
        """Write the pending merges: replayed onto the file's current rows in one IMMEDIATE transaction."""

        def merge(db: sqlite3.Connection) -> None:
            codes = sorted({r.stock.code for r in self._pending})
            current: dict[str, Record] = {}
            for chunk in range(0, len(codes), 500):
                part = codes[chunk:chunk + 500]
                rows = db.execute(f"SELECT code, record, sources, dates, as_of FROM stocks WHERE code IN "
                                  f"({','.join('?' * len(part))})", part).fetchall()
                for code, record, sources, dates, stamp in rows:
                    current[code] = Record(StockInput(**json.loads(record)), json.loads(sources),
                                           json.loads(dates), stamp)
            for rec in self._pending:
                _merge_into(current, rec)
            drop_replaced(self.info.row_flags, current, self._pending)  # flags on figures this write replaced
            db.executemany("INSERT OR REPLACE INTO stocks VALUES (?, ?, ?, ?, ?)",
                           [_row(r) for r in current.values()])
            if self.info.provider is None:
                self.info.provider = "import"

        self._transaction(merge)

    def replace(self, records: Iterable[Record], info: UniverseInfo) -> None:
        """Swap the whole universe for ``records`` in one transaction (a refresh, or the demo seed).

        A stock the user imported (every figure ``import:``) that the new records do not list is kept with
        its own dates, and the info says so: a refresh never deletes a user's figures without a word. Where
        the new records list the stock, their figures are the newer and replace the import's.
        """
        clean = [Record(check_stock(r.stock, f"stock {r.stock.code!r}"), r.sources, r.dates, r.as_of)
                 for r in records]
        kept = [] if info.demo else [self._records[c] for c in self.kept_imports({r.stock.code for r in clean})]
        if kept:
            clean += kept
            info.notes.append(f"kept {len(kept)} imported stock(s) the provider does not list "
                              f"({', '.join(r.stock.code for r in kept[:5])}{' ...' if len(kept) > 5 else ''})")

        def swap(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM stocks")
            db.executemany("INSERT OR REPLACE INTO stocks VALUES (?, ?, ?, ?, ?)", [_row(r) for r in clean])
            self.info = info

        self._transaction(swap)

    def kept_imports(self, listed: set[str]) -> list[str]:
        """The codes a refresh listing ``listed`` keeps (``replace``): stocks only a user's import gave, every
        figure ``import:``. Asked before the swap too, so the refresh's note on the stocks that left the list is
        written with it (refresh.left_the_list) and names no stock the swap keeps."""
        return sorted(code for code, r in self._records.items() if code not in listed and r.sources
                      and all(src.startswith("import:") for src in r.sources.values()))

    def _transaction(self, write: Callable[[sqlite3.Connection], None]) -> None:
        """``write`` and the info row in one IMMEDIATE transaction (one writer at a time), then re-read."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            write(db)
            self._write_info(db)
            db.execute("COMMIT")
            # writes are rare (a refresh, an import): fold the WAL into the file, so a plain copy is complete
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self._pending.clear()
            self._read(db)
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.close()

    def _write_info(self, db: sqlite3.Connection) -> None:
        count = db.execute("SELECT COUNT(*) FROM stocks").fetchone()[0]
        self.info.count = int(count)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('info', ?)", (json.dumps(asdict(self.info),
                                                                                  ensure_ascii=False),))


def file_version(path: Path) -> tuple[int, ...]:
    """Changes on every commit to the store at ``path`` (WAL appends to ``-wal``; a checkpoint rewrites the
    main file): long-running readers (the bot) compare it to reload after a refresh or an import."""
    out: list[int] = []
    for p in (Path(path), Path(f"{path}-wal")):
        try:
            st = p.stat()
            out += [st.st_mtime_ns, st.st_size]
        except OSError:
            out += [0, 0]
    return tuple(out)


def _row(rec: Record) -> tuple[str, str, str, str, str]:
    record = {k: v for k, v in rec.stock.data().items() if v is not None}
    return (rec.stock.code, json.dumps(record, ensure_ascii=False), json.dumps(rec.sources, ensure_ascii=False),
            json.dumps(rec.dates), rec.as_of)


def _merge_into(records: dict[str, Record], incoming: Record) -> bool:
    """Merge one record; the newer record's given figures win, nobody's None erases a value."""
    code = incoming.stock.code
    old = records.get(code)
    if old is None:
        records[code] = Record(replace(incoming.stock), dict(incoming.sources), dict(incoming.dates), incoming.as_of)
        return True
    newer, older = (incoming, old) if incoming.as_of >= old.as_of else (old, incoming)
    merged = replace(older.stock)
    sources, dates = dict(older.sources), dict(older.dates)
    for name in DATA_FIELDS[1:]:
        value = getattr(newer.stock, name)
        if value is not None:
            setattr(merged, name, value)
            sources[name] = newer.sources.get(name, sources.get(name, ""))
            dates[name] = newer.dates.get(name, newer.as_of)
            # a date about the figure it replaced ("roe@notice": its report's first notice) goes with it
            for key in [k for k in dates if k.startswith(name + "@")]:
                del dates[key]
            dates.update({k: v for k, v in newer.dates.items() if k.startswith(name + "@")})
    stamp = max(old.as_of, incoming.as_of)
    if merged.data() == old.stock.data():
        old.as_of = stamp
        return False
    records[code] = Record(merged, sources, dates, stamp)
    return True
