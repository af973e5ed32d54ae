"""The broken-rule guarantee row's words (违规担保): a guarantee given without the board's or the meeting's review,
and the rule against one cited as kept.

Second only to the asset-freeze row in the reviews' attention (the 不得 rule cited as followed or broken, a balance of
nought, a long party named between 违规 and 担保). Kept in a module of its own, as signal_freeze.py is, so
signal_table.py stays a table a reader can check against the prompt; the row there reads these tuples unchanged
(``signals.TABLE_ID`` hashes every signal_*.py module).
"""

from __future__ import annotations

from screening.screen.signal_gaps import G as _G
from screening.screen.signal_gaps import L as _L
from screening.screen.signal_gaps import S as _S
from screening.screen.signal_words import RULE_NOT_FAILED

GUARANTEE = (
    # wording 2024-2026 filings use (a trial, 2026-12-06)
    r"违反(?:规定)?(?:的)?决策程序" + _G + r"担保", r"未经审批的?" + _G + r"担保",
    # the first 担保 after 违规 (_L): a form's later field (担保对象…反担保 无, 需向被担保方追偿：无) is its own
    r"违规" + _L + r"担保", r"担保" + _G + r"未履行" + _G + r"(?:审议|决策)程序",
    # a long party between (违规为控股股东及其关联方以外的第三方提供担保, 违规为控股股东、实际控制人张某某及其关联方
    # 提供担保, 违规为控股股东某某集团有限公司（以下简称“某某集团”）提供担保: twelfth session)
    r"违规(?:为|向)[^，,。；;！!？?\n]{0,40}?提供" + _G + r"担保",
)

GUARANTEE_NOT = (
    r"(?<!未)解除[^，,。；;违]{0,12}?担保",  # not 尚未解除的违规担保, 已解除部分违规担保
    # not a rule broken (违反了/未遵守/无视…严禁违规担保的规定) or failed (防范…的内部控制存在重大缺陷; review 18)
    RULE_NOT_FAILED + r"(?<!违反)(?<!违反了)(?<!违背)(?<!无视)(?<!未遵守)"
    r"(?<!没有遵守)(?<!未执行)(?<!未严格执行)(?<!违反公司)"
    r"(?:严禁|禁止|防止|防范|严防|杜绝|避免|不得)[^，,。；;]{0,4}违规[^，,。；;]{0,40}?担保"
    r"(?![^，,。；;]{0,16}?(?:缺陷|失效|形同虚设|不到位|执行不力|未得到|未能|未有效))",
    # a balance of nought (违规担保余额为人民币0.00万元, 报告期末违规担保余额：0元; review 12)
    r"违规(?:对外)?担保(?:的)?(?:余额|发生额)(?:为|：|:)?\s*(?<![\d.,])(?:0|零)(?:\.0+)?\s*(?:元|万元|亿元)?(?![\d.,])"
    # not before a balance that is not nought (违规担保发生额为0元，期末余额为3,000万元; review 13)
    r"(?!\s*(?:元|万元|亿元)?[，,、\s]{0,2}(?:报告)?(?:期末)?(?:的)?余额(?:为|：|:)?\s*(?:人民币)?\s*(?:[1-9]|0\.\d*[1-9]))",
    # a 不得 rule cited as followed (根据/按照/制定…未经审议不得对外担保的规定): its 未经 is no lapse, unless the
    # sentence breaks it (…的规定，公司却为控股股东提供担保 / …构成违规 / …应属无效) (reviews 7-10)
    r"(?<![未不没违])(?<!未能)(?<!没有)(?<!未严格)(?<!未能严格)(?<!没有严格)(?<!未有效)(?<!未认真)(?<!未切实)(?<!未完全)(?:根据|按照|依据|依照|遵守|遵循|执行|明确|对照|参照|按(?![期时约])|制定|建立|设有|落实|完善)了?[^，,。；;违]{0,16}?未(?:经|履行)(?=[^。；;！!？?\n]{0,40}?不得)(?![^。；;！!？?\n]{0,80}?(?:却|仍然?(?:为|向|对外|以)|但(?:是)?(?:本|(?:全资|控股)?子)?公司(?:仍然?|还|依然)?(?:为|向|对外|以)(?![^，,。；;]{0,20}?除外)|擅自|构成违规|属于违规|系违规|(?<![未不])违反|无效|不符合|疏漏|不到位|失职))",
)

GUARANTEE_SENTENCE = (
    r"担保" + _S + r"未(?:经|履行)" + _G + r"(?:审议|决策|董事会|股东大会)"
    r"(?![^，,。；;]{0,8}?不得|[^，,。；;]{0,4}[，,](?:任何人|任何部门|任何单位|任何个人|均|一律)不得)",
    r"未(?:经|履行)" + _G + r"(?:审议|决策|董事会|股东大会)"
    r"(?:(?!不得)[^。；;！!？?\n]){0,40}担保",
    # a review not held before a guarantee (没有按照公司章程规定履行审议程序，为控股股东提供担保; twelfth session)
    r"(?:没有|未|未能)(?:按照|依照|遵照|依据)?[^。；;！!？?\n]{0,20}?履行" + _G + r"(?:审议|决策)程序" + _S
    + r"(?:提供|对外)" + _G + r"担保",
    # a cited rule the company broke (违反了未经审议不得对外担保的规定，为控股股东提供担保): a
    # guarantee after the rule
    r"未(?:经|履行)" + _G + r"(?:审议|决策|董事会|股东大会)[^。；;！!？?\n]{0,40}?不得"
    r"[^。；;！!？?\n]{0,24}?(?:(?:的规定|之规定|规定的|的情况下|的(?:制度)?要求)[，,]?(?:[^，,。；;！!？?\n未不没无]{0,10}?)(?:而|仍然?|却|擅自|(?:指使|授意|要求)(?:本|上市)?公司|(?:疏漏|失职|不到位)[，,])?|[，,]但(?:是)?(?:本|(?:全资|控股)?子)?公司(?:仍然?|依然|还|却))"
    r"(?:(?:以[^，,。；;]{0,8}?名义)?(?:为|向|对外|对)[^。；;！!？?\n]{0,30}?(?:提供[^。；;！!？?\n]{0,10}?担保|承担[^。；;！!？?\n]{0,6}?(?:担保|保证)责任)|"
    r"与[^。；;！!？?\n]{0,20}?(?:签署|签订)了?[^。；;！!？?\n]{0,8}?(?:担保|保证)(?:合同|协议))"
)

# (the eighteenth session) releases the row's own clears (signal_table._GUARANTEE_ENDED, which need 违规担保 right
# before) missed, review 9's open list: the guarantee named 对外担保/上述担保 after a broken-rule one is stated
# (公司存在违规担保，对外担保已全部解除; 未…履行审议程序的对外担保已全部解除), a release said done as promised (控股
# 股东已按承诺解除…违规担保; not 承诺解除 or 将按承诺, a promise only) and a check that found it released (…进行了
# 核查并确认已全部解除). All of it only: not 部分, 尚未全部, 正在, 已开始, 将于 (its tail as the row's clears)
_ALL_OF_IT = (r"(?!部分|前|尚|仍|需|须|以|过程|中|\s*\d|(?:的)?(?:相关)?(?:工作|进展|进度|事宜|事项|方案|计划|"
              r"措施|手续|申请|程序|进程|期限|时间|承诺))")
# (the twentieth session) the day it was released, said done (已于2026年9月全部解除; blind set 3), not a deadline
# (已于2026年9月前, 将于): the month or the day only, then 全部
_ON = r"(?:[于在]20\d\d年\d{1,2}月(?:\d{1,2}日)?(?:均)?)?"
RELEASED = (
    # (the guarantee named before it, not one named after it: 子公司对外担保已全部解除，违规担保仍未解除)
    # (the twentieth session: the guarantee the broken rule gave, 公司为原控股股东违规提供的担保已于2026年9月全部解除)
    r"(?:对外|上述|前述|该等?|相关|所涉|此类|该笔|该项|所有|违规(?:为|向)?[^，,。；;！!？?\n]{0,30}?提供的)(?:违规)?担保"
    r"(?:事项)?(?:均已(?:经)?(?:全部)?|已(?:经)?" + _ON + r"全部)解除"
    + _ALL_OF_IT + r"(?![^。；;]*?(?:违规|尚未|仍未|未能|仍在|仍处于|未解除))",
    r"已(?:按|按照|依照|根据|履行)(?:其|相关)?(?:承诺|约定|协议)(?:的)?(?:要求|期限内)?(?:全部)?解除" + _G
    + r"违规(?:对外)?担保",
    # (a check done, 进行了核查并确认/经核查确认, not one asked for: 请…核实已全部解除的依据)
    r"(?:进行了(?:核查|核实|检查|查验)[，,]?并|经(?:核查|核实|查验)(?:后)?[，,]?(?:并)?)(?:确认|证实|查明)?"
    r"(?:其|上述|该等?|相关)?(?:违规)?(?:对外)?(?:担保)?(?:均已(?:经)?(?:全部)?|已(?:经)?全部)解除" + _ALL_OF_IT
    + r"(?!的)",
)
