"""Wording a user trial found misleading (2026-12-07), each fixed where the message is made.

* a typed code's 市盈率-动态 is the local data's, never "文件只有" (no file was given);
* a code the last refresh named among the stocks that left the list is told so, not to run a refresh;
* a ROE period that already names its kind (2026三季报) is not followed by "(三季报)" again;
* the calendar notice's import time is Shanghai's, as every other time shown.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from screening.config import Settings, UniverseSettings
from screening.data.calendar_cli import sources_line
from screening.data.calendar_notice import import_notice, load_notices
from screening.data.load import load_pool
from screening.data.row_checks import quarter_roe
from screening.data.universe import Record, Universe, UniverseInfo
from screening.models import StockInput
from screening.screen.pipeline import missing_message
from screening.screen.rules import MissingData
from tests.notice_2027 import NOTICE_2027_PATH

LEFT = ("1 stock(s) left the list since the last refresh of 2026-12-07T08:00:00+08:00, at the refresh of "
        "2026-12-08T08:00:00+08:00 (delisted?): 600191.SH 恒仿光电")


def test_a_typed_codes_dynamic_pe_is_the_local_datas() -> None:
    typed = StockInput(code="605291.SH", name="甲", roe=2.2, pe_dynamic=34.79)
    typed.sources = {"pe_dynamic": "universe:akshare@2026-12-04", "roe": "universe:akshare@2025-12-31"}
    message = missing_message(typed, MissingData("PE-TTM"))
    assert "本地数据只有市盈率-动态 34.79, 它不是PE-TTM" in message and "文件只有" not in message
    from_file = StockInput(code="605291.SH", name="甲", roe=2.2, pe_dynamic=34.79)
    assert "文件只有市盈率-动态 34.79" in missing_message(from_file, MissingData("PE-TTM"))


def test_a_code_that_left_the_list_is_not_sent_to_refresh(tmp_path: Path) -> None:
    path = tmp_path / "universe.sqlite"
    Universe.load(path).replace(
        [Record(StockInput(code="600001.SH", name="甲", price=10.0), {"price": "akshare"}, {"price": "2026-12-07"})],
        UniverseInfo(provider="akshare", trade_date="2026-12-07", refreshed_at="2026-12-08T08:00:00+08:00",
                     count=1, notes=[LEFT]))
    settings = Settings(universe=UniverseSettings(path=str(path)))
    gone, never = load_pool(["600191", "600002"], settings, universe=Universe.load(path)).items
    assert gone.error is not None and never.error is not None
    assert "2026-12-08 08:00 的刷新发现它已不在行情列表中, 可能已退市" in gone.error.message
    assert "universe refresh" not in gone.error.message
    assert "运行 `python -m screening universe refresh`" in never.error.message  # a code no refresh named


def test_a_period_that_names_its_kind_is_not_repeated() -> None:
    worded = StockInput(code="600519.SH", name="贵州茅台", roe=16.0, report_date="2026三季报")
    assert "文件的 ROE 16% 是 2026三季报 的累计值" in (quarter_roe(worded) or "")
    coded = StockInput(code="600519.SH", name="贵州茅台", roe=16.0, report_date="2026Q3")
    assert "文件的 ROE 16% 是 2026Q3 (三季报) 的累计值" in (quarter_roe(coded) or "")


def test_the_notice_import_time_is_shown_in_shanghai(tmp_path: Path) -> None:
    utc = dt.datetime(2026, 12, 7, 0, 34, 4, tzinfo=dt.UTC)  # a store written before the fix kept UTC
    arrangement, _ = import_notice(NOTICE_2027_PATH, tmp_path, now=utc)
    assert arrangement.imported_shown() == "2026-12-07T08:34:04+08:00"
    assert "official notice imported 2026-12-07T08:34:04+08:00" in sources_line(2027, tmp_path)
    fresh, _ = import_notice(NOTICE_2027_PATH, tmp_path / "new")
    assert fresh.imported_at.endswith("+08:00") and load_notices(tmp_path / "new")[2027].imported_at.endswith("+08:00")


def test_a_code_past_the_twentieth_that_left_the_list_is_not_sent_to_refresh_either(tmp_path: Path) -> None:
    """The note names 20 codes and counts the rest; the refresh's record of every code that left answers for all."""
    path = tmp_path / "universe.sqlite"
    left = [f"6002{i:02d}.SH" for i in range(25)]
    note = ("25 stock(s) left the list since the last refresh of 2026-12-07T08:00:00+08:00, at the refresh of "
            "2026-12-08T08:00:00+08:00 (delisted?): " + "、".join(left[:20]) + " 等25只")
    Universe.load(path).replace(
        [Record(StockInput(code="600001.SH", name="甲", price=10.0), {"price": "akshare"}, {"price": "2026-12-07"})],
        UniverseInfo(provider="akshare", trade_date="2026-12-07", refreshed_at="2026-12-08T08:00:00+08:00",
                     count=1, notes=[note], left_list=left))
    settings = Settings(universe=UniverseSettings(path=str(path)))
    (last,) = load_pool([left[-1]], settings, universe=Universe.load(path)).items
    assert left[-1] not in note and last.error is not None
    assert "2026-12-08 08:00 的刷新发现它已不在行情列表中" in last.error.message, last.error.message
