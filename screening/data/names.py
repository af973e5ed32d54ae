"""What a stock's name says: a risk-warning mark, and whether two spellings name the same company.

The exchanges name risk-warning stocks with a prefix (ST, *ST, S*ST, SST) and delisting-arrangement stocks
with 退 (康得退, 退市康得). Exports and users write the prefix in full width (＊ＳＴ康美) or with spaces
(* ST 海润); the name is folded (NFKC, no spaces, upper case) before it is read, so every spelling of the
same mark reads the same, in the rules (``screen/rules.is_st``) and in a provider's record alike.

A pool row carries a code and a name; the figures the universe fills come by the code. When the name is
another company's (``600519,五粮液``) the row would be screened on 贵州茅台's figures under 五粮液's name, so
the two are compared, forgiving only what quote boards add to a name on their own: the ST marks, the
ex-dividend and new-listing prefixes (XD 工商银行, N 宁德, C 宁德), the STAR/ChiNext suffixes (百济神州-U) and
the 4-character cut some terminals show (中国平安 as 中国平).
"""

from __future__ import annotations

import re
import unicodedata

from screening.data.codes import BJ_INDICES, SH_INDICES, SZ_INDICES

# an ex-dividend/-rights mark may stand before the ST mark (XD*ST某某, XRST某某)
_ST_PREFIX = re.compile(r"^(?:XD|XR|DR)?(?:S\*ST|SST|\*ST|ST)")
# what an export or a user puts before a name: Excel's text apostrophe, quotes, brackets (【*ST】康美)
_LEADING = "'\"“”‘’【】[](（)）<>《》="
# asterisks NFKC leaves alone (∗ U+2217 and its kin), read as the * of *ST
_ASTERISKS = str.maketrans({"∗": "*", "⁎": "*", "✱": "*", "٭": "*", "✲": "*", "﹡": "*"})
DELISTING_MARK = "退"
# what boards put around a name: XD/XR/DR (ex-dividend/-rights), N (first day), C (first five days), and the
# suffixes -U (unprofitable), -W (weighted voting), -UW, -WD; 退市 before / 退 after a delisting name
_BOARD_PREFIX = re.compile(r"^(?:S\*ST|SST|\*ST|ST|XD|XR|DR|N|C)(?=[^\x00-\x7f])")
_BOARD_SUFFIX = re.compile(r"-?(?:UWD|UW|WD|U|W)$|退$")
SHORTEST_CUT = 2  # *ST康美 (康美药业), N宁德 (宁德时代): a marked or cut name keeps at least two characters


def fold_name(name: str) -> str:
    """The name with full-width characters folded, spaces removed and letters upper-cased."""
    return "".join(unicodedata.normalize("NFKC", name).split()).upper()


def norm_name(name: str) -> str:
    """Compare names the way users type them: full-width folded, no spaces, case-insensitive."""
    return "".join(unicodedata.normalize("NFKC", name).split()).casefold()


def st_mark(name: str | None) -> str | None:
    """Why the name marks a risk-warning stock ("ST" for the prefixes, "退" for delisting), or None."""
    if not name:
        return None
    folded = "".join(c for c in fold_name(name).translate(_ASTERISKS).lstrip(_LEADING) if c not in _LEADING)
    if _ST_PREFIX.match(folded):
        return "ST"
    return "退" if DELISTING_MARK in folded else None


def company_key(name: str) -> str:
    """The name without what quote boards add to it (marks, prefixes, suffixes), folded."""
    key = fold_name(name)
    while True:
        bare = _BOARD_PREFIX.sub("", key, count=1)
        if bare == key:
            break
        key = bare
    key = key.removeprefix("退市")
    return _BOARD_SUFFIX.sub("", key)


def names_agree(given: str, stored: str) -> bool:
    """Whether a file's name and the stored name can be the same company (equal, or one cut from the other)."""
    a, b = company_key(given), company_key(stored)
    if not a or not b or a == b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= SHORTEST_CUT and long.startswith(short)


def index_named(name: str | None) -> str | None:
    """The index a row's name names (上证指数, 沪深300, 北证50 ...), or None for a company's name.

    Shanghai's index numbers are Shenzhen stocks' codes (000001 上证指数 / 平安银行): a 通达信 list with
    indices in it would otherwise be screened, under the index's name, on the stock's figures.
    """
    if not name:
        return None
    folded = fold_name(name)
    if folded in _INDEX_NAMES or "指数" in folded or folded.startswith(_INDEX_FAMILIES):
        return name.strip()
    return None


_INDEX_NAMES = frozenset(fold_name(n) for table in (SH_INDICES, SZ_INDICES, BJ_INDICES) for n in table.values()) | {
    "科创100", "科创200", "科创综指", "创业板综", "创业板200", "双创50", "深证100", "红利指数", "北证专精特新"}
# the index families' own prefixes: no listed company's short name starts with them (中证A500, 中证红利, 上证红利,
# 深证红利, 国证2000, 沪深300ETF), while 科创/创业/北证 may start companies' names (科创新源, 创业环保; the demo
# market's 北证券), so those indices are listed by name above
_INDEX_FAMILIES = ("中证", "上证", "深证", "国证", "沪深")
