"""A 业绩预告 line's own figure, read by the 预测指标 it forecasts (the twentieth session).

东方财富's 业绩预告 export gives a stock a row per 预测指标, its 业绩变动 cell often a bare figure or range
(-8,000万元至-6,000万元, -8000万~-6000万, -1.2亿元至-0.8亿元) and its 预告类型 at times empty. The pool reader joins
such a row as ``业绩预告（<day>公告，预测指标 <metric>）：<change>。`` (pool_rows.join_forecast) and the providers
as ``业绩预告（<period>，<day>公告[，预测指标 <metric>]）：<change>。`` (report_text.forecast_sentence). With no
预告类型 word and no 净利润 right before the figure, a forecast loss read nothing: the row came back 低 without a
业绩预亏 flag. The 预测指标 went inside the head's brackets on purpose (净利润：-35%至-20% read a growth range as a
loss), so the figure is read here, after the head, by what its metric is.

What a negative figure says is knowledge, kept as data: ``LOSS_METRICS`` are the 预测指标 whose negative figure is
a loss (a profit line, or the profit per share: 每股收益 -0.12元 is a loss per share). Any other metric says no loss:
营业收入 cannot be negative (a negative one is a change or an error, not a loss), 非经常性损益 may be (a charge),
净利润增长率 is a rate. A head without a 预测指标 is a profit forecast (the providers keep the net profit's row; a
file with no 预测指标 column forecasts the profit). Only an amount is read (元, 万, 亿): a percentage (-35%至-20%,
同比下降20%至35%) is a change, 预减 territory, read by the 预减 rows, and a figure without a unit may be one.
A range that crosses zero (-500万元至1,000万元) may be a loss: it reads 业绩预亏 (中, visible), never 续亏.
"""

from __future__ import annotations

# 预测指标 whose negative figure is a loss, matched at the metric's end (归属于上市公司股东的净利润, 扣除非经常性损益后
# 的净利润, 扣非净利润, 归母净利润, 基本每股收益, 稀释每股收益, 利润总额); not 净利润增长率 (the head closes after it)
LOSS_METRICS = ("净利润", "利润总额", "每股收益")

# the line's head, as the reader's copy has it (NFKC: （）：，-> ():, ; the space between CJK characters dropped):
# 业绩预告 or 业绩预告修正, its bracket holding no 预测指标 or a loss metric, then the colon (业绩预告：… has none)
_METRIC = r"预测指标\s*[^()\n]*?(?:" + "|".join(LOSS_METRICS) + r")\s*"
HEAD = (r"业绩预告(?:修正)?(?:\((?:(?!预测指标)[^()\n])*?(?:(?<=[(,，])\s*" + _METRIC + r")?\))?\s*[:：]\s*"
        r"(?:(?:预计|预告)(?:将|约|可能)?(?:为|约为)?\s*)?")
# an amount: 8,000万元, 8000万, 1.2亿元, 0.12元 (per share), not 35% (the unit's 元 taken whole: no backtracking to
# read 万 as the amount's end before a range's 至)
_AMOUNT = r"\d[\d,.]*+\s*(?:(?:亿|万|千)元?+|元)"
_TO = r"\s*(?:至|到|~|-|–|—)\s*"  # a range's separator (～ is ~ after NFKC); a minus after it is the bound's sign
_LOSS = r"(?:-\s*" + _AMOUNT + r"|亏损[:：]?\s*" + _AMOUNT + r")"  # stated negative, or a loss: 亏损8,000万元
# 业绩预亏 (中): the figure stated as a loss, or a range whose upper bound is one (1,000万元至-500万元, rare)
FORECAST_LOSS = HEAD + r"(?:" + _LOSS + r"|" + _AMOUNT + _TO + r"-\s*\d)"
# 业绩续亏 (高): the whole range a loss (not -500万元至1,000万元) and the year before's loss beside it in the sentence
# (…，上年同期：-5,000万元 / 上年同期亏损5,000万元); the existing rows read 上年同期-5,000万元 without the colon
FORECAST_LOSS_AGAIN = (HEAD + r"(?:-\s*" + _AMOUNT + r"(?:" + _TO + r"-\s*" + _AMOUNT + r")?|亏损[:：]?\s*" + _AMOUNT
                       + r"(?:" + _TO + _AMOUNT + r")?)(?!" + _TO + r"\d)[^。；;！!？?\n]{0,40}?上年同期"
                       r"(?:业绩|净利润|归母净利润)?[:：]?\s*(?:为|约为)?\s*(?:亏损|-\s*\d)")
