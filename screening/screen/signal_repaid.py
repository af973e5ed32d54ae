"""The fund-occupation row's good news (资金占用 repaid): what says the controller's debt to the company was paid.

Moved out of signal_table.py (at its 450-line limit) when review 19 (2026-12-06) found that review 18's order rule
(责令…归还占用的全部资金 is no repayment) had lost the repayments said with 向公司, 已通过…方式 or 已于…前; the row
there reads ``REPAID`` unchanged (``signals.TABLE_ID`` hashes every signal_*.py module).
"""

from __future__ import annotations

import itertools
import re

from screening.data.values import parse_number
from screening.screen.signal_gaps import G as _G
from screening.screen.signal_words import COMPANY, PARTIES

# a month and maybe its day or end (11月, 11月30日, 12月底, 12月18日底: a form the date test writes)
_MD = tuple(m + d + e for m in (r"\d月", r"\d\d月") for d in ("", r"\d日", r"\d\d日") for e in ("", "底", "末"))
# what says a repayment was made (review 19): 已, 已按(监管)要求, 于/在2026年3月 (not 应于/需于/未于), 已于/已在…前
# (review 20: 已通过银行转账方式, 已按监管部门要求: up to 6 characters between, each width a lookbehind of its own)
# (review 28: not after 有望/表示/确保/务必/可/能否/同意/约定: 控股股东同意于2027年6月归还 is a plan)
_HOW = (("以", "方式"), ("通过", "方式"), ("按", "要求"), ("按照", "要求"), ("根据", "要求"), ("应", "要求"),
        ("依照", "要求"), ("依据", "要求"), ("以", "资金"))  # review 21: 已以自有资金, 已依照监管要求
_PAID_ON = ("已", "已全额", *(f"已{by}[^，,。；;]{{{k}}}{what}" for by, what in _HOW for k in range(7)),
            *(r"(?<![应需须将拟未迟限望示保必可否意定])" + at + r"20\d\d年" + md for at in "于在" for md in _MD),
            *("已" + at + r"20\d\d年" + md + "前" for at in "于在" for md in _MD))
_TO = ("", "向公司", "向本公司", "向上市公司")
# (review 26: the blacklist _FREE of reviews 24-25, one character that is no order, plan, notice, talk, consent or
# refusal, is gone: 已决定于/已保证在/已约定于/法院已判决/已具备…能力/已说明…后才能 went through it, 已自筹资金/
# 已按照承诺/已通过诉讼/已自愿/已无条件/已签订《协议》 were barred by it)
# what may stand between 已 and 归还 in a repayment said done (review 26): a date or a deadline met, a way, a source
# of the money, a rule or promise followed, the payee, a manner; nothing else (no verb of notice, plan, talk or order)
# the verbs of a repayment said done before 占用的全部资金 (thirteenth session: 已偿还/已清偿/已退还/已追回 read 高)
_BACK = r"(?:归还|收回|偿还|清偿|退还|返还|追回|还清|偿清)"  # (the eighteenth session: 已还清占用的全部资金)
# …the whole of it, either order (偿还占用的全部资金, 偿还全部占用资金)
_WHOLE = (r"(?:(?:(?!" + _BACK + r"|后)[^，,。；;：:！!？?\n]){0,12}占用(?:的)?全部资金"
          r"|(?:全部|全额)(?:被)?占用(?:的)?资金)")
_ANY = r"(?:(?!归还|收回)[^，,。；;])"  # (清偿/偿还 may stand in a way: 以股抵债及现金清偿方式)
# (review 27: no saying, promise or wait inside 于/在…前 or 以…方式, nor a second 于/在 there: 已于问询函回复中说明
# 于2027年…前, 已在协议中约定于…前, 已以书面方式申请以…方式; a second 于 also let 于前于前… parse every split)
_SAY = (r"待|拟|申请|保证|同意|明确|表示|确认|表态|说明|列明|商定|告知|提出|请求|决定(?!书)|称|答复|写明|预计|"
        r"力争|争取|寻求|洽谈|计划|约定(?!的?期限|时间)|承诺(?!的?期限|期内)")  # (review 28: 在协议中约定…前)
_DATE = (r"(?:(?:[于在]|截至)?(?:20\d\d年|今年|本年)?(?:第?[一二三四]季度)?"
         r"(?:\d{1,2}月份?|[一二三四五六七八九十]{1,3}月)?(?:\d{1,2}日)?"
         r"(?:底|末|初|[上中下]旬|[上中][中下]旬)?(?:之?前|当日)?(?<=[年月日前底末旬初份度])"
         r"|[于在](?:近日|近期|日前|当日|同日|当天|此前|期限内|当月|本月|同月|次月|次日|当周|本周|当年|报告期后|期后"
         r"|上月|上周|昨日|前日|(?:本公告)?披露日)"
         r"|[于在](?!其|之?前)(?:(?![于在]|" + _SAY + r")" + _ANY + r"){0,18}?"
         r"(?:之?前|期限内|时限内|期限届满前|期间内?|(?<!后[再才])内|督促下|要求下|支持下|帮助下|协助下"
         r"|后(?:即|立即|随即|当即)))")  # (the eighteenth session: 已在发现后即归还; not 后才能, 后再)
_RULE = r"要求|承诺|约定|判决|裁决|调解书|协议|计划|决定书|决定|规定|安排"  # the first one ends the rule followed
_WAY = (r"(?:(?:以|通过|使用|利用|采用|采取|用)(?!期|便|确保|保证)(?:(?!决议|审议|议案|方案|计划|将于|将在|"
        + _SAY + r")" + _ANY + r"){0,22}?"
        r"(?:方式|形式|资金|现金|款项|价款|所得|转让款|股利|红利|分红款|分红|途径|程序|转账|汇款|电汇|"
        r"汇票|票据|抵偿|抵债|诉讼|仲裁|执行|追偿|代偿|存款|财产|网银)"
        r"|(?:依照|依据|根据|按照|按|遵照|应|依)(?:(?!" + _RULE + r")" + _ANY + r"){0,30}?"
        "(?:" + _RULE + r")》?(?:的)?(?:要求|约定|期限)?"
        r"|(?:履行|兑现)了?" + _ANY + r"{0,8}?承诺"
        r"|(?:自筹|自行筹集|筹集|筹得|筹措|自有)(?:的)?(?:资金|款项)?"
        r"|(?:向|从)(?:(?!待|拟|申请(?!并)|寻求|洽谈|请求|计划|预计|争取|力争)" + _ANY + r"){0,12}?(?:借款|贷款|融资)"
        r"|(?:获得|取得)" + _ANY + r"{0,12}?(?:贷款|借款|融资|资金|款项|支持)"
        r"|(?:变卖|处置|出售|转让|拍卖)(?:其)?" + _ANY + r"{0,12}?(?:房产|股权|股份|资产|土地使用权|股票|物业)"
        r"|将(?!于|在|尽快|努力|积极|通过|以|争取|力争)(?:(?!待|拟|申请|计划)" + _ANY + r"){0,20}?"
        r"(?:款项|资金|价款|所得|现金|转让款)(?:全部|全额)?(?:用于)?"
        r"|收到(?:了)?(?:控股股东|实际控制人|实控人|大股东|关联方|占用方|相关方|其)"
        r"|(?:由|通过|委托)" + _ANY + r"{0,16}?代为|代为"
        r"|(?:由|通过)其?(?:关联方|一致行动人|(?:控股)?子公司|控制的(?:其他)?企业|实际控制人))")
_HOW_ADV = (r"(?:向(?:本|上市)?公司|全额|足额|一次性|如数|全数|全部|及时|按时|如期|按期|主动|提前|自愿|无条件|"
            r"不附带任何条件|依法|陆续|分别|和|分批|分[一二两三四五六七八九十\d]+(?:次|笔|期|批)|均|并|了|现金|"
            r"连本带息|本息|一并|先后|实际|累计|严格|另行|、|如约|立即|尽数|悉数|积极|多方|全力|想方设法)")
# (review 27: 连本带息 … 另行; the eighteenth session: 已积极/多方/全力筹措资金归还, the effort said with the money
# raised and the repayment: 正在/拟/计划 stay plans, signal_words.PLANNED)
# 全部资金的一半 is part of it; 全部资金中的1亿元, 约三成, 的三分之一, 的本金 too (review 27), and 归还…全部资金的计划,
# 的方案, 的承诺函, 的申请 is a paper about it, no repayment (the eighteenth session: 的议案, 的协议, 的事项 too)
_PAPER = r"的(?:书面)?(?:计划|方案|承诺|申请|请求|意向|安排|时间表|义务|能力|保证|路径|责任|说明|议案|协议|事项)"
_NOT_PART = (r"(?!中的|约|的?(?:一半|半数|过半|部分|大部分|\d|[一二三四五六七八九]成|百分之|首期|首笔|"
             r"第[一二三四五六七八九十\d]+(?:笔|期|批|次)|利息|(?:资金)?占用费|"
             r"[一二三四五六七八九十]+分之|本金)"
             r"|" + _PAPER + ")")
_SHARE = r"(?:一半|半数|过半|部分|大部分|[一二三四五六七八九]成|百分之|[一二三四五六七八九十]+分之)"
_C = r"(?:[^，,。；;：:！!？?\n]|(?<=\d),(?=\d{3}))"  # one character of signal_gaps.G
_FILL = "(?:" + _DATE + "|" + _WAY + "|" + _HOW_ADV + ")"
# The forms of a repayment said done that the entries below missed (review 9's open list, the eighteenth session),
# each read with the same fillers (_FILL), the whole said (全部/全额/足额 or 完毕) and no part or amount after it:
# the funds put before the verb (已于…依据监管要求将占用资金全部归还, 已按照公司要求于…前将占用资金全额归还), the
# funds the subject (控股股东占用的全部资金已于…归还, 占用公司的资金已于…归还完毕), 偿还/清偿 after the fillers (已于…以
# 现金方式偿还占用的全部资金: the entry of _FILL reads 归还/收回 only) and a clause that opens with the day it was done
# (2026年11月30日，控股股东向公司归还占用的全部资金). Not 将于/拟/计划/正在 (no filler, and signal_words.PLANNED),
# nor 已申请/已通知/已要求 before them (no filler either)
_PAID = r"(?:归还|偿还|清偿|退还|返还)"
_FUNDS = r"(?:(?!全部|全额|[于在将])" + _C + r"){0,8}?占用(?:(?:本|上市)?公司)?(?:的)?资金(?:本息|及(?:其)?利息)?"
_NO_PART = r"(?!了?(?:人民币|共计|合计|累计|约)?\d|的|中|其中|" + _SHARE + ")"
_DONE_FORMS = (
    r"已(?:经)?" + _FILL + r"*将(?:其)?" + _FUNDS + r"(?:全部|全额|足额)" + _PAID + r"(?:完毕)?" + _NO_PART,
    r"(?:占用(?:(?:本|上市)?公司)?(?:的)?全部资金|全部(?:被)?占用(?:的)?资金)(?:本息|及(?:其)?利息)?(?:均)?"
    r"已(?:经)?" + _FILL + "*" + _PAID + r"(?:完毕)?" + _NO_PART,
    r"占用(?:(?:本|上市)?公司)?(?:的)?资金(?:本息|及(?:其)?利息)?(?:均)?已(?:经)?" + _FILL + r"*(?:(?<=全部|全额|足额)"
    + _PAID + "|" + _PAID + r"完毕)" + _NO_PART,
    r"已(?:经)?" + _FILL + r"*(?:偿还|清偿)" + _WHOLE + _NOT_PART,  # (not 偿还银行债务后再归还…)
    # the fillers a way of assets that ends in 抵偿/抵债 (已以其持有的商业物业作价抵偿占用的全部资金, 已以其持有的
    # 某某公司股权抵偿，归还占用的全部资金), an asset transferred to the company in payment (已将其持有的房产过户至
    # 公司名下，以资抵债归还…), the money paid into the company's account (已于…将款项汇入公司账户，归还…), the
    # rule followed and its time met (已按照证监局要求，在规定期限内归还…), the whole said with each (_WHOLE)
    r"已(?:经)?" + _FILL + r"*(?<=抵偿|抵债)(?:[，,](?:并)?(?:全部)?" + _PAID + ")?" + _WHOLE + _NOT_PART,
    r"已(?:经)?将(?:其)?(?:(?!拟|计划|申请|同意|承诺)" + _C + r"){0,16}?(?:过户|转让|交付|移交|划转)(?:至|给|予)"
    r"(?:本|上市)?公司(?:名下)?[，,](?:以资抵债|以股抵债|以物抵债|用于抵偿|抵偿)(?:方式)?(?:全部)?" + _PAID + "?"
    + _WHOLE + _NOT_PART,
    r"已(?:经)?" + _FILL + r"*将(?:上述|相关|全部)?(?:款项|资金)(?:全部|全额|足额)?(?:汇入|转入|支付至|划入|划至|存入)"
    r"(?:本|上市)?公司(?:的)?(?:银行)?(?:账户|账上|指定账户)[，,](?:全部)?" + _PAID + _WHOLE + _NOT_PART,
    r"已(?:经)?(?:按|按照|依照|依据|根据)" + _C + r"{0,12}?要求[，,]在(?:规定|要求|限定|上述)?的?(?:期限|时限)内"
    r"(?:全部)?" + _PAID + _WHOLE + _NOT_PART,
    # (the order then followed, its own clause: 证监局责令控股股东归还占用资金，控股股东已按要求归还; the clause ends
    # there, no amount or part)
    r"已(?:经)?(?:按|按照|依照|依据|根据)(?:其|上述|该|相关|监管|证监局|交易所|公司)?(?:的)?要求(?:全部|全额|足额)?"
    + _PAID + r"(?:完毕)?(?![^，,。；;！!？?\n])",
    r"(?<![^。；;！!？?\n])(?:截至)?20\d\d年\d{1,2}月\d{1,2}日[，,](?:控股股东|实际控制人|实控人|大股东|关联方|占用方)"
    r"(?:已)?向(?:本|上市)?公司(?:全额|足额|一次性)?" + _PAID
    + r"(?:占用(?:的)?全部资金|全部(?:被)?占用(?:的)?资金)(?![^，,。；;]{0,12}?中的|的)")
# another debt repaid is not the occupation (控股股东已全部归还银行借款)
# (the seventeenth session: 应收账款 recovered, 全部占用资金中的1亿元 a part of the whole)
# (the eighteenth session: nor a share or a paper right after it, 已按期全部归还一半, 已于…将占用资金全部归还的计划报送)
_ELSE = (r"(?![^，,。；;]{0,6}?(?:银行|贷款|债券|票据|融资款|应收|账款|货款))(?!的?" + _SHARE + "|其中|" + _PAPER + ")"
         r"(?![^，,。；;]{0,12}?(?:中的|资金的?" + _SHARE + "))")
# 已 and what may stand before the verb of a repayment said done (read by the entries of 归还/收回 below)
_SAID_DONE = "(?:" + "|".join(f"(?<=(?=已(?:经)?{_FILL}*(?:归还|收回))已{_ANY}{{{k}}})" for k in range(40)) + ")"
# (the twentieth session) the occupier named inside the funds recovered or repaid, as the risk names it (公司已收回
# 控股股东占用的资金2亿元, 已收回被控股股东占用的资金2亿元, 已收回其占用的资金2亿元): no part, no other debt
_BY_WHOM = (r"(?:其|(?:被)?(?:控股股东|实际控制人|实控人|大股东|关联方|占用方)(?:及其?(?:关联方|一致行动人))?)")
# an amount of money as signal_text leaves it (2亿元, 20,000万元, 2.5亿元: 人民币 and zero decimals dropped)
_SUM = r"(?<![\d.,])\d[\d,]*(?:\.\d+)?(?:万亿|亿|万)?元"
# the amount right after a repayment (a look-ahead: the clear ends before it, so signals._came reads a remainder
# after it, 已归还占用资金1.2亿元，还有…占用的8,000万元仍在协调中), not a part of it (2亿元中的1亿元, 2亿元的一半)
_PAID_SUM = r"(?:共计|合计|累计|总计|计)?" + _SUM + r"(?!中的|的|\d)"
REPAID = (r"已全部(?:归还|偿还|清偿|收回)" + _ELSE, r"已将" + _G + r"全部(?:归还|偿还|清偿|收回)",
          r"已[^，,。；;]{0,16}(?:归还|偿还|清偿|收回)全部" + _ELSE,
          r"已[^，,。；;]{0,20}全部(?:归还|偿还|清偿|收回)" + _ELSE,
          r"(?<!未)消除",
          r"已解决",
          r"整改(?:完成|完毕)",  # NOT_DONE: 仍未能消除
          # (the seventeenth session: an amount repaid or a share of it is part of it, 已归还占用资金1亿元,
          # 已收回占用资金人民币1亿元; the whole's amount is the whole, 归还的全部占用资金2.3亿元, but not a part
          # of it, 全部占用资金中的1亿元)
          r"(?:归还|收回)(?:(?!全部|全额)" + _C + r"){0,12}占用(?:的)?资金"
          r"(?!中的|的?" + _SHARE + r"|(?:人民币|共计|合计|累计|约)?\d)",
          r"(?:归还|收回)(?=(?:(?!占用)" + _C + r"){0,12}?(?:全部|全额))" + _G + r"占用(?:的)?资金"
          r"(?![^，,。；;]{0,12}?中的|的?" + _SHARE + ")",
          # 占用的全部资金 only once repaid (已…, 于2026年3月…; not 责令/要求/需/应于…前 归还; review 18), each
          # context a lookbehind, so the match starts at 归还 and 控股股东已于…向公司 is its parties, as the risk's
          # (review 19: 控股股东已向公司归还占用的全部资金 read 高)
          # (the verb looked for first: the lookbehinds are tried only before it)
          "(?=" + _BACK + ")(?:" + "|".join(f"(?<={on}{to})" for on in _PAID_ON for to in _TO) + ")" + _BACK
          + _WHOLE + _NOT_PART,
          # (thirteenth session: 已于近日以现金方式, 已于2026年11月30日依据监管要求将…: 已 up to 26 characters back;
          # review 26: what stands between is read from a list of fillers, _FILL, not against a blacklist, which let
          # 已决定于/已保证在/已约定于/法院已判决/已具备…能力 through and barred 已自筹资金/已按照承诺/已通过诉讼)
          # (归还/收回 only: the look-ahead reads the fillers up to the first such verb, so the middle holds none;
          # 偿还/清偿 may stand in a way, 以股抵债及现金清偿方式, and are read by the entry above only)
          "(?=归还|收回)(?<!以)" + _SAID_DONE + "(?:归还|收回)" + _G + r"占用(?:的)?全部资金" + _NOT_PART,
          # (the eighteenth session) an amount repaid, said done (控股股东已归还占用资金2亿元): it clears only where
          # it covers the occupation its sentence states (``covers``: 占用公司资金2亿元 … 2亿元 / 20,000万元); the
          # group sum_only names it there (an entry before it that matches first keeps its reading)
          "(?:(?=归还|收回)(?<!以)" + _SAID_DONE + "(?:归还|收回)|已(?:全部|全额|足额)?(?:偿还|清偿))(?:了)?(?:其)?"
          r"(?:" + _BY_WHOM + r"?(?:所|被)?占用(?:的)?(?:全部)?(?:本|上市)?(?:公司)?资金(?:本金)?)?"
          r"(?=" + _PAID_SUM + ")(?P<sum_only>)",
          # (review 25: 已在深交所要求的时限内将占用资金全部归还: the noun 要求 with its time)
          r"已[在于][^，,。；;要]{0,12}要求(?:的)?(?:期限|时限)(?:内|届满前)[^，,。；;未没不]{0,12}?(?:全部归还|归还"
          + _G + r"占用(?:的)?全部资金)",
          *_DONE_FORMS,
          # (the twenty-second session) the occupation named first, then repaid 完毕 (关于控股股东资金占用已归还完毕的
          # 公告 read 高: good news raising the risk; 占用资金已归还完毕 was read above)
          r"资金占用(?:事项|款项)?(?:本息|及(?:其)?利息)?(?:均)?已(?:经)?(?:全部|全额|足额)?(?:归还|偿还|清偿|收回)完毕"
          r"(?!了?(?:人民币|共计|合计|累计|约)?\d|的(?!(?:提示性)?公告)|中|其中|" + _SHARE + ")",
          r"是否(?:已)?(?:全部|全额)?(?:归还|偿还|清偿|收回)")  # counts only with 是 ticked (signals._came)
# who owes the company under a risk (the occupier of its funds): the risk's clause may name the company's side
# (公司资金被控股股东占用, 责令公司收回被占用资金), and their repayment answers it (截至目前控股股东已全部归还); another
# party's (子公司已全部归还银行借款) does not. Labels of signal_words.PARTIES, read by ``signals._clears``
OWED_BY = {"资金占用": frozenset({"控股股东", "实际控制人", "一致行动人", "股东"})}
# who else's payment answers the occupier's debt (review 9's open list, the seventeenth session): the creditor, the
# company, recovering the whole of it (公司已收回控股股东占用的全部资金; 控股股东占用公司资金2亿元，公司已全部收回), and
# the controller's side paying the whole on the occupier's behalf (实际控制人已代为归还全部占用资金及利息). (payers,
# what their clause must say, from 已 to its end): the whole of the occupation or of nothing else, so a part or
# another debt (公司已收回部分, 公司已全部收回应收账款) answers nothing, nor one not said done. (The nineteenth
# session) the company recovering an amount (控股股东占用公司资金2亿元，公司已收回占用资金2亿元) answers it as the
# occupier's repayment of one does: ``covers`` then weighs it against what was occupied (1亿元 of 2亿元 is a part)
_GAP = r"(?:(?!部分|\d)[^，,。；;]){0,16}?"
_END = r"(?:完毕)?(?:及(?:其)?(?:利息|资金占用费|占用费))?(?![^。！!\s])"


def _whole(verb: str) -> str:  # said done (已), not planned, promised or said (将代为归还, 已承诺代为归还)
    done = r"已(?:(?!将|" + _SAY + r")[^，,。；;]){0,30}?"
    return (f"{done}(?:全部|全额|足额|悉数){verb}(?:完毕)?(?:{_GAP}占用(?:的)?资金)?{_END}"
            f"|{done}{verb}{_GAP}(?:占用(?:的)?全部资金|(?:全部|全额)(?:被)?占用(?:的)?资金){_END}")


def _amount(verb: str) -> str:  # an amount said done (its clause may end inside 20,000万元): ``covers`` weighs it
    done = r"已(?:(?!将|" + _SAY + r")[^，,。；;]){0,30}?"
    return (f"{done}{verb}(?:了)?(?:{_BY_WHOM}?(?:所|被)?占用(?:的)?(?:本|上市)?(?:公司)?资金(?:本金)?)?"
            r"(?:共计|合计|累计|总计|计)?(?=\d)")


PAID_FOR = {"资金占用": ((frozenset({COMPANY}), _whole(r"(?:收回|追回)")),
                     (frozenset({COMPANY}), _amount(r"(?:收回|追回)")),
                     (OWED_BY["资金占用"], _whole(r"(?:代(?:为|其)?(?:归还|偿还|清偿)|代偿)")))}
_PAID_FOR = {signal: tuple((who, re.compile(p)) for who, p in rows) for signal, rows in PAID_FOR.items()}
_OCCUPIERS = tuple((label, re.compile(p)) for label, p in PARTIES)


def answered(signal: str, payers: frozenset[str], clause: str) -> frozenset[str]:
    """The parties of a risk that a payment by ``payers`` said in ``clause`` answers: the company's side where the
    occupier pays (``OWED_BY``: 公司资金被控股股东占用，控股股东已归还), the occupier where another pays for it
    (``PAID_FOR``); read by ``signals._clears``."""
    owed = OWED_BY.get(signal, frozenset())
    side = {COMPANY} if payers & owed else set()
    paid = next((m for who, rx in _PAID_FOR.get(signal, ()) if payers and payers <= who
                 and (m := rx.search(clause))), None)
    if paid is None:
        return frozenset(side)
    # the occupiers the payment itself names (公司已收回控股股东占用的全部资金 answers the controller, not the actual
    # controller's occupation: the twentieth session), or, naming none, every occupier
    named = {label for label, rx in _OCCUPIERS if label in owed and rx.search(paid.group(0))}
    return frozenset(side | (named or owed))

# the annual report's occupation table, a row read as one line (占用方名称：某某集团有限公司；期末余额：21,300万元):
# an occupier named is an occupation stated, whatever the row says next (the eighteenth session's fresh set); not a
# row answered empty (占用方名称：无 / 不适用 / —) nor the table's header (占用方名称：期末余额…)
OCCUPIER_NAMED = (r"(?<![\u4e00-\u9fff])占用方(?:名称)?\s*[：:]\s*"
                  r"(?!无|不适用|不存在|/|／|—|-|－|期末|期初|余额|占用|合计|报告期|\d|（|\()[^，,。；;：:\s|]{2,}")

# (the eighteenth session) amounts, read as numbers by the pool's own reader (``screening.data.values``): what was
# occupied is every amount in a clause of the sentence that names the occupation (占用, 侵占, 挪用, 资金往来), the
# repayment's own clause only before it; several occupations are added up, so a repayment covers them all or none
_AMOUNT = re.compile(_SUM)
_OCCUPIED = re.compile(r"占用|侵占|挪用|资金往来")
_BREAK = re.compile(r"[，：:；;。！!？?]|,(?!\d{3})")  # 20,000万元 is one number
_PAID_LATER = re.compile(r"(?<![未尚])(?:归还|偿还|收回|清偿)(?:的)?(?:资金|款项|本金)?(?:金额|总额)?"
                         r"(?:为|合计|共计|累计|计|:|：)?" + _SUM)


def _yuan(words: str) -> float | None:
    try:
        return parse_number(words)
    except ValueError:
        return None


def covers(signal: str, unit: str, good: re.Match[str]) -> bool:
    """Whether a repayment ``good`` in ``unit`` covers what the sentence says was occupied: an amount repaid
    smaller than the amount (or the sum of the amounts) occupied does not (控股股东占用公司资金2亿元，…已全部归还占用
    资金1亿元); one equal or larger does, and an amount-only repayment (已归还占用资金2亿元) clears nothing
    without an occupied amount to cover, as before the eighteenth session. Read by ``signals._clears``."""
    if signal not in OWED_BY:
        return True
    start = good.start()
    a = max((x.end() for x in _BREAK.finditer(unit, 0, start)), default=0)
    nxt = _BREAK.search(unit, start)
    b = nxt.start() if nxt else len(unit)
    # (or said in a later clause of its own: 已全部归还，归还金额1亿元)
    paid = _AMOUNT.search(unit, start, b) or _PAID_LATER.search(unit, b)
    cuts = [0, *(x.end() for x in _BREAK.finditer(unit)), len(unit) + 1]
    parts = [(x, y - 1) for x, y in itertools.pairwise(cuts) if not x <= start < y] + [(a, start)]
    owed = [(x < start, _yuan(m.group(0))) for x, y in parts if _OCCUPIED.search(unit, x, y)
            for m in _AMOUNT.finditer(unit, x, y)]
    amount_only = good.groupdict().get("sum_only") is not None  # that entry of REPAID, not one before it
    if paid is None or not owed:
        return not amount_only
    if amount_only and not any(before for before, _ in owed):  # an amount occupied said only after: the rest
        return False
    sums = [x for _, x in owed]
    repaid = _yuan(paid.group(0))
    return repaid is not None and None not in sums and repaid >= sum(x for x in sums if x is not None)
