"""The universe store (SQLite): round trip, merge semantics, provenance, fill, name lookup, typed code lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from screening.data.codes import normalise_code
from screening.data.load import EXAMPLES, ensure_demo_universe, pool_from_codes
from screening.data.stock_csv import UniverseError, read_stock_csv
from screening.data.universe import Record, Universe, UniverseInfo
from screening.models import StockInput
from screening.screen.rules import FLAG_DATA_DOUBT, assess


def _moutai() -> StockInput:
    return StockInput(
        code="600519.SH", name="贵州茅台", industry="食品饮料", pe_ttm=22.5, roe=34.2, eps=68.6,
        report_text="公司2025年实现营业收入1741.4亿元，\n归母净利润862.3亿元，\"ROE为34.2%\"。",
        st=False, net_profit_y1=862.3, net_profit_y2=747.3, report_date="2025-12-31",
    )


def _small(tmp_path: Path) -> Universe:
    u = Universe(tmp_path / "u.sqlite")
    u.update(
        [
            _moutai(),
            StockInput(code="000858.SZ", name="五粮液", roe=24.6, pe_ttm=15.2),
            StockInput(code="300750.SZ", name="宁德时代", roe=22.5, pe_ttm=24.8),
            StockInput(code="002594.SZ", name="比亚迪", roe=21.8),
            StockInput(code="600036.SH", name="招商银行", roe=14.5),
            StockInput(code="601398.SH", name="工商银行", roe=10.1),
            StockInput(code="600899.SH", name="*ST示例", st=True, roe=-35.6),
        ],
        as_of="2026-01-05",
    )
    return u


def test_missing_file_is_empty(tmp_path: Path) -> None:
    u = Universe.load(tmp_path / "nope.sqlite")
    assert len(u) == 0
    assert u.get("600519.SH") is None
    assert u.find_by_name("茅台") == []


def test_empty_file_is_empty_universe_and_a_foreign_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "u.sqlite").write_text("", encoding="utf-8")
    assert len(Universe.load(tmp_path / "u.sqlite")) == 0
    (tmp_path / "old.csv").write_text("code,name\n600519,贵州茅台\n", encoding="utf-8")  # an old CSV universe
    with pytest.raises(UniverseError, match="not a universe database"):
        Universe.load(tmp_path / "old.csv")


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    u = _small(tmp_path)
    u.save()
    again = Universe.load(u.path)
    assert len(again) == len(u) == 7
    assert again.get("600519.SH").data() == _moutai().data()  # floats, bools, newlines and quotes survive
    assert again.get("000858") == u.get("000858.SZ")
    assert again.get("000858.SZ").eps is None  # empty stays None, never 0
    assert again.get("600899.SH").st is True
    assert again.as_of("600519.SH") == "2026-01-05"
    assert {s.code for s in again} == {s.code for s in u}
    assert again.get("600519.SH").sources["roe"] == "universe:import@2026-01-05"  # where each figure came from


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    """Issue 16.9: writers that each read, merge and save must not lose each other's updates."""
    path = tmp_path / "u.sqlite"
    base = Universe(path)
    base.update([StockInput(code=f"6{n:05d}.SH", name=f"股票{n}") for n in range(1, 401)], as_of="2026-01-01")
    base.save()
    writers = [Universe.load(path) for _ in range(20)]  # twenty processes that all loaded the same state
    for w, u in enumerate(writers):
        u.update([StockInput(code=f"6{n:05d}.SH", pe_ttm=float(w + 1)) for n in range(1 + 20 * w, 21 + 20 * w)],
                 as_of="2026-01-02")
    for u in writers:
        u.save()  # each save replays its own merges onto what is in the file now
    final = Universe.load(path)
    assert len(final) == 400
    assert all(final.get(f"6{n:05d}.SH").pe_ttm == float((n - 1) // 20 + 1) for n in range(1, 401))
    assert all(final.get(f"6{n:05d}.SH").name == f"股票{n}" for n in range(1, 401))


def test_nothing_non_finite_or_unprintable_is_stored(tmp_path: Path) -> None:
    u = Universe(tmp_path / "u.sqlite")
    with pytest.raises(UniverseError, match="roe is not a finite number"):
        u.update([StockInput(code="600519.SH", roe=float("inf"))])
    u.update([StockInput(code="600519.SH", name="贵州\x07茅台\x1b", roe=30.0)])
    u.save()
    assert Universe.load(u.path).get("600519.SH").name == "贵州茅台"


def test_replace_swaps_everything_with_provenance(tmp_path: Path) -> None:
    u = _small(tmp_path)
    u.save()
    rec = Record(StockInput(code="000001.SZ", name="平安银行", roe=10.5, pe_ttm=5.1),
                 {"roe": "akshare:stock_yjbb_em(20260930)", "pe_ttm": "derived:总市值/TTM净利润"},
                 {"roe": "2026-09-30", "pe_ttm": "2026-12-03"}, "2026-12-03")
    u.replace([rec], UniverseInfo(provider="akshare", trade_date="2026-12-03", report_period="2026-09-30"))
    again = Universe.load(u.path)
    assert len(again) == 1 and again.info.provider == "akshare" and again.info.count == 1
    stock = again.get("000001")
    assert stock.sources == {"name": "universe:akshare@2026-12-03", "roe": "universe:akshare@2026-09-30",
                             "pe_ttm": "universe:akshare@2026-12-03"}
    assert stock.data_date == "2026-12-03" and "akshare" in again.info.label()


def test_get_accepts_any_spelling_and_returns_a_copy(tmp_path: Path) -> None:
    u = _small(tmp_path)
    for spelling in ("600519.SH", "600519", "sh600519", "SH600519", "600519.SS"):
        assert u.get(spelling).name == "贵州茅台"
    assert u.get("not a code") is None
    u.get("600519.SH").roe = 1.0
    assert u.get("600519.SH").roe == 34.2
    assert "600519" in u and "000001.SZ" not in u


def test_update_keeps_fields_not_provided(tmp_path: Path) -> None:
    u = _small(tmp_path)
    quotes = StockInput(code="600519.SH", name="贵州茅台", pe_ttm=25.0, price=1500.0, market_cap=18800.0)
    assert u.update([quotes], as_of="2026-01-06") == 1
    s = u.get("600519.SH")
    assert (s.pe_ttm, s.price, s.market_cap) == (25.0, 1500.0, 18800.0)  # new quote fields win
    assert s.roe == 34.2 and s.report_text == _moutai().report_text  # kept from the stored record
    assert u.as_of("600519.SH") == "2026-01-06"


def test_update_older_upload_only_fills_gaps(tmp_path: Path) -> None:
    u = _small(tmp_path)
    old = StockInput(code="000858.SZ", roe=20.0, pe_ttm=12.0, eps=8.2)
    assert u.update([old], as_of="2025-06-30") == 1
    s = u.get("000858.SZ")
    assert (s.roe, s.pe_ttm, s.eps) == (24.6, 15.2, 8.2)
    assert u.as_of("000858.SZ") == "2026-01-05"
    assert u.update([old], as_of="2025-06-30") == 0  # nothing new: nothing counted


def test_a_files_no_never_clears_the_stored_st_mark_and_the_row_says_so(tmp_path: Path) -> None:
    """A file's 否 (or a name without the mark) beside a stored *ST: the row is ST, names both sides, and
    counts as 数据存疑; the file's figures still win. A file that agrees adds nothing."""
    u = _small(tmp_path)
    said_no = u.fill(StockInput(code="600899.SH", name="示例", st=False, pe_ttm=16.6, roe=16.5))
    assert said_no.st is True and said_no.sources["st"] == "universe:import@2026-01-05"
    assert said_no.notes == ["ST存疑: 文件标为非ST, universe:import@2026-01-05 为ST (*ST示例)"]
    assert said_no.roe == 16.5 and assess(said_no).risk == "高"
    assert any(f.startswith("ST存疑") for f in assess(said_no).flags)
    unmarked = u.fill(StockInput(code="600899.SH", name="示例", pe_ttm=16.6, roe=16.5))
    assert unmarked.st is True and unmarked.notes == []  # the stored flag fills the file's gap, as any figure
    agrees = u.fill(StockInput(code="600899.SH", name="*ST示例", st=True, pe_ttm=16.6, roe=16.5))
    assert agrees.notes == [] and agrees.sources["st"] == "file"
    moutai = u.fill(StockInput(code="600519.SH", name="贵州茅台", st=False, pe_ttm=28.0))
    assert moutai.st is False and moutai.notes == []


def test_a_files_own_text_is_read_with_the_stored_titles_not_instead(tmp_path: Path) -> None:
    """A 摘要 column in the file must not hide a stored 立案告知书 from the text floor (it did: 低 on the figures
    alone). The file's text comes first, the stored text after it, and the source names both."""
    u = _small(tmp_path)
    titles = "近30日公告（新→旧）：\n2026-11-20 关于收到中国证监会立案告知书的公告"
    u.update([StockInput(code="600036.SH", report_text=titles)], as_of="2026-12-04")
    filled = u.fill(StockInput(code="600036.SH", name="招商银行", pe_ttm=6.4, roe=14.5, report_text="零售银行龙头。"))
    assert filled.report_text == f"零售银行龙头。\n{titles}"
    assert filled.sources["report_text"] == "file+universe:import@2026-12-04"
    assert assess(filled).risk == "高" and any("立案" in f for f in assess(filled).flags)
    same = u.fill(StockInput(code="600036.SH", pe_ttm=6.4, roe=14.5, report_text=f"摘要\n{titles}"))
    assert same.report_text == f"摘要\n{titles}" and same.sources["report_text"] == "file"  # already in it
    none = u.fill(StockInput(code="600036.SH", pe_ttm=6.4, roe=14.5))
    assert none.report_text == titles and none.sources["report_text"] == "universe:import@2026-12-04"


def test_update_counts_new_and_changed_and_rejects_bad_codes(tmp_path: Path) -> None:
    u = _small(tmp_path)
    n = u.update([StockInput(code="920185.BJ", name="贝特瑞"), StockInput(code="600519.SH", roe=34.2)])
    assert n == 1  # the second equals what is stored
    assert len(u) == 8
    with pytest.raises(ValueError):
        u.update([StockInput(code="999999")])


def test_fill_takes_missing_fields_only(tmp_path: Path) -> None:
    u = _small(tmp_path)
    upload = StockInput(code="600519.SH", name="贵州茅台", pe_ttm=28.0, price=1450.0)
    filled = u.fill(upload)
    assert filled.pe_ttm == 28.0 and filled.price == 1450.0  # the input wins
    assert filled.roe == 34.2 and filled.report_text == _moutai().report_text
    assert upload.roe is None  # a copy, the input is untouched
    assert filled.sources["pe_ttm"] == "file" and filled.sources["roe"] == "universe:import@2026-01-05"
    unknown = StockInput(code="000001.SZ", pe_ttm=5.0)
    assert u.fill(unknown).pe_ttm == 5.0 and u.fill(unknown).sources == {"pe_ttm": "file"}
    assert u.fill(unknown) is not unknown


def test_find_by_name(tmp_path: Path) -> None:
    u = _small(tmp_path)
    assert [s.code for s in u.find_by_name("贵州茅台")] == ["600519.SH"]
    assert [s.code for s in u.find_by_name("茅台")] == ["600519.SH"]  # unique substring
    assert [s.code for s in u.find_by_name(" 宁德 时代 ")] == ["300750.SZ"]
    assert {s.code for s in u.find_by_name("银行")} == {"600036.SH", "601398.SH"}  # ambiguous: all
    assert [s.code for s in u.find_by_name("＊ST示例")] == ["600899.SH"]  # full-width folded
    assert u.find_by_name("不存在") == [] and u.find_by_name("") == []
    u.update([StockInput(code="000002.SZ", name="茅台")])
    assert [s.code for s in u.find_by_name("茅台")] == ["000002.SZ"]  # exact beats substring


def test_pool_from_codes_mixed(tmp_path: Path) -> None:
    u = _small(tmp_path)
    tokens = ["600519.SH", "sz000858", "宁德时代", "000001.SH", "abc"]
    tokens += ["688981", "600519", "茅台", "银行", "999999"]
    pool = pool_from_codes(tokens, u, source="/screen")
    assert [i.index for i in pool.items] == list(range(len(tokens) - 1))
    assert [i.raw_code for i in pool.items] == [t for t in tokens if t != "茅台"]  # 茅台 is 600519.SH again
    by = {i.raw_code: i for i in pool.items}
    assert by["600519.SH"].stock.roe == 34.2
    assert by["sz000858"].stock.code == "000858.SZ"
    assert by["宁德时代"].stock.code == "300750.SZ"
    assert "是上证指数, 不是股票" in by["000001.SH"].error.message and "000001.SZ" in by["000001.SH"].error.message
    assert "本地数据中也没有名为" in by["abc"].error.message
    assert by["abc"].error.value == "abc" and by["abc"].error.source == "/screen"
    # a valid code the universe does not know: a failed item that says what to do, never invented data
    assert by["688981"].stock is None and "本地数据中没有这只股票" in by["688981"].error.message
    assert "universe refresh" in by["688981"].error.message
    assert by["600519"].stock is None and "与 600519.SH 重复" in by["600519"].error.message
    assert "茅台 即 600519.SH (600519.SH), 已合并为一行" in by["600519.SH"].stock.notes  # a note, not a failed row
    assert "对应多只股票" in by["银行"].error.message and "600036.SH" in by["银行"].error.message
    assert by["999999"].error is not None
    assert len(pool.ok_items) == 3 and len(pool.failed_items) == 6


def test_malformed_import_file_raises_with_location(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("code,name,roe\n600519.SH,贵州茅台,high\n", encoding="utf-8")
    with pytest.raises(UniverseError, match=r"row 2.*roe"):
        read_stock_csv(bad)
    bad.write_text("code,name\n12345678,x\n", encoding="utf-8")
    with pytest.raises(UniverseError):
        read_stock_csv(bad)
    bad.write_text("name\nx\n", encoding="utf-8")
    with pytest.raises(UniverseError, match="code"):
        read_stock_csv(bad)


def test_import_tolerates_partial_columns_bom_and_unknown_columns(tmp_path: Path) -> None:
    f = tmp_path / "p.csv"
    text = "\ufeffcode,name,roe,st,extra\n600519,贵州茅台,34.2,是,zz\n1,平安银行,,0,\n"
    f.write_text(text, encoding="utf-8")
    u = Universe(tmp_path / "u.sqlite")
    u.update([st for st, _ in read_stock_csv(f)])
    assert u.get("600519.SH").st is True and u.get("600519.SH").roe == 34.2
    assert u.get("000001.SZ").roe is None and u.get("000001.SZ").st is False


def test_sample_pool_file() -> None:
    rows = [s for s, _ in read_stock_csv(EXAMPLES / "sample_pool.csv")]
    assert 18 <= len(rows) <= 25
    codes = [s.code for s in rows]
    assert len(set(codes)) == len(codes)
    assert {"600519.SH", "300750.SZ", "600036.SH", "002594.SZ", "688981.SH"} <= set(codes)
    assert any(c.endswith(".BJ") for c in codes)
    assert sum(1 for s in rows if s.name and s.name.lstrip("*").startswith("ST")) >= 2
    assert all(s.report_text and s.roe is not None and s.pe_ttm is not None for s in rows)
    doubts = [s.code for s in rows if any(f.startswith(FLAG_DATA_DOUBT) for f in assess(s).flags)]
    assert doubts == ["300760.SZ"]


def test_the_demo_universe_is_seeded_once_and_labelled_demo(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "demo-universe.sqlite"
    u = ensure_demo_universe(path, EXAMPLES)
    assert path.exists() and 5300 <= len(u) <= 5420 and u.info.demo
    assert u.get("600519.SH").name == "贵州茅台"  # the sample wins over synthetic codes
    assert [s.code for s in u.find_by_name("贵州茅台")] == ["600519.SH"]
    assert all(normalise_code(s.code) == s.code for s in u)
    assert set(u.get("600519.SH").sources.values()) == {"demo"} and "演示数据" in u.info.label()
    again = ensure_demo_universe(path, EXAMPLES)  # exists: loaded, not re-seeded
    assert len(again) == len(u) and again.info.refreshed_at == u.info.refreshed_at


def test_an_import_only_universe_says_where_its_dates_are(tmp_path: Path) -> None:
    # no refresh: no one quote date stands for the rows, so the label points at each row's own source date
    u = Universe.load(tmp_path / "u.sqlite")
    u.update([StockInput(code="600519.SH", name="贵州茅台", pe_ttm=20.0, roe=30.0)], as_of="2026-11-03")
    u.save()
    label = Universe.load(u.path).info.label()
    assert "import" in label and "行情日期见各行来源" in label


def test_an_import_without_a_date_is_stamped_with_shanghais_day_whatever_the_hosts_zone(tmp_path: Path) -> None:
    """A host twelve hours behind UTC and one fourteen ahead: at any hour one of them is on another day than
    Shanghai, and both must stamp the record with Shanghai's (the day a screen ages its figures by)."""
    import datetime as dt
    import os
    import subprocess
    import sys
    from zoneinfo import ZoneInfo

    code = ("import sys; from screening.data.universe import Universe; from screening.models import StockInput; "
            "u = Universe(sys.argv[1]); u.update([StockInput(code='600519.SH', roe=34.2)]); "
            "print(u.as_of('600519.SH'))")
    for zone in ("Etc/GMT+12", "Etc/GMT-14"):
        before = dt.datetime.now(ZoneInfo("Asia/Shanghai")).date().isoformat()
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / f"{zone[-3:]}.sqlite")],
                             env={**os.environ, "TZ": zone}, capture_output=True, text=True, check=True).stdout
        after = dt.datetime.now(ZoneInfo("Asia/Shanghai")).date().isoformat()
        assert out.strip() in {before, after}, (zone, out, before)
