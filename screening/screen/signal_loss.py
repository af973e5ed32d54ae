"""A year's loss stated plainly, and two fiscal years' losses stated with their years (the eighteenth session).

The 业绩 rows of ``signal_table.py`` read a loss worded through 净利润 (净利润-3.2亿元, 净亏损3.2亿元, 净利润为负) and
two years' losses worded against 上年同期. A report's plainest wording, "<period> the company lost <amount>"
(公司2025年度亏损3.2亿元, 本年度亏损3.2亿元, 公司2025年度出现亏损), and two annual losses each with its year
(2025年度净利润-3.2亿元，2024年度净利润-1.1亿元) read nothing, or one year's loss, a tier low: a hidden risk.

Which loss is the company's own is decided by the clause's start: only the company (公司, 本集团) or nothing
may stand before the period, so 标的公司/参股公司/子公司2025年度亏损 (another party's), 若…亏损 / 可能出现亏损 (a
hypothetical), 亏损的子公司 / 亏损合同 / 弥补亏损 / 可抵扣亏损 (accounting words) and 亏损风险 (a risk factor)
stay unread. A loss of one year followed by a profit of the next (2024年度亏损1.1亿元，2025年度盈利2亿元: a
turnaround) is last year's loss, blanked as a counter. Years pair only when consecutive (2025 and 2023 are one
year's loss each: 中). The pairs are generated for the years filings state, so the table stays data.
"""

from __future__ import annotations

_YEARS = range(2011, 2041)  # the fiscal years a report of this product's horizon states
_OWN = r"(?:本公司|公司|本集团|集团|我司|上市公司)"
# the current period: a stated year (its whole year, first half or first nine months; not one quarter of it,
# which a profitable year may hold), or this year's own words
_NOW = (r"(?:(?:20\d\d|本|今)\s*年(?:度|全年)?(?:前三季度|上半年|半年度|一季度|第一季度|1-9月|1-6月)?|"
        r"本(?:年度|报告期|期)|报告期内?|当期|上半年|前三季度)")
_AMOUNT = r"(?:人民币)?\s*\d[\d,.]*\s*(?:亿|万|千)?元"
# a clause's start: its text's, or after a comma the reader keeps inside it (the normalised ,2025年度… is no
# clause break there: a comma before digits may be a thousands separator)
_START = r"(?<![^,，；;。:：\s])"
_NOT_OTHERS = r"(?!标的|对方|参股|子公司|联营|合营|被投资|客户|供应商)"  # no other party's figures between
# a clause that opens with the company or the period (受…影响 before it is the cause), then the loss and its
# amount, or the loss ending the clause (公司2025年度出现亏损。); not 亏损收窄/亏损合同/亏损风险/亏损的子公司
OWN_LOSS = (
    _START + r"(?:受[^，,。；;]{1,24}影响\s*)?(?:" + _OWN + r"\s*)?" + _NOW + r"\s*(?:" + _OWN + r"\s*)?"
    r"(?:共|累计)?(?:出现|发生|录得|实现|产生)?(?:经营)?亏损(?:金额|额|总额)?(?:为|约为|约|达|达到)?\s*"
    r"(?:" + _AMOUNT + r"|(?=\s*(?:[。；;]|$)))",
    _START + r"(?:受[^，,。；;]{1,24}影响\s*)?" + _OWN + r"\s*(?:出现|发生|录得|实现|产生)?亏损(?:金额|额|总额)?"
    r"(?:为|约为|约|达|达到)?\s*" + _AMOUNT,
)

# the loss in the next clause of a sentence the company's period opened: 公司2025年度营业收入12亿元，亏损3.2亿元
LOSS_AFTER = (_START + r"(?:" + _OWN + r"\s*)?" + _NOW + r"(?:" + _NOT_OTHERS + r"[^。；;！!？?\n]){0,40}?[，,]\s*"
              r"(?:净)?亏损\s*" + _AMOUNT)

# a year's loss, worded any way the 业绩 rows read one: 亏损3.2亿元, 为负, 净利润-3.2亿元, 亦为负
_LOSS = (r"(?:(?:出现|发生|录得|实现)?(?:净)?(?<!弥补)(?<!抵扣)(?<!投资)(?<!汇兑)亏损(?!合同|准备|风险|的|子公司|业务)|"
         r"(?:均|亦|也|仍|同样)?为负值?|"
         r"(?:为|约为|是)?\s*-\s*\d[\d,.]*\s*(?:亿|万|千)?元)")
# inside one clause, naming no other party: 2025年度归属于上市公司股东的净利润 (not 2025年度对子公司投资亏损)
_CLAUSE = r"(?:" + _NOT_OTHERS + r"[^，,。；;！!？?\n]){0,30}?"
_BETWEEN = r"(?:(?!20\d\d|盈利|扭亏)[^。；;！!？?\n]){0,60}?"  # to the other year, past no third year or profit
_PROFIT = r"(?:(?:实现)?(?:净)?盈利(?!能力|水平|模式|预测|空间|状况)|扭亏|(?:归母)?净利润(?:为|约为|是)?\s*\d)"
# the later year's profit stated as a fact or a forecast (预计扭亏为盈: review 9's open list reads it none), not
# denied, hoped for or planned: 仍未扭亏, 未能实现盈利, 力争扭亏 leave last year's loss standing
_STATED = r"(?:(?!未|不|无法|难|力争|争取|计划|目标|希望|力求|确保|若|如|仍)[^，,。；;！!？?\n]){0,30}?"


def _year(y: int) -> str:
    return rf"{y}\s*年度?"


# the company's own years: the first year opens its clause, or follows the company (公司2025年度…; not
# 标的公司2025年度…), and so does the second (…，2024年度… / …，公司2024年度…; not …，参股公司2024年度…)
_OPENS = r"(?:(?<![^，,、：:。；;\s])|(?<![^，,、：:。；;\s及和与而且较比])" + _OWN + r"\s*)"
_FOLLOWS = r"(?:(?<=[，,、：:\s及和与而且较比])|(?<=[，,、：:\s及和与而且较比])" + _OWN + r"\s*)"


def _pair(later: int, earlier: int) -> str:
    """Both years' losses stated, either year first: 2025年度亏损…，2024年度亏损… / 2024年度…为负，2025年度亦为负."""
    a, b = _year(later), _year(earlier)
    return "|".join(_OPENS + x + _CLAUSE + _LOSS + _BETWEEN + _FOLLOWS + y + _CLAUSE + _LOSS
                    for x, y in ((a, b), (b, a)))


def _listed(later: int, earlier: int) -> str:
    """The two years listed, their figures after: 2025年度、2024年度归母净利润分别为-3.2亿元、-1.1亿元 / 分别亏损…."""
    a, b = _year(later), _year(earlier)
    both = r"分别(?:为|是)?\s*(?:(?:净)?亏损\s*\d|-\s*\d[\d,.]*\s*(?:亿|万|千)?元?\s*[、和及与，,]\s*-\s*\d)"
    return "|".join(_OPENS + x + r"\s*[、和及与至]\s*" + y + _CLAUSE + both for x, y in ((a, b), (b, a)))


# 业绩续亏's sentence patterns: one alternation per consecutive pair of years
# (one pattern, each alternative behind a cheap look at a year, so a sentence without one is passed over fast)
TWO_YEARS = (r"(?=(?:" + _OWN + r")?\s*20\d\d\s*年)(?:"
             + "|".join(f"{_pair(y, y - 1)}|{_listed(y, y - 1)}" for y in _YEARS) + ")")
# 业绩预亏's counters: a year's loss with the next year's profit beside it is last year's (a turnaround)
TURNAROUND = r"(?=20\d\d\s*年)(?:" + "|".join(
    f"{_year(y - 1)}{_CLAUSE}{_LOSS}(?=(?:(?!20\\d\\d)[^。；;！!？?\\n]){{0,60}}?{_year(y)}{_STATED}{_PROFIT})|"
    f"{_year(y)}{_STATED}{_PROFIT}(?:(?!20\\d\\d)[^。；;！!？?\\n]){{0,60}}?{_year(y - 1)}{_CLAUSE}{_LOSS}"
    for y in _YEARS) + ")"
# 业绩预亏's counter: another party's year of loss and the clauses that go on with it (标的公司2025年度亏损3.2亿元，
# 2024年度亏损1.1亿元: the normalised ",2024年度" opens no clause of the reader's, so the subject goes on)
OTHERS_LOSS = (r"(?:标的公司|交易对方|参股公司|联营企业|合营企业|被投资单位|(?<![本母])子公司)\s*20\d\d\s*年度?"
               r"[^，,。；;]{0,30}?亏损[^，,。；;]*(?:[,，]\s*20\d\d\s*年度?[^，,。；;]{0,30}?亏损[^，,。；;]*)*")

# (the nineteenth session) a whole fiscal year that opens a clause, or follows the company there (公司2025年度…,
# 2025年度归属于上市公司股东的净利润…; not 标的公司2025年度, 预计2025年度), and not a part of it (2025年上半年,
# 2025年度前三季度): the year of a loss its sentence states, paired across sentences by signal_years.py
_FISCAL = r"(?P<year>20\d\d)\s*年(?!度?(?:前三季度|上半年|半年度|第?[一二三四]季度|1-9月|1-6月))"
WHOLE_YEAR = _OPENS + _FISCAL
# (the twentieth session) the same year in a title (2024年年度业绩预亏公告, 关于2024年度业绩预亏的公告, 关于公司2025
# 年度预计亏损的提示性公告, 某某股份有限公司2024年年度业绩预亏公告, …暨2024年年度业绩预亏的公告): at its start,
# after 关于, 暨, 及 or a colon, or after the company itself; not after another company (子公司, 标的公司, 参股公司)
TITLE_YEAR = (r"(?:(?<![^：:，,、\s])|(?<=关于)|(?<=暨)|(?<=及)|(?<=公司)(?<!子公司)(?<!标的公司)(?<!参股公司)"
              r"(?<!对方公司)(?<!联营公司)(?<!合营公司))" + _FISCAL)
# a year's profit stated (2025年年度业绩预盈公告, 关于2025年度业绩扭亏为盈的公告, 公司2025年度实现盈利2亿元), as a
# fact or a forecast, not denied, hoped for or planned (仍未扭亏, 计划实现盈利: as _STATED), nor past a loss or last
# year's figure (2025年度亏损3亿元而上年同期盈利): it ends the losses of the years before it, as TURNAROUND does inside
# one sentence (signal_years.py)
YEAR_PROFIT = (r"(?:(?!未|不|无法|难|力争|争取|计划|目标|希望|力求|确保|若|如|仍|亏|上年|去年|同期)"
               r"[^，,。；;！!？?\n]){0,30}?(?:预盈|预增|" + _PROFIT + ")")
