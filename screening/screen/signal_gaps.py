"""The gaps between a signal's words: how far apart two words of one statement may stand.

Shared by every module of the signal table (signal_table.py, signal_freeze.py): a change here moves every row.
"""

from __future__ import annotations

# a clause-internal gap: a few characters that are not a clause break; L the shortest such gap; S a gap
# inside one sentence (clause breaks allowed), for the ``sentence`` patterns
G = r"(?:[^，,。；;：:！!？?\n]|(?<=\d),(?=\d{3})){0,12}"  # 借款3,000万元逾期: a number's comma is no break
L = r"(?:[^，,。；;：:！!？?\n]|(?<=\d),(?=\d{3})){0,12}?"
S = r"[^。；;！!？?\n]{0,40}"
