"""The same-day result cache: a repeated request for the same stocks does not touch the GPU.

Why the key is (date in Asia/Shanghai, code, sha256 of every input field incl. the report
text, PROMPT_VERSION, engine model id): a row is only reusable when everything that went
into the prompt is identical and the same model answered it; the date makes yesterday's
verdict (stale quotes) a miss even before the TTL expires, and it is the exchange's date,
not the server's. Only ``ok`` rows are cached: a failure should be retried, not remembered.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from zoneinfo import ZoneInfo

from screening.models import PoolItem, ResultRow, StockInput
from screening.screen.prompt import PROMPT_VERSION

SHANGHAI = ZoneInfo("Asia/Shanghai")


def trading_date(now: datetime | None = None) -> str:
    return (now or datetime.now(SHANGHAI)).astimezone(SHANGHAI).strftime("%Y%m%d")


def input_hash(stock: StockInput, model_id: str, prompt_id: str = PROMPT_VERSION) -> str:
    payload = json.dumps(
        {"stock": vars(stock), "prompt": prompt_id, "model": model_id},  # flat: == to_dict()
        sort_keys=True, ensure_ascii=False, default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def cache_key(prefix: str, stock: StockInput, model_id: str, date: str | None = None,
              prompt_id: str = PROMPT_VERSION) -> str:
    return f"{prefix}:cache:{date or trading_date()}:{stock.code}:{input_hash(stock, model_id, prompt_id)}"


def encode_row(row: ResultRow) -> str:
    return row.to_json()


def decode_for(item: PoolItem, raw: str) -> ResultRow:
    """A cached row re-addressed to this job's item (index and source row are per job)."""
    row = ResultRow.from_dict(json.loads(raw))
    row.index = item.index
    row.row = item.row
    return row
