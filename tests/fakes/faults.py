"""Fault injection for the fake remote ends, shared by the Eastmoney and Tushare fakes.

Each fault reproduces a failure seen in the vendors' issue trackers, at the wire level, so that the SDK's own
code meets it exactly as it would meet the real thing:
- an Eastmoney IP ban: after K requests the server closes every connection without an answer
  (akshare issue #6548 and others: ``RemoteDisconnected('Remote end closed connection without response')``);
- paging dying half-way: one page number is answered by a dropped connection;
- an HTTP 5xx with an HTML error page; the vendor's "no data" answer; renamed, extra or missing fields.
Endpoint ids: ``spot``, ``st_board``, ``yjbb``, ``yjyg``, ``notice`` (Eastmoney) and ``tushare:<api_name>``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Faults:
    ban_after: int | None = None  # Eastmoney: drop every request after this many (all Eastmoney hosts together)
    drop_pages: dict[str, set[int]] = field(default_factory=dict)  # endpoint -> page numbers dropped, every time
    status: dict[str, int] = field(default_factory=dict)  # endpoint -> HTTP status with an HTML error page
    # endpoint -> {ISO day: HTTP status}: one day's query fails every time, the other days answer (notice,
    # tushare:anns_d)
    status_days: dict[str, dict[str, int]] = field(default_factory=dict)
    empty: set[str] = field(default_factory=set)  # endpoint -> the vendor's "no data" answer
    rename: dict[str, dict[str, str]] = field(default_factory=dict)  # endpoint -> {field: new name}
    extra_field: dict[str, str] = field(default_factory=dict)  # endpoint -> a field added to every record
    omit_fields: dict[str, set[str]] = field(default_factory=dict)  # endpoint -> fields left out of every record
    blank_fields: dict[str, set[str]] = field(default_factory=dict)  # endpoint -> fields answered null in every record
    rate_limited: set[str] = field(default_factory=set)  # tushare:<api>: "每分钟最多访问该接口" answers
    tushare_ip_limited: bool = False  # Tushare: the token was used from more IPs than the account allows
    delay: dict[str, float] = field(default_factory=dict)  # endpoint -> seconds before answering (a stalled server)
    # endpoint -> a change made to every record's values as answered (a unit changed upstream: ROE as a fraction,
    # 总市值 in 亿; a renamed stock; a code moved): the server's own data, as a vendor would send it
    edit: dict[str, Callable[[dict[Any, Any]], None]] = field(default_factory=dict)
    # endpoint -> {period ISO date: how many more requests answer result: null} (akshare #6522: a period with
    # data answered "no data"); a large count is "every time"
    null_period: dict[str, dict[str, int]] = field(default_factory=dict)
    # code -> the 预告类型 of an original 业绩预告 published 10 days before the stock's (revised) forecast
    forecast_original: dict[str, str] = field(default_factory=dict)
    # period ISO -> codes whose report the answer leaves out (a late filer, or a page shift: Eastmoney's 业绩报表 and
    # Tushare's fina_indicator_vip / income_vip alike)
    withheld: dict[str, set[str]] = field(default_factory=dict)
    # endpoint -> for each record as the fake makes it, a copy the answer lists again right after it (changed, or
    # not), or None: paging while the vendor updates lists one stock on two pages, with two values or the same
    repeat: dict[str, Callable[[dict[Any, Any]], dict[Any, Any] | None]] = field(default_factory=dict)
    foreign_notices: int = 0  # items naming only H-share codes at the top of each day's announcements
    host_drop: dict[str, int] = field(default_factory=dict)  # host -> how many more requests are dropped
    host_empty: set[str] = field(default_factory=set)  # quote hosts answering an empty board (data: null)

    def take_null(self, endpoint: str, period: str) -> bool:
        """Whether this request for ``period`` is answered null (and count it)."""
        left = self.null_period.get(endpoint, {}).get(period, 0)
        if left <= 0:
            return False
        self.null_period[endpoint][period] = left - 1
        return True

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]

    def repeated(self, endpoint: str, records: list[dict[Any, Any]]) -> list[dict[Any, Any]]:
        """``records`` with the ``repeat`` fault's copies, each right after its record (the records are not changed)."""
        again = self.repeat.get(endpoint)
        if again is None:
            return records
        out = []
        for record in records:
            out.append(record)
            if (copy := again(dict(record))) is not None:
                out.append(copy)
        return out

    def shape(self, endpoint: str, record: dict[str, object]) -> dict[str, object]:
        """Apply the field faults of ``endpoint`` to one record, keeping the key order of the rest."""
        if endpoint in self.edit:
            record = dict(record)
            self.edit[endpoint](record)
        omit = self.omit_fields.get(endpoint, set())
        rename = self.rename.get(endpoint, {})
        blank = self.blank_fields.get(endpoint, set())
        out = {rename.get(k, k): (None if k in blank else v) for k, v in record.items() if k not in omit}
        if endpoint in self.extra_field:
            out[self.extra_field[endpoint]] = None
        return out
