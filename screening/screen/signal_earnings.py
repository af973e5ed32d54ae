"""The 业绩预告 group's rows of the signal table: 业绩预亏 (中), 业绩续亏 and 净资产为负 (高).

Moved out of ``signal_table.py`` (at the module limit) in the twenty-first session, as they were, but for what that
session mended: a range that may be a profit (-500万元至1,000万元，上年同期-5,000万元) read 续亏 高 (now 业绩预亏 中, a
possible loss after a loss: the seed's 高 is a loss in each of two years, and this year's is not stated);
上年同期 after a ；read nothing where the comma read 续亏; 净资产不为负值 read 高; a forecast of negative net assets
was named 业绩续亏, and so was the *ST profit-and-revenue test (孰低者为负值且营业收入低于…, now the row
退市风险警示's alone); 控股股东已资不抵债 and 子公司已资不抵债 read 净资产为负 (another party's insolvency); the
year before's loss stated first (上年度净利润为-5,000万元，本年度净利润为-3,000万元) read only 中. What a forecast
line's figures say is read in ``signal_forecast.py``, a year's plain loss and two years' losses in ``signal_loss.py``.
"""

from __future__ import annotations

from screening.screen.signal_forecast import (
    AGAIN_ROWS,
    CERTAIN_FIGURE,
    LOSS_ROWS,
    NET_ASSETS_ROWS,
    OTHER_FIGURE,
    PRIOR_WORDS,
    SUPERSEDED,
)
from screening.screen.signal_gaps import G as _G
from screening.screen.signal_gaps import S as _S
from screening.screen.signal_loss import LOSS_AFTER, OTHERS_LOSS, OWN_LOSS, TURNAROUND, TWO_YEARS
from screening.screen.signal_rule import SignalRule

# (the twenty-first session) another party insolvent, in its clause (控股股东已资不抵债难以归还占用的全部资金, 被担保方
# 资不抵债): not the company's net assets (the 资金占用 / 担保 rows read what it means for the company); not the company
# named with it (控股股东及公司均已资不抵债, 公司及控股股东均已资不抵债). Nor a subsidiary's (子公司已资不抵债 read
# 高, a later fix of that session): its deficit is consolidated, but the *ST trigger is the group's own net assets,
# which the subsidiary's deficit makes negative only where it outweighs the rest; a text that says so reads the row
# (公司及子公司均已资不抵债, 预计期末净资产为负值), and what the company loses on it reads its own rows (减值, 担保)
OTHERS_INSOLVENT = (r"(?<![及和与、])(?:控股股东|实际控制人|实控人|关联方|关联人|关联企业|关联公司|担保对象|"
                    r"被担保(?:方|人|对象|企业|单位)|子公司|孙公司|参股公司)"
                    r"(?:(?![及和与、]\s*(?:本|上市)?公司|本公司|上市公司)[^，,。；;：:！!？?\n]){0,24}?资不抵债")
# (the twenty-second session) one event's effect on the profit (预计本期对公司净利润的影响金额为-500万元至-300万元,
# 该事项减少公司净利润约500万元的影响): what the event costs, not the year's profit, which may stay well above zero
EVENT_IMPACT = (r"净利润(?:的)?(?:影响|影响金额|影响额|影响数)(?:金额|额|数)?(?:预计|约|将)*(?:为|约为)?\s*-?\s*[\d,.]+"
                r"(?:\s*(?:万元|亿元|元))?(?:\s*(?:至|~|～)\s*-?\s*[\d,.]+(?:\s*(?:万元|亿元|元))?)?")
_PCT50 = r"(?<![\d.])(?:[5-9]\d|100)(?:\.\d+)?\s*%"  # a fall of 50% or more, not read from a longer number

EARNINGS_ROWS: tuple[SignalRule, ...] = (
    SignalRule("业绩预亏", "中", "业绩预告", (
        r"预亏", r"首亏", r"首次亏损", r"(?:预计|预告)" + _G + r"(?:出现)?亏损", r"预减",
        r"净利润" + _G + r"(?:下降|减少|降幅)" + _G + _PCT50, r"净利润" + _G + r"(?:为|约为)?\s*(?:-\s*\d|亏损)",
        r"由盈转亏", r"转为亏损", r"更正为" + _G + r"亏损", r"净利润(?:将|预计|可能)?为负", *OWN_LOSS,  # signal_loss.py
        # 实现归属于上市公司股东的净亏损3.2亿元 (2026-12-06), 净亏损约人民币2,300万元 (review 12), not last year's
        r"(?<!上年同期)(?<!去年同期)(?<!上年度)净亏损\s*(?:约为|约|为)?\s*(?:人民币)?\s*[\d,.]+",
        r"(?:利润|盈利|收益|业绩|净利|扣非)" + _G + r"(?:下滑|降低)" + _G + _PCT50,  # not 能耗降低52%, 负债率降低
    ), (r"扭亏", SUPERSEDED, PRIOR_WORDS + r"(?:业绩情况)?[：:][^。；;]*", TURNAROUND, OTHERS_LOSS, EVENT_IMPACT,
        # (not this year's estimate compared with it: 较上年同期净利润，预计为-6,200万元; twelfth session); 去年同期
        # and 上年度 as 上年同期 (上年度净利润为-5,000万元 read 业绩预亏 beside this year's profit; the
        # twenty-first session)
        PRIOR_WORDS + r"[^，,。；;]{0,24}净利润[，,]?(?!\s*(?:预计|预告))" + _G
        + r"(?:为|约为)?\s*(?:-\s*[\d,.]+|亏损[\d,.]*)",
        # the year before's loss (上年同期归属于上市公司股东的净亏损为3,200万元, 上一年度净亏损为…; review 13), not
        # this year's compared with it (与上年同期相比本报告期净亏损为…, 较上年同期本年度净亏损约为…)
        r"(?:上年同期|去年同期|上年度|上一年度)(?:(?!本|当期|今年|相比|比较|对比)[^，,。；;]){0,24}?净亏损\s*"
        r"(?:约为|约|为)?\s*(?:人民币)?\s*[\d,.]+"),
        clears=(r"扭亏为盈", r"实现盈利"),
        sentence=(r"净利润" + _S + r"(?:下降|减少|降幅|下滑|降低)" + _G + _PCT50,
                  # a 业绩预告 table row: 净利润：-8,000万元至-6,000万元 / ：亏损：8,000万元 / ：预计为-6,200万元
                  r"(?<!上年同期)(?<!同期)净利润[：:]\s*(?:(?:预计|预告)(?:将|约|可能)?为\s*)?(?:亏损[：:]?\s*\d|-\s*\d)",
                  r"本报告期[：:]\s*(?:亏损|-\s*\d)", LOSS_AFTER, *LOSS_ROWS,  # signal_forecast.py
                  r"净利润" + _S + r"本(?:报告)?期(?:预计|预告)(?:将|约|可能)?为\s*-\s*\d",
                  r"较上年同期净利润[，,]\s*(?:预计|预告)(?:将|约|可能)?为\s*-\s*\d",
                  r"(?<!上年同期)(?<!同期)净利润[，,]\s*(?:预计|预告|初步测算)?(?:将|约|可能)?为\s*(?:-\s*\d|亏损)")),
    SignalRule("业绩续亏", "高", "业绩预告", (
        # wording 2024-2026 filings use (a trial, 2026-12-06)
        r"(?:连续|最近)(?:两|三|2|3)个?(?:会计)?年度" + _G + r"为负",
        r"续亏", r"增亏", r"连续" + _G + r"亏损", r"减亏", r"亏损收窄",  # still a loss, after a loss: 续亏
    ), (r"扭亏", OTHER_FIGURE, SUPERSEDED), sentence=(
        # 最近两个会计年度经审计的净利润均为负值; 2025年度为-3.2亿元，2024年度为-1.5亿元
        r"(?:最近|连续)(?:两|三|2|3)个?(?:会计)?年度?" + _S + r"(?:均为负|为负值|均亏损|均为亏损)",
        # (not the *ST test …孰低者为负值且营业收入低于3亿元, a year's figures against a delisting rule: the row
        # 退市风险警示 (高) reads it, where it was named 业绩续亏 too before the twenty-first session)
        TWO_YEARS, *AGAIN_ROWS,  # signal_loss/forecast (a loss, 上年同期's loss)
        r"净利润(?:为|约为)?\s*" + CERTAIN_FIGURE + _S + r"(?:20\d\d|上)年度?(?:同期)?(?:为|约为)\s*-\s*\d")),
    # negative net assets (forecast, stated or 资不抵债): the *ST trigger (股票上市规则 9.3.2), 高; named for what it is
    # (it read 业绩续亏 before the twenty-first session, though a profitable year may end with it). Not denied in its
    # gap (净资产不为负值, 并非负值: a false 高 before), where 未经审计 may stand (净资产(未经审计)为负值)
    SignalRule("净资产为负", "高", "业绩预告", (
        r"(?:期末)?净资产(?:(?!不|非|未(?!经))[^，,。；;：:！!？?\n]){0,12}(?:为负|负值)",
        r"净资产(?:为|约为|将为)?\s*-\s*\d", r"资不抵债",
    ), (OTHERS_INSOLVENT,), sentence=NET_ASSETS_ROWS),  # signal_forecast.py
)
