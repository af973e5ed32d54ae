"""The local universe: the fundamentals store that fills in what an uploaded file lacks.

Exports from 同花顺/东方财富 mostly carry quotes (price, PE, market cap) but no ROE and no
report text. The universe keeps the latest known value of every field per stock, so a
quote-only upload can still be screened, and a stock it does not know stays visibly
incomplete instead of being guessed.

Storage is one UTF-8 CSV whose columns are the StockInput field names plus ``as_of`` (when
that stock's record was last refreshed). It is rewritten atomically, so the bot and the GPU
worker can read it while another process saves it.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import os
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import fields, replace
from pathlib import Path

from screening.data.codes import CodeError, normalise_code
from screening.models import StockInput

FIELDS: tuple[str, ...] = tuple(f.name for f in fields(StockInput))
_FLOAT_FIELDS = frozenset(f.name for f in fields(StockInput) if "float" in str(f.type))
_BOOL_FIELDS = frozenset(f.name for f in fields(StockInput) if "bool" in str(f.type))
AS_OF = "as_of"
SEED_AS_OF = "1970-01-01"  # seeded rows: any real upload is newer
_TRUE = {"true", "1", "yes", "y", "是", "t"}
_FALSE = {"false", "0", "no", "n", "否", "f"}


class UniverseError(ValueError):
    """The universe file is malformed (a bad code, number or flag); the message says where."""


def norm_name(name: str) -> str:
    """Compare names the way users type them: full-width folded, no spaces, case-insensitive."""
    return "".join(unicodedata.normalize("NFKC", name).split()).casefold()


def _parse_cell(field: str, text: str, where: str) -> object:
    text = text.strip()
    if text == "":
        return None
    if field in _FLOAT_FIELDS:
        try:
            value = float(text)
        except ValueError:
            raise UniverseError(f"{where}: column {field!r} is not a number: {text!r}") from None
        if not math.isfinite(value):
            raise UniverseError(f"{where}: column {field!r} is not a finite number: {text!r}")
        return value
    if field in _BOOL_FIELDS:
        low = text.casefold()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise UniverseError(f"{where}: column {field!r} is not a yes/no flag: {text!r}")
    if field == "code":
        try:
            return normalise_code(text)
        except CodeError as exc:
            raise UniverseError(f"{where}: {exc}") from None
    return text


def _format_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)  # shortest round-trip form
    return str(value)


def read_stock_csv(path: Path) -> list[tuple[StockInput, str | None]]:
    """Rows of a universe-shaped CSV as (stock, as_of); columns it lacks are None.

    Read with every cell as text (dtype=str, no NA guessing) so codes keep their leading
    zeros and an empty cell means 'not given', never 0 or NaN.
    """
    import pandas as pd  # heavy; only needed when a file is actually read

    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:  # a 0-byte file: nothing stored yet
        return []
    columns = [str(c).strip() for c in frame.columns]
    if "code" not in columns:
        raise UniverseError(f"{path}: no 'code' column (columns: {', '.join(columns)})")
    frame.columns = columns
    known = [c for c in columns if c in FIELDS]
    out: list[tuple[StockInput, str | None]] = []
    for i, record in enumerate(frame.to_dict("records")):
        where = f"{path}, row {i + 2}"
        values = {c: _parse_cell(c, str(record[c]), where) for c in known}
        if values.get("code") is None:
            raise UniverseError(f"{where}: empty code")
        as_of = str(record.get(AS_OF, "")).strip() or None
        out.append((StockInput(**values), as_of))  # type: ignore[arg-type]
    return out


class Universe:
    """Latest known fields per stock code, persisted as a CSV at ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._stocks: dict[str, StockInput] = {}
        self._as_of: dict[str, str] = {}
        self._names: dict[str, list[str]] | None = None  # normalised name -> codes, built lazily

    @classmethod
    def load(cls, path: Path) -> Universe:
        """Read the store; a missing file is an empty universe (first run), a malformed one raises."""
        universe = cls(path)
        if universe.path.exists():
            for stock, as_of in read_stock_csv(universe.path):
                universe._merge(stock, as_of or SEED_AS_OF)
        return universe

    def __len__(self) -> int:
        return len(self._stocks)

    def __contains__(self, code: object) -> bool:
        return self.get(str(code)) is not None

    def __iter__(self) -> Iterator[StockInput]:
        """Copies of all stored stocks, in code order."""
        for code in sorted(self._stocks):
            yield replace(self._stocks[code])

    def get(self, code: str) -> StockInput | None:
        """A copy of the stored stock (any accepted code spelling), or None if unknown or invalid."""
        try:
            key = normalise_code(code)
        except CodeError:
            return None
        stock = self._stocks.get(key)
        return replace(stock) if stock else None

    def as_of(self, code: str) -> str | None:
        """When the stock's record was last refreshed (ISO date), or None if unknown."""
        try:
            return self._as_of.get(normalise_code(code))
        except CodeError:
            return None

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
            for code, stock in self._stocks.items():
                if stock.name:
                    self._names.setdefault(norm_name(stock.name), []).append(code)
        exact = self._names.get(key)
        if exact:
            codes = sorted(exact)
        else:
            codes = sorted(c for n, cs in self._names.items() if key in n for c in cs)
        return [replace(self._stocks[c]) for c in codes]

    def _merge(self, stock: StockInput, stamp: str) -> bool:
        """Merge one stock; the newer record's given fields win, nobody's None erases a value."""
        code = normalise_code(stock.code)
        incoming = replace(stock, code=code)
        old = self._stocks.get(code)
        if old is None:
            self._stocks[code] = incoming
            self._as_of[code] = stamp
            self._names = None
            return True
        if stamp >= self._as_of[code]:
            newer, older = incoming, old
            self._as_of[code] = stamp
        else:
            newer, older = old, incoming
        merged = replace(
            older, **{f: getattr(newer, f) for f in FIELDS if getattr(newer, f) is not None}
        )
        if merged == old:
            return False
        self._stocks[code] = merged
        if merged.name != old.name:
            self._names = None
        return True

    def update(self, stocks: Iterable[StockInput], as_of: str | None = None) -> int:
        """Merge an upload; returns how many stocks were added or changed.

        ``as_of`` (ISO date, default today) orders uploads: a newer one replaces the fields it
        provides and keeps the rest (a quote-only export keeps the stored ROE and report text);
        an older one only fills fields still missing. Later items win within one call.
        Raises CodeError for a stock whose code is not a valid A-share code.
        """
        stamp = as_of or dt.date.today().isoformat()
        return sum(1 for stock in stocks if self._merge(stock, stamp))

    def fill(self, stock: StockInput) -> StockInput:
        """A copy of ``stock`` whose None fields come from the stored stock of the same code.

        Fields given in the input win: the user's file is the fresher source for what it has.
        """
        stored = self.get(stock.code)
        if stored is None:
            return replace(stock)
        return replace(stock, **{f: getattr(stored, f) for f in FIELDS if getattr(stock, f) is None})

    def save(self) -> None:
        """Write the store atomically (temp file in the same folder, then os.replace)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                writer = csv.writer(fh, lineterminator="\n")
                writer.writerow([*FIELDS, AS_OF])
                for code in sorted(self._stocks):
                    stock = self._stocks[code]
                    writer.writerow([*(_format_cell(getattr(stock, f)) for f in FIELDS), self._as_of[code]])
                fh.flush()
                os.fsync(fh.fileno())
            # mkstemp makes the file 0600; keep the old file's mode (or a plain 0644) for other readers
            mode = self.path.stat().st_mode & 0o777 if self.path.exists() else 0o644
            os.chmod(tmp, mode)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
