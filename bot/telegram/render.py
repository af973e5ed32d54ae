"""The core's replies as Telegram HTML: escaped, line-based, split before 4,096 characters.

Rules this module keeps so no message ever fails with "can't parse entities":

* every dynamic string is a run of the core's lines, escaped here after it was cut to its
  display length, so an entity is never cut in half;
* every line is a complete HTML fragment (tags open and close on the same line), so a
  message can be split between any two lines;
* ``split_messages`` measures length the way Telegram does (UTF-16 code units) and never
  produces a message above ``MAX_MESSAGE``, its numbered part label included.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from bot.core import replies
from bot.core.text import to_html
from screening.models import Pool, ResultRow
from screening.output.text import esc_html as esc
from screening.output.text import split_with_parts, utf16_len
from screening.queue.status import JobStatus

MAX_MESSAGE = 4096
_TAG = re.compile(r"<[^>]*>")
high_risk = replies.high_risk
failed_rows = replies.failed_rows
__all__ = ["MAX_MESSAGE", "esc", "failed_rows", "high_risk"]


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
    Leading/trailing blank lines of a chunk are dropped (Telegram rejects empty messages). The messages after
    the first are numbered like every front's (``part_label``: "（续 2/3）").
    """
    return split_with_parts(list(lines), limit, utf16_len, cut=_plain_cut)


def row_line(r: ResultRow) -> str:
    return to_html(replies.row_line(r))


def counts_line(rows: Sequence[ResultRow]) -> str:
    return to_html(replies.counts_line(rows))


def summary_lines(rows: Sequence[ResultRow], *, job_id: str, source: str = "", seconds: float | None = None,
                  data: str = "") -> list[str]:
    return [to_html(x) for x in replies.summary_lines(rows, job_id=job_id, source=source, seconds=seconds,
                                                      data=data)]


def list_lines(rows: Sequence[ResultRow], title: str, empty: str) -> list[str]:
    return [to_html(x) for x in replies.list_lines(rows, title, empty)]


def understood_lines(pool: Pool, job_id: str | None, mapped_note: bool = True) -> list[str]:
    return [to_html(x) for x in replies.understood_lines(pool, job_id, mapped_note)]


def codes_ack_lines(pool: Pool, job_id: str) -> list[str]:
    return [to_html(x) for x in replies.codes_ack_lines(pool, job_id)]


def progress_text(st: JobStatus, source: str = "") -> str:
    return "\n".join(to_html(x) for x in replies.progress_lines(st, source))


def status_lines(statuses: Sequence[JobStatus]) -> list[str]:
    return [to_html(x) for x in replies.status_lines(statuses)]
