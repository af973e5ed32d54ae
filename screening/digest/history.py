"""Per-day snapshots of each scope's digests in Redis, and the day-over-day comparison.

Each digest's per-code risk/score/ST is stored under its date, so the next one can show what
changed::

    P:digest:snap:{scope}:{YYYY-MM-DD}   hash code -> json [risk, score, st, name, status, signal keys]
    P:digest:days:{scope}                zset of dates with a snapshot (score = date ordinal)
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

from screening.digest.model import RiskChange
from screening.digest.text_risk import row_keys
from screening.models import RISK_ORDER, ResultRow


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

def snapshot(rows: Sequence[ResultRow], st: dict[str, bool]) -> dict[str, list[Any]]:
    return {r.code: [r.risk_level, r.score, bool(st.get(r.code)), r.name, r.status, row_keys(r)] for r in rows}


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
