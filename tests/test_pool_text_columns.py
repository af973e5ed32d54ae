"""Risk text in a pool file's other columns reaches the text-risk floor (a demanding user's trial, the eighteenth
session): a 业绩预告 export (预告类型 续亏, 业绩变动, 公告日期), a 最新公告标题, 备注, 风险提示 and 重要事项 came
back 低/100 with no flag, the columns dropped without a word. Known headers are read; any other column whose
cell states a risk is read too, and the row and stderr say so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from screening.cli import main
from screening.config import BatcherSettings, EngineSettings, InputSettings
from screening.data.pool import read_pool
from screening.engines.rules_engine import RulesEngine
from screening.models import NOTE_UNKNOWN_COLUMN, PoolItem
from screening.screen.pipeline import Screener
from screening.screen.rules import assess
from screening.screen.unread_text import admit

Rows = list[dict[str, object]]
Screen = Callable[[Path], tuple[Rows, str]]


@pytest.fixture
def screen_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Screen:
    """``screen FILE --engine rules --format json`` as a user runs it: (rows, stderr)."""
    monkeypatch.setenv("SCREENER_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(tmp_path / "u.sqlite"))

    def run(path: Path) -> tuple[Rows, str]:
        rc = main(["screen", str(path), "--engine", "rules", "--format", "json"])
        out, err = capsys.readouterr()
        assert rc == 0, err
        return json.loads(out), err
    return run


def test_an_eastmoney_forecast_export_is_read_as_the_providers_write_a_forecast(
        tmp_path: Path, screen_json: Screen) -> None:
    f = tmp_path / "yjyg.csv"
    f.write_text("股票代码,股票简称,市盈率(TTM),ROE(%),预告类型,业绩变动,业绩变动原因,公告日期\n"
                 "601011,预一,20,18,续亏,预计净利润亏损3亿元至4亿元,行业需求下滑,2026-10-20\n"
                 "601012,预二,20,18,首亏,预计净利润-1亿元,资产减值,2026-10-20\n"
                 "601014,预四,20,18,略增,预计净利润盈利3亿元至4亿元,需求增长,2026-10-20\n", encoding="utf-8")
    rows, err = screen_json(f)
    assert [r["risk_level"] for r in rows] == ["高", "中", "低"]
    assert "业绩续亏 (2026-10-20" in rows[0]["flags"][0]  # type: ignore[index]
    assert "未识别列" not in err and "公告日期" not in err  # every column read: nothing to say
    first = read_pool(f, InputSettings()).items[0].stock
    assert first is not None
    assert first.report_text == ("业绩预告（2026-10-20公告）：续亏。预计净利润亏损3亿元至4亿元。"
                                 "业绩变动原因：行业需求下滑。")


@pytest.mark.parametrize(("header", "cell", "signal"), [
    ("业绩预告", "预计2025年度净利润亏损3亿元", "业绩预亏"),
    ("预告类型", "续亏", "业绩续亏"),
    ("备注", "公司收到证监会立案告知书", "立案调查"),
    ("风险提示", "控股股东资金占用未归还", "资金占用"),
    ("重要事项", "公司债券违约", "债务违约"),
    ("最新公告标题", "关于收到中国证券监督管理委员会立案告知书的公告", "立案调查"),
])
def test_a_known_text_column_feeds_the_floor(tmp_path: Path, header: str, cell: str, signal: str) -> None:
    f = tmp_path / "p.csv"
    f.write_text(f"代码,名称,市盈率(TTM),ROE(%),{header}\n601001,注一,20,18,{cell}\n601002,注二,20,18,\n",
                 encoding="utf-8")
    pool = read_pool(f, InputSettings())
    risky, plain = (item.stock for item in pool.items)
    assert risky is not None and plain is not None
    verdict = assess(risky)
    assert verdict.risk in ("高", "中") and any(signal in flag for flag in verdict.flags)
    assert assess(plain).risk == "低" and plain.report_text is None
    assert not any(NOTE_UNKNOWN_COLUMN in n for n in risky.notes)


def test_two_risk_note_columns_are_both_read(tmp_path: Path, screen_json: Screen) -> None:
    f = tmp_path / "risk_cols.csv"
    f.write_text("代码,名称,市盈率(TTM),ROE(%),风险提示,重要事项\n"
                 "601004,注四,20,18,控股股东资金占用未归还,\n601005,注五,20,18,,公司债券违约\n", encoding="utf-8")
    rows, err = screen_json(f)
    assert [r["risk_level"] for r in rows] == ["高", "高"], err
    assert "忽略" not in err  # not a twin of one figure: each column is read


def test_a_title_and_its_date_beside_a_note_column(tmp_path: Path, screen_json: Screen) -> None:
    f = tmp_path / "extra_cols.csv"
    f.write_text("代码,名称,市盈率(TTM),ROE(%),备注,最新公告标题,公告日期\n"
                 "601001,注一,20,18,公司收到证监会立案告知书,,\n"
                 "601002,注二,20,18,,关于收到中国证券监督管理委员会立案告知书的公告,2026-11-20\n", encoding="utf-8")
    rows, _ = screen_json(f)
    assert [r["risk_level"] for r in rows] == ["高", "高"]
    assert any("立案调查 (2026-11-20" in flag for flag in rows[1]["flags"])  # type: ignore[attr-defined]


def test_an_unknown_column_with_risk_text_is_read_flagged_and_named_once(tmp_path: Path, screen_json: Screen) -> None:
    f = tmp_path / "unknown.csv"
    f.write_text("代码,名称,市盈率(TTM),ROE(%),我的笔记,涨速,所属概念\n"
                 "601001,注一,20,18,公司收到证监会立案告知书,0.5,白酒\n"
                 "601002,注二,20,18,,0.1,ST板块\n"
                 "601003,注三,20,18,公司收到证监会立案告知书,0.2,\n"
                 "601006,注六,20,18,一切正常,0.2,新能源\n", encoding="utf-8")
    rows, err = screen_json(f)
    assert [r["risk_level"] for r in rows] == ["高", "低", "高", "低"]
    for r in (rows[0], rows[2]):
        assert f"{NOTE_UNKNOWN_COLUMN}: 列 '我的笔记' 含风险文字 (立案调查), 已读入风险判断" in r["flags"]  # type: ignore[operator]
    assert rows[1]["flags"] == [] and rows[3]["flags"] == []
    named = [ln for ln in err.splitlines() if "'我的笔记'" in ln]
    assert len(named) == 1 and "2 行" in named[0] and "立案调查" in named[0]
    assert "'涨速'" not in err and "'所属概念'" not in err  # nothing to say about a column with no risk in it


def test_an_unknown_column_is_read_by_the_screen_step_on_every_path(tmp_path: Path) -> None:
    """The data layer keeps the cells unread (it imports nothing above it); the screen step's one door, which the
    queue worker, the digest and the bot take without the ``screen`` command, reads them once (the eighteenth
    session moved the reading out of data/)."""
    f = tmp_path / "unknown.csv"
    f.write_text("代码,名称,市盈率(TTM),ROE(%),我的笔记\n601001,注一,20,18,公司收到证监会立案告知书\n"
                 "601006,注六,20,18,一切正常\n", encoding="utf-8")
    items = read_pool(f, InputSettings()).items
    first = items[0].stock
    assert first is not None and first.report_text is None and first.notes == []  # not read in data/
    assert first.unread_text == [("我的笔记", "公司收到证监会立案告知书")]
    items = [PoolItem.from_dict(json.loads(json.dumps(i.to_dict()))) for i in items]  # as the queue carries them
    rows = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(items)
    assert [r.risk_level for r in rows] == ["高", "低"]
    assert f"{NOTE_UNKNOWN_COLUMN}: 列 '我的笔记' 含风险文字 (立案调查), 已读入风险判断" in rows[0].flags
    stock = items[0].stock
    assert stock is not None and stock.report_text == "我的笔记: 公司收到证监会立案告知书"
    assert admit(stock) == [] and stock.notes.count(next(n for n in stock.notes if "未识别列" in n)) == 1  # once


def test_a_lone_notice_date_column_is_said(tmp_path: Path) -> None:
    f = tmp_path / "d.csv"
    f.write_text("代码,名称,市盈率(TTM),ROE(%),公告日期\n601001,注一,20,18,2026-11-20\n", encoding="utf-8")
    pool = read_pool(f, InputSettings())
    assert any(w.column == "公告日期" and "没有读入" in w.message for w in pool.warnings)
