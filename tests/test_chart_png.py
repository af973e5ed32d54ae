"""The chart PNG as it is forwarded: whole-stock counts, and a demo chart that says so in its heading."""

from __future__ import annotations

from screening.models import ResultRow
from screening.output.chart import _counts, _setup


def test_the_count_axis_has_no_half_stocks() -> None:
    """A trial (2026-12-08): 高 1 / 中 2 / 低 2 / 失败 2 drew ticks 0.5, 1.5 on the count axis (half a stock)."""
    rows = [ResultRow(i, f"60000{i}.SH", "x", None, "ok", risk_level=r, score=50) for i, r in enumerate("高中中低低")]
    rows += [ResultRow(9, "600009.SH", "y", None, "failed", error="e"), ResultRow(8, "600008.SH", "z", None, "failed")]
    plt = _setup()
    fig, ax = plt.subplots()
    try:
        _counts(ax, rows)
        fig.canvas.draw()
        ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    finally:
        plt.close(fig)
    assert ticks and all(float(t).is_integer() for t in ticks), ticks


def test_a_demo_chart_says_so_whatever_the_length_of_its_title() -> None:
    """A trial (2026-12-08): a demo screen of a pool file with a long name drew its 演示数据 (third line of the
    wrapped title) off the PNG, and the forwarded chart read as market data; the cut title said nothing either."""
    from screening.output.chart import headline

    rows = [ResultRow(0, "688001.SH", "演示立案", None, "ok", risk_level="高", score=100, flags=["演示数据"])]
    pool = "我的自选股票池_2026年12月第二周_从同花顺导出并手工整理过的版本_最终版本_v3_再次修改后的版本_请勿外传.csv"
    lines = headline(rows, f"{pool} · 1 只 · 补充数据: 演示数据 (合成市场, 非真实行情) · 5408 只").split("\n")
    assert "演示数据" in lines[0] and len(lines) <= 3 and lines[-1].endswith("…")
    real = [ResultRow(0, "600519.SH", "贵州茅台", None, "ok", risk_level="低", score=100)]
    assert headline(real, "pool.csv · 1 只") == "筛选结果 · 1 只: 高 0 / 中 0 / 低 1 / 失败 0\npool.csv · 1 只"
