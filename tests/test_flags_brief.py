"""flags_brief: a short line of a row's flags keeps every flag's kind (pure)."""

from __future__ import annotations

from screening.output.text import flag_head, flags_brief


def test_short_flags_are_shown_whole() -> None:
    assert flags_brief(["演示数据", "数据过期: 行情 2026-09-01"]) == "演示数据; 数据过期: 行情 2026-09-01"


def test_over_the_limit_every_kind_stays_and_details_fill_in_order() -> None:
    flags = ["名称与代码不符: " + "很长" * 40, "数据存疑: ROE 单元格 0.25", "数据过期: 行情 2026-09-01"]
    out = flags_brief(flags, 80)
    assert out == "名称与代码不符; 数据存疑: ROE 单元格 0.25; 数据过期: 行情 2026-09-01"
    assert len(out) <= 80


def test_kinds_alone_over_the_limit_are_never_cut() -> None:
    flags = [f"标记{i}: 细节" for i in range(30)]
    assert all(f"标记{i}" in flags_brief(flags, 20) for i in range(30))


def test_flag_head_reads_both_colons() -> None:
    assert [flag_head(f) for f in ("数据过期: 行情", "公告沿用上次刷新：2026-12-01", "ST")] == [
        "数据过期", "公告沿用上次刷新", "ST"]
