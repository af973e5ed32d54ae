"""Plain data carried between parsing, rules, the engine and the report.

Dataclasses inside the system; pydantic only at the edges (config, the model's
JSON answer), so these stay cheap to build 5,400 times a morning and trivial to
serialise into Redis with ``to_dict``/``from_dict``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from enum import StrEnum
from typing import Any, Literal

RiskLevel = Literal["高", "中", "低"]
RISK_ORDER: dict[str, int] = {"低": 0, "中": 1, "高": 2}

# A stock's fields as a user reads them (in the file's source column, the stale-data flag, a refused
# duplicate column): one table, so the same field is never named two ways. Chat's short forms are
# output/text.py's SHORT_FIELD, built from this one.
FIELD_LABELS: dict[str, str] = {
    "code": "代码", "name": "名称", "industry": "行业", "pe_ttm": "PE-TTM", "pe_dynamic": "市盈率-动态",
    "roe": "ROE", "eps": "EPS", "st": "ST", "report_text": "报告", "report_date": "报告期",
    "net_profit_y1": "净利润", "net_profit_y2": "上年净利润", "price": "最新价", "change_pct": "涨跌幅",
    "pb": "市净率", "market_cap": "总市值",
}

# Notes the data layer puts on a row whose input may be misread (a figure off by 100x, another company's
# name, a quarter's ROE against annual thresholds, cells shifted by a stray comma). Every summary counts
# them as 数据存疑 beside the rules' own doubt, and `universe import` never merges such a row.
FLAG_DATA_DOUBT = "数据存疑"
NOTE_PERCENT_DOUBT = "百分比存疑"
NOTE_NAME_CONFLICT = "名称与代码不符"
NOTE_QUARTER_ROE = "ROE非年报"
NOTE_ST_CONFLICT = "ST存疑"  # the file says not ST, the market data says ST: the row is ST, and says so
NOTE_GAP_CAUSE = "缺数原因"  # why the local data lacks a stock's ROE/PE-TTM, when it knows (data/gap_causes.py)
# how users know each provider id (README: 数据源); "composed" is the composed report text's id, never named
SOURCE_NAMES = {"akshare": "AKShare/东方财富", "tushare": "Tushare", "import": "导入文件", "demo": "演示数据"}
# a quote cell of the file says 停牌 (行情软件 write it in 现价/涨幅 of a suspended stock): the cell reads as missing,
# the row is screened, and says the stock is suspended, its figures those before the suspension
NOTE_SUSPENDED = "停牌"
NOTE_PE_DASH = "市盈率为横线"  # the file's PE cell is '-': quote boards write a loss-maker's PE so; read as missing
NOTE_PE_LOSS = "市盈率为亏损"  # the file's PE cell is 亏损 (同花顺's word for a loss-maker's PE): read as missing
NOTE_DUPLICATE_CONFLICT = "重复行不一致"  # the file lists the code again with other figures: which is right?
NOTE_SIGN_CONFLICT = "盈亏与ROE矛盾"  # a loss beside a positive ROE (or the reverse), both from one source
NOTE_PE_UNNAMED = "市盈率口径未注明"  # a plain PE column, read as PE-TTM: 同花顺's plain PE is often the dynamic one
NOTE_NOT_LISTED = "全市场数据中无此代码"  # a file row the whole-market data does not list: delisted since?
NOTE_COLUMN_CONFLICT = "两列不一致"  # two columns of one figure (净资产收益率 and ROE) give a row two values
NOTE_IGNORED = "已忽略"  # a cell of a figure no rule reads (总市值 19100 with no unit): dropped, the row screened
# a column no alias names whose cell states a risk signal: its text was read into the floor (screen/unread_text.py)
NOTE_UNKNOWN_COLUMN = "未识别列"
NOTE_UNUSUAL = "数值异常"  # inside the column's bounds, outside what real A shares show (ROE 999%, PE 0.5)
NOTE_FUTURE_DATE = "未来日期"  # a file's date after today: a report period not yet over, an announcement not yet made
# later rows of a code with the same figures and more text (业绩预告 writes a row per 预测指标): one stock, their
# text joined into the first row's (data/pool_merge.py); not a doubt
NOTE_MERGED_ROWS = "合并行"
DOUBT_NOTES: tuple[str, ...] = (FLAG_DATA_DOUBT, NOTE_PERCENT_DOUBT, NOTE_NAME_CONFLICT, NOTE_QUARTER_ROE,
                                NOTE_ST_CONFLICT, NOTE_DUPLICATE_CONFLICT, NOTE_SIGN_CONFLICT, NOTE_UNUSUAL,
                                NOTE_PE_UNNAMED, NOTE_NOT_LISTED, NOTE_COLUMN_CONFLICT, NOTE_FUTURE_DATE)


def is_doubt(flag: str) -> bool:
    """Whether a row's flag says its input is doubtful (counted as 数据存疑)."""
    return flag.startswith(DOUBT_NOTES)


@dataclass(frozen=True)
class InputProblem:
    """One thing wrong with the input, located precisely enough to fix it in the file."""

    source: str
    message: str
    row: int | None = None  # 1-based spreadsheet row (the header is row 1)
    column: str | None = None
    value: str | None = None

    def __str__(self) -> str:
        where = [self.source]
        if self.row is not None:
            where.append(f"第{self.row}行")
        if self.column is not None:
            where.append(f"列 {self.column!r}")
        if self.value is not None:
            shown = self.value if len(self.value) <= 40 else self.value[:37] + "..."
            where.append(f"值 {shown!r}")
        return f"{', '.join(where)}: {self.message}"


@dataclass
class StockInput:
    """What is known about one stock before screening; None means 'not given', never 0."""

    code: str  # normalised NNNNNN.SH|SZ|BJ
    name: str | None = None
    industry: str | None = None
    pe_ttm: float | None = None
    roe: float | None = None
    eps: float | None = None
    report_text: str | None = None
    st: bool | None = None  # explicit flag column; the name is checked too
    net_profit_y1: float | None = None  # last fiscal year
    net_profit_y2: float | None = None  # the year before
    report_date: str | None = None
    price: float | None = None
    change_pct: float | None = None
    pb: float | None = None
    market_cap: float | None = None
    pe_dynamic: float | None = None  # 市盈率-动态 of quote exports: shown, never used as PE-TTM
    # where each given figure came from: "file", "universe:<provider>@<date>" or "demo"
    sources: dict[str, str] = field(default_factory=dict)
    data_date: str | None = None  # the date of the universe data this stock was filled from
    # the day a file says a figure is of (ISO): a quote's trading day (a title line, an i问财 stamp, a 日期 column),
    # a report figure's period (an i问财 stamp), the announcement's day ("notice_date"); data/file_dates.py ages them
    file_dates: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # data-layer flags for the row (stale, cached formula ...)
    # cells of file columns no header names, as (表头, 文字), not yet read: the screen step admits those that state a
    # live risk signal into report_text (screen/unread_text.py) and empties this; never stored in the universe
    unread_text: list[tuple[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StockInput:
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        if values.get("unread_text"):  # JSON (the queue) gives the pairs back as lists
            values["unread_text"] = [(str(col), str(text)) for col, text in values["unread_text"]]
        return cls(**values)

    def data(self) -> dict[str, Any]:
        """The figures alone (no provenance), as the universe stores them."""
        return {f: getattr(self, f) for f in DATA_FIELDS}


# the figures of a stock; the provenance fields (sources, data_date, notes) are about them, not of them
DATA_FIELDS: tuple[str, ...] = ("code", "name", "industry", "pe_ttm", "roe", "eps", "report_text", "st",
                                "net_profit_y1", "net_profit_y2", "report_date", "price", "change_pct", "pb",
                                "market_cap", "pe_dynamic")


@dataclass
class PoolItem:
    """One input stock (a file row or a typed code): either usable or failed with its problem."""

    index: int  # position in the job, 0-based; the result row keeps it
    raw_code: str
    stock: StockInput | None = None
    error: InputProblem | None = None
    row: int | None = None  # source row, for messages
    name: str | None = None  # the name the file gave a row that failed: the user finds the row by it
    code: str | None = None  # a failed item's normalised code when its input parsed (a duplicate, an unknown code)
    # (row, reading) of each later file row of this code that gives other figures: screened too, and the row's
    # verdict is the worse reading's (data/pool_conflict.py, screen/readings.py)
    readings: list[tuple[int | None, StockInput]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "raw_code": self.raw_code,
            "row": self.row,
            "name": self.name,
            "code": self.code,
            "stock": self.stock.to_dict() if self.stock else None,
            "error": asdict(self.error) if self.error else None,
            "readings": [{"row": row, "stock": stock.to_dict()} for row, stock in self.readings],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PoolItem:
        return cls(
            index=data["index"],
            raw_code=data["raw_code"],
            row=data.get("row"),
            name=data.get("name"),
            code=data.get("code"),
            stock=StockInput.from_dict(data["stock"]) if data.get("stock") else None,
            error=InputProblem(**data["error"]) if data.get("error") else None,
            readings=[(r.get("row"), StockInput.from_dict(r["stock"])) for r in data.get("readings", [])],
        )


@dataclass
class Pool:
    """A parsed stock pool: every input stock as an item, plus file-level warnings."""

    source: str
    items: list[PoolItem] = field(default_factory=list)
    warnings: list[InputProblem] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)  # as seen in the file
    mapped: dict[str, str] = field(default_factory=dict)  # file column -> field

    @property
    def ok_items(self) -> list[PoolItem]:
        return [i for i in self.items if i.stock is not None]

    @property
    def failed_items(self) -> list[PoolItem]:
        return [i for i in self.items if i.stock is None]


class PoolRejected(ValueError):
    """The whole input is unusable (no code column, too big, not a table); nothing was queued."""


class FailCode(StrEnum):
    """Why a row failed, set where the row is made: metrics count these, never the message's words."""

    INPUT = "input"  # the file row or typed token was unusable
    MISSING_DATA = "missing_data"  # the rules need a figure nobody provided
    PROMPT_TOO_LONG = "prompt_too_long"
    PREPARE_FAILED = "prepare_failed"
    ENGINE_ERROR = "engine_error"
    WORKER_CRASH = "worker_crash"  # the stock was in flight when workers died too often
    CANCELLED = "cancelled"
    LOST = "lost"  # the item vanished from the queue (should not happen; never leave a stock without a row)


@dataclass
class ResultRow:
    """The final verdict on one stock. Every input stock ends as exactly one of these."""

    index: int
    code: str
    name: str | None
    industry: str | None
    status: Literal["ok", "failed"]
    risk_level: str | None = None
    score: int | None = None
    reason: str | None = None
    flags: list[str] = field(default_factory=list)
    error: str | None = None
    rule_risk: str | None = None
    rule_score: int | None = None
    model_risk: str | None = None
    model_score: int | None = None
    pe_ttm: float | None = None
    roe: float | None = None
    row: int | None = None
    engine: str | None = None
    fail_code: str | None = None  # a FailCode value on failed rows
    sources: dict[str, str] = field(default_factory=dict)  # figure -> "file" | "universe:<provider>@<date>" | "demo"
    data_date: str | None = None  # the date of the universe data the row was filled from
    input: str | None = None  # the code, name or file cell as the user gave it; ``code`` is normalised
    # the risks the row's text states (screen/signals.py): signal, tier, matched words, title or sentence, date
    signals: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        """The row as JSON, same content as ``to_dict`` but without ``asdict``'s deep copy.

        ``asdict`` dominated the worker's profile (thousands of rows per batch); a row's fields
        are scalars and a list of str, which json serialises directly.
        """
        return json.dumps(vars(self), ensure_ascii=False, default=_as_plain)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ResultRow:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def public(self) -> dict[str, Any]:
        """The documented JSON shape of ``screen --format json``."""
        return {
            "code": self.code,
            "input": self.input,
            "name": self.name,
            "industry": self.industry,
            "risk_level": self.risk_level,
            "score": self.score,
            "reason": self.reason,
            "flags": list(self.flags),
            "status": self.status,
            "error": self.error,
            "fail_code": self.fail_code,
            "rule_risk": self.rule_risk,
            "rule_score": self.rule_score,
            "model_risk": self.model_risk,
            "model_score": self.model_score,
            "pe_ttm": self.pe_ttm,
            "roe": self.roe,
            "row": self.row,
            "sources": dict(self.sources),
            "data_date": self.data_date,
            "signals": [dict(s) for s in self.signals],
        }


def _as_plain(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def failed_row(item: PoolItem, error: str, code: FailCode, engine: str | None = None) -> ResultRow:
    """The one way a failed row is made: what the input said about the stock, and why it failed."""
    stock = item.stock
    return ResultRow(
        index=item.index,
        code=stock.code if stock else item.code or item.raw_code,  # normalised whenever the input parsed
        input=item.raw_code,
        name=stock.name if stock else item.name,
        industry=stock.industry if stock else None,
        status="failed",
        error=error,
        pe_ttm=stock.pe_ttm if stock else None,
        roe=stock.roe if stock else None,
        row=item.row,
        engine=engine,
        fail_code=code.value,
        flags=list(stock.notes) if stock else [],
        sources=dict(stock.sources) if stock else {},
        data_date=stock.data_date if stock else None,
    )
