"""Words a PE cell holds in place of a number, read as missing and said: a table, one entry per kind of word.

Quote boards show a loss-maker's PE as '-'; 同花顺 writes 亏损 (also 亏, and some exports 负值, 负, 亏损股, or the
traditional 虧損 of a 繁體 interface, which NFKC does not fold). Either way the
file states no figure: the cell reads as missing, so the local data's PE-TTM fills it as it fills an empty cell,
and a row with none fails for want of a PE-TTM (``pipeline.missing_message`` then adds the entry's hint). No
negative PE is ever made up from the word. Until the twentieth session 亏损 failed the row outright, even where
the local data held the stock's (negative) PE-TTM: exactly the loss-makers came back with no verdict.

The loss note names the figure it leaves to the local data, so ``source_checks.loss_word_contradicted`` can tell
the file's word from a positive local figure (the file says loss, the data says profit: 数据存疑).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from screening.models import FIELD_LABELS, NOTE_PE_DASH, NOTE_PE_LOSS


@dataclass(frozen=True)
class PeWord:
    """Cell words (compared after NFKC and strip) that mean "no PE figure here", in the fields they may stand in."""

    words: frozenset[str]
    fields: tuple[str, ...]
    note: str  # the note's prefix (models.NOTE_*)
    says: str  # the note's body: {col} the header, {value} the cell as written, {label} the figure's name
    hint: str  # what a row that fails for want of a PE-TTM adds: how to fix the file


PE_WORDS: tuple[PeWord, ...] = (
    # "--" is not here: exports write it for "no data", read as missing with no note (values.MISSING_MARKERS)
    PeWord(frozenset({"-", "—"}), ("pe_ttm",), NOTE_PE_DASH, "{col} 为 {value!r} (行情软件常以此表示亏损, 按缺失读)",
           "文件的市盈率是横线, 行情软件常以此表示亏损: 若是亏损请填入负的市盈率, 这里不猜"),
    PeWord(frozenset({"亏损", "亏", "负值", "负", "亏损股", "虧損"}), ("pe_ttm", "pe_dynamic"), NOTE_PE_LOSS,
           "文件的 {col} 为 {value!r} (亏损股), 按缺失读, {label} 取本地数据",
           "文件的市盈率写为亏损: 亏损股的市盈率为负, 请在文件中填入实际的负市盈率(TTM), 如 -35.2; 这里不猜"),
)

# the loss note read back: what the file stated (文件的 市盈率(TTM) 为 '亏损') and the figure left to the local data
_LOSS_SAID = re.compile(rf"^{NOTE_PE_LOSS}: (文件的 .+ 为 .+) \(亏损股\), 按缺失读, (\S+) 取本地数据$")
_FIELD_OF = {label: field for field, label in FIELD_LABELS.items()}


def pe_word_note(field: str, column: str, text: str) -> str | None:
    """The note for a PE cell that holds one of ``PE_WORDS`` (the cell then reads as missing), else None."""
    word = unicodedata.normalize("NFKC", text).strip()
    entry = next((e for e in PE_WORDS if field in e.fields and word in e.words), None)
    if entry is None:
        return None
    return f"{entry.note}: " + entry.says.format(col=column, value=text.strip(), label=FIELD_LABELS[field])


def pe_word_hint(notes: Iterable[str]) -> str | None:
    """The fix a row that lacks a PE-TTM adds when one of its PE cells held a word of ``PE_WORDS``, else None."""
    said = list(notes)
    return next((e.hint for e in PE_WORDS if any(n.startswith(f"{e.note}: ") for n in said)), None)


def stated_losses(notes: Iterable[str]) -> dict[str, str]:
    """The fields whose cell stated a loss, each with what the file wrote (文件的 市盈率(TTM) 为 '亏损')."""
    return {_FIELD_OF[m[2]]: m[1] for n in notes if (m := _LOSS_SAID.match(n)) and m[2] in _FIELD_OF}
