"""Five known misreadings of the text-risk floor, mended by the nineteenth session, and their twins.

1. A profit planned (公司2024年度亏损1.1亿元，2025年度计划实现盈利) cleared the stated loss: 计划/力求/希望 before
   实现/扭亏 is a plan (signal_words.PLANNED), so the loss reads 中 as alone; a profit made (已实现盈利) still clears.
2. A regulator's request in the occupation's sentence (…占用公司资金2亿元，请保荐机构核查…是否已全部归还，并确认已全部
   归还的时间) read the occupation repaid: what 请…核查/说明/确认 asks is asked, to the sentence's end, unless an
   answer opens after it (signal_forms.asked_not_ticked).
3. The company recovering the whole occupied amount (…占用公司资金2亿元，公司已收回占用资金2亿元) stayed 高: it now
   answers the occupation as the occupier's repayment of an amount does, weighed as a number (signal_repaid.covers);
   1亿元 of 2亿元 stays live.
4. A lift negotiated with no word of its time (公司与申请执行人协商解除银行账户冻结) read no freeze: the freeze stands
   (signal_freeze._SOUGHT), unless 已 or 经 says the talks are done, or 解除了 the lift.
5. Two consecutive years' losses in two sentences (公司2025年度亏损3.2亿元。公司2024年度亏损1.5亿元。) read 中 where one
   sentence reads 业绩续亏 高: they now read the same (signal_years.py); years two or more apart stay 中.
"""

from __future__ import annotations

import pytest

from tests.signal_checks import assert_live, open_inputs, read_at, states

# the misreadings and the twins that now read like them: (text, the signal read live, its tier)
LIVE = [
    # 1: a profit planned or hoped for, and the loss alone
    ("公司2024年度亏损1.1亿元，2025年度计划实现盈利", "业绩预亏", "中"),
    ("公司2024年度亏损1.1亿元，2025年度计划实现盈利。", "业绩预亏", "中"),
    ("公司2024年度亏损1.1亿元，2025年度计划扭亏为盈。", "业绩预亏", "中"),
    ("公司2024年度亏损1.1亿元，2025年度力求实现盈利。", "业绩预亏", "中"),
    ("公司2024年度亏损1.1亿元", "业绩预亏", "中"),
    # 2: the regulator's request, in the occupation's sentence, in one sentence with it, and the occupation's own
    # sentence before it (live before as well)
    ("报告期内，公司控股股东非经营性占用公司资金2亿元，请保荐机构核查上述资金是否已全部归还，并确认已全部归还的时间。",
     "资金占用", "高"),
    ("请保荐机构核查控股股东占用公司资金2亿元是否已全部归还，并确认已全部归还的时间。", "资金占用", "高"),
    ("公司控股股东占用公司资金2亿元，请你公司说明相关资金是否已全部归还，并确认已全部归还的具体时间及资金来源。",
     "资金占用", "高"),
    ("公司控股股东占用公司资金2亿元，并请保荐机构核查，确认已全部归还的时间。", "资金占用", "高"),
    ("报告期内，公司控股股东非经营性占用公司资金2亿元。\n请保荐机构核查上述资金是否已全部归还，并确认已全部归还的时间。",
     "资金占用", "高"),
    # 3: a part of the amount recovered, a part said, and a recovery in a sentence of its own (as 已全部归还 there)
    ("公司控股股东占用公司资金2亿元，公司已收回占用资金1亿元。", "资金占用", "高"),
    ("控股股东占用公司资金2亿元，截至本公告披露日，公司已收回占用资金19,000万元。", "资金占用", "高"),
    ("公司控股股东占用公司资金2亿元，公司已收回部分占用资金2亿元。", "资金占用", "高"),
    ("控股股东占用公司资金2亿元，公司已收回占用资金2亿元中的1亿元。", "资金占用", "高"),
    ("控股股东占用公司资金2亿元，公司将于2027年收回占用资金2亿元。", "资金占用", "高"),
    ("控股股东占用公司资金2亿元，公司已收回占用资金2亿元，剩余利息尚未收回。", "资金占用", "高"),
    ("公司控股股东占用公司资金2亿元。公司已收回占用资金2亿元。", "资金占用", "高"),
    # 4: a lift negotiated, its time unsaid, for the company's accounts and a controller's shares
    ("公司与申请执行人协商解除银行账户冻结", "资产冻结", "高"),
    ("公司与申请执行人协商解除银行账户冻结。", "资产冻结", "高"),
    ("公司银行账户被冻结", "资产冻结", "高"),
    ("控股股东与债权人协商解除股份冻结。", "股份冻结", "中"),
    # 5: two consecutive years in two sentences, either order, apart, on two lines, worded through 净利润
    ("公司2025年度亏损3.2亿元。公司2024年度亏损1.5亿元。", "业绩续亏", "高"),
    ("公司2025年度亏损3.2亿元，公司2024年度亏损1.5亿元。", "业绩续亏", "高"),
    ("公司2024年度亏损1.5亿元。公司营业收入12亿元。公司2025年度亏损3.2亿元。", "业绩续亏", "高"),
    ("公司2025年度亏损3.2亿元。\n公司2024年度亏损1.5亿元。", "业绩续亏", "高"),
    ("2025年度归属于上市公司股东的净利润为-3.2亿元。2024年度归属于上市公司股东的净利润为-1.5亿元。", "业绩续亏", "高"),
]

# 3: the whole amount recovered, in 亿元 and in 万元, now clears the occupation (kept as a flag: ``cleared``)
CLEARED = [
    "公司控股股东占用公司资金2亿元，公司已收回占用资金2亿元。",
    "控股股东占用公司资金2亿元，截至本公告披露日，公司已收回占用资金20,000万元。",
    "控股股东占用公司资金2亿元，截至本公告披露日，公司已收回占用资金2亿元。",
]

# the twins that keep their reading: (text, the row's tier; None: no live risk)
KEPT = [
    # 1: a profit made clears last year's loss, as before (read nothing, the turnaround's counter)
    ("公司2024年度亏损1.1亿元，2025年度已实现盈利", None),
    ("公司2024年度亏损1.1亿元，2025年度已按计划实现盈利", None),
    ("公司2024年度亏损1.1亿元，2025年度实现盈利2亿元", None),
    # 2: the answer after the request, a check done, a plain repayment, and the company's own request
    ("公司控股股东占用公司资金2亿元，请保荐机构核查，回复：经核查，控股股东已全部归还占用资金。", None),
    ("公司控股股东占用公司资金2亿元，经保荐机构核查并确认，控股股东已全部归还占用资金。", None),
    ("公司控股股东占用公司资金2亿元，已全部归还。", None),
    ("公司控股股东占用公司资金2亿元，公司已请会计师事务所核查，控股股东已全部归还占用资金。", None),
    # 4: a lift negotiated and done
    ("公司已与申请人协商解除银行账户冻结。", None),
    ("公司与申请人协商解除了银行账户冻结。", None),
    ("经与申请人协商解除银行账户冻结。", None),
    ("公司经与申请执行人协商解除银行账户冻结。", None),
    ("公司积极协商解除银行账户冻结，目前已全部解除。", None),
    # 5: years not consecutive, another party's year, half years, a turnaround, and two titles (now as sentences)
    ("公司2025年度亏损3.2亿元。公司2022年度亏损1.5亿元。", "中"),
    ("公司2025年度亏损3.2亿元。公司2023年度亏损1.5亿元。", "中"),
    ("公司2025年度亏损3.2亿元。标的公司2024年度亏损1.5亿元。", "中"),
    ("公司2025年上半年亏损3.2亿元。公司2024年度亏损1.5亿元。", "中"),
    ("公司2025年上半年亏损3.2亿元。公司2024年上半年亏损1.5亿元。", "中"),
    ("公司2024年度亏损1.5亿元。公司2025年度实现盈利2亿元。", "中"),
    # (the twentieth session: two titles of consecutive years' forecast losses read as the two sentences do, 业绩续亏
    # 高; they read 中 here before, a tier low: tests/test_signals_known_twenty.py)
    ("2026-01-20 关于2025年度业绩预亏的公告\n2025-01-20 关于2024年度业绩预亏的公告", "高"),
]


@pytest.mark.parametrize(("text", "signal", "tier"), LIVE)
def test_the_risk_reads_live(text: str, signal: str, tier: str) -> None:
    assert_live(text, signal, tier)


@pytest.mark.parametrize(("text", "tier"), KEPT)
def test_the_twins_keep_their_reading(text: str, tier: str | None) -> None:
    read_at(text, tier)


@pytest.mark.parametrize("text", CLEARED)
def test_the_whole_amount_recovered_clears_and_is_kept(text: str) -> None:
    """A recovery read as the end stays visible (a 高 risk cleared is a flag, never silent)."""
    assert states(read_at(text, None)) == [("资金占用", "cleared")]


def test_two_sentences_quote_both_years() -> None:
    """The 业绩续亏 read across two sentences names both years' losses, so the row says why it is 高."""
    hits = read_at("公司2025年度亏损3.2亿元。公司2024年度亏损1.5亿元。", "高")
    hit = next(h for h in hits if h.name == "业绩续亏")
    assert "2025年度亏损3.2亿元" in hit.matched and "2024年度亏损1.5亿元" in hit.matched
    assert not hit.is_title


def test_none_of_them_is_on_the_open_list() -> None:
    assert not ({text for text, *_ in LIVE + KEPT} | set(CLEARED)) & open_inputs()
