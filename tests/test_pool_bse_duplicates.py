"""One stock listed under its old Beijing code and its 920xxx code (the BSE moved 43/83/87 to 920 on
2025-10-09) is one stock: the row under the old code fails as the 920 row's duplicate, wherever it stands (the 920
code is the stock's current one); between old-code rows only, the later fails, as one code written twice does.

The pool reader compares codes as written, before any local data is read; only the data says 830799 is
920799 (``load.moved_bse_code``, by the stock's full name). The duplicate check is made again once the
codes are mapped, so such a file no longer gives two screened rows of one stock.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from screening.cli import main
from screening.config import BatcherSettings, EngineSettings, Settings, UniverseSettings
from screening.data.load import codes_pool, load_file
from screening.data.universe import Universe
from screening.engines.rules_engine import RulesEngine
from screening.models import NOTE_DUPLICATE_CONFLICT, Pool, StockInput, is_doubt
from screening.output.report import summary
from screening.screen.pipeline import Screener
from tests.universes import seeded_universe

HEADER = "代码,名称,市盈率(TTM),ROE\n"


def _universe(tmp_path: Path) -> Path:
    return seeded_universe(tmp_path, [
        StockInput(code="920799.BJ", name="艾融软件", industry="软件开发", pe_ttm=40.0, roe=9.5, eps=0.5),
        StockInput(code="600519.SH", name="贵州茅台", industry="食品饮料", pe_ttm=22.5, roe=34.2, eps=60),
    ])


def _load(tmp_path: Path, rows: str) -> Pool:
    u_path = _universe(tmp_path)
    pool_file = tmp_path / "bj.csv"
    pool_file.write_text(HEADER + rows, encoding="utf-8")
    settings = Settings().model_copy(update={"universe": UniverseSettings(path=str(u_path))})
    return load_file(pool_file, settings, Universe.load(u_path))


def test_an_old_bse_code_and_its_920_code_are_one_row(tmp_path: Path) -> None:
    """The old code first: the later row, under the 920 code, is the one kept; the old-code row fails naming it."""
    pool = _load(tmp_path, "600519,贵州茅台,22,34.2\n830799,艾融软件,30,12\n920799,艾融软件,30,12\n")
    _, old, new = pool.items
    assert new.stock is not None and new.stock.code == "920799.BJ"
    assert not any(n.startswith("北交所旧代码") for n in new.stock.notes)
    assert old.stock is None and old.error is not None
    assert old.error.message == "与第 4 行重复 (830799 即 920799.BJ 艾融软件: 北交所 2025-10-09 起的代码, 同一只股票)"
    assert (old.error.row, old.error.column, old.error.value) == (3, "代码", "830799")
    assert (old.code, old.name) == ("920799.BJ", "艾融软件")  # the failed row is found by its code and name
    assert not any(n.startswith(NOTE_DUPLICATE_CONFLICT) for n in new.stock.notes)  # the same figures
    rows = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(pool.items)
    assert [r.code for r in rows if r.status == "ok"] == ["600519.SH", "920799.BJ"]
    assert [r.status for r in rows] == ["ok", "failed", "ok"]  # every row in input order, none dropped


def test_the_920_code_first_fails_the_old_code_after_it(tmp_path: Path) -> None:
    first, again = _load(tmp_path, "920799,艾融软件,30,12\n830799,艾融软件,30,12\n").items
    assert first.stock is not None and first.stock.code == "920799.BJ"
    assert not any(n.startswith("北交所旧代码") for n in first.stock.notes)
    assert again.stock is None and again.error is not None
    assert again.error.message.startswith("与第 2 行重复 (830799 即 920799.BJ 艾融软件")
    assert again.error.value == "830799"


@pytest.mark.parametrize(("rows", "kept", "other", "differ", "used"), [
    # the 920 row first, the old code's with a blank PE (no conflict: the local data's 40 never counts) and ROE 3
    ("920799,艾融软件,30,12\n830799,艾融软件,,3\n", (2, "920799"), (3, "830799"), "ROE 12 / 3", 3),
    ("830799,艾融软件,30,3\n920799,艾融软件,30,12\n", (3, "920799"), (2, "830799"), "ROE 12 / 3", 2),
    ("830799,艾融软件,30,12\n920799,艾融软件,30,3\n", (3, "920799"), (2, "830799"), "ROE 3 / 12", 3),
])
def test_other_figures_under_the_two_codes_are_two_readings(
        tmp_path: Path, rows: str, kept: tuple[int, str], other: tuple[int, str], differ: str, used: int) -> None:
    """One stock listed twice with a conflict, as one code written twice is (data/pool_conflict.py): both rows are
    screened, the worse verdict kept, the one row naming both rows, both codes and the values. Before, the old-code
    row failed as a duplicate and the 920 row was screened alone, 按本行筛选: ROE 12 came back 中 beside ROE 3."""
    (item,) = _load(tmp_path, rows).items
    assert item.stock is not None and item.stock.code == "920799.BJ" and item.row == kept[0]
    (note,) = [n for n in item.stock.notes if n.startswith(NOTE_DUPLICATE_CONFLICT)]
    assert is_doubt(note) and note.startswith(
        f"{NOTE_DUPLICATE_CONFLICT}: 第 {kept[0]} 行 ({kept[1]}) 与第 {other[0]} 行 ({other[1]}) 是同一股票 ({_PAIR}), "
        f"数据不同 (第 {kept[0]} 行 / 第 {other[0]} 行: {differ}); 两行都筛选, 按风险较高的一行评级")
    (row,) = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run([item])
    assert (row.status, row.risk_level, row.roe, row.row) == ("ok", "高", 3.0, kept[0])
    assert f"{NOTE_DUPLICATE_CONFLICT}: 按第 {used} 行评级" in " ".join(row.flags)
    assert summary([row])["data_doubt"] == 1


@pytest.mark.parametrize("third", ["", "920799,艾融软件,30,12\n"])
def test_the_readings_of_an_old_code_written_twice_are_its_920_stock(tmp_path: Path, third: str) -> None:
    """830799 written twice with other figures: the second row is a reading (pool_conflict) made before the codes
    are mapped. Its code moves with its row's (the worse reading came back as 830799.BJ, filled by no data), and
    beside a 920 row the old code's readings pass to that row (they failed with the old-code row, unjudged)."""
    pool = _load(tmp_path, "830799,艾融软件,30,12\n830799,艾融软件,30,3\n" + third)
    rows = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(pool.items)
    (row,) = [r for r in rows if r.status == "ok"]
    assert (row.code, row.risk_level, row.roe, len(rows)) == ("920799.BJ", "高", 3.0, 2 if third else 1)


def test_an_old_code_the_data_cannot_map_is_no_duplicate(tmp_path: Path) -> None:
    """Without the exact full name the old code is not read as 920799 (never derived from its digits): both rows
    stay, the old one saying the data did not fill it, as before."""
    old, new = _load(tmp_path, "830799,艾融,30,12\n920799,艾融软件,30,12\n").items
    assert old.stock is not None and old.stock.code == "830799.BJ"
    assert new.stock is not None and new.stock.code == "920799.BJ"


def test_typed_old_and_new_codes_never_give_two_rows_of_one_stock(tmp_path: Path) -> None:
    """A typed code has no name to map it by: 830799.BJ fails as a code no data holds, saying the BSE moved to
    920xxx, and 920799.BJ is screened once; typed twice, the new code fails as 与 920799.BJ 重复."""
    u_path = _universe(tmp_path)
    settings = Settings().model_copy(update={"universe": UniverseSettings(path=str(u_path))})
    old, new, again = codes_pool(["830799.BJ", "920799.BJ", "920799"], settings, Universe.load(u_path)).items
    assert old.stock is None and old.error is not None and "920xxx" in old.error.message
    assert new.stock is not None and new.stock.code == "920799.BJ"
    assert again.stock is None and again.error is not None and "与 920799.BJ 重复" in again.error.message


def test_a_code_no_data_covers_typed_twice_fails_once_and_then_as_its_repeat(tmp_path: Path) -> None:
    """The second of 830799 830799.BJ says it repeats the first (which says what to do), as a screened code typed
    twice does; two identical failure lines read as two different stocks."""
    u_path = _universe(tmp_path)
    settings = Settings().model_copy(update={"universe": UniverseSettings(path=str(u_path))})
    first, again, name = codes_pool(["830799", "830799.BJ", "艾融软件"], settings, Universe.load(u_path)).items
    assert first.error is not None and "920xxx" in first.error.message
    assert again.error is not None and again.error.message == "与 830799.BJ 重复 (第 1 项 '830799')"
    assert again.code == "830799.BJ"
    assert name.stock is not None and name.stock.code == "920799.BJ"  # the name resolves to the 920 stock


def _universe_with_old_import(tmp_path: Path) -> Path:
    """A universe that still holds 830799.BJ from an import made before the BSE's move (no refresh lists it)."""
    path = _universe(tmp_path)
    u = Universe.load(path)
    u.update([StockInput(code="830799.BJ", name="艾融软件", pe_ttm=55.0, roe=3.0)], as_of="2025-06-30",
             source="import:old.csv")
    u.save()
    return path


def test_an_old_code_the_data_still_holds_is_read_as_its_920_stock(tmp_path: Path) -> None:
    """The old code's stale import no longer wins over the 920 stock the market data keeps current, and a file
    listing both codes gives one row, as with a universe that never held the old code."""
    u_path = _universe_with_old_import(tmp_path)
    pool_file = tmp_path / "bj.csv"
    pool_file.write_text(HEADER + "830799,艾融软件,,\n920799,艾融软件,,\n", encoding="utf-8")
    settings = Settings().model_copy(update={"universe": UniverseSettings(path=str(u_path))})
    old, new = load_file(pool_file, settings, Universe.load(u_path)).items
    assert new.stock is not None and new.stock.code == "920799.BJ"
    assert new.stock.roe == 9.5 and new.stock.pe_ttm == 40.0  # the 920 stock's figures, not the old import's
    assert old.stock is None and old.error is not None and old.error.message.startswith("与第 3 行重复 (830799")
    pool_file.write_text(HEADER + "830799,艾融软件,,\n", encoding="utf-8")  # the old code alone
    (alone,) = load_file(pool_file, settings, Universe.load(u_path)).items
    assert alone.stock is not None and alone.stock.code == "920799.BJ"
    assert alone.stock.roe == 9.5 and alone.stock.pe_ttm == 40.0
    assert any(n.startswith("北交所旧代码 830799 按名称读作 920799.BJ") and n.endswith("旧代码的记录不再使用")
               for n in alone.stock.notes)


def test_import_moves_an_old_code_to_its_920_stock_or_refuses_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`universe import` of an old export: a row whose full name is one 920 stock's goes to that stock (said on
    stderr); one the data cannot map is refused with what to do, never stored under a code no refresh lists (it
    would stay, unrefreshed, as a second row of the same stock in every later screen)."""
    u_path = _universe(tmp_path)
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(u_path))
    f = tmp_path / "old.csv"
    f.write_text(HEADER + "830799,艾融软件,31,11.5\n871234,某某新材,20,8\n", encoding="utf-8")
    rc = main(["universe", "import", str(f)])
    out, err = capsys.readouterr()
    assert rc == 0 and out == ""
    moved = "old.csv, 第2行: 北交所旧代码 830799 按名称读作 920799.BJ 艾融软件 (2025-10-09 起的代码), 导入到 920799.BJ"
    assert moved in err
    assert "未导入 old.csv, 第3行 (871234.BJ): 北交所旧代码 871234: 2025-10-09 起为 920xxx" in err
    u = Universe.load(u_path)
    moved_to = u.get("920799.BJ")
    assert moved_to is not None and moved_to.roe == 11.5
    assert u.record("830799.BJ") is None and u.record("871234.BJ") is None


_SAME = "830799 即 920799.BJ 艾融软件: 北交所 2025-10-09 起的代码, 同一只股票"
_PAIR = _SAME.removesuffix(", 同一只股票")  # the two codes, as a conflict note names them
_MOVED = "北交所旧代码 830799 按名称读作 920799.BJ 艾融软件 (2025-10-09 起的代码), 导入到 920799.BJ"


@pytest.mark.parametrize("rows, lines, figures", [
    # the old code first: the 920 row is kept, whichever comes first; one line names the file, both rows, both
    # codes and the row whose figures went in
    ("830799,艾融软件,31,11.5\n920799,艾融软件,31,11.5\n",
     [f"未导入 both.csv, 第2行, 列 '代码', 值 '830799': 与第 3 行重复 ({_SAME}); 导入的是第 3 行 (920799) 的数字"],
     (31.0, 11.5)),
    ("920799,艾融软件,31,11.5\n830799,艾融软件,31,11.5\n",
     [f"未导入 both.csv, 第3行, 列 '代码', 值 '830799': 与第 2 行重复 ({_SAME}); 导入的是第 2 行 (920799) 的数字"],
     (31.0, 11.5)),
    # other figures: as for one code written twice, neither row goes in (neither is guessed the newer), said once,
    # both rows and both codes named (the old-code row is the 920 row's second reading: data/pool_conflict.py), in
    # import's words (it said 两行都筛选, 按风险较高的一行评级: a screen's, a trial 2026-12-07)
    ("830799,艾融软件,31,11.5\n920799,艾融软件,29,10.8\n",
     [f"未导入 both.csv, 第3行 (920799.BJ): 重复行不一致: 第 3 行 (920799) 与第 2 行 (830799) 是同一股票 "
      f"({_PAIR}), 数据不同 (第 3 行 / 第 2 行: PE-TTM 29 / 31; ROE 10.8 / 11.5); 两行都未导入: 不猜哪一行的数字正确; "
      "改正文件 (只留正确的一行) 后再导入"],
     None),
    # one code written twice says the same: which row went in
    ("920799,艾融软件,31,11.5\n920799,艾融软件,31,11.5\n",
     ["未导入 both.csv, 第3行, 列 '代码', 值 '920799': 与第 2 行重复 (同一代码 920799.BJ); "
      "导入的是第 2 行 (920799) 的数字"],
     (31.0, 11.5)),
    # old-code rows only: the usual rule, the first row stays (read as its 920 stock by its name)
    ("830799,艾融软件,31,11.5\n830799,艾融软件,31,11.5\n",
     ["未导入 both.csv, 第3行, 列 '代码', 值 '830799': 与第 2 行重复 (同一代码 830799.BJ); "
      "导入的是第 2 行 (830799) 的数字",
      f"both.csv, 第2行: {_MOVED}"],
     (31.0, 11.5)),
])
def test_import_of_a_file_listing_both_codes_is_one_stock(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, rows: str,
        lines: list[str], figures: tuple[float, float] | None) -> None:
    """A file listing a stock under its old code and its 920 code is read by `universe import` as `screen` reads
    it: one record, and one stderr line for the pair; it used to import both rows into the one 920 record, the
    later row's figures silently winning. Where the two rows' figures differ, neither goes in: the data keeps
    its own figures and nothing is guessed to be newer."""
    u_path = _universe(tmp_path)
    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(u_path))
    f = tmp_path / "both.csv"
    f.write_text(HEADER + rows, encoding="utf-8")
    rc = main(["universe", "import", str(f)])
    out, err = capsys.readouterr()
    assert out == ""
    assert [line.removeprefix("注意: ") for line in err.splitlines() if line.startswith("注意: ")] == lines, err
    u = Universe.load(u_path)
    assert u.record("830799.BJ") is None and len(u) == 2
    stock = u.get("920799.BJ")
    assert stock is not None
    assert (stock.pe_ttm, stock.roe) == (figures or (40.0, 9.5))
    assert rc == (0 if figures else 2)


def test_an_old_code_without_a_name_beside_920_codes_keeps_its_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """An old code with no name cannot be mapped (never by its digits: 830799 -> 920799 only where the data names
    it), even when the same request lists 920 codes: typed, its row fails with the one-line "find its new code";
    in a file it is screened on the file's figures with the one-line note; `import` refuses it in one line. In
    each case the 920 row is screened or imported once, no row is dropped, and nothing is read as a duplicate."""
    u_path = _universe(tmp_path)
    settings = Settings().model_copy(update={"universe": UniverseSettings(path=str(u_path))})
    screener = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings())
    typed = codes_pool(["920799", "830799.BJ", "600519"], settings, Universe.load(u_path))
    rows = screener.run(typed.items)
    assert [(r.code, r.status) for r in rows] == [("920799.BJ", "ok"), ("830799.BJ", "failed"), ("600519.SH", "ok")]
    error = rows[1].error or ""
    assert "\n" not in error and error.count("830799") == 2 and "请查到它的新代码" in error, error
    assert "北交所已于 2025-10-09 把全部股票改为 920xxx 代码" in error and "920799" not in error  # no guess

    f = tmp_path / "noname.csv"
    f.write_text("代码,市盈率(TTM),ROE\n830799,31,11.5\n920799,30,12\n", encoding="utf-8")
    rows = screener.run(load_file(f, settings, Universe.load(u_path)).items)
    assert [(r.code, r.status) for r in rows] == [("830799.BJ", "ok"), ("920799.BJ", "ok")]
    assert "北交所旧代码 830799: 2025-10-09 起为 920xxx, 本地数据查不到它, 未补入公告与ST标记" in rows[0].flags
    assert not any("北交所" in flag or "重复" in flag for flag in rows[1].flags)

    monkeypatch.setenv("SCREENER_UNIVERSE__PATH", str(u_path))
    assert main(["universe", "import", str(f)]) == 0
    _, err = capsys.readouterr()
    (line,) = [line for line in err.splitlines() if line.startswith("注意: ")]
    assert line.startswith("注意: 未导入 noname.csv, 第2行 (830799.BJ): 北交所旧代码 830799: 2025-10-09 起为 920xxx, "
                           "本地数据中没有同名的 920 股票; 改用新代码后再导入"), line
    u = Universe.load(u_path)
    assert u.record("830799.BJ") is None and len(u) == 2
    stock = u.get("920799.BJ")
    assert stock is not None and (stock.pe_ttm, stock.roe) == (30.0, 12.0)
