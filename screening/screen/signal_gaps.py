"""The gaps between a signal's words: how far apart two words of one statement may stand.

Shared by every module of the signal table (signal_table.py, signal_freeze.py): a change here moves every row.
"""

from __future__ import annotations

# a clause-internal gap: a few characters that are not a clause break; L the shortest such gap; S a gap
# inside one sentence (clause breaks allowed), for the ``sentence`` patterns
G = r"(?:[^，,。；;：:！!？?\n]|(?<=\d),(?=\d{3})){0,12}"  # 借款3,000万元逾期: a number's comma is no break
L = r"(?:[^，,。；;：:！!？?\n]|(?<=\d),(?=\d{3})){0,12}?"
S = r"[^。；;！!？?\n]{0,40}"
# a sentence gap that runs over no other audit opinion: 无法表示意见，2024年度保留意见所涉事项影响已消除 ends the older
# qualified opinion, not this year's disclaimer (the eighteenth session's fresh set)
NO_OTHER_OPINION = r"(?:(?!保留意见|非标|强调事项)[^。；;！!？?\n]){0,40}"
