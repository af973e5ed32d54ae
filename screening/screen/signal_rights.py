"""A right a condition gives another party (如公司未偿还到期借款，银行有权宣布贷款提前到期): what may happen, not what
did, read as the hypothetical it is.

A loan, a lease or a bond's terms state what the lender may do if the company defaults; the consequence's words
(贷款提前到期, 冻结公司账户, 要求公司承担) are a risk's words, but the default is only supposed. The condition clause
is each row's own hypothetical counter (signal_arrears.DEBT_TO_COMPANY: 如公司未能按期偿还); this is its
consequence. Counter-patterns of the rows whose words a creditor's right names (债务违约, 资产冻结, 重大诉讼): the span
starts with the hypothetical word, so ``signals._countered`` keeps it silent, as every hypothetical. Moved out of
signal_table.py (at its 450-line limit); part of the reader (``signals.TABLE_ID`` hashes every signal_*.py module).
"""

from __future__ import annotations

# the condition: a hypothetical word (如上述借款…; not 如前所述, 如上所述, 如下, 例如) with no done thing or fact after
# it (已, 截至, 目前, 如本公告所述), then a party's right (有权) in the same sentence, not after a contrast (但); the
# right's clause up to a thing done beside it (银行有权且已宣布…, 并已于…宣布 is an event)
_IF = (r"(?:若(?!干)|如果|倘若|一旦|假如|(?<![例比诸])如(?![期实数今此下附表图]|前(?!述[^，,])|上(?!述[^，,])"
       r"|[^，,。；;]{0,12}?(?:所述|所示|所列)))"
       r"(?:(?!已|截至|目前|所述|(?:所示|所说明|所列|所载)(?=[，,])|公告|披露|说明的|提示的|报中)[^。；;但]){0,40}?")
RIGHT_IF = (_IF + r"有权(?:(?!已|并|且|同时)[^，,。；;：:！!？?\n]){1,24}",)
