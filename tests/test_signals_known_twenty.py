"""Known misreadings of the text-risk floor mended by the twentieth session (helper hb), and their twins.

1. Two titles of consecutive fiscal years' forecast losses (2024年年度业绩预亏公告, then 2025年年度业绩预亏公告) read
   业绩预亏 中 where the same two years stated in two sentences read 业绩续亏 高: a title's year now counts as a
   sentence's does (signal_years.py, signal_loss.TITLE_YEAR), through the same pairing. A half year, years two apart,
   a fall of profit (预减, 净利润下降60%: this one paired two sentences before, a false alarm), another company's
   year, and a profit stated for a later year or for the later year in a later-dated title (预盈, 扭亏) pair nothing.
2. The company recovering an amount with the occupier named inside it (公司已收回控股股东占用的资金2亿元) stayed
   高 where 公司已收回占用资金2亿元 cleared: the occupier may now stand there (signal_repaid._BY_WHOM), and the
   occupier a recovery names must be the risk's (实际控制人占用…，公司已收回控股股东占用的全部资金 cleared before: it
   no longer does).
3. Blind set 3's false alarms: a risk weighed as a hypothetical's consequence (若…，可能存在商誉减值的风险:
   signal_denial.weighed), a released guarantee with its date (违规提供的担保已于2026年9月全部解除), an overdue
   debt ended by a later title (关于逾期债务已全部清偿完毕的公告: the 债务违约 row's resolves, of its own kind only)
   and a clarification whose own subject is the risk it says is untrue (signal_rumour.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.signal_checks import assert_live, open_inputs, read_at, states

_PAIR = "2025-01-20 2024年年度业绩预亏公告\n2026-01-22 2025年年度业绩预亏公告"
CONTINUED = [  # 业绩续亏 高 (read 业绩预亏 中 before)
    _PAIR,
    "2026-01-22 2025年年度业绩预亏公告\n2025-01-20 2024年年度业绩预亏公告",
    "2025-01-20 关于2024年度业绩预亏的公告\n2026-01-22 关于公司2025年度预计亏损的提示性公告",
    "2025-01-20 2024年年度业绩首亏公告\n2026-01-22 2025年年度业绩预亏公告",
    "2025-01-20 某某科技股份有限公司2024年年度业绩预亏公告\n2026-01-22 某某科技股份有限公司2025年年度业绩预亏公告",
    "2026-01-22 2025年年度业绩预亏公告\n公司2024年度亏损1.5亿元。",
    _PAIR + "\n2026-08-20 2026年半年度业绩预盈公告",  # a half year's profit ends nothing
    "公司2024年度亏损1亿元。公司2025年度亏损2亿元。公司2026年度力争扭亏为盈。",  # a profit hoped for
]
ONE_YEAR = [  # 业绩预亏 中 as before, or now (the last three read 业绩续亏 高 before)
    "2025-01-20 2024年半年度业绩预亏公告\n2026-01-22 2025年年度业绩预亏公告",
    "2024-01-20 2023年年度业绩预亏公告\n2026-01-22 2025年年度业绩预亏公告",
    "2025-01-20 2024年年度业绩预减公告\n2026-01-22 2025年年度业绩预亏公告",
    "2025-01-20 关于子公司2024年度业绩预亏的公告\n2026-01-22 2025年年度业绩预亏公告",
    _PAIR + "\n2027-01-20 2026年年度业绩预盈公告",
    _PAIR + "\n2026-04-20 2025年年度业绩预告更正暨扭亏为盈的公告",
    "公司2025年度净利润下降60%。公司2024年度亏损1亿元。",
    "2025年度公司业绩预减。公司2024年度亏损1亿元。",
    "公司2024年度亏损1亿元。公司2025年度亏损2亿元。公司2026年度预计扭亏为盈。",
]

_OCCUPIED = "控股股东占用公司资金2亿元，"
RECOVERED = [_OCCUPIED + f"公司已收回{who}占用{of}资金2亿元"  # 高 before
             for who, of in (("控股股东", "的"), ("被控股股东", "的"), ("其", "的"), ("控股股东", ""))]
RECOVERED.append("控股股东及其关联方占用公司资金2亿元，公司已收回控股股东及其关联方占用的资金2亿元")
NOT_RECOVERED = [  # 高, as before but the first (None before: another occupier's funds recovered)
    "实际控制人占用公司资金2亿元，公司已收回控股股东占用的全部资金",
    "实际控制人占用公司资金2亿元，公司已收回控股股东占用的资金2亿元",
    _OCCUPIED + "公司已收回控股股东占用的资金1亿元",
    _OCCUPIED + "公司已收回控股股东占用的部分资金2亿元",
    _OCCUPIED + "公司已收回控股股东占用的资金2亿元中的1亿元",
    _OCCUPIED + "公司尚未收回控股股东占用的资金2亿元",
    _OCCUPIED + "公司将收回控股股东占用的资金2亿元",
    "公司已收回控股股东占用的资金2亿元",  # an amount with no occupation stated to cover: not the whole
    "控股股东非经营性占用公司资金2亿元。截至本公告披露日，公司已收回控股股东占用的资金2亿元。",
    "公司已收回部分占用资金",
]

# blind set 3's false alarms mended (open list: read 高 or 中) and the state each is kept in
BLIND_FIXED = [
    ("若公司未来经营业绩持续下滑，可能存在商誉减值的风险。", []),
    ("若宏观经济形势发生重大不利变化，公司可能面临无法按期偿还债务的风险。", []),
    ("公司为原控股股东违规提供的担保已于2026年9月全部解除，公司不再承担担保责任。", [("违规担保", "cleared")]),
    ("2026-03-01 关于公司部分债务逾期的公告\\n2026-11-01 关于逾期债务已全部清偿完毕的公告", [("债务违约", "resolved")]),
    ("2026-11-25 关于子公司某某新能源债务逾期的澄清公告：经核实，相关报道不属实，子公司不存在债务逾期。",
     [("债务违约", "clarified")]),
]
HYPOTHETICAL_TOO = [  # the open list's twins of the first two (read 高 / 中 before)
    "若公司未能严格执行对外担保审批程序，可能存在违规担保的风险。",
    "若未来标的公司经营业绩未达预期，公司将面临商誉减值的风险。",
]
STILL_RISK = [  # (text, the signal read live, its tier): unchanged by the fixes
    ("公司资金紧张，可能面临无法按期偿还债务的风险。", "债务违约", "高"),  # no hypothetical
    ("公司已有2亿元借款逾期，若不能展期，公司可能面临无法按期偿还债务的风险。", "债务违约", "高"),
    ("如果公司重整失败，公司将存在被宣告破产的风险。", "债务违约", "高"),  # the condition names a 重整 going on
    ("若公司2026年度继续亏损，公司股票将面临被终止上市的风险。", "退市风险警示", "高"),
    ("公司为原控股股东违规提供的担保已于2026年9月前全部解除", "违规担保", "高"),  # a deadline
    ("公司为原控股股东违规提供的担保将于2026年9月全部解除", "违规担保", "高"),
    ("公司为原控股股东违规提供的担保已于2026年9月全部解除，另有违规担保尚未解除", "违规担保", "高"),
    ("2026-03-01 关于公司被申请破产重整的公告\n2026-11-01 关于逾期债务已全部清偿完毕的公告", "债务违约", "高"),
    ("2026-03-01 关于公司部分债务逾期的公告\n2026-11-01 关于部分逾期债务已清偿的公告", "债务违约", "高"),
    ("2026-03-01 关于公司部分债务逾期的公告\n2026-11-01 关于子公司逾期债务已全部清偿完毕的公告", "债务违约", "高"),
    ("2026-03-01 关于公司债务逾期的公告\n2026-11-01 关于逾期债务已全部清偿完毕的公告\n"
     "2026-11-20 关于公司新增债务逾期的公告", "债务违约", "高"),
    ("2026-11-25 关于子公司某某新能源债务逾期的澄清公告", "债务违约", "高"),  # no word that it is untrue
    ("2026-11-25 关于子公司债务逾期的澄清公告：经核实，报道中逾期金额有误，实际逾期金额为1亿元。", "债务违约", "高"),
    ("2026-11-25 关于子公司债务逾期的澄清公告：经核实，相关报道部分属实，子公司存在债务逾期。", "债务违约", "高"),
]


@pytest.mark.parametrize("text", CONTINUED)
def test_two_consecutive_years_losses_in_titles_read_continued(text: str) -> None:
    assert_live(text, "业绩续亏", "高")


@pytest.mark.parametrize("text", ONE_YEAR)
def test_no_two_consecutive_loss_years_read_one_year(text: str) -> None:
    hits = read_at(text, "中")
    assert ("业绩续亏", "live") not in states(hits)


def test_two_titles_are_quoted_both_with_their_dates() -> None:
    hit = next(h for h in read_at(_PAIR, "高") if h.name == "业绩续亏")
    assert hit.is_title and hit.date == "2026-01-22"
    assert hit.text == "2025年年度业绩预亏公告；2025-01-20 2024年年度业绩预亏公告"


@pytest.mark.parametrize("text", RECOVERED)
def test_the_occupier_named_in_the_amount_recovered_clears(text: str) -> None:
    assert states(read_at(text, None)) == [("资金占用", "cleared")]


@pytest.mark.parametrize("text", NOT_RECOVERED)
def test_a_part_another_occupier_or_no_recovery_stays_live(text: str) -> None:
    assert_live(text, "资金占用", "高")


@pytest.mark.parametrize(("text", "kept"), BLIND_FIXED)
def test_blind_set_3s_false_alarms_read_no_risk(text: str, kept: list[tuple[str, str]]) -> None:
    assert states(read_at(text.replace("\\n", "\n"), None)) == kept


@pytest.mark.parametrize("text", HYPOTHETICAL_TOO)
def test_a_hypotheticals_weighed_risk_reads_nothing(text: str) -> None:
    assert read_at(text, None) == []


@pytest.mark.parametrize(("text", "signal", "tier"), STILL_RISK)
def test_the_twins_still_read_the_risk(text: str, signal: str, tier: str) -> None:
    assert_live(text, signal, tier)


def test_the_mended_lines_left_the_open_list() -> None:
    fixed = {t for t, _ in BLIND_FIXED} | set(HYPOTHETICAL_TOO)
    assert not open_inputs() & fixed
    blind3 = (Path(__file__).parent / "data" / "signals_blind3.tsv").read_text(encoding="utf-8")
    assert all(f"N\t{t}" in blind3 for t, _ in BLIND_FIXED)
