"""Everything the bot says, for every front: result summaries, lists, acknowledgements, progress, help.

Replies are neutral lines (bot/core/text.py); Telegram renders them as HTML, the enterprise-IM
fronts as Markdown. Wording is one place, so a user of any front reads the same bot.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from bot.core.text import Line, b, code, i, line, t
from screening.models import FIELD_LABELS, Pool, PoolItem, ResultRow
from screening.output.report import demo_title, signal_text, summary, top_picks
from screening.output.text import RISK_BADGE, flags_brief, sources_brief
from screening.queue.status import JobStatus

LIST_ALL_UP_TO = 30  # a summary lists every stock up to this many; beyond, top picks + XLSX
TOP_N = 10
MAX_FAILED_LINES = 100  # failed rows shown in the summary; all of them are in the XLSX and the list button
MAX_ACK_FAILED = 30  # failed tokens the /screen acknowledgement lists before saying how many more
MAX_LIST_LINES = 600  # rows in one list (high risk / failed) before pointing at the XLSX

HELP = [
    line(b("A股选股机器人")),
    line("规则: ST、ROE<5 或连续两年亏损为 🔴 高风险; ROE 5–15、PE>50 或 PE≤0 为 🟡 中; 其余 🟢 低。"
         "公告或报告明示的风险 (立案调查、退市风险警示等) 至少提升到其等级, 并注明公告标题和日期。"),
    line(),
    line(b("用法")),
    line("/screen 600519.SH 300750 — 代码 (600519、sh600519、600519.SS 均可) 或股票名称"),
    line("/screen 贵州茅台 宁德时代 — 按名称 (本地股票库)"),
    line("发送 CSV 或 XLSX 文件 (同花顺 / 东方财富 / 通达信导出, GBK 或 UTF-8, 中文表头) — 整个股票池"),
    line("/status — 你的任务; /status 任务号 — 单个任务进度"),
    line("/cancel — 取消你唯一的运行中任务; /cancel 任务号"),
    line("/high [任务号] — 高风险列表; /failed [任务号] — 失败明细 (默认你最近的任务)"),
    line("/subscribe [HH:MM|默认] — 订阅盘前摘要; /unsubscribe; /watch 代码… — 摘要的自选股票池; /digest — 现在就发"),
    line("/data — 数据来源、行情和财报日期、股票数"),
    line("/calendar [年份] — 交易日历: 休市日和调休待定日"),
    line("/whoami — 显示 chat id / user id (用于加入允许名单)"),
    line(),
    line("结果: 摘要消息 (风险分布、首选、失败行)、完整 XLSX 文件、图表 PNG; 按钮可查看高风险列表、失败明细、刷新。"),
    line("每只股票都会有一行结果: 成功, 或失败并写明原因。"),
]


def row_line(r: ResultRow) -> Line:
    """One stock: badge, code, name, risk, score, reason, flags, sources; or the failure and why."""
    name = (" ", t(r.name, 24)) if r.name else ()
    if r.status != "ok":
        return line("⚠️ ", code(r.code, 24), *name, " — 失败: ", t(r.error, 160))
    badge = RISK_BADGE.get(r.risk_level or "", "▫️")
    score = "—" if r.score is None else str(r.score)
    parts: list[object] = [f"{badge} ", code(r.code), *name, " · ", t(r.risk_level), " · ", b(score)]
    if r.reason:
        parts += [" — ", t(r.reason, 60)]
    if r.signals:  # the risk the text states, with its title and date: the one flag that must never be cut off
        more = f" (另 {len(r.signals) - 2} 条, 见 XLSX)" if len(r.signals) > 2 else ""
        parts += [" 📢 ", t("; ".join(signal_text(s) for s in r.signals[:2]), 120), more]
    if r.flags:  # every flag's kind stays on the line; its detail where there is room
        parts += [" ", i(f"[{flags_brief(r.flags, 80)}]")]
    if r.sources:
        parts += [" ", i(f"({t(sources_brief(r.sources), 120).text})")]
    return line(*parts)  # type: ignore[arg-type]


def counts_line(rows: Sequence[ResultRow]) -> Line:
    s = summary(rows)
    return line("共 ", b(s["total"]), f" 只: 🔴 高 {s['高']} / 🟡 中 {s['中']} / 🟢 低 {s['低']}"
                f" / ⚠️ 失败 {s['failed']}")


def summary_lines(rows: Sequence[ResultRow], *, job_id: str, source: str = "", seconds: float | None = None,
                  data: str = "") -> list[Line]:
    """The result summary: counts by risk, where the data came from, then every stock (small jobs) or the
    top picks, then the failed rows with their reasons."""
    s = summary(rows)
    out = [line(b("筛选结果"), " · ", t(source, 60)) if source else line(b("筛选结果")),
           line("任务 ", code(job_id[:12]), f" · {seconds:.1f} s" if seconds else ""), counts_line(rows)]
    data = demo_title(rows, data)  # a demo pool (an example, the synthetic market's file) on a real universe too
    if data:  # where the figures came from and as of when; 演示数据 in demo mode
        out.append(line("📊 ", t(data, 200)))
    extra = [f"{label} {s[key]}" for key, label in (("text_raised", "公告/报告上调"), ("model_raised", "模型上调"),
                                                   ("score_fixed", "评分校正"), ("data_doubt", "数据存疑")) if s[key]]
    if extra:
        out.append(line(" / ".join(extra)))
    ok_rows = [r for r in rows if r.status == "ok"]
    failed = [r for r in rows if r.status != "ok"]
    if len(rows) <= LIST_ALL_UP_TO:
        if ok_rows:
            out.append(line())
            out += [row_line(r) for r in ok_rows]
    else:
        picks = top_picks(rows, TOP_N)
        if picks:
            out += [line(), line(b(f"首选 Top {len(picks)}"))]
            out += [line(f"{n}. ", *row_line(r)) for n, r in enumerate(picks, 1)]
        out.append(line("完整结果见 XLSX 文件。"))
    if failed:
        out += [line(), line(b(f"失败 {len(failed)} 只"))]
        out += [row_line(r) for r in failed[:MAX_FAILED_LINES]]
        if len(failed) > MAX_FAILED_LINES:
            out.append(line(f"…另有 {len(failed) - MAX_FAILED_LINES} 只失败, 见 XLSX 或「失败明细」按钮。"))
    return out


def list_lines(rows: Sequence[ResultRow], title: str, empty: str) -> list[Line]:
    """A full list (the high-risk or failed-rows button), capped with a pointer to the XLSX."""
    if not rows:
        return [line(empty)]
    out = [line(b(title), f" ({len(rows)})")]
    out += [row_line(r) for r in rows[:MAX_LIST_LINES]]
    if len(rows) > MAX_LIST_LINES:
        out.append(line(f"…另有 {len(rows) - MAX_LIST_LINES} 只, 见 XLSX。"))
    return out


def high_risk(rows: Sequence[ResultRow]) -> list[ResultRow]:
    return sorted((r for r in rows if r.status == "ok" and r.risk_level == "高"),
                  key=lambda r: (r.score if r.score is not None else 0, r.code))


def failed_rows(rows: Sequence[ResultRow]) -> list[ResultRow]:
    return [r for r in rows if r.status != "ok"]


def understood_lines(pool: Pool, job_id: str | None, mapped_note: bool = True) -> list[Line]:
    """What the bot understood from a file: N stocks, M rejected with reasons, the warnings."""
    ok, bad = pool.ok_items, pool.failed_items
    out = [line("📄 ", b(pool.source, 60), f": {len(ok)} 只可筛选, {len(bad)} 行被拒")]
    if mapped_note and pool.mapped:
        # the field as every other view names it (FIELD_LABELS): the internal name read "pe＿ttm" in Markdown
        out.append(line("识别的列: ", t(", ".join(f"{k}→{FIELD_LABELS.get(v, v)}" for k, v in pool.mapped.items()),
                                         300)))
    out += [line("• 注意: ", t(str(w), 200)) for w in pool.warnings[:10]]
    for item in bad[:20]:
        where = f"第 {item.row} 行 " if item.row is not None else ""
        out.append(line(f"✗ {where}", code(item.raw_code, 24), ": ", t(problem_text(item), 200)))
    if len(bad) > 20:
        out.append(line(f"…另有 {len(bad) - 20} 行被拒, 结果 XLSX 里逐行列出。"))
    if job_id:
        out.append(line("任务 ", code(job_id[:12]), " 已排队。"))
    return out


def problem_text(item: PoolItem) -> str:
    """A rejected row's problem as chat shows it: the message, and the cell's value where the message does not
    already quote it. "市盈率(TTM) 列的值不是数字" named the row and the column but not what was in the cell, so the
    user had to find it in the file (a trial, S22 jb); the code's own value is already on the line."""
    err = item.error
    if err is None:
        return "无法使用"
    value = (err.value or "").strip()
    if value and value != str(item.raw_code or "").strip() and value not in err.message:
        return f"{err.message} (值 {value[:40]!r})"
    return err.message


def codes_ack_lines(pool: Pool, job_id: str, unread: str = "") -> list[Line]:
    """/screen's acknowledgement; ``unread`` names what of a pasted table was not read as a code (its header, the
    price cells), so the user sees why those are neither screened nor failed rows."""
    ok, bad = pool.ok_items, pool.failed_items
    # "cannot be screened", not "unrecognised": a valid code no data covers is also here, its line says why
    out = [line(f"已收到 {len(pool.items)} 个代码: {len(ok)} 只可筛选" + (f", {len(bad)} 个无法筛选" if bad else ""))]
    out += [line("ℹ️ ", t(unread, 300))] if unread else []
    out += [line("✗ ", code(item.raw_code, 24), ": ", t(problem_text(item), 200)) for item in bad[:MAX_ACK_FAILED]]
    if len(bad) > MAX_ACK_FAILED:  # cut with no word, the list read as all there was (a trial, 2026-12-07)
        out.append(line(f"…另有 {len(bad) - MAX_ACK_FAILED} 个无法筛选, 结果和 /failed 里逐个列出。"))
    out.append(line("任务 ", code(job_id[:12]), " 已排队。"))
    return out


# how a code is written, said when a /screen token was neither a code nor a stock's name
HOW_TO_WRITE_A_CODE = "代码写作 600519 或 600519.SH (sh600519 亦可), 也可写股票名称, 如 贵州茅台。"


def nothing_to_screen_lines(pool: Pool, unread: str = "") -> list[Line]:
    """/screen where no token can be screened: what is wrong with each, and no job.

    ``/screen abc`` used to queue a job whose only row was a failed one, and the user waited through a progress
    message, a summary and an XLSX that said nothing the acknowledgement had not (a trial, S22 jg). How to write a
    code is added only when a token was no code at all: a valid code no data covers has its own advice."""
    bad = pool.failed_items
    out = [line("ℹ️ ", t(unread, 300))] if unread else []
    out += [line("✗ ", code(item.raw_code, 24), ": ", t(problem_text(item), 200)) for item in bad[:MAX_ACK_FAILED]]
    if len(bad) > MAX_ACK_FAILED:
        out.append(line(f"…另有 {len(bad) - MAX_ACK_FAILED} 个无法筛选。"))
    hint = HOW_TO_WRITE_A_CODE if any(item.code is None for item in bad) else ""
    out.append(line(f"没有可筛选的股票, 未排队任务。{hint}"))
    return out


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "估算中"
    seconds = max(0, round(seconds))
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


def _bar(pct: int, width: int = 10) -> str:
    full = min(width, pct * width // 100)
    return "▓" * full + "░" * (width - full)


def progress_lines(st: JobStatus, source: str = "") -> list[Line]:
    """The one progress message: state, queue position, done/total, ETA."""
    def head(mark: str, word: str) -> Line:
        return line(f"{mark} ", b(word), " · ", t(source, 60)) if source else line(f"{mark} ", b(word))

    if st.state == "queued":
        pos = "" if st.position is None else f", 前面还有 {st.position} 个任务"
        first, body = head("⏳", "筛选中"), f"排队中{pos} · {st.done}/{st.total}"
    elif st.state == "running":
        pct = 100 * st.done // max(1, st.total)
        body = f"{_bar(pct)} {st.done}/{st.total} ({pct}%) · 预计剩余 {_eta(st.eta_s)}"
        first, body = head("⏳", "筛选中"), body + (f" · 失败 {st.failed}" if st.failed else "")
    elif st.state == "cancelled":
        first, body = head("✖️", "已取消"), f"{st.done}/{st.total} 已处理 (未完成的记为失败: cancelled)"
    else:
        took = f" · 用时 {st.finished_at - st.created_at:.1f} s" if st.finished_at and st.created_at else ""
        first, body = head("✅", "完成"), f"{st.done}/{st.total}, 失败 {st.failed}{took}"
    return [first, line("任务 ", code(st.job_id[:12])), line(body)]


def status_lines(statuses: Sequence[JobStatus]) -> list[Line]:
    if not statuses:
        return [line("没有进行中的任务。")]
    out = [line(b("你的任务"))]
    for st in statuses:
        age = time.time() - st.created_at if st.created_at else 0
        out.append(line("• ", code(st.job_id[:12]), " ", t(st.state), f" {st.done}/{st.total} · ", t(st.source, 40),
                        f" · {int(age)} s 前"))
    return out


def refusal_lines(platform: str, chat_id: object, user_id: object) -> list[Line]:
    """What a stranger is told, once: the ids an admin needs to let them in, and where to put them."""
    return [line("抱歉, 这是一个私有的选股机器人, 你所在的会话不在允许名单中。"),
            line("Sorry, this screening bot is private and this chat is not on its allow-list."),
            line("如需使用, 请把 chat id ", code(chat_id), " (user id ", code(user_id), ") 发给管理员, "
                 f"加入 config.toml 的 {platform}.allowed_chats。")]
