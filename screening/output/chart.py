"""The chart PNG: where each stock landed on the rules' own plane, and how many landed in each tier.

On top, the pool on a PE-TTM x ROE plane coloured by final risk, with the rule lines drawn (ROE 5
and 15, PE 50, PE <= 0), so a user sees why each stock got its tier. The stocks a user should look
at are named: the 高 ones first, then the top picks by rank value, then the rest, up to
``MAX_LABELS`` and only where a name does not overlap another. Points beyond the axis range sit on
its edge with a black ring (and the legend says so only when there are such points) rather than
vanish. Below, the counts by risk, every bar labelled, zeros included. The layout is portrait with
large type because the chart is mostly seen in a chat on a phone. All labels are Chinese; every
user string is drawn as plain text (``text.parse_math`` off: a ``$`` in a name is a dollar sign).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from screening.models import ResultRow
from screening.output.report import DEMO_FLAG, is_demo, rank_key, summary

CJK_FONT_FILES = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
)
RISK_COLOR = {"高": "#d9534f", "中": "#f0ad4e", "低": "#5cb85c"}
PE_RANGE = (-60.0, 150.0)
ROE_RANGE = (-40.0, 50.0)
MAX_LABELS = 12  # names on the plane: more do not stay readable on a phone
LABEL_SIZE = 11
LABEL_OFFSETS = ((5, 5), (5, -14), (-5, 5), (-5, -14))  # points; tried in turn until a name fits


def _setup() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    # a CJK font if the machine has one (scripts/setup.sh and the bot image install WenQuanYi),
    # registered by path: matplotlib's font cache does not see fonts installed after it was built
    for font_file in CJK_FONT_FILES:
        if Path(font_file).exists() and not any(f.fname == font_file for f in font_manager.fontManager.ttflist):
            font_manager.fontManager.addfont(font_file)
    cjk = [f.name for f in font_manager.fontManager.ttflist
           if any(k in f.name for k in ("Noto Sans CJK", "WenQuanYi", "SimHei", "Source Han"))]
    plt.rcParams["font.sans-serif"] = [cjk[0], "DejaVu Sans"] if cjk else ["DejaVu Sans"]
    plt.rcParams["axes.unicode_minus"] = False
    plt.rcParams["text.parse_math"] = False
    return plt


def _clip(value: float, lo: float, hi: float) -> tuple[float, bool]:
    return (min(hi, max(lo, value)), not lo <= value <= hi)


def _plane(ax: Any, rows: Sequence[ResultRow]) -> None:
    ok = [r for r in rows if r.status == "ok" and r.pe_ttm is not None and r.roe is not None]
    ax.set_xlim(*PE_RANGE)  # first: the names are placed in the final coordinates
    ax.set_ylim(*ROE_RANGE)
    ax.axvspan(PE_RANGE[0], 0, color="#eeeeee", zorder=0)
    ax.axhline(5, color="#d9534f", lw=1, ls="--")
    ax.axhline(15, color="#5cb85c", lw=1, ls="--")
    ax.axvline(50, color="#f0ad4e", lw=1, ls="--")
    ax.axvline(0, color="#777777", lw=1)
    ax.text(PE_RANGE[0] + 3, ROE_RANGE[1] - 4, "PE≤0 (亏损)", fontsize=10, color="#555555")
    ax.text(PE_RANGE[1] - 3, 5.5, "ROE 5%", fontsize=10, ha="right", color="#d9534f")
    ax.text(PE_RANGE[1] - 3, 15.5, "ROE 15%", fontsize=10, ha="right", color="#5cb85c")
    ax.text(51, ROE_RANGE[0] + 2, "PE 50", fontsize=10, color="#b07a1c")
    clipped_any = False
    placed: list[tuple[ResultRow, float, float]] = []
    for risk, color in RISK_COLOR.items():
        pts = [r for r in ok if r.risk_level == risk]
        if not pts:
            continue
        inside: tuple[list[float], list[float]] = ([], [])
        outside: tuple[list[float], list[float]] = ([], [])
        for r in pts:
            assert r.pe_ttm is not None and r.roe is not None
            x, cx = _clip(r.pe_ttm, *PE_RANGE)
            y, cy = _clip(r.roe, *ROE_RANGE)
            group = outside if (cx or cy) else inside
            group[0].append(x)
            group[1].append(y)
            placed.append((r, x, y))
        # two calls, not one with a per-point edge list: matplotlib draws the "none" entries of such a list black
        ax.scatter(*inside, s=36, c=color, marker="o", alpha=0.8, linewidths=0, label=f"{risk} ({len(pts)})",
                   zorder=3)
        if outside[0]:
            clipped_any = True
            ax.scatter(*outside, s=60, c=color, marker="o", alpha=0.8, edgecolors="black", linewidths=1.2, zorder=3)
    if clipped_any:
        ax.scatter([], [], s=60, c="white", edgecolors="black", linewidths=1.2, label="黑圈: 超出坐标范围, 画在边上")
    _names(ax, placed)
    ax.set_xlabel("PE-TTM (倍)")
    ax.set_ylabel("ROE (%)")
    ax.set_title("规则平面: 每只股票落在哪里")
    if ok:
        ax.legend(loc="lower right", fontsize=10, title="最终风险", title_fontsize=10)
    else:
        ax.text(0.5, 0.5, "没有可画的成功行", transform=ax.transAxes, ha="center")


def _names(ax: Any, placed: Sequence[tuple[ResultRow, float, float]]) -> None:
    """Name the 高 stocks, then the best by rank value, then the rest; skip a name that would overlap one."""
    order = sorted(placed, key=lambda p: (p[0].risk_level != "高", rank_key(p[0])))
    renderer = ax.figure.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    boxes: list[Any] = []
    for r, x, y in order:
        if len(boxes) >= MAX_LABELS:
            break
        for dx, dy in LABEL_OFFSETS:
            label = ax.annotate(r.name or r.code, (x, y), textcoords="offset points", xytext=(dx, dy),
                                fontsize=LABEL_SIZE, ha="left" if dx > 0 else "right", zorder=4)
            box = label.get_window_extent(renderer)
            inside = frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1)
            if inside and not any(box.overlaps(b) for b in boxes):
                boxes.append(box)
                break
            label.remove()


def _counts(ax: Any, rows: Sequence[ResultRow]) -> None:
    from matplotlib.ticker import MaxNLocator

    s = summary(rows)
    labels = ["高风险", "中风险", "低风险", "失败"]
    counts = [s["高"], s["中"], s["低"], s["failed"]]
    colors = [RISK_COLOR["高"], RISK_COLOR["中"], RISK_COLOR["低"], "#999999"]
    bars = ax.bar(labels, counts, color=colors)
    top = max(counts) if any(counts) else 1
    for bar, c in zip(bars, counts, strict=True):
        ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() + top * 0.02, str(c), ha="center", fontsize=12)
    ax.set_ylim(0, top * 1.2)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # whole stocks: 0.5 / 1.5 ticks read as half a stock
    ax.set_title("风险分布")


TITLE_WIDTH = 44  # characters of a heading line that fit the portrait chart
DEMO_LINE = f"{DEMO_FLAG} · 非真实行情, 不能据此交易"


def headline(rows: Sequence[ResultRow], title: str) -> str:
    """The chart's heading, three lines at most: 演示数据 first on demo rows (whatever the universe), the counts, then
    the title (pool and data source) wrapped, a cut one ending in "…". The marker has its own line because the
    title's wrap cut a long pool name's 演示数据 off a forwarded chart (a trial, 2026-12-08)."""
    s = summary(rows)
    head = f"筛选结果 · {s['total']} 只: 高 {s['高']} / 中 {s['中']} / 低 {s['低']} / 失败 {s['failed']}"
    demo = is_demo(rows) or DEMO_FLAG in title
    room = 1 if demo else 2
    lines = textwrap.wrap(title, TITLE_WIDTH)
    if len(lines) > room:
        lines = [*lines[: room - 1], lines[room - 1][:-1] + "…"]
    return "\n".join([DEMO_LINE, head, *lines] if demo else [head, *lines])


def draw_chart(rows: Sequence[ResultRow], path: Path, title: str = "") -> Path:
    """The PNG at ``path``; ``title`` (the pool and data source) drawn as plain text under the headline."""
    plt = _setup()
    plt.rcParams.update({"font.size": 12, "axes.titlesize": 13, "axes.labelsize": 12})
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7.5, 10), gridspec_kw={"height_ratios": [3, 1]})
    _plane(a1, rows)
    _counts(a2, rows)
    fig.suptitle(headline(rows, title), fontsize=13)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
