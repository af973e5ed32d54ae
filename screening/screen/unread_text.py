"""The cells of file columns no header names, read for risk where a stock enters the screen step.

The data layer keeps each such cell with Chinese words in it on the stock (``StockInput.unread_text``,
data/pool_unread.py) without reading it: reading is the text-risk reader's job, and the data layer imports
nothing above it (the eighteenth session moved the reading here from data/). Here a cell that states a live
risk signal joins the report text as ``<表头>: <文字>``, so the rules floor and the model's prompt both read
it, and the row is flagged ``未识别列`` naming the column and the signal; a cell stating none is dropped.

``admit`` runs in ``Screener.prepare_many``, the one door every path (the CLI, the queue worker, the digest,
the bot) takes before the rules and the prompt; ``admit_pool`` does the same for a whole pool and says, per
column, how many rows it read (the ``screen`` command prints that once on stderr). Both empty the candidates,
so a second call adds nothing. Each distinct cell is read once (a whole-market file has 5,400 rows).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from screening.models import NOTE_UNKNOWN_COLUMN, InputProblem, PoolItem, StockInput
from screening.screen.signal_hit import LIVE
from screening.screen.signals import read_signals

_SHOWN_SIGNALS = 3


@lru_cache(maxsize=16384)
def live_signals(text: str) -> tuple[str, ...]:
    """The live risk signals a cell states, by name, in the reader's order (cached: cells repeat down a column)."""
    return tuple(dict.fromkeys(h.name for h in read_signals(text) if h.state == LIVE))


def admit(stock: StockInput) -> list[tuple[str, tuple[str, ...]]]:
    """Read the stock's unread cells: those stating a live signal join its report text, flagged; the candidates are
    emptied. Returns (column, signals) for each cell admitted."""
    admitted: list[tuple[str, tuple[str, ...]]] = []
    for column, text in stock.unread_text:
        signals = live_signals(text)
        if not signals:
            continue
        line = f"{column}: {text}"
        stock.report_text = f"{stock.report_text}\n{line}" if stock.report_text else line
        stock.notes.append(f"{NOTE_UNKNOWN_COLUMN}: 列 {column!r} 含风险文字 "
                           f"({'、'.join(signals[:_SHOWN_SIGNALS])}), 已读入风险判断")
        admitted.append((column, signals))
    stock.unread_text = []  # a new list: a copy of the stock (universe.fill) may share the old one
    return admitted


def admit_pool(items: Iterable[PoolItem], source: str) -> list[InputProblem]:
    """``admit`` for every stock of a pool; one warning per column whose cells were read, with how many rows."""
    rows: dict[str, int] = {}
    named: dict[str, dict[str, None]] = {}
    for item in items:
        if item.stock is None:
            continue
        for column in dict.fromkeys(col for col, _ in item.stock.unread_text):
            rows.setdefault(column, 0)
        for column, signals in admit(item.stock):
            rows[column] += 1  # one cell per column a row
            named.setdefault(column, {}).update(dict.fromkeys(signals))
    out = []
    for column, count in rows.items():
        if not count:
            continue
        shown = list(named[column])
        more = " ..." if len(shown) > _SHOWN_SIGNALS else ""
        out.append(InputProblem(
            source, f"列 {column!r} 不是认得的列, 但其中 {count} 行的文字含风险信号 "
            f"({'、'.join(shown[:_SHOWN_SIGNALS])}{more}): 已读入这些行的风险判断并标注 {NOTE_UNKNOWN_COLUMN}; "
            "若该列不是这些股票的风险文字, 请删去该列", column=column))
    return out
