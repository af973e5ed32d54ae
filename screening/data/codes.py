"""A-share code normalisation: every accepted spelling becomes ``NNNNNN.SH|SZ|BJ``.

The exchange is derived from the number, not trusted from the suffix: a file that
says ``000001.SH`` is wrong about the market and gets told so instead of being
screened as some other company. Only the prefixes the exchanges give to listed A
shares are accepted, so a code with a lost digit (``12345`` -> ``012345``) or a B
share, fund or bond code fails by name instead of being screened as a stock that
does not exist.
"""

from __future__ import annotations

import re
import unicodedata

# sh600519 and baostock's sh.600519; 600519.SH and its vendor suffixes (SS, XSHG, XSHE, BSE). The market may be
# joined by a point, a hyphen or a colon or by nothing (600519-SH, SH-600519, SH:600519, 600519SH, 920185BJ):
# these were failed rows (a trial, 2026-12-07). Six digits and a market name are all a match can hold, so a
# date (2026-12, 2026-12-09) or a name never reads as a code.
_PATTERN = re.compile(
    r"^\s*(?:(?P<pre>SH|SZ|BJ)\s*[.:-]?\s*)?(?P<num>\d{6})(?:\s*[.:-]?\s*(?P<suf>SH|SZ|BJ|SS|XSHG|XSHE|BSE))?\s*$",
    re.IGNORECASE | re.ASCII,
)
_SUFFIX_ALIASES = {"SS": "SH", "XSHG": "SH", "XSHE": "SZ", "BSE": "BJ"}
# Eastmoney's secid (its quote API and page links): a market digit, a point, the six digits. The digit
# is the market of Eastmoney's quote server, 1 for Shanghai and 0 for Shenzhen and the BSE alike.
_SECID = re.compile(r"^\s*(?P<mkt>\d)\s*\.\s*(?P<num>\d{6})\s*$", re.ASCII)
SECID_MARKETS: dict[str, tuple[str, ...]] = {"1": ("SH",), "0": ("SZ", "BJ")}
# A code column Excel read as numbers and wrote back as floats: 300750.0 is 300750, 1.0 is 000001.
_EXCEL_FLOAT = re.compile(r"^\s*(?P<num>\d{1,6})\.0+\s*$", re.ASCII)

# The leading digits of listed A-share codes, per exchange and board. Where each comes from:
# - SSE 《证券代码编码方案》: first digit 6 is "A股、存托凭证"; 600/601/603/605 are the main board
#   (605 opened 2020-04-17), 688 is the STAR Market (科创板, 2019-07-22) and 689 the STAR Market's
#   depositary receipts (CDR, e.g. 689009 九号公司). 900 is the SSE B share: not an A share.
# - SZSE code allocation: 000/001 main board, 002 the former SME board (merged into the main board in
#   2021), 003 the main board's newer segment; 300/301/302 ChiNext (创业板; 301 since 2021-05-28,
#   302 the third segment). 200 is the SZSE B share: not an A share. 004 is reserved but lists nothing.
# - BSE 《北京证券交易所 全国中小企业股份转让系统证券代码、证券简称编制指引》 (2021-11-15): ordinary
#   shares 83/87/88 (889 is the subscription code of an offering), 43 kept by companies listed on the
#   NEEQ before 2014-05-19; 82 is preferred shares (not an A share). Since 2024-04-22 new listings take
#   920, and on 2025-10-09 every BSE stock moved to 920 (the last three digits kept): 43/83/87 are
#   accepted because exports and histories from before the switch still carry them. 88 is not: in the
#   exports users screen, 880xxx are 通达信's sector indices and 881xxx-886xxx 同花顺's industry and concept
#   indices (a trial on 2026-12-06 had 880301 煤炭 screened 低/100 as a BSE stock), and any BSE stock
#   that once had an 88 code has had its 920 code since 2025-10-09 (the message says so).
BOARD_PREFIXES: dict[str, str] = {
    "600": "SH", "601": "SH", "603": "SH", "605": "SH", "688": "SH", "689": "SH",
    "000": "SZ", "001": "SZ", "002": "SZ", "003": "SZ", "300": "SZ", "301": "SZ", "302": "SZ",
    "43": "BJ", "83": "BJ", "87": "BJ", "920": "BJ",
}
# what a rejected prefix is, when it is a well-known non-A-share security (said in the message). Longest prefix
# first where they overlap.
_NOT_A_SHARES: dict[str, str] = {
    "900": "上海B股, 不是A股", "200": "深圳B股, 不是A股",
    "82": "北交所优先股, 不是A股", "399": "深圳指数, 不是股票",
    "899": "北交所指数, 不是股票",
    "50": "上海基金/ETF, 不是股票", "51": "上海基金/ETF, 不是股票",
    "52": "上海基金/ETF, 不是股票", "56": "上海基金/ETF, 不是股票",
    "58": "上海基金/ETF, 不是股票", "15": "深圳基金/ETF, 不是股票",
    "16": "深圳LOF基金, 不是股票", "18": "深圳封闭式基金, 不是股票",
    "10": "债券, 不是股票", "11": "债券或可转债, 不是股票",
    "12": "债券或可转债, 不是股票", "13": "债券, 不是股票",
    "40": "老三板股份, 不是A股",
    "88": "通达信/同花顺的板块指数, 不是股票 (北交所旧代码若以 88 开头, 2025-10-09 起请用它的 920 代码)",
    "93": "中证指数公司的指数, 不是股票",
}
# Index codes users type first. Shanghai's indices share their numbers with Shenzhen main-board stocks
# (000001 is both 上证指数 and 平安银行): a code that claims SH with one of these numbers is the index.
SH_INDICES: dict[str, str] = {
    "000001": "上证指数", "000002": "上证A股指数", "000003": "上证B股指数", "000009": "上证380",
    "000010": "上证180", "000016": "上证50", "000300": "沪深300", "000688": "科创50", "000852": "中证1000",
    "000903": "中证100", "000905": "中证500", "000906": "中证800", "000985": "中证全指",
}
SZ_INDICES: dict[str, str] = {
    "399001": "深证成指", "399005": "中小100", "399006": "创业板指", "399106": "深证综指", "399300": "沪深300",
    "399673": "创业板50", "399905": "中证500",
}
BJ_INDICES: dict[str, str] = {"899050": "北证50"}


EXCHANGES = {"SH": "上交所(SH)", "SZ": "深交所(SZ)", "BJ": "北交所(BJ)"}
# a Shanghai claim on a 000 number outside SH_INDICES: every such number is an SSE / CSI index (000922 中证红利,
# 000510 中证A500); telling the user to write .SZ would screen the Shenzhen company that shares the digits
_SH_INDEX_RANGE = ("{given} 不是股票: 沪市没有以 000 开头的股票, 这样的沪市代码是指数 (如 000922 中证红利), "
                   "指数不能筛选; 若要的是深市同号的股票, 写作 {sz}")


class CodeError(ValueError):
    """A code that is not a valid A-share code; the message says why."""


def exchange_of(number: str) -> str | None:
    """Exchange of six digits from the board table (None when no A-share board uses the prefix)."""
    return BOARD_PREFIXES.get(number[:3]) or BOARD_PREFIXES.get(number[:2])


def index_name(num: str, claimed: str | None = None) -> str | None:
    """The index a number names: SH's when the code claims SH (or says nothing and no stock has it), else SZ/BJ."""
    if claimed == "SH":
        return SH_INDICES.get(num)
    return SZ_INDICES.get(num) or BJ_INDICES.get(num) or (SH_INDICES.get(num) if claimed is None else None)


def _board_error(num: str, given: str) -> CodeError:
    shown = repr(given) if given.endswith(num) else f"{given!r} (按 {num} 读)"
    index = SZ_INDICES.get(num) or BJ_INDICES.get(num)
    if index:
        return CodeError(f"{shown} 是{index}(指数), 不是股票")
    what = _NOT_A_SHARES.get(num[:3]) or _NOT_A_SHARES.get(num[:2])
    if what:
        return CodeError(f"{shown} 是{what} (没有以 {num[:3]} 开头的A股板块)")
    return CodeError(
        f"没有以 {num[:3]} 开头的A股板块: {shown} "
        "(沪市 600/601/603/605/688/689, 深市 000/001/002/003/300/301/302, 北交所 920 及旧代码 43/83/87)"
    )


def normalise_code(raw: object, *, typed: bool = False) -> str:
    """Return ``NNNNNN.EX`` or raise CodeError naming what is wrong with ``raw``.

    Full-width digits and letters (``６００５１９``, ``６００５１９．ＳＨ``) are folded by NFKC first:
    they are the same code typed with a Chinese input method, and must meet the duplicate check
    under the same spelling as their half-width twin. A spreadsheet cell of fewer than six digits
    is padded (Excel drops leading zeros); a ``typed`` one is refused, since a dropped first digit
    (00750 for 300750) pads to another real company (000750 国海证券), and so is a cell that kept a leading
    zero (Excel leaves none: 00700 is a Hong Kong code, padded it would be 000700.SZ, another company).
    """
    if raw is None:
        raise CodeError("代码为空")
    if isinstance(raw, float) and raw.is_integer():
        text = str(int(raw))
    else:
        text = unicodedata.normalize("NFKC", str(raw)).strip()
    if not text:
        raise CodeError("代码为空")
    given = text
    secid = _SECID.match(text)
    if secid:
        return _from_secid(secid.group("mkt"), secid.group("num"), given)
    as_float = _EXCEL_FLOAT.match(text)
    if as_float:
        text = as_float.group("num")
    # spreadsheets drop leading zeros: 1 -> 000001 (only for pure digits up to 6 long)
    if text.isascii() and text.isdigit() and len(text) < 6:
        if typed:
            raise CodeError(f"{given!r} 只有 {len(text)} 位数字: A股代码是 6 位, 请写全 "
                            f"(补足前导零是 {text.zfill(6)}, 若要的是它请写 {text.zfill(6)})")
        if text.startswith("0"):  # Excel drops every leading zero (1, never 00001): this cell kept its own
            raise CodeError(f"{given!r} 只有 {len(text)} 位数字, 且保留了前导零, 不是 Excel 去掉零的A股代码 "
                            f"(港股代码如 00700 是 5 位); A股代码是 6 位, 请写全")
        text = text.zfill(6)
    m = _PATTERN.match(text)
    if not m:
        raise CodeError(f"不是A股代码: {text!r} (应写作 600519.SH、600519、sh600519 或东方财富的 1.600519)")
    num = m.group("num")
    market = exchange_of(num)
    if market is None:
        raise _board_error(num, given)
    claimed = m.group("pre") or m.group("suf")
    if claimed:
        claimed = _SUFFIX_ALIASES.get(claimed.upper(), claimed.upper())
        index = SH_INDICES.get(num) if claimed == "SH" else None
        if index:  # sh000001 / 000300.SH: the index, not the SZ stock sharing its number
            raise CodeError(f"{given} 是{index}, 不是股票 (指数; 深市个股 {num} 写作 {num}.SZ)")
        if claimed == "SH" and num.startswith("000"):  # no SH stock starts 000: sh000922 is 中证红利, an index
            raise CodeError(_SH_INDEX_RANGE.format(given=given, num=num, sz=f"{num}.SZ"))
        if claimed != market:
            raise CodeError(f"{text!r} 标为{EXCHANGES[claimed]}, 但 {num} 在{EXCHANGES[market]}上市 "
                            f"(应写作 {num}.{market})")
    return f"{num}.{market}"


def _from_secid(mkt: str, num: str, given: str) -> str:
    """An Eastmoney secid -> NNNNNN.EX; its market digit must be the one Eastmoney gives that number's exchange."""
    markets = SECID_MARKETS.get(mkt)
    if markets is None:
        raise CodeError(f"{given!r} 像东方财富的 secid, 但市场位 {mkt} 不是A股市场 (1 = 沪市, 0 = 深市/北交所)")
    market = exchange_of(num)
    if market is None:
        raise _board_error(num, given)
    if mkt == "1" and num in SH_INDICES:  # 1.000001 is 上证指数, not 平安银行
        raise CodeError(f"{given} 是{SH_INDICES[num]}, 不是股票 (东方财富 secid 1 = 沪市; 深市个股 {num} 写作 0.{num})")
    if mkt == "1" and num.startswith("000"):
        raise CodeError(_SH_INDEX_RANGE.format(given=given, num=num, sz=f"0.{num}"))
    if market not in markets:
        right = next(d for d, ms in SECID_MARKETS.items() if market in ms)
        raise CodeError(f"{given!r} 的市场位 {mkt} 表示{'/'.join(EXCHANGES[x] for x in markets)}, "
                        f"但 {num} 在{EXCHANGES[market]}上市 (东方财富 secid 应为 {right}.{num}, 即 {num}.{market})")
    return f"{num}.{market}"


# what separates typed codes: whitespace, commas, semicolons, 、, bars, and the invisible characters a paste from
# WeChat, a web page or Excel carries (zero-width spaces and joiners, BOM, bidi marks): 600519\u200b000858 is two
_SEPARATOR_CHARS = r"\s,;，；、|｜\u200b-\u200f\u2060\ufeff\u202a-\u202e\u2066-\u2069"
# a token: a number with thousands separators whole (1,500.00 is a price, never the tokens 1 and 500.00: 1 was
# advised as 000001 平安银行, a trial S22 jg), else a run of non-separators. 600519,000858 stays two codes
_TOKEN = re.compile(rf"[+\-−]?\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?%?(?![^{_SEPARATOR_CHARS}])|[^{_SEPARATOR_CHARS}]+")
_ANSI_CSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x1f\x7f]")
# wrappers around one token ("600519", 【600519】, (600519), `600519` from a chat's code span) and the full stop a
# sentence leaves on it. Compared after NFKC, so the full-width twins a Chinese input method types (＂600519＂,
# ［600519］, 600519．) unwrap too: they were failed rows saying '"600519"' is no A-share code (a trial, 2026-12-07)
_WRAP = {"\"": "\"", "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』", "【": "】", "[": "]", "(": ")",
         "（": "）", "《": "》", "<": ">", "`": "`", "〔": "〕", "〈": "〉", "«": "»", "‹": "›"}
_STOPS = "。.!?"  # after NFKC: ．！？ are these
_CODE = r"(?:(?:SH|SZ|BJ)\.?)?\d{6}(?:\.(?:SH|SZ|BJ|SS|XSHG|XSHE|BSE))?"
# a code and a name in one token: 600519贵州茅台, 贵州茅台(600519), 贵州茅台（600519.SH）
_CODE_THEN_NAME = re.compile(rf"^(?P<code>{_CODE})(?P<name>[^\x00-\x7f][^\d]*)$", re.IGNORECASE | re.ASCII)
_NAME_PART = r"[^\d(（\[【]*[^\x00-\x7f][^\d(（\[【]*?"  # some non-ASCII text, no digit, no bracket
_NAME_THEN_CODE = re.compile(rf"^(?P<name>{_NAME_PART})[(（\[【]?(?P<code>{_CODE})[)）\]】]?$", re.IGNORECASE)
_MARKET = re.compile(r"^(?:SH|SZ|BJ)$", re.IGNORECASE)


def split_codes(text: str) -> list[str]:
    """Split a typed list of codes into one token per stock, the way a user pastes them.

    Separators: whitespace, commas (also full-width; not the thousands comma of 1,500.00), semicolons, 、, bars
    and invisible characters. A token loses quotes or brackets around it and a trailing full stop; a code glued to
    a name (600519贵州茅台, 贵州茅台(600519)) becomes the code and the name, which the pool merges into one row
    with a note; a lone market joins its code (``_join_markets``). Anything else is left for the resolver to name.
    """
    text = _ANSI_CSI.sub(" ", text)
    out: list[str] = []
    for raw in _TOKEN.findall(text):
        token = _unwrap(raw)
        if not token:
            continue
        glued = _CODE_THEN_NAME.match(_fold(token)) or _NAME_THEN_CODE.match(_fold(token))
        if glued and glued.group("name").strip():
            out += [glued.group("code"), glued.group("name").strip()]
        else:
            out.append(token)
    return _join_markets(out)


def _is_market(token: str) -> bool:
    return bool(_MARKET.match(_fold(token)))


def _is_bare(token: str) -> bool:
    return bool(re.fullmatch(r"\d{6}", _fold(token)))


def _join_markets(tokens: list[str]) -> list[str]:
    """A lone market joins a bare code: the one after it (``SH 600519``) or the one before it (``600519 SH``).

    Between two codes (``600519 SH 000858 SZ``) the list's first market decides for all: after a code, markets
    follow their codes. Read apart, ``000001 SH`` (上证指数) screened 000001.SZ, another company, beside a failed
    row 'SH' (a trial, 2026-12-07); joined, the code is what the user wrote and fails as the index."""
    first = next((i for i, t in enumerate(tokens) if _is_market(t)), None)
    if first is None:
        return tokens
    after = first > 0 and _is_bare(tokens[first - 1])
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token, nxt = tokens[i], tokens[i + 1] if i + 1 < len(tokens) else ""
        if _is_market(token):
            if out and _is_bare(out[-1]) and (after or not _is_bare(nxt)):
                out[-1] = f"{out[-1]}.{token}"
                i += 1
                continue
            if _is_bare(nxt):
                out.append(token + _fold(nxt))
                i += 2
                continue
        out.append(token)
        i += 1
    return out


def _unwrap(token: str) -> str:
    """``"600519"`` / 【600519】 / ＂600519＂ / 600519。 -> 600519 (only a matching pair, or a stray trailing stop).
    The token keeps its own characters (a name is shown as typed); only the comparison is folded."""
    token = token.strip()
    while len(token) >= 2 and _WRAP.get(_fold(token[0])) == _fold(token[-1]):
        token = token[1:-1].strip()
    while token and _fold(token[-1]) in _STOPS:
        token = token[:-1]
    return token


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text)
