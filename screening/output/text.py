"""Chat text: the one message splitter, the length measures of each vendor, and the escapers.

Every front and every digest push splits, numbers the parts of a split message (``part_label``) and
escapes here, so a limit, a part's mark or an escape rule is fixed in one place: Telegram counts
UTF-16 code units (4,096 per message), WeCom and DingTalk count UTF-8 bytes. Lines are the unit:
each rendered line is a complete fragment (an HTML tag opens and closes on the line), so a message
may be split between any two lines, and a single over-long line is cut (by a caller's ``cut`` when
markup must stay whole).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable

from screening.models import FIELD_LABELS

RISK_BADGE = {"高": "🔴", "中": "🟡", "低": "🟢"}

# Markdown (WeCom, DingTalk, Feishu lark_md): characters that start markup, a tag or a mention become
# their full-width forms, so data (``*ST``, ``<at id=all>`` in a name) never formats a message
_MD_MAP = str.maketrans({"*": "＊", "_": "＿", "`": "｀", "[": "［", "]": "］", "<": "＜", ">": "＞",
                         "#": "＃", "~": "～", "|": "｜", "\r": " ", "\n": " "})


def _shorten(value: object, limit: int | None) -> str:
    """One line of display text, cut to ``limit`` characters with an ellipsis (before any escaping)."""
    text = "" if value is None else str(value).replace("\r", " ").replace("\n", " ")
    if limit is not None and len(text) > limit:
        text = text[: max(1, limit - 1)] + "…"
    return text


def esc_html(value: object, limit: int | None = None) -> str:
    """A dynamic string for Telegram HTML: cut first, then escaped, so an entity is never cut in half."""
    return html.escape(_shorten(value, limit), quote=True)


def esc_md(value: object, limit: int | None = None) -> str:
    """A dynamic string made inert for WeCom/DingTalk/Feishu Markdown (full-width markup characters)."""
    return _shorten(value, limit).translate(_MD_MAP)


def plain(value: object, limit: int | None = None) -> str:
    """A dynamic string for plain-text channels (Feishu post text tags are literal): one line, cut."""
    return _shorten(value, limit)


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, which is how Telegram counts message length."""
    return len(text.encode("utf-16-le")) // 2


def _cut(text: str, limit: int, measure: Callable[[str], int]) -> str:
    while measure(text) > limit:
        text = text[: max(1, int(len(text) * 0.9)) - 1] + "…"
    return text


def split_lines(lines: Iterable[str], limit: int, measure: Callable[[str], int] = utf8_len,
                cut: Callable[[str, int], str] | None = None) -> list[str]:
    """Join lines into as few chunks as possible, each ``measure`` <= limit; splits only between lines
    (a single over-long line is cut, by ``cut`` when given: HTML needs a cut that keeps tags whole).
    Blank lines at a chunk's edges are dropped (Telegram rejects empty messages)."""
    chunks: list[str] = []
    cur: list[str] = []
    size = 0
    for line in lines:
        if measure(line) > limit:
            line = cut(line, limit) if cut else _cut(line, limit, measure)
        add = measure(line) + (measure("\n") if cur else 0)
        if cur and size + add > limit:
            chunks.append("\n".join(cur))
            cur, size, add = [], 0, measure(line)
        if not cur and not line.strip():
            continue
        cur.append(line)
        size += add
    if cur:
        chunks.append("\n".join(cur))
    return [c.strip("\n") for c in chunks if c.strip()]


def part_label(i: int, n: int) -> str:
    """How part ``i`` of ``n`` of a split message is marked, on its own first line, on every front and push.

    One function, so a reply split into 17 WeCom messages, a Feishu reply over 30 KB, a long Telegram or
    DingTalk reply and the digest all number their parts alike (a trial saw 17 unnumbered WeCom messages).
    The first part is not marked: it reads as the start, and the second part's mark gives the count."""
    return f"（续 {i}/{n}）"


_LABEL_ROOM = part_label(999, 999)  # the longest mark a part may get: room is kept for it in every part


def number_parts(chunks: list[str], sep: str = "\n") -> list[str]:
    """``chunks`` with every one after the first led by its ``part_label`` line (``sep`` ends that line:
    DingTalk joins single newlines, so its Markdown needs two spaces before the newline)."""
    return [c if i == 0 else f"{part_label(i + 1, len(chunks))}{sep}{c}" for i, c in enumerate(chunks)]


def split_with_parts(lines: list[str], limit: int, measure: Callable[[str], int] = utf8_len,
                     cut: Callable[[str, int], str] | None = None, sep: str = "\n") -> list[str]:
    """``split_lines`` plus a ``part_label`` line on every chunk after the first, still within ``limit``."""
    reserve = measure(_LABEL_ROOM + sep)
    chunks = split_lines(lines, limit - reserve, measure, cut)
    if len(chunks) <= 1:
        return split_lines(lines, limit, measure, cut)
    return number_parts(chunks, sep)


# chat's short forms: FIELD_LABELS with the long quote labels cut for a phone's line
SHORT_FIELD = {**FIELD_LABELS, "price": "价格", "pb": "PB", "market_cap": "市值", "pe_dynamic": "PE动"}
SHORT_FIELD.pop("code")  # a row's code is its title, never one of its sources


def sources_brief(sources: dict[str, str]) -> str:
    """Where a row's figures came from, grouped: ``akshare@2026-12-03 PE-TTM ROE; 文件 名称`` (short for chat)."""
    groups: dict[str, list[str]] = {}
    for name, label in sources.items():
        if name in SHORT_FIELD:
            where = label.removeprefix("universe:") if label.startswith("universe:") else (
                "文件" if label == "file" else "演示" if label == "demo" else label)
            groups.setdefault(where, []).append(SHORT_FIELD[name])
    return "; ".join(f"{where} {' '.join(names)}" for where, names in groups.items())


def flag_head(flag: str) -> str:
    """The kind a flag names (``数据过期: 行情 2026-09-01`` -> ``数据过期``): what a short line must keep."""
    for sep in (": ", "：", ":"):
        if sep in flag:
            return flag.split(sep, 1)[0]
    return flag


def flags_brief(flags: Iterable[str], limit: int = 80) -> str:
    """A row's flags in at most ``limit`` characters, every flag's kind kept.

    Cutting the joined text at ``limit`` could hide a later flag entirely (a long 名称与代码不符 pushed a
    数据存疑 out of a chat row), so each flag is first shown by its kind and then, in order, given its
    whole text while the line has room; the full texts are in the XLSX and the JSON.
    """
    full = list(dict.fromkeys(flags))
    if len("; ".join(full)) <= limit:
        return "; ".join(full)
    shown = list(dict.fromkeys(flag_head(f) for f in full))
    for f in full:
        head = flag_head(f)
        if head in shown and f not in shown:
            trial = [f if x == head else x for x in shown]
            if len("; ".join(trial)) <= limit:
                shown = trial
    return "; ".join(shown)


# a vendor whose limit is on the exact request body (DingTalk nests msgParam as a JSON string inside JSON,
# so escaping makes the body grow by an amount that depends on the text) checks ``fits`` on what is sent
def split_to_fit(text: str, fits: Callable[[str], bool]) -> list[str]:
    """Greedy by lines; a single line too long on its own is cut by characters."""
    if fits(text):
        return [text]
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        candidate = line if not current else f"{current}\n{line}"
        if fits(candidate):
            current = candidate
            continue
        if current:
            parts.append(current)
        current = ""
        while line and not fits(line):
            cut = _longest_prefix(line, fits)
            parts.append(line[:cut])
            line = line[cut:]
        current = line
    if current:
        parts.append(current)
    return parts


def split_numbered(text: str, fits: Callable[[str], bool], sep: str = "\n") -> list[str]:
    """``split_to_fit`` for a chat reply: when it takes several messages, every part after the first is led by
    its ``part_label`` line, and every part fits with its label (``fits`` measures what is sent)."""
    if fits(text):
        return [text]
    room = _LABEL_ROOM + sep
    return number_parts(split_to_fit(text, lambda part: fits(room + part)), sep)


def _longest_prefix(line: str, fits: Callable[[str], bool]) -> int:
    lo, hi = 1, len(line)
    if not fits(line[:1]):
        raise ValueError("not even one character fits the message size limit")
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(line[:mid]):
            lo = mid
        else:
            hi = mid - 1
    return lo
