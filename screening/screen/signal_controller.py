"""The controlling shareholder's own insolvency (控股股东被法院裁定受理重整申请, 控股股东被申请破产清算): the row
控股股东重整 (中) reads it, and the 债务违约 row (高) blanks it.

Before the twenty-second session such a title read 债务违约 高, as if the company itself were in 重整. It is not
the company's default, but it is a real risk to the company (the controller's shares go to the court, control may
change, what it owes the company or was guaranteed for is at risk), so it is 中, as the 股权质押与冻结 rows read the
controller's pledged or frozen shares (质押风险, 股份冻结: 中) where the company's own frozen accounts read 高. The
blind set labels it so (signals_blind2.tsv: 控股股东被申请破产清算, 控股股东之母公司…申请破产重整: 中). The company
named with it (公司及控股股东, 控股股东申请对公司进行重整) stays the company's 债务违约; what the controller's 重整
means for occupied funds reads the 资金占用 row (高) as before.
"""

from __future__ import annotations

from screening.screen.signal_words import HYPOTHETICAL

# the controller, or its own parent (控股股东之母公司), not named after the company (公司及控股股东)
_WHO = r"(?<![及和与、])(?:控股股东|实际控制人|实控人)(?:(?:之|的)(?:母公司|控股股东))?"
# not over the company as the one in 重整 (控股股东及公司, 申请对公司进行重整), nor the controller as an investor in
# another's (控股股东作为重整投资人, 参与某某公司重整)
_GAP = (r"(?:(?!(?:及|和|与|、|对|向|将)(?:本|上市)?公司|本公司|上市公司|公司(?:进行|的)|作为|参与|投资)"
        r"[^，,。；;：:！!？?\n]){0,24}?")
# the words whole, with what follows them (进入破产重整程序: 重整程序 is a 债务违约 pattern of its own)
CONTROLLER_INSOLVENT = (_WHO + _GAP + r"(?:预重整|破产重整|破产清算|重整|破产|清算)(?!投资)"
                        r"(?:申请|程序|计划|事项|进展|案件?)?")
# a risk factor's supposition (若控股股东进入破产程序，…): not a statement that it is
CONTROLLER_IF = HYPOTHETICAL + r"[^，,。；;]{0,8}?" + CONTROLLER_INSOLVENT
# its end, as 债务违约's (重整计划执行完毕): the whole sentence is then no risk of this row (a 中 row's good news
# is silent); not a promise made for after it (重整完成后归还)
CONTROLLER_ENDED = (r"重整计划[^，,。；;]{0,16}执行完毕",
                    r"(?:重整|破产)(?:程序)?(?:已)?(?:执行)?(?:完成|完毕|终结)(?!后|前|之)")
