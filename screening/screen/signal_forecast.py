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
A range that crosses zero (-500万元至1,000万元) may be a loss: it reads 业绩预亏 (中, visible), never 续亏, in a line
or in any forecast sentence, with the year before's loss beside it or not (the twenty-first session: ``CERTAIN_LOSS``).

The line's own figures (预测数值, 上年同期, 变动幅度: providers/forecast_words.py) are read the same way, by the
head's metric (the twentieth session: an export row whose only loss was 预测数值 -2.0E8 came back 低). So is a
forecast of negative net assets (预测指标 期末净资产 with a negative figure, or a table row 期末净资产：-5,000万元),
the *ST trigger, 高 as the sentence 预计期末净资产为负值 already read; before, both forms read nothing. Since the
twenty-first session all of them read the row 净资产为负 (they read 业绩续亏, which a net-asset figure does not say).
A negative 预测数值 beside a negative 上年同期 reads 续亏 only where the line states no range that may be a profit
(预测数值 is a range's midpoint: -1,000万元至500万元 gives -250万元), in its first sentence or the change after a kind.
"""

from __future__ import annotations

# 预测指标 whose negative figure is a loss, matched at the metric's end (归属于上市公司股东的净利润, 扣除非经常性损益后
# 的净利润, 扣非净利润, 归母净利润, 基本每股收益, 稀释每股收益, 利润总额); not 净利润增长率 (the head closes after it)
LOSS_METRICS = ("净利润", "利润总额", "每股收益")
# 预测指标 whose negative figure is the *ST trigger (股票上市规则 9.3.2: 期末净资产为负值), matched at the metric's end
# (期末净资产, 归属于上市公司股东的净资产, 每股净资产, 归属于母公司所有者权益); not 净资产收益率
NET_ASSET_METRICS = ("净资产", "所有者权益")


def _head(metrics: tuple[str, ...], *, named: bool) -> str:
    """The line's head, as the reader's copy has it (NFKC: （）：，-> ():, ; the space between CJK characters dropped):
    业绩预告 or 业绩预告修正, its bracket holding one of ``metrics`` as 预测指标 (``named``) or, unless named, no
    预测指标 or no bracket at all, then the colon (业绩预告：… has none)."""
    metric = r"(?<=[(,，])\s*预测指标\s*[^()\n]*?(?:" + "|".join(metrics) + r")\s*"
    bracket = r"\((?:(?!预测指标)[^()\n])*?" + (metric if named else r"(?:" + metric + r")?") + r"\)"
    return r"业绩预告(?:修正)?" + (bracket if named else r"(?:" + bracket + r")?") + r"\s*[:：]\s*"


_SAID = r"(?:(?:预计|预告)(?:将|约|可能)?(?:为|约为)?\s*)?"
HEAD = _head(LOSS_METRICS, named=False) + _SAID
# an amount: 8,000万元, 8000万, 1.2亿元, 0.12元 (per share), not 35% (the unit's 元 taken whole: no backtracking to
# read 万 as the amount's end before a range's 至)
_AMOUNT = r"\d[\d,.]*+\s*(?:(?:亿|万|千)元?+|元)"
_TO = r"\s*(?:至|到|~|-|–|—)\s*"  # a range's separator (～ is ~ after NFKC); a minus after it is the bound's sign
_LOSS = r"(?:-\s*" + _AMOUNT + r"|亏损[:：]?\s*" + _AMOUNT + r")"  # stated negative, or a loss: 亏损8,000万元
# 业绩预亏 (中): the figure stated as a loss, or a range whose upper bound is one (1,000万元至-500万元, rare; and
# 盈利500万元至亏损1,000万元, which read 续亏 高 through its 亏损 until the twenty-first session, then nothing)
FORECAST_LOSS = HEAD + r"(?:" + _LOSS + r"|(?:盈利[:：]?\s*)?" + _AMOUNT + _TO + r"(?:-\s*\d|亏损))"
# (the twenty-first session) the year before's loss, as a forecast states it beside this year's: 上年同期-5,000万元,
# 上年同期：-5,000万元, 上年同期亏损5,000万元, 上年同期归属于上市公司股东的净利润为-5,000万元; not a change against it
# (较上年同期-35%, 上年同期相比下降…)
# (the twenty-first session) 去年同期, 上年度, 上一年度 in the same construction as 上年同期 (…-8,000万元，去年同期
# -5,000万元 / ；上年度净利润为-5,000万元 read 中): the year before's figure; not its year-end (上年度末净资产为-…)
PRIOR_WORDS = r"(?:上年同期|去年同期|上一?年度)"
# (减值 is no 减: 上年同期计提资产减值后净利润为-5,000万元 is its net profit; the twenty-second session)
_PRIOR_GAP = (r"(?:(?!相比|比较|对比|增|减(?!值)|下降|上升|变动|本|末|净资产|所有者权益)"
              r"[^，,。；;：:！!？?\n\d%\s-]){0,24}?")
# (the twenty-first session, later) a figure that is another measure's (上年同期非经常性损益为-300万元, 本期经营
# 活动现金流量净额为-…, 营业收入, 费用, 减值, 所得税, 毛利, 资产) is no year's loss, either year's; 扣除非经常性损益
# (后)的净利润 is a profit (非经常 after 扣除/剔除 is no measure). One table, read by each side of 续亏
# (LOSS_THEN_PRIOR read 预计净利润-3,000万元，上年同期非经常性损益为-300万元 as 续亏 高), and only in the words
# before the clause's figure (a cause after it, 亏损800万元主要系计提资产减值, is still the loss's: PRIOR_THEN_LOSS
# read it 中)
OTHER_MEASURES = (r"(?<!扣除)(?<!剔除)非经常", "收入", "现金", "费用", "减值", "所得税", "毛利", "资产",
                  # (the twenty-second session) 投资收益, 公允价值变动收益 (not 每股收益), and an event's 影响 on the
                  # profit (诉讼事项对公司利润的影响为-500万元至100万元): no year's loss
                  r"(?<!每股)收益", "影响")
# (the twenty-second session) the measure the figure is of is the last one named before it: a profit named after
# another measure's word is the figure's (上年同期剔除股份支付费用影响后的净利润为-5,000万元, 本期计提资产减值准备后
# 净利润预计为-3,000万元 read 中 beside the other year's loss, the guard seeing 费用/减值 anywhere in the clause)
PROFIT_NAMES = ("净利润", "利润总额", "每股收益", "亏损")
_WORD = r"[^，,。；;！!？?\n\d-]"
_MEASURE = (r"(?!" + _WORD + r"{0,24}?(?:" + "|".join(OTHER_MEASURES) + r")(?:(?!" + "|".join(PROFIT_NAMES) + r")"
            + _WORD + r")*+(?!" + _WORD + r"))")
_PRIOR = r"(?<![较比与])" + PRIOR_WORDS + _MEASURE + _PRIOR_GAP
_PRIOR_FIGURE = r"(?:亏损|-\s*\d[\d,.]*+(?!\s*%))"
# in any sentence no bare space before the figure: ``上年同期 -5,000万元`` is a forecast line's own figure
# (providers/forecast_words.py), read by the line's metric (a revenue's is no loss)
PRIOR_LOSS = _PRIOR + r"(?:(?:[:：]|约?为)\s*)?" + _PRIOR_FIGURE
_LINE_PRIOR_LOSS = _PRIOR + r"\s*(?:[:：]\s*)?(?:约?为\s*)?" + _PRIOR_FIGURE  # after a profit line's head
# the gap from this year's figure to it: one sentence, where a ；before 上年同期 goes on with the same forecast
# (-8,000万元至-6,000万元；上年同期：-5,000万元 read 中 where the comma read 高; signal_text.py keeps it one unit)
TO_PRIOR = r"(?:[^。；;！!？?\n]|[；;](?=\s*" + PRIOR_WORDS + r")){0,40}?"
# a sentence after a ；that states the year before's figure, as the line above does (去年同期：-5,000万元, 上年度归属于
# 上市公司股东的净利润为3,000万元, 上年度亏损…): signal_text.py joins it to the forecast before it (上年同期 at a
# sentence's start, as before, whatever follows)
_PRIOR_STATES = PRIOR_WORDS + _PRIOR_GAP + r"(?:(?:[:：]|约?为)\s*)?(?:亏损|盈利|-?\s*\d)"
PRIOR_STATED = r"\s*(?:上年同期|" + _PRIOR_STATES + r")"
# this year's loss stated certain: 亏损 (not 亏损500万元至盈利1,000万元) or a negative figure that is no range's lower
# bound reaching zero or a profit (-8,000万元至-6,000万元 is one; -500万元至1,000万元 may be a profit: 中, never 续亏),
# nor a range's dash (-500万元-1,000万元: 1,000万元 is the upper bound)
_REACHES_PROFIT = _TO + r"(?:盈利[:：]?\s*)?\d"
# (the twenty-first session) nor a range's upper bound (500万元至-1,000万元, written high to low: its lower bound
# 500万元 may be a profit, 中 as -1,000万元至500万元), read as one unit with the separator before it
_NOT_UPPER = r"(?<![至到~–—])(?<![至到~–—]\s)"
CERTAIN_FIGURE = (_NOT_UPPER + r"(?<![\d万亿千元])(?>-\s*\d[\d,.]*+\s*(?:(?:亿|万|千)元?+|元)?)(?!"
                  + _REACHES_PROFIT + r")")
CERTAIN_LOSS = r"(?:" + _NOT_UPPER + r"亏损(?!(?>[:：]?\s*" + _AMOUNT + r")" + _TO + r"盈利)|" + CERTAIN_FIGURE + r")"
# 业绩续亏 (高): the whole range a loss (not -500万元至1,000万元) and the year before's loss beside it in the sentence
# (…，上年同期：-5,000万元 / 上年同期亏损5,000万元)
FORECAST_LOSS_AGAIN = (HEAD + r"(?:-\s*" + _AMOUNT + r"(?:" + _TO + r"-\s*" + _AMOUNT + r")?|亏损[:：]?\s*" + _AMOUNT
                       + r"(?:" + _TO + _AMOUNT + r")?)(?!" + _REACHES_PROFIT + r")" + TO_PRIOR + _LINE_PRIOR_LOSS)
# the same in any forecast sentence: a loss, then the year before's (净利润-8,000万元至-6,000万元，上年同期-5,000万元)
LOSS_THEN_PRIOR = CERTAIN_LOSS + TO_PRIOR + PRIOR_LOSS
# (the twenty-first session) the year before's loss stated first, then this year's, named as this year's and certain
# (上年度净利润为-5,000万元，本年度净利润为-3,000万元 read 业绩预亏 中): not a change against it (本期较上年同期-35%),
# nor a turnaround (本期扭亏 / 实现盈利), in the later clause; and each year's figure a profit's, not another measure's
# (本期非经常性损益为-300万元, 上年同期经营活动现金流量净额为-…; 扣除非经常性损益后的净利润 is a profit)
_NOW = r"(?:本年度|本年|今年|本报告期|报告期内?|本期)"
_OPENS_NOW = r"(?:(?:本|上市)?公司)?" + _NOW  # a sentence after the ；that opens with this year (公司本期…, the 22nd)
# (the twenty-first session, later) across a ；too, where the later sentence opens with this year (去年同期净利润
# -5,000万元；本期净利润为-3,000万元 read 中): signal_text.py keeps the two one unit (NOW_STATED)
_NOW_GAP = r"(?:(?!上年|去年|同期|较|比|增|减(?!值)|下降|上升|变动|扭亏|盈利)[^，,。；;！!？?\n\d-]){0,24}?"
PRIOR_THEN_LOSS = (PRIOR_LOSS + r"(?:[^。；;！!？?\n]|[；;](?=\s*" + _OPENS_NOW + r")){0,40}?" + _NOW + _MEASURE
                   + _NOW_GAP + CERTAIN_LOSS + r"(?!\s*%)")
# the two sentences signal_text.py joins for it: one whose last clause states the year before's figure and ends at
# the ；(PRIOR_LAST, read on that sentence alone), then one that opens with this year and its figure, no change
# against the year before (NOW_STATED); a sentence after the ；that opens otherwise (公司…, 本期营业收入较上年同期
# 增长…) stays apart. (the twenty-second session) The year-before clause may be followed by its cause, clauses that
# name no period of this year (上年同期净利润-5,000万元，主要系计提资产减值准备；本期预计净利润-3,000万元至-2,000万元
# read 中 where the text without the cause read 续亏 高)
_CLAUSE_REST = r"(?:[^，,。；;！!？?\n]|(?<=\d),(?=\d))*"
_CAUSE = r"(?:[，,](?:(?!" + _NOW + r"|当期|20\d\d)[^，,。；;！!？?\n])+){0,3}"
PRIOR_LAST = r"(?:^|[，,；;])\s*" + _PRIOR_STATES + _CLAUSE_REST + _CAUSE + r"[；;]\s*$"
NOW_STATED = r"\s*" + _OPENS_NOW + _NOW_GAP + r"(?:亏损|-?\s*\d)"

# The line's own figures, as providers/forecast_words.py writes them into its first sentence (after the kind or
# the change's first sentence): ``预测数值 -2亿元，上年同期 -5,000万元，变动幅度 -300%``. Read by the head's metric:
# a profit's negative 预测数值 is a loss (中), with a negative 上年同期 beside it a second one (续亏, 高), a profit's
# 变动幅度 of -50% or worse a 预减 (中: the group's 预减超50%); 变动幅度 -35% or +60%, a revenue's figure, say nothing.
_REST = r"[^。；;！!？?\n]*?"  # the rest of the head's sentence: its kind, a change's words
_FIGURE = r"(?<![^\s:：,，])预测数值\s*-\s*" + _AMOUNT
_PROFIT_HEAD = _head(LOSS_METRICS, named=False)
FIGURE_LOSS = _PROFIT_HEAD + _REST + _FIGURE
# (the twenty-first session) 续亏 from the figures only where the line states no range that may be a profit: 预测数值
# is the range's midpoint, so -1,000万元至500万元 gives -250万元 and read 续亏 高 beside 上年同期 -5,000万元, where the
# range alone reads 业绩预亏 中 (CERTAIN_LOSS): the figures say no more than the range they come from
_STRADDLE = (r"(?:-\s*" + _AMOUNT + _REACHES_PROFIT + r"|亏损[:：]?\s*" + _AMOUNT + _TO + r"盈利"
             # or written high to low: a bound not negative, then a negative one (500万元至-1,000万元)
             r"|(?<![-\d.,])(?<!-\s)(?:盈利[:：]?\s*)?" + _AMOUNT + _TO + r"(?:-\s*\d|亏损))")
FIGURE_LOSS_AGAIN = (_PROFIT_HEAD + r"(?![^\n]*?" + _STRADDLE + r")" + _REST + _FIGURE
                     + r"\s*[,，]\s*上年同期\s*-\s*\d")
# a line's first sentence that is its kind and figures alone (业绩预告（…）：不确定，预测数值 -250万元，上年同期
# -5,000万元。), the change after it (-1,000万元至500万元。): signal_text.py keeps the two one unit, so the figures
# are read with the range they come from (providers/forecast_words.forecast_body puts the figures after the kind)
KIND_FIGURES = (r"业绩预告(?:修正)?(?:[(（][^()（）\n]*[)）])?\s*[:：]\s*[^,，。；;:：\d\n]{1,8}[,，]\s*"
                r"(?:预测数值|上年同期|变动幅度)\s[^。；;\n]*。$")
CHANGE_AFTER = r"(?!\s*业绩变动原因)[^。；;\n]*\d"  # the change's first sentence: a figure, not the reason
FIGURE_FALL = _PROFIT_HEAD + _REST + r"(?<![^\s:：,，])变动幅度\s*-\s*(?:[5-9]\d|[1-9]\d{2,})(?:\.\d+)?\s*%"
# 期末净资产 forecast negative, the *ST trigger (高, as 预计期末净资产为负值 reads): any negative figure of a net-asset
# line (a bare one or a range's bound right after the head, 为负值, or its 预测数值), or a table row's 净资产 stated
# negative (期末净资产：-5,000万元, 1.归属于上市公司股东的净资产：-0.5亿元至-0.3亿元), not the year before's or the
# period's start (上年末, 期初, 年初)
NET_ASSETS_NEGATIVE = (_head(NET_ASSET_METRICS, named=True) + r"(?:" + _SAID + r"(?:-\s*\d|负值|为负|" + _AMOUNT + _TO
                       + r"-\s*\d)|" + _REST + _FIGURE + r")")
NET_ASSETS_ROW = (r"(?:^|(?<=[\s,，:：;；。！!？?]))"
                  r"(?:(?!上年|去年|上一年|期初|年初|同期)[^,，:：;；。！!？?\n]){0,30}?净资产[:：]\s*"
                  + _SAID + r"-\s*\d")
# (the twenty-second session) a forecast of this period's figure with no metric named, a loss or a range that may
# be one (上年同期-5,000万元，本期预计500万元至-1,000万元 / 预计2025年度-1,000万元至500万元，上年同期-5,000万元 read
# nothing: a 业绩预告 cell often drops the head, and only a certain loss beside the year before's read, as 续亏):
# 业绩预亏 (中), the metric a profit's unless another measure is named (_MEASURE); said as forecast (预计, 预告), so a
# statement's bare 本期发生额-… is no loss
_NOW_WORDS = r"(?:" + _NOW + r"|20\d\d\s*年(?:度|全年)?)"
FORECAST_NOW = (r"(?:(?:预计|预告)\s*" + _NOW_WORDS + r"|" + _NOW_WORDS + r"(?=" + _WORD + r"{0,24}?(?:预计|预告)))"
                + _MEASURE + _NOW_GAP + r"(?:-\s*" + _AMOUNT + r"|" + _STRADDLE + r")")
# (the twenty-second session) another measure's negative figure, blanked for 业绩续亏: 经营活动产生的现金流量净额为
# -3,000万元，上年同期为-5,000万元 (a growing company's cash flow) and 非经常性损益为-300万元，上年同期为-500万元 read
# 续亏 高, the year before's guard (_MEASURE) not looking back at this year's figure. Up to the figure, no profit named
# after the measure (计提资产减值准备后净利润为-3,000万元 is a loss) and no other figure (营业收入5亿元、净利润-…)
OTHER_FIGURE = (r"(?:" + "|".join(OTHER_MEASURES) + r")(?:(?!" + "|".join(PROFIT_NAMES) + r")" + _WORD
                + r")*+-\s*\d[\d,.]*+")
# (the twenty-second session) a forecast a correction replaces (原预计亏损2,000万元至3,000万元，修正后预计盈利500万元
# 至800万元; 更正前：预计净利润-2,000万元；更正后：…) read 业绩预亏 中 from the figure it no longer stands by: good
# news raising the risk. Blanked up to the corrected figure, which is read as any forecast (原预计盈利…，修正后预计
# 亏损… reads the loss); an 原预计 with no correction after it in the sentence stays read. signal_text.py keeps a
# sentence after a ；that opens with the correction (CORRECTED) one unit with the one before
CORRECTED = r"\s*(?:现(?:修正|更正|调整|预计)|(?:修正|更正|调整)(?:后|为))"
SUPERSEDED = (r"(?:原(?:预计|预告|披露)|(?:修正|更正)前)[^。！!？?\n]*?(?=[，,；;]" + CORRECTED + ")")
# the rows of signal_earnings.py's 业绩预亏 (中), 业绩续亏 and 净资产为负 (高) that read a forecast line
LOSS_ROWS = (FORECAST_LOSS, FIGURE_LOSS, FIGURE_FALL, FORECAST_NOW)
AGAIN_ROWS = (FORECAST_LOSS_AGAIN, FIGURE_LOSS_AGAIN, LOSS_THEN_PRIOR, PRIOR_THEN_LOSS)
NET_ASSETS_ROWS = (NET_ASSETS_NEGATIVE, NET_ASSETS_ROW)
