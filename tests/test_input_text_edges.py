"""Hostile text at the input edge: mixed encodings (issue 16.6), control characters (16.3), full-width
codes (16.7), unbalanced quotes and NUL bytes (16.14). The broken line fails alone, named as the
editor shows it; a file that is not text at all is still refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from screening.config import InputSettings
from screening.data.pool import read_pool
from screening.models import Pool, PoolRejected


@pytest.fixture
def settings() -> InputSettings:
    return InputSettings()


def read_bytes(tmp_path: Path, settings: InputSettings, data: bytes, name: str = "p.csv") -> Pool:
    path = tmp_path / name
    path.write_bytes(data)
    return read_pool(path, settings)


def names(pool: Pool) -> list[str | None]:
    return [i.stock.name if i.stock else None for i in pool.items]


# ---------------------------------------------------------------- encodings


def test_one_gbk_row_in_a_utf8_file_fails_that_row_only(tmp_path: Path, settings: InputSettings) -> None:
    data = "代码,名称\n600519,贵州茅台\n".encode() + "000001,平安银行\n".encode("gbk") + "300750,宁德时代\n".encode()
    pool = read_bytes(tmp_path, settings, data)
    assert names(pool) == ["贵州茅台", None, "宁德时代"]  # no mojibake such as 璐靛窞鑼呭彴
    err = pool.items[1].error
    assert err is not None and err.row == 3 and pool.items[1].raw_code == "000001"
    assert "文本第3行不像文件其余部分那样是 UTF-8" in err.message and "GBK" in err.message and "平安银行" in err.message


@pytest.mark.parametrize("encoding", ["gbk", "gb18030"])
def test_a_wholly_gbk_file_still_works(tmp_path: Path, settings: InputSettings, encoding: str) -> None:
    data = "代码,名称,所属行业\r\n600519,贵州茅台,白酒\r\n000001,平安银行,银行\r\n".encode(encoding)
    pool = read_bytes(tmp_path, settings, data)
    assert names(pool) == ["贵州茅台", "平安银行"] and not pool.failed_items and not pool.warnings


def test_one_utf8_row_in_a_gbk_file_fails_that_row_only(tmp_path: Path, settings: InputSettings) -> None:
    data = ("代码,名称\r\n600519,贵州茅台\r\n000002,万科Ａ\r\n".encode("gbk") + "000001,平安银行\r\n".encode()
            + "300750,宁德时代\r\n".encode("gbk"))
    pool = read_bytes(tmp_path, settings, data)
    assert names(pool) == ["贵州茅台", "万科Ａ", None, "宁德时代"]
    err = pool.items[2].error
    assert err is not None and err.row == 4 and "是 UTF-8, 而文件其余部分是 GBK" in err.message


def test_utf16_with_bom_still_works(tmp_path: Path, settings: InputSettings) -> None:
    pool = read_bytes(tmp_path, settings, "代码\t名称\r\n600519\t贵州茅台\r\n".encode("utf-16"))
    assert names(pool) == ["贵州茅台"]


# ---------------------------------------------------------------- control characters and full width


def test_control_characters_are_stripped_and_said(tmp_path: Path, settings: InputSettings) -> None:
    text = ('代码,名称,行业,财报摘要\n600519,贵州\x07茅台,白\x1b[31m酒,"第一段\n\t第二段\x00"\n'
            "000001,平安\u202e银行,银行,正常\n300750,宁德时代,电池,正常\n").replace("\x00", "\x08")
    pool = read_bytes(tmp_path, settings, text.encode())
    a, b, c = (i.stock for i in pool.items)
    assert a is not None and b is not None and c is not None
    assert (a.name, a.industry, a.report_text) == ("贵州茅台", "白酒", "第一段\n\t第二段")  # layout kept
    assert a.notes == ["已移除控制字符: 名称, 行业, 财报摘要"]
    assert b.name == "平安银行" and b.notes == ["已移除控制字符: 名称"]  # a bidi override hides text
    assert c.notes == []


def test_a_newline_inside_a_name_becomes_a_space(tmp_path: Path, settings: InputSettings) -> None:
    pool = read_bytes(tmp_path, settings, '代码,名称\n600519,"贵州\n茅台"\n000001,平安银行\n'.encode())
    stock = pool.items[0].stock
    assert stock is not None and stock.name == "贵州 茅台" and stock.notes == ["已移除控制字符: 名称"]
    assert pool.items[1].row == 3  # a multi-line cell is one spreadsheet row


def test_full_width_codes_in_a_file(tmp_path: Path, settings: InputSettings) -> None:
    text = "代码,名称,ROE\n６００５１９,贵州茅台,３０.５\n6００５１９.SH,重复,1\n０００００１,平安银行,１０\n"
    pool = read_bytes(tmp_path, settings, text.encode())
    assert pool.items[0].stock is not None and pool.items[0].stock.code == "600519.SH"
    assert pool.items[0].stock.roe == 30.5
    # no escape from the duplicate check: 6００５１９.SH is row 2's code, read as a second reading of it (another
    # name and ROE: tests/test_duplicate_readings.py), not as a stock of its own
    assert [(row, s.code, s.roe) for row, s in pool.items[0].readings] == [(3, "600519.SH", 1)]
    assert pool.items[1].stock is not None and pool.items[1].stock.code == "000001.SZ"


# ---------------------------------------------------------------- quotes and NUL bytes


def test_an_unbalanced_quote_fails_its_line_only(tmp_path: Path, settings: InputSettings) -> None:
    text = '代码,名称,ROE\n600519,"贵州茅台,30\n000001,平安银行,10\n300750,宁德时代,20\n'
    pool = read_bytes(tmp_path, settings, text.encode())
    assert [i.row for i in pool.items] == [2, 3, 4]
    err = pool.items[0].error
    assert err is not None and err.row == 2 and "文本第2行" in err.message and "没有闭合" in err.message
    assert pool.items[0].raw_code == "600519"
    assert names(pool)[1:] == ["平安银行", "宁德时代"]


def test_a_stray_quote_does_not_swallow_the_rows_up_to_the_next_quote(tmp_path: Path,
                                                                       settings: InputSettings) -> None:
    text = ('代码,名称,财报摘要\n600519,"贵州茅台,x\n000001,平安银行,y\n300750,宁德时代,z\n'
            '002594,比亚迪,"多行\n摘要"\n601318,中国平安,w\n')
    pool = read_bytes(tmp_path, settings, text.encode())
    assert names(pool) == [None, "平安银行", "宁德时代", "比亚迪", "中国平安"]
    assert pool.items[3].stock is not None and pool.items[3].stock.report_text == "多行\n摘要"
    assert [i.row for i in pool.items] == [2, 3, 4, 5, 6]


def test_line_numbers_are_the_editors_after_a_multi_line_cell(tmp_path: Path, settings: InputSettings) -> None:
    text = '代码,名称,财报摘要\n600519,贵州茅台,"一\n二\n三"\n000001,"平安银行,x\n300750,宁德时代,z\n'
    pool = read_bytes(tmp_path, settings, text.encode())
    err = pool.items[1].error
    assert err is not None and err.row == 3 and "文本第5行" in err.message  # row 3 in Excel, line 5 in an editor


def test_a_single_nul_byte_fails_its_line_only(tmp_path: Path, settings: InputSettings) -> None:
    pool = read_bytes(tmp_path, settings, "代码,名称\n600519,贵州茅台\n000001,平安\x00银行\n300750,宁德时代\n".encode())
    assert names(pool) == ["贵州茅台", None, "宁德时代"]
    err = pool.items[1].error
    assert err is not None and err.row == 3 and "NUL" in err.message and "文本第3行" in err.message


def test_a_binary_file_is_still_refused(tmp_path: Path, settings: InputSettings) -> None:
    with pytest.raises(PoolRejected, match="二进制数据"):
        read_bytes(tmp_path, settings, b"\x89PNG\r\n\x1a\n" + os.urandom(4096), name="pool.csv")
    with pytest.raises(PoolRejected, match="二进制数据"):  # UTF-16 without its byte-order mark
        read_bytes(tmp_path, settings, "代码,名称\n600519,贵州茅台\n".encode("utf-16-le"))


def test_a_file_of_mostly_broken_lines_is_refused_naming_the_first(tmp_path: Path, settings: InputSettings) -> None:
    """Where nothing can be recovered (every row opens a quote it never closes), refuse, naming the line."""
    rows = "".join(f'{600000 + i},"名称{i}\n' for i in range(10))
    with pytest.raises(PoolRejected, match=r"10 行中有 10 行无法读取.*第2行: 文本第2行无法读取: 其中的引号"):
        read_bytes(tmp_path, settings, ("代码,名称\n" + rows).encode())


def test_a_quote_that_closes_on_the_next_row_does_not_merge_two_stocks(tmp_path: Path,
                                                                        settings: InputSettings) -> None:
    pool = read_bytes(tmp_path, settings, '代码,名称\n600519,"贵州茅台\n000001,"平安银行\n300750,宁德时代\n'.encode())
    assert [i.raw_code for i in pool.items] == ["600519", "000001", "300750"]  # none swallowed into a name
    assert names(pool) == [None, None, "宁德时代"]
