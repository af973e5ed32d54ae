"""A stock the file lists twice with other figures: every reading is judged, and the worse verdict stands.

data/pool_conflict.py keeps the later row as a second reading of the item (``PoolItem.readings``). Which row is
right only the user knows, and doubt may only raise risk: the rule verdict of each reading is taken, the higher
risk kept, at equal risk the lower score (at equal both, the first row). The row then shows that reading's
figures and says which row it rests on, with both verdicts, beside the 重复行不一致 note naming the values.

With a model engine the model is asked about the reading the rules found worse, and may only raise it further;
a reading is judged by the rules alone. A later reading that cannot be judged (it cannot lack a figure the first
has: its blanks are the first row's) is passed over; a first reading that cannot be judged fails the row as
before (the row names the missing figure beside the conflict).
"""

from __future__ import annotations

from screening.models import NOTE_DUPLICATE_CONFLICT, RISK_ORDER, PoolItem, StockInput
from screening.screen.rules import MissingData, RuleVerdict, assess
from screening.screen.unread_text import admit as admit_unread


def worse_reading(item: PoolItem, stock: StockInput, verdict: RuleVerdict) -> tuple[StockInput, RuleVerdict]:
    """The reading of ``item`` with the worse verdict (``stock``, already judged as ``verdict``, is the first
    row's); ``item.stock`` becomes it, and it names the row it rests on and every reading's verdict."""
    if not item.readings:
        return stock, verdict
    judged: list[tuple[int | None, StockInput, RuleVerdict]] = [(item.row, stock, verdict)]
    for row, other in item.readings:
        admit_unread(other)
        try:
            judged.append((row, other, assess(other)))
        except MissingData:
            continue
    # higher risk first, then the lower score; min() keeps the first of equals: the file's first row
    row, stock, verdict = min(judged, key=lambda j: (-RISK_ORDER[j[2].risk], j[2].score))
    shown = ", ".join(f"第 {r} 行 {v.risk}/{v.score}" for r, _, v in judged)
    note = (f"{NOTE_DUPLICATE_CONFLICT}: 按第 {row} 行评级 (同一代码各行中风险较高的一行, 同级时得分较低的一行; "
            f"{shown})")
    stock.notes.append(note)
    verdict.flags.append(note)
    # the item now holds the reading it is screened on, and no other: a second prepare of it (the worker's one by
    # one retry of a batch that raised) judges that reading alone, and adds no second note
    item.stock, item.readings = stock, []
    return stock, verdict
