"""The digest as data: what one morning's digest says, for every renderer and channel.

A ``Digest`` is built once per pool and day (digest/build.py) and rendered per channel
(digest/render.py, push/*); nothing here knows about Redis, files or vendors.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from screening.digest.text_risk import TextRisk
from screening.models import RISK_ORDER, ResultRow

WEEKDAYS = "一二三四五六日"


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
    data_label: str = ""  # where the figures came from and as of when (UniverseInfo.label)
    demo: bool = False  # screened on the demo universe: the title says so, subscribers never get it by default
    text_risks: list[TextRisk] = field(default_factory=list)  # signals new since the previous digest (公告风险)
    text_raised: int = 0  # all stocks whose risk the text raised today
    calendar_basis: str = ""  # footer: which calendar source decided the day (trading_calendar.DayStatus.footer)

    @property
    def empty(self) -> bool:
        """Nothing was screened (an empty universe or pool): the digest says so and how to fill it, no files."""
        return not self.rows

    @property
    def title(self) -> str:
        head = "【演示数据】" if self.demo else ""
        return f"{head}A股盘前摘要 · {self.date.isoformat()} 周{WEEKDAYS[self.date.weekday()]}"



def scope_of(codes: Sequence[str] | None) -> str:
    """``universe`` or ``pool-<sha1 of the sorted codes>``: a chat's own pool is compared with that
    pool's previous digest, never with the whole market's."""
    if not codes:
        return "universe"
    digest = hashlib.sha1(",".join(sorted(set(codes))).encode()).hexdigest()[:16]
    return f"pool-{digest}"
