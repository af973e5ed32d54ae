"""Whether a stock's name marks it as a risk-warning stock: the one reading the rules and the providers share.

The exchanges name risk-warning stocks with a prefix (ST, *ST, S*ST, SST) and delisting-arrangement stocks
with 退 (康得退, 退市康得). Exports and users write the prefix in full width (＊ＳＴ康美) or with spaces
(* ST 海润); the name is folded (NFKC, no spaces, upper case) before it is read, so every spelling of the
same mark reads the same, in the rules (``screen/rules.is_st``) and in a provider's record alike.
"""

from __future__ import annotations

import re
import unicodedata

_ST_PREFIX = re.compile(r"^(?:S\*ST|SST|\*ST|ST)")
DELISTING_MARK = "退"


def fold_name(name: str) -> str:
    """The name with full-width characters folded, spaces removed and letters upper-cased."""
    return "".join(unicodedata.normalize("NFKC", name).split()).upper()


def st_mark(name: str | None) -> str | None:
    """Why the name marks a risk-warning stock ("ST" for the prefixes, "退" for delisting), or None."""
    if not name:
        return None
    folded = fold_name(name)
    if _ST_PREFIX.match(folded):
        return "ST"
    return "退" if DELISTING_MARK in folded else None
