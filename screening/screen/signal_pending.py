"""Good news that has not come: a repayment ordered, sued for, promised, supposed or short (资金占用 said repaid only
in words that do not say it was).

Review 9's open list (the seventeenth session) had a live 资金占用 read as repaid, silent, where the repayment was
only ordered (证监局责令公司于…前收回被占用资金, 限其于15日内归还, 请求判令其归还, 法院已判决控股股东全部归还), only
decided or promised (已决定于/已书面保证在/已表态于…前全部归还), too small (所得款项仅够归还占用资金的一半), or one part
of it with a plan for the rest (已归还6,000万元，并计划于…前归还占用的全部资金). Words of signal_words.PLANNED,
NOT_DONE and REMAINDER_OPEN, read by ``signals._came`` around every clear and end; part of the reader
(``signals.TABLE_ID`` hashes every signal_*.py module). A hypothetical that opens the clause (如控股股东已…归还…，
公司将及时披露; 若控股股东已…归还…，公司将申请撤销其他风险警示, two pinned lines that read 资金占用 cleared before
the seventeenth session) supposes the repayment, it does not say it came.
"""

from __future__ import annotations

_CURE = r"(?:归还|偿还|清偿|收回)"
# an order, a suit or a judgment to repay, not one followed (按照法院判决归还, 依据判决书, 根据判令: up to 8 characters
# back, as signal_words.PLANNED's 要求/责令)
_FOLLOWED = "".join(f"(?<!{w}[^，,。；;]{{{k}}})" for w in "按据照依" for k in range(9))
PENDING = (
    r"(?=判令|判决|请求|责令|要求)" + _FOLLOWED
    + r"(?:判令|判决(?!书|生效)|请求(?:法院)?判令|(?:责令|要求)(?=(?:本|上市)?公司[^，,。；;已]{0,20}?收回))"
    r"(?=[^，,。；;已]{0,24}?" + _CURE + r")",
    # a deadline set on the debtor (限其于15日内归还, 限期归还), not one met (已在限期内归还)
    r"(?:限(?:其|令)|限期(?!内|届满))(?=[^，,。；;已]{0,16}?" + _CURE + r")",
    # decided, promised or said, not done (已决定于…前, 已书面保证在…前, 已表态于年底前)
    r"(?<!按照)(?<!根据)(?<!依照)(?:决定|保证|表态|同意|确保)(?=[^，,。；;]{0,2}?[于在将])",
    # a paper promising it, not one followed (已向公司出具还款保证书全部归还占用资金; 已按照还款保证书归还)
    _FOLLOWED + r"(?:保证书|保证函)",
    # supposed, at the clause's head (如控股股东已以现金方式归还…，若控股股东在…前已归还…; 如上述担保已全部解除: the
    # eighteenth session), not 如约/如期/如数/如上所述
    r"(?<![^，,。；;：:\s])(?:若(?!干)|如果|倘若|假如|假设|如(?![期实数今此下附表图前约所同]|上(?!述)))",
)
# too little to repay it (所得款项仅够归还占用资金的一半)
SHORT = r"仅够|只够|仅能|只能|不足以"
# a part repaid and a plan for the rest (已归还6,000万元，并计划于…前归还占用的全部资金)
REST_PLANNED = (r"(?:计划|拟|将|承诺|预计|争取|力争)[^。；;]{0,24}?" + _CURE
                + r"[^。；;]{0,6}?(?:全部|剩余|其余|余下|余款)")

# a sale done after a no-sale, in one sentence: 股东A的减持计划期限届满未减持，股东B本期通过大宗交易减持公司
# 股份200万股 (the eighteenth session's fresh set). One shareholder's 未减持 clears the 股东减持 row for the sentence,
# so it may not where a later clause states a sale done, with its count of shares
SOLD_LATER = (r"(?![^。；;！!？?\n]*?[，,][^，,。；;]*?(?<![未不])减持(?:了)?(?:公司|其持有的|所持)?(?:股份|股票)"
              r"(?:合计|共计|累计)?\s*[\d,.]+\s*万?股)")
