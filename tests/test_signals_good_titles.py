"""Good-news titles and sentences that read as the risk they end (the twenty-second session's demanding user).

A lift said after the freeze's word with no 已 (关于公司银行账户冻结解除的公告, 银行账户冻结事项解除), an occupation
repaid 完毕 with the occupation named first (关于控股股东资金占用已归还完毕的公告) and a delisting risk said gone
(关于公司股票终止上市风险已消除的公告) each read their risk 高, live: good news raising a verdict. Their twins that
still say the risk (a lift only pending or a condition, a part repaid, the risk not gone) read as before.
"""

from __future__ import annotations

import pytest

from screening.screen.signals import read_signals, text_tier

_DAY = "近30日公告：2026-11-20 "

# (text, the tier its live hits justify, the signal's state) after the mend
GOOD = [
    (_DAY + "关于公司银行账户冻结解除的公告", None, None),
    (_DAY + "关于公司银行账户冻结事项解除的公告", None, None),
    (_DAY + "关于公司账户冻结解除的公告", None, None),
    (_DAY + "关于控股股东资金占用已归还完毕的公告", None, "cleared"),
    ("控股股东资金占用已归还完毕。", None, "cleared"),
    (_DAY + "关于公司股票终止上市风险已消除的公告", None, "cleared"),
    (_DAY + "关于公司股票可能被终止上市的风险已消除的公告", None, "cleared"),
    # the earlier risk, ended by the later title
    ("近30日公告：2026-11-10 关于公司银行账户被冻结的公告；2026-11-20 关于公司银行账户冻结解除的公告",
     None, "resolved"),
    ("近30日公告：2026-11-10 关于控股股东非经营性资金占用的公告；2026-11-20 关于控股股东资金占用已归还完毕的公告",
     None, "resolved"),
]
STILL = [
    (_DAY + "关于部分银行账户冻结解除暨新增冻结的公告", "资产冻结"),
    ("公司正在办理银行账户冻结解除手续。", "资产冻结"),
    ("公司银行账户冻结解除前，公司日常经营受到一定影响。", "资产冻结"),
    ("公司拟通过提供担保的方式推动银行账户冻结解除。", "资产冻结"),
    ("公司部分银行账户冻结解除，其余3个账户仍处于冻结状态。", "资产冻结"),
    ("控股股东资金占用已归还完毕1亿元，剩余2亿元尚未归还。", "资金占用"),
    ("控股股东资金占用尚未归还完毕。", "资金占用"),
    ("公司股票终止上市风险尚未消除。", "退市风险警示"),
    (_DAY + "关于公司股票撤销退市风险警示并实施其他风险警示的公告", "退市风险警示"),
]


@pytest.mark.parametrize(("text", "tier", "state"), GOOD)
def test_good_news_does_not_raise_the_risk_it_ends(text: str, tier: str | None, state: str | None) -> None:
    hits = read_signals(text)
    assert text_tier(hits) == tier, hits
    assert [h.state for h in hits] == ([state] if state else []), hits


@pytest.mark.parametrize(("text", "name"), STILL)
def test_a_lift_not_made_or_a_part_still_reads_the_risk(text: str, name: str) -> None:
    hits = read_signals(text)
    assert text_tier(hits) == "高", hits
    assert name in [h.name for h in hits if h.state == "live"], hits
