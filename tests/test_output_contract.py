"""What a user opens and what a chat sends: the XLSX in Chinese with the JSON keys, the rule-plane chart, the
top list's order, the one Bot API retry policy, the digest's chart lock held only to draw.

Pure functions and files on disk; the real openpyxl, matplotlib and python-telegram-bot error classes.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from openpyxl import load_workbook

from screening.models import Pool, PoolItem, ResultRow, StockInput
from screening.output.report import rank_value, top_picks
from screening.output.xlsx import write_workbook
from tests.xlsx_checks import formulas

CJK = re.compile(r"[\u4e00-\u9fff]")


def ok_row(i: int, code: str, name: str, pe: float, roe: float, score: int = 100, risk: str = "低") -> ResultRow:
    return ResultRow(index=i, code=code, name=name, industry="银行", status="ok", risk_level=risk, score=score,
                     reason=f"ROE {roe}%", pe_ttm=pe, roe=roe)


def test_workbook_is_chinese_on_every_sheet_and_keeps_the_json_keys(tmp_path: Path) -> None:
    rows = [ok_row(0, "600519.SH", "贵州\x07茅台", 22.5, 34.2), ok_row(1, "000001.SZ", "=cmd|' /C calc'!A0", 5.0, 9.8,
                                                                       score=51, risk="中")]
    pool = Pool(items=[PoolItem(0, "600519", StockInput(code="600519.SH", name="贵州茅台", pe_ttm=22.5, roe=34.2))],
                source="pool.csv")
    path = write_workbook(rows, tmp_path / "screen.xlsx", pool, {"engine": "rules"}, demo=True)
    wb = load_workbook(path)
    assert wb.sheetnames == ["结果", "演示数据", "输入", "汇总"]  # opens on the results; 演示数据 says what they are
    assert wb.active is not None and wb.active.title == "结果"
    assert "不是真实行情" in str(wb["演示数据"]["A1"].value)
    for name in ("结果", "输入", "汇总"):
        header = next(iter(wb[name].iter_rows(min_row=1, max_row=1)))
        labels = [str(c.value) for c in header]
        assert all(CJK.search(v) or v.startswith(("PE", "ROE", "ST")) for v in labels), (name, labels)
        assert all(c.comment is not None and c.comment.text.startswith("JSON: ") for c in header), name
    keys = [c.comment.text.removeprefix("JSON: ") for c in next(wb["结果"].iter_rows(max_row=1))]
    assert {"code", "name", "risk_level", "score", "reason", "flags", "status"} <= set(keys)
    values = [c.value for row in wb["结果"].iter_rows(min_row=2) for c in row]
    assert "贵州茅台" in values  # the bell character is gone: Excel would refuse the file
    assert formulas(path) == []  # every string a typed string cell, never a formula
    labels = {r[0].value for r in wb["汇总"].iter_rows(min_row=2)}
    assert {"总数", "高风险", "引擎"} <= labels


def test_a_demo_workbooks_summary_labels_each_row_once(tmp_path: Path) -> None:
    """A trial (s15/u4 C5): a demo run's 汇总 had two rows labelled 数据 (本地数据为空 ..., 演示数据 (非真实行情))."""
    rows = [ok_row(0, "600519.SH", "贵州茅台", 22.5, 34.2)]
    path = write_workbook(rows, tmp_path / "screen.xlsx", None, {"source": "m.csv", "data": "本地数据为空"}, demo=True)
    pairs = list(load_workbook(path)["汇总"].iter_rows(min_row=2, values_only=True))
    labels = [label for label, _ in pairs]
    assert len(labels) == len(set(labels)), labels
    assert ("本地数据", "本地数据为空") in pairs and ("数据性质", "演示数据 (非真实行情)") in pairs


def test_chart_draws_the_rule_plane_with_the_stocks_by_name(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from screening.output.chart import _plane, draw_chart

    rows = [ok_row(0, "600519.SH", "贵州茅台", 22.5, 34.2), ok_row(1, "601318.SH", "中国平安", 8.0, 10.1, 60, "中"),
            ok_row(2, "000002.SZ", "万科A", -4.0, -8.0, 0, "高")]
    fig, ax = plt.subplots()
    _plane(ax, rows)
    horizontal = sorted(line.get_ydata()[0] for line in ax.get_lines() if line.get_xdata()[0] == 0
                        and line.get_xdata()[1] == 1)
    vertical = sorted(line.get_xdata()[0] for line in ax.get_lines() if line.get_ydata()[0] == 0
                      and line.get_ydata()[1] == 1)
    assert horizontal == [5, 15] and vertical == [0, 50]  # the rules' thresholds, where a user can see them
    assert "PE-TTM" in ax.get_xlabel() and "ROE" in ax.get_ylabel() and CJK.search(ax.get_title())
    names = {t.get_text() for t in ax.texts}
    assert {"贵州茅台", "中国平安", "万科A"} <= names  # a small pool shows its stocks by name
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sorted(legend) == sorted(["高 (1)", "中 (1)", "低 (1)"])  # counts by final risk
    plt.close(fig)
    out = draw_chart(rows, tmp_path / "c.png", title="pool.csv · 数据来源 akshare")
    assert out.stat().st_size > 10_000


def test_top_picks_break_ties_at_100_by_rank_value_and_hold_only_low_risk() -> None:
    weaker = ok_row(0, "000001.SZ", "甲", 20.0, 20.0)  # formula 100 - 4 + 25 = 121 -> clamped 100
    stronger = ok_row(1, "600000.SH", "乙", 5.0, 40.0)  # formula 100 - 1 + 125 = 224 -> clamped 100
    middling = ok_row(2, "300001.SZ", "丙", 30.0, 10.0, 69, "中")
    assert [r.code for r in top_picks([weaker, middling, stronger], 3)] == ["600000.SH", "000001.SZ"]
    assert (rank_value(stronger), rank_value(weaker), rank_value(middling)) == (224.0, 121.0, 69.0)
    assert top_picks([middling], 3) == []  # no 低 stock: no picks (the digest says so), never a 中 one


def test_workbook_ranks_rows_and_greys_failed_ones_with_chinese_status(tmp_path: Path) -> None:
    rows = [ok_row(0, "000002.SZ", "万科A", -4.0, -8.0, 0, "高"), ok_row(1, "000001.SZ", "甲", 20.0, 20.0),
            ResultRow(index=2, code="600036.SH", name=None, industry=None, status="failed", error="unknown",
                      fail_code="input", input="sh600036"),
            ok_row(3, "600000.SH", "乙", 5.0, 40.0)]
    rows[1].sources = {"pe_ttm": "file", "roe": "file", "industry": "universe:akshare@2026-12-02"}
    wb = load_workbook(write_workbook(rows, tmp_path / "r.xlsx"))
    ws = wb["结果"]
    keys = [c.comment.text.removeprefix("JSON: ") for c in ws[1]]
    table = [dict(zip(keys, (c.value for c in row), strict=True)) for row in ws.iter_rows(min_row=2)]
    assert [r["code"] for r in table] == ["600000.SH", "000001.SZ", "000002.SZ", "600036.SH"]
    assert [r["status"] for r in table] == ["成功", "成功", "成功", "失败"]
    assert table[1]["sources"] == "文件: PE-TTM, ROE; akshare 2026-12-02: 行业" and table[1]["rank_value"] == 121
    failed = next(iter(ws.iter_rows(min_row=5, max_row=5)))
    assert all(c.fill.fgColor.rgb.endswith("D9D9D9") for c in failed)


async def test_one_retry_policy_permanent_errors_are_not_retried() -> None:
    from telegram.error import BadRequest, Forbidden, NetworkError, TimedOut

    from screening.push.telegram import telegram_call

    for exc in (BadRequest("Chat not found"), Forbidden("bot was blocked"), TimedOut("maybe delivered")):
        calls: list[int] = []

        async def failing(e: Exception = exc, seen: list[int] = calls) -> None:
            seen.append(1)
            raise e

        with pytest.raises(type(exc)):
            await telegram_call(failing, attempts=4, backoff_s=0.001)
        assert calls == [1], type(exc).__name__  # once: a retry fails the same way, or could post twice

    flaky: list[int] = []

    async def transient() -> str:
        flaky.append(1)
        if len(flaky) < 3:
            raise NetworkError("connection reset")
        return "sent"

    assert await telegram_call(transient, attempts=4, backoff_s=0.001) == "sent" and len(flaky) == 3


class OrderLock:
    """A real lock that records what the files looked like when it was taken and released."""

    def __init__(self, xlsx: Path, png: Path) -> None:
        self._lock = threading.Lock()
        self.xlsx, self.png = xlsx, png
        self.seen: list[tuple[str, bool, bool]] = []

    def __enter__(self) -> OrderLock:
        self._lock.acquire()
        self.seen.append(("enter", self.xlsx.exists(), self.png.exists()))
        return self

    def __exit__(self, *exc: object) -> None:
        self.seen.append(("exit", self.xlsx.exists(), self.png.exists()))
        self._lock.release()


def test_the_digest_holds_the_chart_lock_only_to_draw(tmp_path: Path) -> None:
    from screening.digest.files import write_files
    from tests.test_push import big_digest

    d = big_digest(40)
    stem = f"digest-{d.date.isoformat()}-{d.scope}"
    lock = OrderLock(tmp_path / f"{stem}.xlsx", tmp_path / f"{stem}.png")
    write_files(d, tmp_path, lock)
    # taken once, after the workbook was written, released once the PNG exists: nothing else waits on it
    assert lock.seen == [("enter", True, False), ("exit", True, True)]


def test_chart_legend_says_what_it_shows_and_names_do_not_overlap(tmp_path: Path) -> None:
    """Issue 25.7: in-range points have no edge (a per-point edge list drew every dot black-edged), the
    clipped-points entry appears only when some are clipped, and the 高 stocks are named first, never overlapping."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from screening.output.chart import MAX_LABELS, _plane, draw_chart

    rows = [ok_row(i, f"60{i:04d}.SH", f"低{i}", 10 + i % 30, 16 + i % 20) for i in range(60)]
    rows += [ok_row(100 + i, f"00{i:04d}.SZ", f"高{i}", 20 + i, 1 + i % 3, 0, "高") for i in range(4)]
    fig, ax = plt.subplots(figsize=(7.5, 7.5))
    _plane(ax, rows)
    assert all(max(c.get_linewidths(), default=0) == 0 for c in ax.collections)  # no black edges in range
    assert not any("超出" in t.get_text() for t in ax.get_legend().get_texts())
    names = [t for t in ax.texts if t.get_text().startswith(("低", "高"))]
    assert 0 < len(names) <= MAX_LABELS
    assert {f"高{i}" for i in range(4)} <= {t.get_text() for t in names}  # the ones to look at, first
    fig.canvas.draw()
    boxes = [t.get_window_extent() for t in names]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    plt.close(fig)
    fig, ax = plt.subplots()
    _plane(ax, [*rows[:3], ok_row(9, "000002.SZ", "远处", 900.0, -300.0, 0, "高")])
    assert any("超出坐标范围" in t.get_text() for t in ax.get_legend().get_texts())
    ringed = [c for c in ax.collections if len(c.get_offsets()) and max(c.get_linewidths(), default=0) > 0]
    assert len(ringed) == 1 and len(ringed[0].get_offsets()) == 1  # only the clipped point has the ring
    plt.close(fig)
    out = draw_chart(rows, tmp_path / "phone.png", title="自选股.xlsx · 64 只 · 补充数据: 数据来源 akshare 1.19.5")
    from PIL import Image

    with Image.open(out) as im:
        assert im.height > im.width  # portrait: a phone shows it at full width
