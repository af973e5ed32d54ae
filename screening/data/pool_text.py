"""Read a text table (CSV, 同花顺's tab-separated "Table.xls", 通达信's .txt) into rows.

What real files do to a reader, and what happens here:
- Encoding: UTF-8 (with or without BOM), GBK/GB18030, UTF-16 with a BOM. Each line is decoded on its
  own, so one line in the other encoding (a GBK row pasted into a UTF-8 file) fails that row by
  name instead of turning every name of the file into mojibake.
- Delimiter: comma, tab, semicolon or |, sniffed from the line that names a code column, not from
  the first line (通达信 puts a title such as "沪深A股 2026-12-02" above the header).
- Quotes: a quoted cell may span lines (report text); a quote that never closes, or one that would
  swallow the following rows, fails the line it opens on and reading goes on with the next line.
- Bytes that are not text: a NUL inside a line fails that line; a file that is mostly control bytes
  is refused as binary.
Line numbers in messages are the editor's; row numbers are the spreadsheet's (a multi-line cell is
one row, as Excel/WPS count it).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from screening.data.pool_headers import map_header
from screening.data.pool_table import RawRow
from screening.data.values import strip_controls
from screening.models import PoolRejected

DELIMITERS = (",", "\t", ";", "|")
HEADER_SCAN_ROWS = 10  # title lines some exports put above the header
MAX_RECORD_LINES = 500  # a quoted cell spanning more lines than this is an unclosed quote
# A file is binary (not a text table with a damaged line) when its NUL bytes, or its control bytes
# of any kind, are both many and dense: random data holds a NUL in about 1 of 256 bytes and a control
# byte in about 1 of 9; a CSV with one NUL or a few \x07 in a name is text, and fails only those lines.
BINARY_MIN_NULS, BINARY_NUL_SHARE = 4, 0.001
BINARY_MIN_CONTROLS, BINARY_CONTROL_SHARE = 8, 0.05
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, *range(0x0E, 0x20)])
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
_NEWLINES = re.compile(r"\r\n|\r|\n")


@dataclass
class TextLine:
    """One physical line: its text (best effort when broken) or why it cannot be read."""

    no: int
    text: str
    broken: str | None = None


def read_text_rows(data: bytes, source: str) -> list[RawRow]:
    """The rows of a text table; PoolRejected when the file is not text at all."""
    if not data.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 is NUL-dense by nature; its BOM says so
        _refuse_binary(data, source)
    lines = decode_lines(data, source)
    if not any(line.broken or line.text.strip() for line in lines):
        raise PoolRejected(f"{source}: 文件为空: 没有可筛选的行")
    sep, width = sniff_delimiter(lines)
    return _records(lines, sep, width)


def _refuse_binary(data: bytes, source: str) -> None:
    nuls = data.count(b"\x00")
    controls = sum(data.count(bytes([b])) for b in _CONTROL_BYTES)
    if (nuls >= BINARY_MIN_NULS and nuls > BINARY_NUL_SHARE * len(data)) or (
        controls >= BINARY_MIN_CONTROLS and controls > BINARY_CONTROL_SHARE * len(data)
    ):
        first = min(i for i in (data.find(bytes([b])) for b in _CONTROL_BYTES) if i >= 0)
        line = data.count(b"\n", 0, first) + 1
        raise PoolRejected(
            f"{source}: 这是二进制数据, 不是 CSV/文本表格 ({controls} 个控制字节, 第一个在文本第{line}行); "
            "请上传 CSV 或 .xlsx 文件 (UTF-16 文本文件需要带字节顺序标记 BOM)"
        )


# ---------------------------------------------------------------- decoding


def decode_lines(data: bytes, source: str) -> list[TextLine]:
    """Physical lines, decoded as the file's encoding; a line in another encoding is marked broken."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise PoolRejected(f"{source}: UTF-16 文本已损坏 ({exc})") from exc
        return _nul_check([TextLine(i, t) for i, t in enumerate(_split_text(text), start=1)])
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _nul_check(_decode_mixed(data.splitlines()))
    return _nul_check([TextLine(i, t) for i, t in enumerate(_split_text(text), start=1)])


def _split_text(text: str) -> list[str]:
    """Lines on \\r\\n, \\r or \\n only (str.splitlines would also split on \\x0b, \\x1c ... inside cells)."""
    parts = _NEWLINES.split(text)
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def _decode_mixed(raw_lines: list[bytes]) -> list[TextLine]:
    """Decode line by line: the majority encoding (UTF-8 or GBK/GB18030) wins, the other lines fail.

    A line is UTF-8 evidence only when it decodes as UTF-8 *and* holds CJK text: GBK bytes almost
    never form valid UTF-8, and when they do by chance they do not form Chinese characters.
    """
    decoded: list[tuple[str | None, str | None]] = []
    utf8_lines = gbk_lines = 0
    for raw in raw_lines:
        u, g = _try(raw, "utf-8"), _try(raw, "gb18030")
        decoded.append((u, g))
        if raw.isascii():
            continue
        if u is not None and _CJK.search(u):
            utf8_lines += 1
        elif u is None and g is not None:
            gbk_lines += 1
    gbk_file = gbk_lines > utf8_lines
    out: list[TextLine] = []
    for no, (raw, (u, g)) in enumerate(zip(raw_lines, decoded, strict=True), start=1):
        out.append(_decoded_line(no, raw, u, g, gbk_file))
    return out


def _decoded_line(no: int, raw: bytes, u: str | None, g: str | None, gbk_file: bool) -> TextLine:
    if raw.isascii():
        return TextLine(no, raw.decode("ascii"))
    if gbk_file:
        utf8_text = u is not None and _CJK.search(u) is not None
        if g is not None and not utf8_text:
            return TextLine(no, g)
        if u is not None:
            return TextLine(no, u, f"文本第{no}行是 UTF-8, 而文件其余部分是 GBK/GB18030 "
                                   f"(按 UTF-8 读作 {_preview(u)!r}); 请把整个文件存为同一种编码")
    elif u is not None:
        return TextLine(no, u)
    elif g is not None:
        return TextLine(no, g, f"文本第{no}行不像文件其余部分那样是 UTF-8: 它的字节像 GBK/GB18030 "
                               f"(按 GBK 读作 {_preview(g)!r}); 请把整个文件存为同一种编码 (UTF-8)")
    text = raw.decode("utf-8", errors="replace")
    return TextLine(no, text, f"文本第{no}行既不是 UTF-8 也不是 GBK/GB18030 文本 (字节 {raw[:24]!r}...)")


def _try(raw: bytes, encoding: str) -> str | None:
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError:
        return None


def _preview(text: str) -> str:
    clean = strip_controls(text)[0].strip()
    return clean if len(clean) <= 60 else clean[:57] + "..."


def _nul_check(lines: list[TextLine]) -> list[TextLine]:
    for line in lines:
        if line.broken is None and "\x00" in line.text:
            line.broken = (f"文本第{line.no}行含有 NUL 字节 (文本中夹有二进制数据); "
                           "请重新导出文件或删除该损坏行")
            line.text = line.text.replace("\x00", "")
    return lines


# ---------------------------------------------------------------- delimiter and records


def split_line(text: str, sep: str) -> list[str]:
    """One line's cells, CSV quoting honoured (leniently: a stray quote mid-cell is a character)."""
    if '"' not in text:
        return text.split(sep)
    return next(csv.reader([text], delimiter=sep), [""])


def sniff_delimiter(lines: list[TextLine]) -> tuple[str, int | None]:
    """The delimiter under which a top line names a code column, and that header's width.

    The most mapped columns wins, then the earliest line, then the order of DELIMITERS; without any
    header line, the delimiter that splits most of the top lines (a title line above the header must not
    decide it), and the caller then says no code column was found.
    """
    at = [i for i, ln in enumerate(lines) if ln.broken is None and ln.text.strip()][:HEADER_SCAN_ROWS]
    candidates = [lines[i] for i in at]
    best: tuple[tuple[int, int, int], str, int] | None = None
    for order, sep in enumerate(DELIMITERS):
        for rank, i in enumerate(at):
            cells = split_line(_logical_line(lines, i, sep), sep)
            fields = {map_header(c)[0] for c in cells if c.strip()} - {None}
            if "code" in fields:
                score = (len(fields), -rank, -order)
                if best is None or score > best[0]:
                    best = (score, sep, len(_trimmed(cells)))
                break
    if best is not None:
        return best[1], best[2]

    def spread(d: str) -> tuple[int, int, int]:  # lines it splits, cells it makes, then the order above
        counts = [ln.text.count(d) for ln in candidates]
        return sum(1 for c in counts if c), sum(counts), -DELIMITERS.index(d)

    return max(DELIMITERS, key=spread), None


def _logical_line(lines: list[TextLine], start: int, sep: str) -> str:
    """The text of the record starting at ``lines[start]``: a header cell Excel wrapped (Alt+Enter writes
    "市盈率\r\n(TTM)" inside quotes) continues on the next lines, and the header's width is the record's,
    not its first line's (which made every row of such a file fail as an unclosed quote)."""
    text = lines[start].text
    if '"' not in text or not _ends_inside_quote(text, sep, inside=False):
        return text
    chunk, k = [text], start + 1
    while k < len(lines) and k - start < MAX_RECORD_LINES and lines[k].broken is None:
        chunk.append(lines[k].text)
        if not _ends_inside_quote(lines[k].text, sep, inside=True):
            return "\n".join(chunk)
        k += 1
    return text


def _trimmed(cells: list[str]) -> list[str]:
    end = len(cells)
    while end and not cells[end - 1].strip():
        end -= 1
    return cells[:end]


# a number written with commas only (12,500 / 0,152 / -3,25%), as a European-locale Excel writes decimals
_COMMA_NUMBER = re.compile(r"^\s*[+-]?\d+(?:,\d+)+\s*%?\s*$")


def _decimal_comma(cells: list[str], sep: str) -> str | None:
    """Why a row of a semicolon-separated file cannot be read, when a figure in it holds a comma.

    Semicolons are what Excel writes where the comma is the decimal mark (a European locale): there 12,500
    is 12.5, while the number reader takes it for twelve thousand five hundred. Neither reading is guessed.
    """
    if sep != ";":
        return None
    cell = next((c for c in cells if _COMMA_NUMBER.match(c)), None)
    if cell is None:
        return None
    return (f"分号分隔的文件中 {cell.strip()!r} 的逗号可能是小数点 (欧洲区域设置的 Excel 这样写), 也可能是千分位; "
            "请把小数点改为 '.' 并去掉千分位逗号, 或另存为逗号分隔的 CSV")


def _records(lines: list[TextLine], sep: str, width: int | None) -> list[RawRow]:
    rows = _raw_records(lines, sep, width)
    for row in rows:
        if row.broken is None:
            row.broken = _decimal_comma(row.cells, sep)
    return rows


def _raw_records(lines: list[TextLine], sep: str, width: int | None) -> list[RawRow]:
    rows: list[RawRow] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        row_no = len(rows) + 1
        if line.broken is not None:
            rows.append(RawRow(row_no, split_line(line.text, sep), line=line.no, broken=line.broken))
            i += 1
            continue
        text = line.text
        if not strip_controls(text)[0].strip():  # blank, or only control characters (a DOS ^Z at the end)
            rows.append(RawRow(row_no, [""], line=line.no))
            i += 1
            continue
        if '"' not in text:
            rows.append(RawRow(row_no, text.split(sep), line=line.no))
            i += 1
            continue
        end, cells, problem = _quoted_record(lines, i, sep, width)
        if problem is not None:
            rows.append(RawRow(row_no, text.split(sep), line=line.no, broken=problem))
            i += 1
        else:
            rows.append(RawRow(row_no, cells, line=line.no))
            i = end
    return rows


def _quoted_record(lines: list[TextLine], start: int, sep: str, width: int | None) -> tuple[int, list[str], str | None]:
    """The record starting at ``lines[start]`` (which holds a quote): (next index, cells, problem)."""
    text = lines[start].text
    try:
        return start + 1, next(csv.reader([text], delimiter=sep, strict=True)), None
    except csv.Error:
        pass
    if not _ends_inside_quote(text, sep, inside=False):
        return start + 1, split_line(text, sep), None  # a lenient quirk such as "a"b: read as csv does
    no = lines[start].no
    unclosed = (f"文本第{no}行无法读取: 其中的引号 (\") 没有闭合 (引号不配对); "
                "请删除多余的引号或补全它")
    chunk = [text]
    k = start + 1
    while k < len(lines) and k - start < MAX_RECORD_LINES:
        nxt = lines[k]
        if nxt.broken is not None:
            return start + 1, [], unclosed
        chunk.append(nxt.text)
        k += 1
        if not _ends_inside_quote(nxt.text, sep, inside=True):
            # a real multi-line cell closes cleanly (its quote followed by a delimiter or the line's end)
            # and leaves a row no wider than the header; a stray quote that "closes" on a later one
            # swallows whole rows into a cell, and must fail its own line instead
            try:
                record = next(csv.reader(io.StringIO("\n".join(chunk)), delimiter=sep, strict=True), [])
            except csv.Error:
                return start + 1, [], unclosed
            if width is not None and len(_trimmed(record)) > width:
                return start + 1, [], unclosed
            return k, record, None
    return start + 1, [], unclosed


def _ends_inside_quote(text: str, sep: str, inside: bool) -> bool:
    """Whether a line ends inside a quoted cell, by csv's rules (a quote opens a cell only at its start,
    ``""`` inside a quoted cell is a literal quote)."""
    at_start = not inside
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if inside:
            if ch == '"':
                if i + 1 < n and text[i + 1] == '"':
                    i += 2
                    continue
                inside = False
        elif ch == sep:
            at_start = True
        elif ch == '"' and at_start:
            inside, at_start = True, False
        else:
            at_start = False
        i += 1
    return inside
