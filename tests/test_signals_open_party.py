"""The occupier's repayment answers the company's side of a fund occupation, and a supposed repayment is none (the
seventeenth session).

PARTY: a risk clause that names the company's side (证监局责令公司收回被占用资金, 公司资金被控股股东占用, or the
repayment's own clause 控股股东已向公司…) is cleared by the occupier's repayment (控股股东已全部归还:
signal_repaid.OWED_BY), as 控股股东已归还全部占用资金 is; another party's (子公司已归还银行借款), another debt's
(控股股东已全部归还银行借款), a part, a plan, an order still pending or a 还款保证书 still leave it live. SUPPOSED: a
repayment supposed at its clause's head (如/若控股股东已…归还…，公司将…) is no repayment (signal_pending.PENDING):
资金占用 stays live, in the open list's line and in two pinned lines of signals_review9.tsv (their tier 高 unchanged:
the 其他风险警示 beside it) that read it cleared before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.signal_checks import open_inputs, read_at, states

# repaid by the occupier: the one 资金占用 hit is cleared, nothing counts (the first two from the brief, the rest the
# open list's, which read 高 before)
CLEARED = [
    "证监局责令公司收回被占用资金，截至目前控股股东已全部归还",
    "公司资金被控股股东占用，截至目前控股股东已全部归还",
    "公司资金被实际控制人占用，截至目前实际控制人已全部归还",
    "控股股东已向公司归还全部占用资金及利息，剩余的关联交易款项按合同约定结算",
    "控股股东已归还全部占用资金，并再次向公司出具了不再占用上市公司资金的书面承诺",
    "公司已要求控股股东归还占用资金，控股股东已于2026年11月30日全部归还",
    "公司已按照监管要求督促控股股东归还占用资金，控股股东已于2026年11月30日全部归还",
    "控股股东已通过银行转账方式向公司归还全部占用资金",
    "控股股东已根据公司要求归还全部占用资金",
    "控股股东已于2026年4月归还全部占用资金，公司未及时披露上述资金占用事项",
    "控股股东已向公司偿还全部占用资金",
    # the neighbours that cleared before and still do
    "控股股东已归还全部占用资金",
    "证监局责令公司收回被占用资金，公司已全部收回",
    "控股股东已如约归还全部占用资金",
    "如期归还，控股股东已归还全部占用资金",
    "控股股东已按照其出具的还款保证书全部归还占用资金",
]
FIXED_OPEN = CLEARED[3:11]

# still live, 高
STANDS = [
    "如控股股东已以现金方式归还占用的全部资金，公司将及时披露",  # the open list's
    "若控股股东已全部归还占用资金，公司将申请撤销其他风险警示",
    "假如控股股东已归还全部占用资金，公司股票可申请撤销风险警示",
    "证监局责令公司收回被占用资金，截至目前控股股东已归还部分",
    "公司资金被控股股东占用，截至目前控股股东已归还部分资金",
    "公司资金被控股股东占用，控股股东计划于2027年3月31日前全部归还",
    "证监局责令公司收回被占用资金，控股股东计划于2027年3月31日前归还",
    "证监局责令公司收回被占用资金，截至目前尚未归还",
    "证监局责令公司收回被占用资金，截至目前控股股东尚未归还",
    "控股股东占用资金，子公司已归还银行借款",
    "控股股东占用公司资金，子公司已全部归还银行借款",
    "公司资金被控股股东占用，截至目前子公司已全部归还银行借款",
    "证监局责令公司收回被占用资金，截至目前子公司已全部归还银行借款",
    "公司资金被控股股东占用，截至目前控股股东已全部归还银行借款",
    "控股股东占用资金2亿元，控股股东已全部归还银行借款",
    "控股股东已向公司出具还款保证书全部归还占用资金",  # pinned in signals_review9.tsv
]

# pinned in signals_review9.tsv at 高 (the 其他风险警示): 资金占用 now live beside it, no longer cleared
PINNED_SUPPOSED = [
    "若控股股东在2026年12月31日前已归还占用的全部资金，公司将申请撤销其他风险警示",
    "若控股股东已通过自筹资金归还占用的全部资金，公司将申请撤销其他风险警示",
]


@pytest.mark.parametrize("text", CLEARED)
def test_the_occupiers_repayment_clears_the_occupation(text: str) -> None:
    hits = read_at(text, None)
    assert states(hits) == [("资金占用", "cleared")]


@pytest.mark.parametrize("text", STANDS)
def test_no_repayment_of_the_occupation_leaves_it_live(text: str) -> None:
    hits = read_at(text, "高")
    assert any(h.name == "资金占用" and h.state == "live" for h in hits), states(hits)


@pytest.mark.parametrize("text", PINNED_SUPPOSED)
def test_a_supposed_repayment_clears_nothing(text: str) -> None:
    hits = read_at(text, "高")
    assert ("资金占用", "live") in states(hits)


def test_the_fixed_lines_left_the_open_list() -> None:
    data = Path(__file__).resolve().parent / "data"
    inputs = open_inputs()
    assert not inputs & {*FIXED_OPEN, STANDS[0]}
    pinned = (data / "signals_review9.tsv").read_text(encoding="utf-8").splitlines()
    assert {f"高\t{text}" for text in [*PINNED_SUPPOSED, STANDS[-1]]} <= set(pinned)
