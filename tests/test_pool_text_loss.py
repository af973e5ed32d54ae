"""A file's 财报摘要 that states a loss, or an ROE with a full-width ％, read as ``screen FILE --engine rules`` reads
it (the file loaded, then screened; the eighteenth session's tester, F2, F3 and F7): each row says so, none stays
低 with no flag.

Before: 公司2025年度亏损3.2亿元 and two annual losses stated with their years came back 低/100 with no flag, and
公司2025年ROE为8.5％ (a Chinese IME's full-width percent) lost the 数据存疑 cross-check that 8.5% gets.
"""

from __future__ import annotations

from pathlib import Path

from screening.config import BatcherSettings, EngineSettings, Settings, UniverseSettings
from screening.data.load import load_file
from screening.data.universe import Universe
from screening.engines.rules_engine import RulesEngine
from screening.models import ResultRow
from screening.screen.pipeline import Screener

ROWS = [
    ("600431", "公司2025年度亏损3.2亿元。", "中", "业绩预亏"),
    ("600432", "本年度亏损3.2亿元。", "中", "业绩预亏"),
    ("600433", "公司2025年前三季度亏损3.2亿元。", "中", "业绩预亏"),
    ("600434", "公司2025年度出现亏损。", "中", "业绩预亏"),
    ("600435", "公司2025年度亏损3.2亿元，2024年度亏损1.1亿元。", "高", "业绩续亏"),
    ("600436", "公司2025年度、2024年度归母净利润分别为-3.2亿元、-1.1亿元。", "高", "业绩续亏"),
    ("600437", "公司2025年度归母净利润为负，2024年度亦为负。", "高", "业绩续亏"),
    ("600438", "公司2025年度亏损3.2亿元，2023年度亏损1.1亿元。", "中", "业绩预亏"),
    ("600439", "公司2024年度亏损1.1亿元，2025年度实现盈利2亿元。", "低", None),
    ("600440", "标的公司2025年度亏损3.2亿元。", "低", None),
]
# (text, the 数据存疑 flag): the file's ROE is 18
ROE_ROWS = [
    ("600441", "公司2025年ROE为8.5％。", "数据存疑: 文本ROE 8.5% vs 数据 18%"),
    ("600442", "公司2025年ROE为８．５％。", "数据存疑: 文本ROE 8.5% vs 数据 18%"),
    ("600443", "公司2025年ROE为8.5%。", "数据存疑: 文本ROE 8.5% vs 数据 18%"),
    ("600444", "公司2025年ＲＯＥ为8.5％。", "数据存疑: 文本ROE 8.5% vs 数据 18%"),
    ("600445", "公司2025年ROE为18％。", None),
    ("600446", "公司2025年ROE为１８．０％。", None),
]


def _screen(tmp_path: Path, texts: list[tuple[str, str]]) -> dict[str, ResultRow]:
    """The file written as a user saves it, loaded and screened as ``screen FILE --engine rules`` does."""
    path = tmp_path / "pool.csv"
    lines = ["代码,名称,市盈率(TTM),ROE(%),财报摘要", *(f"{c},样本{c[-2:]},20,18,{t}" for c, t in texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    u_path = tmp_path / "u.sqlite"
    settings = Settings().model_copy(update={"universe": UniverseSettings(path=str(u_path))})
    pool = load_file(path, settings, Universe.load(u_path))
    screened = Screener(RulesEngine(), EngineSettings(kind="rules"), BatcherSettings()).run(pool.items)
    return {r.code[:6]: r for r in screened}


def test_a_loss_in_the_report_text_reaches_the_row(tmp_path: Path) -> None:
    rows = _screen(tmp_path, [(c, t) for c, t, _, _ in ROWS])
    for code, text, risk, signal in ROWS:
        row = rows[code]
        assert row.status == "ok" and row.risk_level == risk, (text, row)
        said = [f for f in row.flags if f.startswith("报告风险")]
        assert (signal is None and not said) or any(f.startswith(f"报告风险: {signal}") for f in said), (text, said)


def test_a_full_width_percent_keeps_the_roe_cross_check(tmp_path: Path) -> None:
    rows = _screen(tmp_path, [(c, t) for c, t, _ in ROE_ROWS])
    for code, text, flag in ROE_ROWS:
        row = rows[code]
        assert row.status == "ok" and row.risk_level == "低", (text, row)
        assert [f for f in row.flags if f.startswith("数据存疑")] == ([flag] if flag else []), (text, row.flags)
