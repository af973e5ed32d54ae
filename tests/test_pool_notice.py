"""An announcement in two columns of a pool file (公告标题, 公告日期) reaches the text-risk floor as a dated title.

A user trial: a file with a 立案告知书 title in a 公告标题 column came out 低/100, the column dropped without a word.
"""

from __future__ import annotations

from pathlib import Path

from screening.config import InputSettings
from screening.data.pool import read_pool
from screening.screen.rules import assess


def test_a_title_column_is_read_as_a_dated_title(tmp_path: Path) -> None:
    f = tmp_path / "notices.csv"
    f.write_text("代码,名称,市盈率(TTM),ROE(%),财报摘要,公告标题,公告日期\n"
                 "600519,贵州茅台,22,30,,关于收到中国证监会立案告知书的公告,2026-11-20\n"
                 "000858,五粮液,15,25,业绩稳定。,关于公司股票被实施退市风险警示的公告,\n"
                 "000001,平安银行,5,12,,,\n", encoding="utf-8")
    pool = read_pool(f, InputSettings())
    dated, undated, none = (item.stock for item in pool.items)
    assert dated is not None and undated is not None and none is not None
    assert dated.report_text == "2026-11-20 关于收到中国证监会立案告知书的公告"
    assert undated.report_text == "业绩稳定。\n关于公司股票被实施退市风险警示的公告"  # never given a date
    assert none.report_text is None
    verdict = assess(dated)
    assert verdict.risk == "高" and any("立案调查 (2026-11-20" in f for f in verdict.flags)
    assert assess(undated).risk == "高"
