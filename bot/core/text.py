"""What the bot says, before it is a vendor's markup: lines of styled runs, rendered per front.

The core builds replies from ``Run`` pieces: plain dynamic text, or text marked bold, code or
italic. Each front renders a line in its own markup (Telegram HTML; DingTalk, Feishu and WeCom
Markdown) and escapes every dynamic string on the way, so no name like ``*ST`` or ``<at id=all>``
can ever format a message or mention anyone, and the core never writes a tag. Runs are cut to
their display length before escaping, so an entity is never cut in half; a line is a complete
fragment, so a message can be split between any two lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from screening.output.text import esc_html, esc_md, plain

Style = Literal["", "b", "code", "i"]
STYLES: frozenset[str] = frozenset({"", "b", "code", "i"})


@dataclass(frozen=True)
class Run:
    text: str
    style: Style = ""


Line = tuple[Run, ...]


def _cut(value: object, limit: int | None) -> str:
    text = "" if value is None else str(value).replace("\r", " ").replace("\n", " ")
    if limit is not None and len(text) > limit:
        text = text[: max(1, limit - 1)] + "…"
    return text


def t(value: object, limit: int | None = None) -> Run:
    """Dynamic text, shown as is (escaped by the front)."""
    return Run(_cut(value, limit))


def b(value: object, limit: int | None = None) -> Run:
    return Run(_cut(value, limit), "b")


def code(value: object, limit: int | None = None) -> Run:
    return Run(_cut(value, limit), "code")


def i(value: object, limit: int | None = None) -> Run:
    return Run(_cut(value, limit), "i")


def line(*parts: Run | str) -> Line:
    """A line from runs; a bare ``str`` is fixed text of the bot's own (still escaped on output)."""
    return tuple(p if isinstance(p, Run) else Run(p) for p in parts)


def lines(*texts: str) -> list[Line]:
    return [line(x) for x in texts]


_HTML = {"b": ("<b>", "</b>"), "code": ("<code>", "</code>"), "i": ("<i>", "</i>"), "": ("", "")}
_MD = {"b": ("**", "**"), "code": ("`", "`"), "i": ("*", "*"), "": ("", "")}


def to_html(ln: Line) -> str:
    """Telegram HTML: every run escaped, tags only from styles."""
    return "".join(f"{_HTML[r.style][0]}{esc_html(r.text)}{_HTML[r.style][1]}" for r in ln)


def to_markdown(ln: Line) -> str:
    """Markdown for DingTalk, Feishu (lark_md) and WeCom: markup characters in data become full-width."""
    out = []
    for r in ln:
        text = esc_md(r.text)
        out.append(f"{_MD[r.style][0]}{text}{_MD[r.style][1]}" if text.strip() else text)
    return "".join(out)


def to_plain(ln: Line) -> str:
    return "".join(plain(r.text) for r in ln)


def render(ls: Iterable[Line], flavour: Literal["html", "markdown", "plain"]) -> list[str]:
    fn = {"html": to_html, "markdown": to_markdown, "plain": to_plain}[flavour]
    return [fn(ln) for ln in ls]


def as_lines(texts: Sequence[str | Line]) -> list[Line]:
    """Lines from a mix of fixed strings and lines (a convenience for replies of one or two lines)."""
    return [line(x) if isinstance(x, str) else x for x in texts]
