"""A later dated title about the way to an end, not the end (the title ``signals.read_signals`` reads as a lift).

Moved out of signals.py (at its 450-line limit) by the nineteenth session, which needed the room for reading two
years' losses across sentences; unchanged, and part of the reader (``signals.TABLE_ID`` hashes every signal_*.py).
"""

from __future__ import annotations

import re

from screening.screen.signal_table import APPROVED

# progress, an application, a deadline put back, a refusal, a doubt, a question from the exchange and its answer
# (撤销退市风险警示事项的进展公告, 违规担保整改完毕期限延期, 不同意撤销…, 撤销…存在重大不确定性, 条件尚未满足,
# 《…问询函》回复). It lifts nothing unless it also states the end granted: an approval (申请撤销…获得同意) or the
# investigation's closing notice (进展暨收到结案通知书)
_UNDERWAY = re.compile(r"进展|申请|延期|暂不|不同意|不予|未获|不确定|尚未|未满足|问询|审核|回复")
_GRANTED = re.compile(APPROVED + r"|结案通知书|终止调查通知书|(?<![部分])已(?:全部)?(?:归还|偿还|清偿|解除|消除)|"
                      r"(?:整改|清理)(?:完毕|完成)(?![^，,。；;]{0,4}(?:期限|延期|时间))")


def underway(title: str) -> bool:
    """Whether a title that names an end is only on the way to it (an application, progress, a question)."""
    return bool(_UNDERWAY.search(title)) and not _GRANTED.search(title)
