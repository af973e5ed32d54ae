"""A file's row against what it claims: another company's name, an index, a quarter's ROE, and what
`universe import` refuses to merge into the universe every user reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from screening.cli import main
from screening.config import BatcherSettings, EngineSettings, Settings, UniverseSettings
from screening.data.load import load_file
from screening.data.names import index_named, names_agree
from screening.data.row_checks import period_kind, quarter_roe, sign_conflict
from screening.data.universe import Universe, UniverseInfo
from screening.engines.rules_engine import RulesEngine
from screening.models import NOTE_NAME_CONFLICT, NOTE_QUARTER_ROE, StockInput, is_doubt
from screening.output.report import summary
from screening.screen.pipeline import Screener
from tests.universes import seeded_universe


@pytest.mark.parametrize(("given", "stored", "agree"), [
    ("贵州茅台", "贵州茅台", True),
    ("五粮液", "贵州茅台", False),
    ("XD工商银", "工商银行", True),  # ex-dividend mark and a terminal's cut name
    ("＊ST康美", "康美药业", True),  # the ST name keeps two characters of the old one
    ("N宁德", "宁德时代", True),
    ("百济神州-U", "百济神州", True),
    ("深康佳A", "深康佳Ａ", True),
    ("康得退", "退市康得", True),
    ("上证指数", "平安银行", False),
    ("宁德", "宁波银行", False),
])
def test_names_agree_forgives_only_what_boards_add(given: str, stored: str, agree: bool) -> None:
    assert names_agree(given, stored) is agree


@pytest.mark.parametrize(("name", "index"), [
    ("上证指数", "上证指数"), ("上证50", "上证50"), ("沪深300", "沪深300"), ("某某指数", "某某指数"),
    ("平安银行", None), (None, None),
])
def test_index_named(name: str | None, index: str | None) -> None:
    assert index_named(name) == index


@pytest.mark.parametrize(("text", "kind"), [
    ("2026-03-31", "一季报"), ("20260630", "半年报"), ("2026/09/30", "三季报"), ("2025-12-31", "年报"),
    ("2026年一季报", "一季报"), ("2026中报", "半年报"), ("2025年报", "年报"), ("2026Q3", "三季报"),
    ("最新", None), (None, None),
    # month-only, quarter marks beside a year, and the serial Excel stores a date as (a trial, 2026-12-06)
    ("2026-09", "三季报"), ("202609", "三季报"), ("2026年9月", "三季报"), ("2026-12", "年报"), ("2026-10", None),
    ("2026-3Q", "三季报"), ("3Q2026", "三季报"), ("2021Q4", "年报"), ("46295", "三季报"), ("46295.0", "三季报"),
    ("12345", None),
])
def test_period_kind(text: str | None, kind: str | None) -> None:
    assert period_kind(text) == kind


def test_a_file_quarter_roe_is_flagged_but_not_one_the_universe_filled() -> None:
    q1 = StockInput(code="600036.SH", roe=3.6, report_date="2026-03-31", sources={"roe": "file", "report_date": "file"})
    note = quarter_roe(q1)
    assert note is not None and note.startswith(NOTE_QUARTER_ROE) and "一季报" in note and is_doubt(note)
    annual = StockInput(code="600036.SH", roe=3.6, report_date="2025-12-31", sources={"roe": "file"})
    assert quarter_roe(annual) is None
    filled = StockInput(code="600036.SH", roe=13.6, report_date="2026-03-31",
                        sources={"roe": "universe:akshare", "report_date": "file"})
    assert quarter_roe(filled) is None


def test_a_loss_beside_a_positive_roe_from_one_source_is_flagged() -> None:
    """A third user trial: 净利润 -3.2亿 with ROE 20 came out 低/100 unsaid (ROE is profit over equity)."""
    loss = StockInput(code="600519.SH", roe=20.0, net_profit_y1=-3.2e8,
                      sources={"roe": "file", "net_profit_y1": "file"})
    note = sign_conflict(loss)
    assert note is not None and is_doubt(note) and "净利润 -3.2亿 与 ROE 20%" in note
    assert sign_conflict(StockInput(code="600519.SH", roe=-5.0, net_profit_y1=3e8)) is not None
    assert sign_conflict(StockInput(code="600519.SH", roe=20.0, net_profit_y1=3e8)) is None
    assert sign_conflict(StockInput(code="600519.SH", roe=0.0, net_profit_y1=-1e6)) is None
    mixed = StockInput(code="600519.SH", roe=20.0, net_profit_y1=-3.2e8,  # another source, maybe another period
                       sources={"roe": "universe:akshare@2026-12-04", "net_profit_y1": "file"})
    assert sign_conflict(mixed) is None


def _universe(tmp_path: Path) -> Path:
    return seeded_universe(tmp_path, [
        StockInput(code="600519.SH", name="贵州茅台", industry="食品饮料", pe_ttm=22.5, roe=34.2, eps=60),
        StockInput(code="000001.SZ", name="平安银行", industry="银行", pe_ttm=5.1, roe=10.1, eps=2),
    ])


def _settings(path: Path) -> Settings:
    return Settings().model_copy(update={"universe": UniverseSettings(path=str(path))})


def test_a_pool_row_is_never_screened_on_another_stock_under_its_name(tmp_path: Path) -> None:
    """通达信 lists indices beside stocks: 000001 上证指数 is an index, not 平安银行's figures under its name."""
    u_path = _universe(tmp_path)
    pool_file = tmp_path / "tdx.txt"
    pool_file.write_bytes("代码\t名称\t涨幅%\n000001\t上证指数\t0.5\n600519\t五粮液\t1\n600519\t贵州茅台\t1\n"
                          .encode("gbk"))
    pool = load_file(pool_file, _settings(u_path), Universe.load(u_path))
    index_row, wrong_name = pool.items  # 600519 贵州茅台 below 五粮液 is a second reading of it (data/pool_conflict.py)
    assert index_row.stock is None and index_row.error is not None
    assert "上证指数 是指数" in str(index_row.error) and "第2行" in str(index_row.error)
    assert wrong_name.stock is not None
    assert any(n.startswith(NOTE_NAME_CONFLICT) and "贵州茅台" in n for n in wrong_name.stock.notes)
    assert [r for r, _ in wrong_name.readings] == [4]  # the same code twice is still one row, naming the other
    rows = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(pool.items)
    assert summary(rows)["data_doubt"] == 1  # the wrong name is counted where the user reads the totals
    # the index's row does not claim 000001: 平安银行 below it is screened, not failed as its duplicate
    both = tmp_path / "tdx2.txt"
    both.write_bytes("代码\t名称\t涨幅%\n000001\t上证指数\t0.3\n000001\t平安银行\t0.3\n000001\t平安银行\t0.3\n"
                     .encode("gbk"))
    index_row, bank, again = load_file(both, _settings(u_path), Universe.load(u_path)).items
    assert index_row.error is not None and "上证指数 是指数" in str(index_row.error)
    assert bank.error is None and bank.stock is not None and bank.stock.code == "000001.SZ"
    assert again.error is not None and "与第 3 行重复" in again.error.message


def test_a_file_row_under_an_old_bse_code_says_the_data_did_not_fill_it(tmp_path: Path) -> None:
    """830799 (before 2025-10-09's move to 920xxx) with its own figures is screened on them alone: the row says
    the local data added no announcements or ST mark; a 920 code or a stored old code gets no such note."""
    u_path = _universe(tmp_path)
    pool_file = tmp_path / "bj.csv"
    pool_file.write_text("代码,名称,市盈率(TTM),净资产收益率\n830799,艾融软件,30,12\n920799,艾融软件,30,12\n",
                         encoding="utf-8")
    old, new = load_file(pool_file, _settings(u_path), Universe.load(u_path)).items
    assert old.stock is not None and new.stock is not None
    (note,) = [n for n in old.stock.notes if n.startswith("北交所旧代码 830799")]
    assert note.endswith("本地数据查不到它, 未补入公告与ST标记")
    assert not any(n.startswith("北交所旧代码") for n in new.stock.notes)


def _cli(capsys: pytest.CaptureFixture[str], u_path: Path, *args: str) -> tuple[int, str, str]:
    import os

    os.environ["SCREENER_UNIVERSE__PATH"] = str(u_path)
    try:
        rc = main(["universe", *args])
    finally:
        del os.environ["SCREENER_UNIVERSE__PATH"]
    out, err = capsys.readouterr()
    return rc, out, err


def test_import_refuses_what_screen_only_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    u_path = _universe(tmp_path)
    f = tmp_path / "mine.csv"
    f.write_text("股票代码,股票简称,报告期,净资产收益率\n600519,五粮液,2025-12-31,30\n"
                 "000001,平安银行,2026-03-31,2.6\n", encoding="utf-8")
    rc, out, err = _cli(capsys, u_path, "import", str(f))
    assert rc == 2 and out == ""
    assert "第2行 (600519.SH): 名称与代码不符" in err and "第3行 (000001.SZ): ROE非年报" in err
    u = Universe.load(u_path)
    assert u.get("600519.SH").name == "贵州茅台" and u.get("000001.SZ").roe == 10.1  # nothing was merged

    fractions = tmp_path / "fractions.csv"
    fractions.write_text("代码,名称,ROE\n600519,贵州茅台,0.342\n000001,平安银行,0.101\n", encoding="utf-8")
    rc, _, err = _cli(capsys, u_path, "import", str(fractions))
    assert rc == 2 and "百分比存疑" in err and "整列小于 1" in err  # the warning is printed, not dropped
    assert Universe.load(u_path).get("600519.SH").roe == 34.2


def test_an_exported_universe_imports_as_old_as_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    u_path = _universe(tmp_path)
    rc, csv_text, _ = _cli(capsys, u_path, "export")
    assert rc == 0 and "2026-12-04" in csv_text
    f = tmp_path / "export.csv"
    f.write_text(csv_text, encoding="utf-8")
    fresh = tmp_path / "fresh.sqlite"
    rc, _, err = _cli(capsys, fresh, "import", str(f))
    assert rc == 0, err
    assert Universe.load(fresh).field_dates("600519.SH")["roe"] == "2026-12-04"
    rc, _, err = _cli(capsys, fresh, "import", str(f), "--as-of", "2025-01-01")
    assert rc == 0 and "没有改变本地数据" in err and "比已有数字旧" in err


def test_a_replaced_figure_drops_the_notice_date_of_the_one_it_replaced(tmp_path: Path) -> None:
    u = Universe.load(tmp_path / "u.sqlite")
    u.update([StockInput(code="600519.SH", roe=30.0)], as_of="2026-05-01", source="akshare")
    u._records["600519.SH"].dates["roe@notice"] = "2026-04-19"  # what a provider's record carries
    u.update([StockInput(code="600519.SH", roe=31.0)], as_of="2026-12-04", source="import:mine.csv")
    assert "roe@notice" not in u.field_dates("600519.SH")


def test_a_row_whose_figures_all_came_from_the_file_has_no_data_date(tmp_path: Path) -> None:
    """The row contract: data_date is null when every figure came from the file (its date is not known)."""
    u = Universe.load(_universe(tmp_path))
    own = u.fill(StockInput(code="600519.SH", pe_ttm=20.0, roe=30.0, eps=50.0))
    assert own.sources["roe"] == "file" and own.data_date is None
    some = u.fill(StockInput(code="600519.SH", pe_ttm=20.0))
    assert some.sources["roe"] == "universe:import@2026-12-04" and some.data_date == "2026-12-04"


def test_a_refresh_keeps_a_stock_only_you_imported_and_says_so(tmp_path: Path) -> None:
    from screening.data.universe import Record

    u = Universe.load(_universe(tmp_path))  # 600519 and 000001, both imported
    provider = Record(StockInput(code="600519.SH", name="贵州茅台", roe=36.0), {"roe": "akshare"},
                      {"roe": "2025-12-31"}, "2026-12-04")
    u.replace([provider], UniverseInfo(provider="akshare", trade_date="2026-12-04"))
    again = Universe.load(tmp_path / "u.sqlite")
    assert again.get("600519.SH").roe == 36.0  # the provider's newer figure replaces the import's
    assert again.get("000001.SZ").roe == 10.1 and again.field_dates("000001.SZ")["roe"] == "2026-12-04"
    assert any("kept 1 imported stock" in n and "000001.SZ" in n for n in again.info.notes)
    assert len(again) == 2


def test_a_file_roe_of_a_long_superseded_report_is_flagged_stale(tmp_path: Path) -> None:
    """A 2023 annual ROE screened in December 2026 was shown with no 数据过期 (a trial, 2026-12-06)."""
    import datetime as dt

    pool_file = tmp_path / "old.csv"
    pool_file.write_text("代码,名称,市盈率(TTM),净资产收益率(%),报告期\n600519,贵州茅台,22.5,34.2,2023-12-31\n"
                         "600036,招商银行,6.8,16.0,2025-12-31\n", encoding="utf-8")
    u_path = tmp_path / "u.sqlite"
    old, fresh = load_file(pool_file, _settings(u_path), Universe.load(u_path), today=dt.date(2026, 12, 6)).items
    assert old.stock is not None and fresh.stock is not None
    assert any(n.startswith("数据过期: 财报 ROE 为 2023-12-31 报告期") for n in old.stock.notes), old.stock.notes
    assert not any(n.startswith("数据过期") for n in fresh.stock.notes)


def test_a_file_row_under_an_old_bse_code_is_read_as_the_920_stock_of_its_full_name(tmp_path: Path) -> None:
    """The universe holds 艾融软件 as 920799 (2025-10-09's codes); a file from before lists it as 830799 with
    its name: the row becomes 920799, filled by the data, and says how it was read. A part of a name, or a
    name the data does not hold, maps nothing (the number is never derived from the old one)."""
    u_path = tmp_path / "u.sqlite"
    u = Universe.load(u_path)
    u.update([StockInput(code="920799.BJ", name="艾融软件", industry="软件开发", pe_ttm=40.0, roe=9.5, eps=0.5)],
             as_of="2026-12-04", source="import:seed.csv")
    u.save()
    pool_file = tmp_path / "bj.csv"
    pool_file.write_text("代码,名称\n830799,艾融软件\n831000,艾融\n833000,某某科技\n", encoding="utf-8")
    full, part, unknown = load_file(pool_file, _settings(u_path), Universe.load(u_path)).items
    assert full.stock is not None and full.stock.code == "920799.BJ" and full.stock.pe_ttm == 40.0
    assert any(n.startswith("北交所旧代码 830799 按名称读作 920799.BJ 艾融软件") for n in full.stock.notes)
    assert part.stock is not None and part.stock.code == "831000.BJ" and part.stock.pe_ttm is None
    assert unknown.stock is not None and unknown.stock.code == "833000.BJ"


def test_a_file_row_the_whole_market_data_does_not_list_says_so(tmp_path: Path) -> None:
    """A trial (2026-12-06): a stock delisted since the file was exported came back 低/100 on the file's own
    figures, unflagged. In a universe that lists the whole market its row is flagged (数据存疑); in a few
    imported stocks it is not (the data never claimed to list every stock)."""
    from screening.data.load import WHOLE_MARKET
    from screening.models import NOTE_NOT_LISTED

    u_path = tmp_path / "u.sqlite"
    u = Universe.load(u_path)
    codes = [f"{board}{i:03d}.SH" for board in ("600", "601", "603") for i in range(1000)][:WHOLE_MARKET]
    u.update([StockInput(code=c, name=f"股票{c[:6]}", pe_ttm=20.0, roe=10.0) for c in codes],
             as_of="2026-12-04", source="import:seed.csv")
    u.save()
    pool_file = tmp_path / "p.csv"
    pool_file.write_text("代码,名称,市盈率(TTM),ROE(%)\n605999,已退市样本,3.9,21.0\n600001,股票600001,20,10\n",
                         encoding="utf-8")
    gone, listed = load_file(pool_file, _settings(u_path), Universe.load(u_path)).items
    assert gone.stock is not None and listed.stock is not None
    (note,) = [n for n in gone.stock.notes if n.startswith(NOTE_NOT_LISTED)]
    assert is_doubt(note) and "605999.SH" in note and "可能已退市" in note
    assert not [n for n in listed.stock.notes if n.startswith(NOTE_NOT_LISTED)]
    (tmp_path / "few").mkdir()
    few = _universe(tmp_path / "few")
    (row, _) = load_file(pool_file, _settings(few), Universe.load(few)).items
    assert row.stock is not None and not [n for n in row.stock.notes if n.startswith(NOTE_NOT_LISTED)]


def test_a_typed_code_gets_the_doubt_checks_a_file_row_gets() -> None:
    """A trial (2026-12-06): a provider's ROE of 250% or a loss beside a positive ROE came back 低/100 for a typed
    code and in the digest, flagged only in a pool file. Both paths now annotate alike."""
    from screening.data.fill_rows import annotate as _annotate  # moved from load.py (the twenty-first session)

    u = Universe.load(Path("/nonexistent/u.sqlite"))
    src = {"roe": "universe:akshare@2026-12-04", "net_profit_y1": "universe:akshare@2026-12-04"}
    odd = _annotate(StockInput(code="600160.SH", roe=250.0, pe_ttm=20.0, sources=dict(src)), u, Settings(), None)
    assert any(n.startswith("数值异常: ROE 250% (来自本地数据 akshare@2026-12-04") for n in odd.notes), odd.notes
    loss = _annotate(StockInput(code="600161.SH", roe=20.98, net_profit_y1=-4.15e8, pe_ttm=20.0, sources=dict(src)),
                     u, Settings(), None)
    assert any(n.startswith("盈亏与ROE矛盾") for n in loss.notes), loss.notes


def test_import_takes_a_small_roe_written_as_its_neighbours(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """0.45 beside 15.23 is flagged by screen since the eighteenth session (it may be a fraction) but may as well
    be a real ROE under 1%, of which a whole-market export holds hundreds: import still takes it; 0.152 beside
    15.2 (a fraction's extra decimals) stays refused."""
    u_path = _universe(tmp_path)
    f = tmp_path / "board.csv"
    f.write_text("代码,名称,ROE\n600519,贵州茅台,15.23\n000001,平安银行,0.45\n", encoding="utf-8")
    rc, _, err = _cli(capsys, u_path, "import", str(f))
    assert rc == 0 and "未导入" not in err
    assert Universe.load(u_path).get("000001.SZ").roe == 0.45
    f.write_text("代码,名称,ROE\n600519,贵州茅台,15.2\n000001,平安银行,0.152\n", encoding="utf-8")
    rc, _, err = _cli(capsys, u_path, "import", str(f))
    assert "未导入" in err and "第3行 (000001.SZ): 百分比存疑" in err
    assert Universe.load(u_path).get("000001.SZ").roe == 0.45
