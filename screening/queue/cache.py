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


CACHED_AT = "cached_at"  # stored beside the row's fields; a reader of the row learns when it was answered
FLAG_CACHED = "缓存结果"


def encode_row(row: ResultRow, now: datetime | None = None) -> str:
    data = json.loads(row.to_json())
    data[CACHED_AT] = (now or datetime.now(SHANGHAI)).astimezone(SHANGHAI).strftime("%Y-%m-%d %H:%M")
    return json.dumps(data, ensure_ascii=False)


def decode_for(item: PoolItem, raw: str) -> ResultRow:
    """A cached row re-addressed to this job's item (index, source row and input are per job), and saying
    that it is a cached answer and from when: a second run that touched no engine must not pass for a new one."""
    data = json.loads(raw)
    row = ResultRow.from_dict(data)
    row.index = item.index
    row.row = item.row
    row.input = item.raw_code
    when = data.get(CACHED_AT)
    row.flags = [*row.flags, f"{FLAG_CACHED} ({when}, 同日同输入)" if when else f"{FLAG_CACHED} (同日同输入)"]
    return row
