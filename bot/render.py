"""Everything the bot says, as Telegram HTML: escaped, line-based, split before 4,096 characters.

Rules this module keeps so no message ever fails with "can't parse entities":

* every dynamic string (names, codes, reasons, errors, file names) goes through ``esc``,
  after it has been cut to a display length, so an entity is never cut in half;
* every line is a complete HTML fragment (tags open and close on the same line), so a
  message can be split between any two lines;
* ``split_messages`` measures length the way Telegram does (UTF-16 code units) and never
  produces a message above ``MAX_MESSAGE``.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterable, Sequence

from screening.models import Pool, ResultRow
from screening.output.report import summary, top_picks
from screening.output.text import RISK_BADGE, split_lines, utf16_len
from screening.output.text import esc_html as esc

MAX_MESSAGE = 4096
LIST_ALL_UP_TO = 30  # a summary lists every stock up to this many; beyond, top picks + XLSX
TOP_N = 10
MAX_FAILED_LINES = 100  # failed rows shown in the summary; all of them are in the XLSX and the list button
MAX_LIST_LINES = 600  # rows in one list (high risk / failed) before pointing at the XLSX

_TAG = re.compile(r"<[^>]*>")


def _plain_cut(line: str, limit: int) -> str:
    """A line too long for one message becomes plain text, cut to fit (tags dropped, re-escaped)."""
    plain = html.unescape(_TAG.sub("", line))
    out = esc(plain)
    while utf16_len(out) > limit:
        plain = plain[: max(1, int(len(plain) * 0.9)) - 1]
        out = esc(plain + "…")
    return out


def split_messages(lines: Iterable[str], limit: int = MAX_MESSAGE) -> list[str]:
    """Join lines into as few messages as possible, each at most ``limit`` UTF-16 units.

    Splits only between lines; a single line longer than the limit is cut as plain text.
    Leading/trailing blank lines of a chunk are dropped (Telegram rejects empty messages).
    """
    return split_lines(lines, limit, utf16_len, cut=_plain_cut)


# ------------------------------------------------------------------------------- lines


def row_line(r: ResultRow) -> str:
    """One stock: badge, code, name, risk, score, reason, flags; or the failure and why."""
    name = f" {esc(r.name, 24)}" if r.name else ""
    if r.status != "ok":
        return f"⚠️ <code>{esc(r.code, 24)}</code>{name} — 失败: {esc(r.error, 160)}"
    badge = RISK_BADGE.get(r.risk_level or "", "▫️")
    score = "—" if r.score is None else str(r.score)
    line = f"{badge} <code>{esc(r.code)}</code>{name} · {esc(r.risk_level)} · <b>{esc(score)}</b>"
    if r.reason:
        line += f" — {esc(r.reason, 60)}"
    if r.flags:
        line += f" <i>[{esc('; '.join(r.flags), 80)}]</i>"
    return line


def counts_line(rows: Sequence[ResultRow]) -> str:
    s = summary(rows)
    return (f"共 <b>{s['total']}</b> 只: 🔴 高 {s['高']} / 🟡 中 {s['中']} / 🟢 低 {s['低']}"
            f" / ⚠️ 失败 {s['failed']}")


def summary_lines(rows: Sequence[ResultRow], *, job_id: str, source: str = "",
                  seconds: float | None = None) -> list[str]:
    """The result summary: counts by risk, then every stock (small jobs) or the top picks,
    then the failed rows with their reasons."""
    s = summary(rows)
    title = f"<b>筛选结果</b> · {esc(source, 60)}" if source else "<b>筛选结果</b>"
    lines = [title, f"任务 <code>{esc(job_id[:12])}</code>" + (f" · {seconds:.1f} s" if seconds else ""),
             counts_line(rows)]
    extra = []
    if s["model_raised"]:
        extra.append(f"模型上调 {s['model_raised']}")
    if s["score_fixed"]:
        extra.append(f"评分校正 {s['score_fixed']}")
    if s["data_doubt"]:
        extra.append(f"数据存疑 {s['data_doubt']}")
    if extra:
        lines.append(" / ".join(extra))
    ok_rows = [r for r in rows if r.status == "ok"]
    failed = [r for r in rows if r.status != "ok"]
    if len(rows) <= LIST_ALL_UP_TO:
        if ok_rows:
            lines.append("")
            lines.extend(row_line(r) for r in ok_rows)
    else:
        picks = top_picks(rows, TOP_N)
        if picks:
            lines += ["", f"<b>首选 Top {len(picks)}</b>"]
            lines.extend(f"{i}. {row_line(r)}" for i, r in enumerate(picks, 1))
        lines.append("完整结果见 XLSX 文件。")
    if failed:
        lines += ["", f"<b>失败 {len(failed)} 只</b>"]
        lines.extend(row_line(r) for r in failed[:MAX_FAILED_LINES])
        if len(failed) > MAX_FAILED_LINES:
            lines.append(f"…另有 {len(failed) - MAX_FAILED_LINES} 只失败, 见 XLSX 或「失败明细」按钮。")
    return lines


def list_lines(rows: Sequence[ResultRow], title: str, empty: str) -> list[str]:
    """A full list (the high-risk or failed-rows button), capped with a pointer to the XLSX."""
    if not rows:
        return [esc(empty)]
    lines = [f"<b>{esc(title)}</b> ({len(rows)})"]
    lines.extend(row_line(r) for r in rows[:MAX_LIST_LINES])
    if len(rows) > MAX_LIST_LINES:
        lines.append(f"…另有 {len(rows) - MAX_LIST_LINES} 只, 见 XLSX。")
    return lines


def high_risk(rows: Sequence[ResultRow]) -> list[ResultRow]:
    return sorted((r for r in rows if r.status == "ok" and r.risk_level == "高"),
                  key=lambda r: (r.score if r.score is not None else 0, r.code))


def failed_rows(rows: Sequence[ResultRow]) -> list[ResultRow]:
    return [r for r in rows if r.status != "ok"]


def understood_lines(pool: Pool, job_id: str | None, mapped_note: bool = True) -> list[str]:
    """What the bot understood from a file or a code list: N stocks, M rejected with reasons."""
    ok, bad = pool.ok_items, pool.failed_items
    lines = [f"📄 <b>{esc(pool.source, 60)}</b>: {len(ok)} 只可筛选, {len(bad)} 行被拒"]
    if mapped_note and pool.mapped:
        cols = ", ".join(f"{k}→{v}" for k, v in pool.mapped.items())
        lines.append(f"识别的列: {esc(cols, 300)}")
    for w in pool.warnings[:10]:
        lines.append(f"• 注意: {esc(str(w), 200)}")
    for item in bad[:20]:
        where = f"第 {item.row} 行 " if item.row is not None else ""
        lines.append(f"✗ {where}<code>{esc(item.raw_code, 24)}</code>: "
                     f"{esc(item.error.message if item.error else '无法使用', 160)}")
    if len(bad) > 20:
        lines.append(f"…另有 {len(bad) - 20} 行被拒, 结果 XLSX 里逐行列出。")
    if job_id:
        lines.append(f"任务 <code>{esc(job_id[:12])}</code> 已排队。")
    return lines


def codes_ack_lines(pool: Pool, job_id: str) -> list[str]:
    ok, bad = pool.ok_items, pool.failed_items
    lines = [f"已收到 {len(pool.items)} 个代码: {len(ok)} 只可筛选"
             + (f", {len(bad)} 个无法识别" if bad else "")]
    for item in bad[:30]:
        lines.append(f"✗ <code>{esc(item.raw_code, 24)}</code>: "
                     f"{esc(item.error.message if item.error else '无法使用', 160)}")
    lines.append(f"任务 <code>{esc(job_id[:12])}</code> 已排队。")
    return lines


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "估算中"
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    return f"{seconds // 60} min {seconds % 60:02d} s"


def progress_text(st, source: str = "") -> str:
    """The one progress message: state, queue position, done/total, ETA (a JobStatus in)."""
    head = f"⏳ <b>筛选中</b> · {esc(source, 60)}" if source else "⏳ <b>筛选中</b>"
    job = f"任务 <code>{esc(st.job_id[:12])}</code>"
    if st.state == "queued":
        pos = "" if st.position is None else f", 前面还有 {st.position} 个任务"
        body = f"排队中{pos} · {st.done}/{st.total}"
    elif st.state == "running":
        pct = 100 * st.done // max(1, st.total)
        body = f"{_bar(pct)} {st.done}/{st.total} ({pct}%) · 预计剩余 {_eta(st.eta_s)}"
        if st.failed:
            body += f" · 失败 {st.failed}"
    elif st.state == "cancelled":
        head = f"✖️ <b>已取消</b> · {esc(source, 60)}" if source else "✖️ <b>已取消</b>"
        body = f"{st.done}/{st.total} 已处理 (未完成的记为失败: cancelled)"
    else:
        took = ""
        if st.finished_at and st.created_at:
            took = f" · 用时 {st.finished_at - st.created_at:.1f} s"
        head = f"✅ <b>完成</b> · {esc(source, 60)}" if source else "✅ <b>完成</b>"
        body = f"{st.done}/{st.total}, 失败 {st.failed}{took}"
    return "\n".join([head, job, body])


def _bar(pct: int, width: int = 10) -> str:
    full = min(width, pct * width // 100)
    return "▓" * full + "░" * (width - full)


def status_lines(statuses: Sequence) -> list[str]:
    if not statuses:
        return ["没有进行中的任务。"]
    out = ["<b>你的任务</b>"]
    for st in statuses:
        age = time.time() - st.created_at if st.created_at else 0
        out.append(f"• <code>{esc(st.job_id[:12])}</code> {esc(st.state)} {st.done}/{st.total}"
                   f" · {esc(st.source, 40)} · {int(age)} s 前")
    return out
