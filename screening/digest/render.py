"""The digest as text: Markdown (WeCom, DingTalk), Telegram HTML, plain lines (Feishu post), and JSON.

One ``_sections`` function lays the digest out as lines; each renderer passes its own escaper
and markup, so every channel says the same things. Every dynamic string goes through the
channel's escaper (screening/output/text.py): in Markdown the characters that would start markup,
a tag or a mention (``*ST``, ``<at id=all>`` in a name) become full-width, in HTML they are
entities, so data can never format a message or mention anyone.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable
from typing import Any

from screening.config import DigestSettings
from screening.data.freshness import FLAG_STALE
from screening.data.universe import FLAG_LATE_REPORT
from screening.digest.model import Digest, RiskChange
from screening.figures import figure
from screening.models import DOUBT_NOTES, FLAG_DATA_DOUBT, ResultRow
from screening.output.report import rank_value
from screening.output.text import RISK_BADGE, esc_html, esc_md, plain, split_with_parts, utf8_len, utf16_len

TELEGRAM_LIMIT = 4096  # UTF-16 code units

# The row flags a digest line shows, in short: whether the figures behind a listed verdict are doubtful, stale
# or late. A chat reader sees only these lines; the full flag text is in the JSON and the XLSX. The first
# prefix a flag starts with names it; flags of other kinds (ST, 公告风险 ...) are the verdict's own business.
ROW_FLAG_SHORT: tuple[tuple[str, str], ...] = (
    (f"{FLAG_STALE}: 行情", f"{FLAG_STALE}(行情)"), (f"{FLAG_STALE}: 财报", f"{FLAG_STALE}(财报)"),
    (FLAG_STALE, FLAG_STALE), (FLAG_LATE_REPORT, FLAG_LATE_REPORT), *((n, n) for n in DOUBT_NOTES),
)
# The count line under the risk distribution: how many rows carry each kind (short flags by their head).
FLAG_COUNTS: tuple[str, ...] = (FLAG_DATA_DOUBT, FLAG_STALE, FLAG_LATE_REPORT)


def short_flags(r: ResultRow) -> list[str]:
    """The row's doubt/stale/late flags in short form, each once, in the row's order."""
    out: list[str] = []
    for flag in r.flags:
        short = next((s for prefix, s in ROW_FLAG_SHORT if flag.startswith(prefix)), None)
        if short is not None and short not in out:
            out.append(short)
    return out


def flag_counts(rows: list[ResultRow]) -> dict[str, int]:
    """Rows per kind of data flag; every doubt note (百分比存疑, 名称与代码不符 ...) counts as 数据存疑."""
    kinds = [{FLAG_DATA_DOUBT if s.startswith(DOUBT_NOTES) else s.split("(")[0] for s in short_flags(r)}
             for r in rows]
    return {k: n for k in FLAG_COUNTS if (n := sum(k in ks for ks in kinds))}


def _flag_text(r: ResultRow, esc: Callable[..., str]) -> str:
    shorts = short_flags(r)
    return f" · ⚠️ {esc('、'.join(shorts))}" if shorts else ""


def _row_text(r: ResultRow, esc: Callable[..., str], ranked: bool = False) -> str:
    score = "—" if r.score is None else str(r.score)
    value = rank_value(r)
    if ranked and value is not None:  # the clamped score saturates at 100: the rank value is what orders the list
        score += f" (排序值 {figure(value)})"
    text = f"{esc(r.code)} {esc(r.name or '', 24)} · {esc(r.risk_level)} · {score}"
    text += _flag_text(r, esc)  # before the reason, which may be cut
    if r.reason:
        text += f" — {esc(r.reason, 60)}"
    return text


def _change_text(c: RiskChange, esc: Callable[..., str]) -> str:
    arrow = "⬆️" if c.worse else "⬇️"
    score = f" ({'—' if c.old_score is None else c.old_score}→{'—' if c.new_score is None else c.new_score})"
    return f"{arrow} {esc(c.code)} {esc(c.name or '', 24)} {esc(c.old_risk)}→{esc(c.new_risk)}{score}"


def _text_risk_lines(d: Digest, ds: DigestSettings, esc: Callable[..., str], bold: Callable[[str], str],
                     item: str) -> list[str]:
    """The 公告风险 section: new signals, newest first, then how many stocks the text raised in all."""
    since = f"自 {d.previous_date} 以来新增" if d.previous_date else "本期"
    if not d.text_risks:
        return [f"{bold('公告风险')}: {since}无; 文本上调共 {d.text_raised} 只", ""]
    lines = [f"{bold(f'公告风险 {len(d.text_risks)} 条')} ({since}, 新→旧)"]
    for t in d.text_risks[:ds.max_change_lines]:
        badge = RISK_BADGE.get(t.tier, "")
        when = f"{esc(t.date)} " if t.date else ""
        lines.append(f"{item}{badge} {esc(t.code)} {esc(t.name or '', 24)} · {esc(t.signal)}({esc(t.tier)})"
                     f" · {when}{esc(t.text, 60)}")
    if len(d.text_risks) > ds.max_change_lines:
        lines.append(f"…另有 {len(d.text_risks) - ds.max_change_lines} 条{_see(d, '「文本信号」列')}")
    lines += [f"文本上调共 {d.text_raised} 只", ""]
    return lines


NO_DATA = ("没有可筛选的数据: 本地数据为空。先运行 `python -m screening universe refresh` (或 /data 查看状态), "
           "或上传带数据的股票池文件")


# ``digest --no-files`` (and ``[digest] send_files = false``) writes no XLSX: the text must not send the reader
# to one (a trial, 2026-12-07)
NO_FILES = "本期未生成 XLSX 文件"


def _see(d: Digest, where: str = "") -> str:
    """Where the rest of a cut list is: the XLSX when one was written, else a word that none was."""
    return f", 见 XLSX{where}" if d.xlsx_path else "; 本期未生成 XLSX"


def _sections(d: Digest, ds: DigestSettings, esc: Callable[..., str], head: Callable[[str], str],
              bold: Callable[[str], str], item: str) -> list[str]:
    """The digest as lines; ``head``/``bold`` wrap fixed text, ``esc`` escapes dynamic text."""
    if d.empty:  # never "全市场 0 只 ... 完整结果见 XLSX": say there is no data and how to get it
        return [head(esc(d.title)), NO_DATA, *(f"⚠️ {esc(w)}" for w in d.warnings)]
    c = d.counts
    as_of = f"数据截至 {esc(d.data_as_of)}" if d.data_as_of else "数据时间未知"
    if d.data_as_of_oldest and d.data_as_of_oldest != d.data_as_of:
        as_of += f" (最早 {esc(d.data_as_of_oldest)})"
    lines = [head(esc(d.title)),
             f"{as_of} · {esc(d.source, 60)} · 生成于 {d.generated_at.strftime('%H:%M')}",
             f"{bold('风险分布')}: 🔴 高 {c['高']} · 🟡 中 {c['中']} · 🟢 低 {c['低']} · ⚠️ 失败 {c['failed']}"
             f" (共 {c['total']})"]
    if counts := flag_counts(d.rows):
        lines.append(f"{bold('数据提示')}: " + " · ".join(f"{k} {n} 只" for k, n in counts.items())
                     + f" (各行 ⚠️ 标出{', 详见 XLSX' if d.xlsx_path else ''})")
    lines.append("")
    lines += _text_risk_lines(d, ds, esc, bold, item)
    if d.top:
        lines.append(bold(f"评分前 {len(d.top)} (低风险, 按排序值)"))
        lines += [f"{i}. {RISK_BADGE.get(r.risk_level or '', '')} {_row_text(r, esc, ranked=True)}"
                  for i, r in enumerate(d.top, 1)]
        lines.append("")
    else:
        lines += [f"{bold('评分前')}: 无 (没有低风险股票)", ""]
    if d.previous_date is None:
        lines.append(f"{bold('风险变化')}: 无上一期摘要可对比 (首次)")
    elif not d.changes:
        lines.append(f"{bold('风险变化')} (对比 {d.previous_date}): 无")
    else:
        lines.append(f"{bold(f'风险变化 {len(d.changes)} 只')} (对比 {d.previous_date})")
        lines += [f"{item}{_change_text(ch, esc)}" for ch in d.changes[:ds.max_change_lines]]
        if len(d.changes) > ds.max_change_lines:
            lines.append(f"…另有 {len(d.changes) - ds.max_change_lines} 只{_see(d, '「变化」表')}")
    if d.new_st:
        lines += ["", bold(f"新增 ST {len(d.new_st)} 只")]
        lines += [f"{item}{esc(r.code)} {esc(r.name or '', 24)}{_flag_text(r, esc)}"
                  for r in d.new_st[:ds.max_st_lines]]
        if len(d.new_st) > ds.max_st_lines:
            lines.append(f"…另有 {len(d.new_st) - ds.max_st_lines} 只{_see(d)}")
    if d.failed:
        lines += ["", bold(f"失败 {len(d.failed)} 只")]
        lines += [f"{item}{esc(r.code, 24)} {esc(r.name or '', 24)}: {esc(r.error, 80)}"
                  for r in d.failed[:ds.max_failed_lines]]
        if len(d.failed) > ds.max_failed_lines:
            lines.append(f"…另有 {len(d.failed) - ds.max_failed_lines} 只失败{_see(d)}")
    lines.append("")
    lines.append(f"{'完整结果见 XLSX' if d.xlsx_path else NO_FILES}。仅为规则筛选结果, 不构成投资建议。")
    if d.scope != "universe":  # a pool's digest describes the pool, then where its figures came from
        lines.append(f"股票池: {esc(d.source, 60)} · 共 {c['total']} 只; 补充数据: {esc(d.data_label)}")
    elif d.data_label:
        lines.append(esc(d.data_label))
    if d.calendar_basis:
        lines.append(esc(d.calendar_basis))
    lines += [f"⚠️ {esc(w)}" for w in d.warnings]
    return lines


def markdown_lines(d: Digest, ds: DigestSettings | None = None) -> list[str]:
    ds = ds or DigestSettings()
    return _sections(d, ds, esc_md, lambda t: f"## {t}", lambda t: f"**{t}**", "- ")


def render_markdown(d: Digest, ds: DigestSettings | None = None) -> str:
    return "\n".join(markdown_lines(d, ds))


def render_markdown_parts(d: Digest, limit_bytes: int, ds: DigestSettings | None = None,
                          hard_breaks: bool = False) -> list[str]:
    """Markdown messages, each at most ``limit_bytes`` UTF-8 bytes (WeCom: 4,096).

    ``hard_breaks`` ends every line with two spaces (DingTalk joins single newlines otherwise).
    """
    lines = markdown_lines(d, ds)
    if hard_breaks:
        lines = [f"{line}  " if line else line for line in lines]
    return split_with_parts(lines, limit_bytes, utf8_len, sep="  \n" if hard_breaks else "\n")


def telegram_lines(d: Digest, ds: DigestSettings | None = None) -> list[str]:
    ds = ds or DigestSettings()
    return _sections(d, ds, esc_html, lambda t: f"<b>{t}</b>", lambda t: f"<b>{html.escape(t)}</b>", "• ")


def render_telegram(d: Digest, ds: DigestSettings | None = None, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """Telegram HTML messages, each at most ``limit`` UTF-16 units, split on line boundaries."""
    return split_with_parts(telegram_lines(d, ds), limit, utf16_len)


def plain_lines(d: Digest, ds: DigestSettings | None = None) -> list[str]:
    ds = ds or DigestSettings()
    return _sections(d, ds, plain, lambda t: t, lambda t: t, "· ")


def render_json(d: Digest) -> dict[str, Any]:
    def row(r: ResultRow) -> dict[str, Any]:
        return {"code": r.code, "name": r.name, "risk_level": r.risk_level, "score": r.score,
                "rank_value": rank_value(r), "reason": r.reason, "error": r.error, "flags": list(r.flags)}

    return {
        "date": d.date.isoformat(), "generated_at": d.generated_at.isoformat(), "source": d.source,
        "scope": d.scope, "data_as_of": d.data_as_of, "data_as_of_oldest": d.data_as_of_oldest,
        "counts": d.counts, "top": [row(r) for r in d.top],
        "previous_date": d.previous_date.isoformat() if d.previous_date else None,
        "risk_changes": [{"code": c.code, "name": c.name, "old_risk": c.old_risk, "new_risk": c.new_risk,
                          "old_score": c.old_score, "new_score": c.new_score} for c in d.changes],
        "new_st": [row(r) for r in d.new_st], "failed": [row(r) for r in d.failed],
        "text_risks": [dataclasses.asdict(t) for t in d.text_risks], "text_raised": d.text_raised,
        "warnings": list(d.warnings), "engine": d.engine, "seconds": round(d.seconds, 2),
        "job_id": d.job_id, "data": d.data_label, "demo": d.demo, "calendar_basis": d.calendar_basis,
        "xlsx": str(d.xlsx_path) if d.xlsx_path else None,
        "chart": str(d.chart_path) if d.chart_path else None,
    }
