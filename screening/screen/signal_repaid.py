"""The fund-occupation row's good news (资金占用 repaid): what says the controller's debt to the company was paid.

Moved out of signal_table.py (at its 450-line limit) when review 19 (2026-12-06) found that review 18's order rule
(责令…归还占用的全部资金 is no repayment) had lost the repayments said with 向公司, 已通过…方式 or 已于…前; the row
there reads ``REPAID`` unchanged (``signals.TABLE_ID`` hashes every signal_*.py module).
"""

from __future__ import annotations

from screening.screen.signal_gaps import G as _G

# a month and maybe its day or end (11月, 11月30日, 12月底, 12月18日底: a form the date test writes)
_MD = tuple(m + d + e for m in (r"\d月", r"\d\d月") for d in ("", r"\d日", r"\d\d日") for e in ("", "底", "末"))
# what says a repayment was made (review 19): 已, 已按(监管)要求, 于/在2026年3月 (not 应于/需于/未于), 已于/已在…前
# (review 20: 已通过银行转账方式, 已按监管部门要求: up to 6 characters between, each width a lookbehind of its own)
_HOW = (("以", "方式"), ("通过", "方式"), ("按", "要求"), ("按照", "要求"), ("根据", "要求"), ("应", "要求"),
        ("依照", "要求"), ("依据", "要求"), ("以", "资金"))  # review 21: 已以自有资金, 已依照监管要求
_PAID_ON = ("已", "已全额", *(f"已{by}[^，,。；;]{{{k}}}{what}" for by, what in _HOW for k in range(7)),
            *(r"(?<![应需须将拟未迟限])" + at + r"20\d\d年" + md for at in "于在" for md in _MD),
            *("已" + at + r"20\d\d年" + md + "前" for at in "于在" for md in _MD))
_TO = ("", "向公司", "向本公司", "向上市公司")
# a character between 已 and 归还 that is no order, plan or demand (已要求/已责令/已督促/已函告…尽快/已承诺 are none),
# no notice, talk, consent or refusal (review 25: 已通知, 已敦请/提请, 已协商/沟通, 已同意/表示愿意, 已申请延期,
# 已拒绝, 已无力, 已签署协议约定, 已审议…议案, 已制定…方案, 判令, 已开始分期)
_FREE = (r"(?:(?!协商|磋商|审议|议案|制定|延期|展期(?!届满))[^，,。；;要责督催促函告尽限应需须将拟计划承诺未"
         r"知请沟意示拒无不没签案令始就诉裁追启措序争力预筹准望愿])")
# (诉讼/仲裁/追讨/启动/措施/程序/争取/力争/预计/筹措/准备/愿意: the thirteenth session)
REPAID = (r"已全部(?:归还|偿还|清偿|收回)", r"已将" + _G + r"全部(?:归还|偿还|清偿|收回)",
          r"已[^，,。；;]{0,16}(?:归还|偿还|清偿|收回)全部", r"已[^，,。；;]{0,20}全部(?:归还|偿还|清偿|收回)",
          r"(?<!未)消除",
          r"已解决",
          r"整改(?:完成|完毕)", r"(?:归还|收回)" + _G + r"占用(?:的)?资金",  # NOT_DONE: 仍未能消除
          # 占用的全部资金 only once repaid (已…, 于2026年3月…; not 责令/要求/需/应于…前 归还; review 18), each
          # context a lookbehind, so the match starts at 归还 and 控股股东已于…向公司 is its parties, as the risk's
          # (review 19: 控股股东已向公司归还占用的全部资金 read 高)
          # (the verb looked for first: the lookbehinds are tried only before it)
          "(?=归还|收回)(?:" + "|".join(f"(?<={on}{to})" for on in _PAID_ON for to in _TO) + ")(?:归还|收回)"
          + _G + r"占用(?:的)?全部资金",
          # (thirteenth session: 已于近日以现金方式, 已于2026年11月30日依据监管要求将…: 已 up to 26 characters back,
          # none of them an order's, a plan's or a demand's; signals._came still reads PLANNED around it)
          "(?=归还|收回)(?<!以)(?<!用于)(?:" + "|".join(f"(?<=已{_FREE}{{{k}}})" for k in range(27)) + ")(?:归还|收回)"
          + _G + r"占用(?:的)?全部资金",
          # (review 25: 已在深交所要求的时限内将占用资金全部归还: the noun 要求 with its time)
          r"已[在于][^，,。；;要]{0,12}要求(?:的)?(?:期限|时限)(?:内|届满前)[^，,。；;未没不]{0,12}?(?:全部归还|归还"
          + _G + r"占用(?:的)?全部资金)",
          r"是否(?:已)?(?:全部|全额)?(?:归还|偿还|清偿|收回)")  # counts only with 是 ticked (signals._came)
