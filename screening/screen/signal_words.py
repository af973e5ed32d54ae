"""The words that decide how any signal's match is read, whatever its row: denials, another party's trouble, who a
mention is about, a partial or a promised end.

They are the table's grammar, not its rows (``signal_table.SIGNALS``): one list each, read by ``signals.py`` for
every signal alike, and part of the floor's ``TABLE_ID`` (a change here re-judges cached rows). Split out of
signal_table.py so the table of risks stays one screen of rows a reader can check against the prompt.
"""

from __future__ import annotations

from screening.screen.signal_pending import PENDING, REST_PLANNED, SHORT

_CURE_NOT_DONE = (r"按期|按时|如期|及时|足额|兑付|偿还|偿付|清偿|归还|收回|解除|消除|整改|履行|"
                  r"[^，,。；;需要求未]{0,12}?(?:偿还|归还|清偿|还款|解除|履行)")  # 并未对违规担保事项履行信息披露义务
_HOW_TAKEN = r"商业实质|真实(?:的)?(?:交易|业务|贸易)|交易实质|关联关系(?=的)|合理(?:的)?(?:商业)?理由|正当理由"
# A rule against 占用/侵占 (signal_table.py's counter) is standing only where no failure comes before it (the
# lookbehinds are fixed width, one per width): 未能有效防范…占用; review 15: 未能严格防范, 无法防止, 不能有效防范;
# review 16: 未能完全杜绝, 未能及时有效防范, 未能充分有效防止, 没能有效防范, 没有及时防止 read no risk
_ADVERBS = ("有效", "及时", "严格", "切实", "充分", "完全")  # how a rule against 占用 failed (未能有效防范)
RULE_NOT_FAILED = (r"(?<!未)(?<!未能|没有|无法|不能|没能)(?<!未有效|未及时|未严格|未切实|未充分|未完全|没能够|未能够)"
                   r"(?<!未能有效|未能及时|未能严格|未能切实|未能充分|未能完全|不能有效|无法有效|没有有效|没能有效|"
                   r"没有及时|没有严格|没有切实|没有完全|不能完全|无法完全|不能及时|无法及时|没能及时|没有能够)"
                   r"(?<!未及时有效|未充分有效|未切实有效|未严格有效)"
                   r"(?<!未能及时有效|未能充分有效|未能切实有效|未能严格有效|没有及时有效|没能及时有效)"
                   # (review 17: the adverb with 地, 未能有效地防范控股股东占用公司资金, 没有有效地防止…占用,
                   # 未及时地防范: the rule failed; one lookbehind of width 4 (未…地), one of width 5
                   # (未能/没能/没有/不能/无法…地))
                   r"(?<!" + "|".join("未" + a + "地" for a in _ADVERBS) + ")"
                   r"(?<!" + "|".join(n + a + "地" for n in ("未能", "没能", "没有", "不能", "无法")
                                      for a in _ADVERBS) + ")"
                   # (review 24: 未能够有效防范, 没有能够及时防止; review 25: 不能够有效防止, 未能够有效地防止)
                   + "".join("(?<!" + "|".join(n + a + d for n in ns for a in _ADVERBS) + ")"
                             for ns, d in ((("未能够", "没能够", "不能够"), ""), (("没有能够",), ""),
                                           (("未能够", "没能够", "不能够"), "地"))))
# 没有 before such a rule with its adverb (没有有效防止控股股东占用公司资金) says the rule failed, not that 占用 is
# absent; bare 没有防范 stays a denial (没有防范…占用的专门制度，但报告期内未发生占用 is no 占用)
_RULE_FAILED = (r"(?:有效|及时|严格|切实|完全|充分)(?:地)?(?:防止|防范|严防|杜绝)"
                # (review 17's open list: 公司没有防止控股股东占用公司资金 says the 占用 came; 没有防范…占用的专门制度
                # says a rule is missing and stays a denial)
                r"|(?:能够)?(?:防止|防范|杜绝)(?=[^，,。；;]{0,16}?(?:占用|侵占|违规担保)(?![^，,。；;]{0,8}?(?:的)?(?:专门|相关)?(?:制度|机制|措施|规定|办法|流程|条款|程序|缺陷|漏洞)))")
# 没有 before a rule it did not keep (没有遵照未经董事会审议不得对外担保的规定，为控股股东提供担保; twelfth session)
_RULE_NOT_KEPT = r"(?:严格)?(?:遵照|遵守|遵循|按照|依照|依据|执行)(?=[^，,。；;]{0,30}?(?:规定|制度|要求|程序))"
# Denials: one of these earlier in a match's clause (or inside the match) says the risk is absent
# ("不存在违规担保", "未收到立案调查通知", "无重大诉讼"). "无法" is a risk word (无法表示意见, 无法按期披露) and
# 无锡/无偿 are not denials; "未" alone is too wide (未履行减持预披露义务 is a violation), so only its
# denial compounds are listed; "尚未收到" denies only the notice that opens an investigation (截至目前尚未收到
# 立案告知书): what else has not come (…的结论性意见, 法院受理重整的裁定, 占用资金的还款, 留置的书面通知, 进一步
# 通知) leaves a live risk open. 未触及 / 不触及 (平仓线, 强制退市情形).
# 未发现 (自查未发现…失信被执行人或失联的情形), 不属于 (担保对象不属于失信被执行人), 未逾期, and 未(对…)出具
# an opinion (未对财务报表出具保留意见、否定意见或无法表示意见: one denial covers the list, which has no clause
# break) deny as well.
# (review 16: nor 没有 before a rule it failed, 公司没有有效防止控股股东占用公司资金: 没有 denied the 占用 after it)
NEGATIONS = (r"不存在|不涉及|不构成|不属于|不会|"
             r"没有(?!能够|能力|" + _CURE_NOT_DONE + r"|" + _RULE_FAILED + r"|" + _RULE_NOT_KEPT + r")|并无(?!能力)|"
             r"并未(?!" + _CURE_NOT_DONE + r")|未发生|(?<!尚)未收到(?!" + _CURE_NOT_DONE + r")|"
             r"未受到|未实施|未涉及|未被|未曾|"
             r"尚未收到(?=[^，,。；;]{0,20}?(?:立案告知书|立案调查(?:的)?(?:任何)?(?:书面)?通知))|[未不]触及|"
             r"未有(?!效)|未出现|未计提|未发现|未逾期|未(?:对[^，,。；;]{0,20}?)?出具[^，,。；;]{0,4}(?:保留|否定|无法表示|非标)|"
             r"不是(?![^，,。；;]{0,8}首次)|非(?:属)?[“\"「『]?(?=失信)|未提出(?=[^，,。；;]{0,6}(?:否定|反对|异议))|"
             r"否认|澄清|无(?![法锡偿视力形为能]|保留|" + _HOW_TAKEN + r")")
# 不是首次: again. 没有 / 并未 / 未收到 before a cure (没有归还占用资金, 并未解除上述违规担保, 未收到控股股东偿还的占用
# 资金, 没有在承诺期限内清偿) say the cure did not come: the risk stands. 无 before how money was taken (无商业实质的
# 采购预付款, 无真实交易背景的票据, 为无关联关系的第三方) describes the act, it does not deny it (a trial, 2026-12-06)
# A denial's reach ends at a subordinate phrase: in 公司在无董事会审议的情况下违规为控股股东提供担保 the 无 negates
# the board's review, and the 违规担保 after 情况下 is asserted. 无视 (ignored) and 无力 (unable) deny nothing.
# A contrast ends it too: 不触及重大违法强制退市情形但将被实施其他风险警示 asserts the second warning; so does 暨,
# which joins a second matter to a title (关于媒体报道的澄清暨收到立案告知书的公告).
# (a sentence-wide denial, 不存在…的情况下违规担保的情形, is ended only by the contrast words: signals._denied)
NEGATION_SCOPE_END = r"情况下|前提下|情形下|条件下|授权下|审议下|审批下|同意下|批准下|决策下"
NEGATION_CONTRAST_END = r"(?<!披露)但(?!书|不限于)|却|暨(?=收到)"  # not 应披露但未披露, 包括但不限于
# A clarification: a title or sentence that says it is one (澄清, 不实), whose risk words stand after the rumour
# it answers (关于网络传闻公司被立案调查的澄清公告). Not a signal of its risk; shown, not counted (signals.py).
CLARIFICATION = r"澄清|不实|不属实|失实|谣言|辟谣"
RUMOUR = r"传闻|网传|报道|媒体|网络|文章|质疑|市场消息|举报"
# another party's trouble, named before the match in its clause (公司客户…破产清算, 原供应商…被立案调查, 参股公司…
# 破产清算, 房地产行业部分企业出现债务违约, 同行业可比公司…): not the company's own risk. Read like a denial.
# Not when the other party acts against the company (被供应商起诉, 客户申请对公司重整) or is its counterparty in a
# dispute (因客户合同纠纷公司账户被冻结): the trouble is then the company's.
# Nor when the company acts on it (公司为参股公司违规提供担保: the guarantee is the company's), nor when it acts
# on the company's assets (供应商申请诉前财产保全冻结了公司银行账户: the freeze is the company's; a trial, 2026-12-06).
_ON_COMPANY = (r"(?![^，,。；;]{0,40}?(?:(?:冻结|查封|扣押|扣划|划扣|起诉|诉|仲裁)(?:了)?"
               r"(?:(?:本|我|上市)?公司|[本我]司|(?:全资|控股)?子公司)(?!已|对其|将)"
               r"|对(?:本|我)?公司(?:提起|进行|申请|采取)|申请对(?:本|我)?公司"
               r"|(?:本公司|我公司|[本我]司|(?<!有限)(?<!责任)(?<!集团)(?<!标的)公司)[^，,。；;]{0,8}被[^，,。；;]{0,4}"
               r"(?:冻结|查封|扣划|起诉)"
               r"|(?:民事)?起诉状|仲裁申请书|要求(?:本|我)?公司"
               # a supplier's demand for what the company owes it (供应商要求我方支付拖欠的采购款, 遭供应商追讨拖欠…)
               r"|(?:要求|催促|催收|追讨|催讨|敦促|追索)[^，,。；;]{0,30}?(?:拖欠|欠付|欠款|逾期)"
               r"|遭(?:到|受)?(?:本|我|上市)?公司[^，,。；;]{0,4}?(?:拖欠|欠付)))")
# 与客户 only before the customer's own bills (与客户结算的商票到期未兑付), not 与客户签订虚假合同 (the company's fraud)
# (the seventeenth session: not the company's own arrears, 遭公司恶意拖欠, nor a delay it asks of them, 向供应商申请
# 延期支付)
OTHER_PARTY = (r"(?:(?<![方过被与])(?!(?<=向)(?:客户|供应商)申请(?:延期|延迟|推迟|暂缓|分期))(?:客户|供应商)|"
               r"(?<=与)客户(?![^，,。；;]{0,20}?(?:纠纷|争议|诉讼|仲裁))"
               r"(?=[^，,。；;]{0,20}?(?:商票|汇票|承兑|应收|回款|货款)))"
               r"(?!申请对|对公司|对本公司|起诉|提起|[^，,。；;]{0,4}(?:纠纷|争议))"
               + _ON_COMPANY + r"|(?<!公司[及和与、])交易对方" + _ON_COMPANY + r"|交易对手" + _ON_COMPANY
               # not the company as the debtor (公司作为债务人的…, 重整债务人名下的…, 债务人（即公司）: twelfth session)
               # (review 9's open list: 债务人某某股份有限公司（本公司）, 子公司（债务人）: the company's own)
               + r"|(?<!作为)(?<!重整)(?<![（(])债务人(?![（(](?:即|系)?(?:本|上市)?公司)"
               r"(?![^，,。；;（(]{0,20}[（(](?:即|系|为)?(?:本|上市)?公司[)）])" + _ON_COMPANY
               + r"|被投资(?:企业|单位)|"
               r"投资标的|(?:(?<!公司[与和及])(?<!公司[与和及]其)|(?=[^，,。；;]{2,16}之间))(?:参股(?:公司|子公司|企业)|合营企业|联营企业)"
               r"(?![^，,。；;]{0,24}?占用(?:本|上市)?公司)|"
               r"行业(?:内)?(?:部分|个别|多家|一些)|同行业|可比公司")  # not 第三方供应商

# Who a dated mention, and the title that ends it, is about (signals.py lifts a risk only by an end about the
# same parties): a 结案 of the chairman's case does not close the company's, nor a director's 解除留置 the
# controller's. The roles named before the signal's words in the title (公司董事长 is the chairman, 公司及实际控制人
# both); none named: the company.
OTHER_COMPANY = "他方"
PARTIES: tuple[tuple[str, str], ...] = (
    ("控股股东", r"控股股东"), ("实际控制人", r"实际控制人|实控人"), ("副董事长", r"副董事长"),
    ("董事长", r"(?<!副)董事长"), ("董事会秘书", r"董事会秘书|董秘"), ("独立董事", r"独立董事"),
    ("董事", r"(?<!独立)(?<!副)董事(?![长会])"), ("监事", r"监事(?!会)"), ("副总经理", r"副总经理|副总裁"),
    ("总经理", r"(?<!副)(?:总经理|总裁)"), ("财务总监", r"财务总监|财务负责人"), ("高级管理人员", r"高级管理人员|高管"),
    # the controller's concert party is another holder (控股股东及其一致行动人张某某: a lift of the controller's
    # shares leaves its shares frozen; review 9's open list, seventeenth session)
    ("一致行动人", r"一致行动人"),
    ("子公司", r"(?:控股|全资|下属)?子公司"), ("股东", r"(?<!控股)股东(?!大会|会)"), ("当事人", r"当事人"),
    # a former or acting holder of a role is not the company (公司原董事长收到结案通知书 closes his case only)
    ("原任", r"(?:原|前任|时任)(?=董事|监事|总经理|副总|总裁|财务|实际控制人|实控人|控股股东|高级管理人员|高管|董秘)"),
    # another company named in full after its role in the deal (出售资产受让方某某有限公司关于银行账户解除冻结的说明,
    # 公司收购标的某某有限公司…, 按揭贷款银行某某银行股份有限公司…): its 公司 is not the company's, so its lift does not
    # end the company's own freeze (review 17's open list)
    (OTHER_COMPANY, r"(?:(?:本|上市)?公司的?)?"
                    r"(?:受让方|转让方|出让方|交易对方|交易对手|收购标的|标的公司|(?:贷款|按揭|债权|开户)银行)"
                    r"[^，,。；;：:、\s]{0,30}?(?:股份有限公司|有限责任公司|有限公司)"),
)
COMPANY = "公司"
# another party of the company's that a court ruled against (公司原第一大股东/时任董事长/副总经理某某被判令…;
# reviews 20, 21)
JUDGED_OTHER = (r"(?:原|前任|前|时任)?(?:第[一二三]大|持股\d+(?:\.\d+)?%以上的?)?(?:关联方|关联公司|关联企业|控股股东"
                r"|股东|实际控制人|实控人|客户|供应商|债务人|董事|监事|高级管理人员|高管|副?总经理|副?总裁"
                r"|财务总监|财务负责人|董事会秘书|董秘|法定代表人)")
# the company named as a party itself, not as the owner of a role (公司董事长, 公司原董事长) or inside 子公司
COMPANY_NAMED = r"(?<!子)公司(?!的?(?:" + "|".join(p for _, p in PARTIES) + r"))"
# a title or sentence that ends only part of a risk (部分股份解除冻结, 撤销部分风险警示, 其中已偿还1.2亿元, 剩余…尚未
#解除, 前次冻结已解除), or whose end was refused (申请…未获同意), lifts nothing and clears nothing: the rest stands
PARTIAL_END = r"部分|其中(?=[^，,。；;]{0,6}(?:已|尚未|未))|剩余|尚余|仍有|未获|不予|被驳回"  # not 其中本金2.1亿元
# good news said not to have come (影响尚未消除, 无法消除, 尚未恢复履职, 未能…重新取得联系): a clear or an end after
# one of these in its clause clears nothing (无法表示意见 is an opinion, not a negation). Plans and promises
# (将督促…归还, 承诺…归还) are signals._PLANNED.
NOT_DONE = (SHORT + r"|尚未|未能|无法(?!表示)|不能|仍未|没有|并未|"  # (SHORT: 仅够归还, signal_pending.py)
            r"未(?=偿还|兑付|偿付|清偿|归还|收回|解除|消除|恢复|取得)|"
            r"无能力|无力|没有能力|"  # 暂无能力归还: not repaid
            # 未按证监局要求归还 (review 21), not 此前未按规定披露的…已归还 (review 22); 未按期/未依照决定书/未在…内
            # 归还 and 拒不归还 too, not what they name (此前未按期偿还的贷款已清偿, 此前拒不归还的…已收回; review 23),
            # 未及时/未足额/未全额归还 (the thirteenth session's open list)
            r"未(?=(?:按|按照|依照|依据|根据)[^，,。；;]{0,10}?(?:要求|决定))|"
            r"(?:未(?=按|依照|依据|根据|遵照|在|于|如期|及时|足额|全额|如数)|拒不|拒绝)"
            r"(?=[^，,。；;已]{0,16}?(?:归还|偿还|清偿|兑付|偿付|解除|收回|消除|支付)(?!的))")
# What says good news has not come yet, read by signals.py around every clear and end: a plan or a promise before it,
# a remainder still open after it. Moved here from signals.py (2026-12-06) as the vocabulary it is.
# a plan or a promise before good news in its sentence (将督促…归还，消除…影响; 承诺…前归还), not one kept (履行承诺)
# the noun 要求 with its time or its pressure (在证监局要求期限内归还了, 在证监局要求下…归还; review 24)
_NOUN_TIME = r"期限|的期限|的?时限|下(?![达月周旬个一半年季属辖级期游])"  # (the eighteenth session: 要求的时限内)
# what follows 要求 as a noun (已按监管要求于…归还, 按照公司要求全额归还, 已按照证监局责令改正要求归还, 按照…要求的
# 期限), not as a verb with a party after it
_NOUN_AFTER = (r"于|在|将|已|全额|全部|足额|如期|按期|按时|及时|归还|偿还|清偿|了|向(?:本|上市)?公司|通过|以|"
               r"改正|整改|的|予以|一次性|分期|如数|全数|" + _NOUN_TIME)
# the noun 要求 of a decision followed, further back than the 8 characters below (the eighteenth session:
# 已按照证监局下发的《行政监管措施决定书》要求归还, 已按证监局出具的责令改正决定要求归还, 已按照…《关于…的决定》的
# 要求归还): only after 已按/已依/已根/已遵, the decision named just before it
_PAPER_FOLLOWED = "".join(f"(?<!{w}[^，,。；;]{{{k}}}{end})" for w in ("已按", "已依", "已根", "已遵")
                          for k in range(7, 36) for end in ("》", "》的", "决定"))
# what says the ordered or owed repayment was then made, in the same clause (the eighteenth session): 证监局已责令控股
# 股东归还占用资金并已全部归还; 控股股东应当归还的占用资金2.3亿元已于…全部归还, 应于…前归还的占用资金已按期全部归还
# (the owed sum named by 应…归还的, then 已于/已在/已按 and the verb, with no delay, request or failure between). The
# good news read up to its own end only (signals._came), so a clear inside the order or the owed sum sees none of it
_THEN_DONE = r"并(?:且)?已(?:经)?(?:全部|全额|足额)(?:归还|偿还|清偿|收回)"
_NO_DELAY = (r"(?:(?!延期|展期|推迟|延长|变更|调整|申请|未|尚|将|拟|计划|承诺|预计|争取|约定|协议|说明|表示|同意|"
             r"决定|保证|确认|明确|要求|责令|安排|方案)[^，,。；;])")
_OWED_THEN_PAID = (r"(?:(?!归还|偿还|清偿)[^，,。；;]){0,30}(?:归还|偿还|清偿)的" + _NO_DELAY
                   + r"{0,30}?已(?:经)?[于在按]" + _NO_DELAY + r"{0,20}?(?:归还|偿还|清偿)")
_ORDERED = r"控股股东|实际控制人|实控人|大股东|其|关联方|占用方|相关方|股东|该"  # who is ordered to repay
PLANNED = (r"将(?:努力|积极|尽快|督促|采取|通过|争取|力争|消除|归还|偿还|解决|代为|代其|于)|"  # 将代为归还: a plan
           # (the eighteenth session: 已通知公司将于2027年3月将占用资金全部归还 read repaid; 已申请于/已申请延期至)
           r"申请(?=于|在|延期|展期|分期)|(?<![按照据依的])约定(?=[^，,。；;]{0,2}?[于在将])|"  # 已约定于2027年全部归还
           r"(?<!履行)(?<!兑现)(?<!已按照)(?<!已按)(?<!已依据|已依照|已根据)承诺(?!期限内|期内)|"
                      r"(?:督促|催促|敦促|催告)(?!下)|以消除|拟|力争|争取|"
                      # under way, not done (a trial on 2026-12-06): 正在筹措资金归还, 计划于…前归还, 预计整改完成时间,
                      # 表示将以现金方式归还, 为消除…的重大不确定性, 积极采取措施消除, 与银行沟通偿还方案
                      r"正在|正通过|(?<!减持)(?<!持股)计划(?=于|在|将|通过|以|年内|\d)|预计|表示将|为消除|"
                      # (the nineteenth session: 2024年度亏损1.1亿元，2025年度计划实现盈利 read the loss cleared; a
                      # profit planned or hoped for is none, 按计划实现 one made as planned)
                      r"(?<![按照据依])(?:计划|力求|希望)(?=实现|扭亏)|"
                      r"采取(?:了)?(?:以下|相关|有效)?措施|(?:正在|持续|积极|将)[^，,。；;]{0,6}(?:沟通|协商)|"
                      r"(?:沟通|协商)(?:中|过程中|偿还|还款|解决)|"
                      # (a plan followed, not one made: 已按整改计划解除; the seventeenth session)
                      r"(?<!依照|按照|根据|依据)(?<!已按)(?:偿还|还款|清偿|整改)(?:方案|计划|安排)|有权|"
                      # an order to repay is no repayment (要求公司提前偿还; review 19: 要求控股股东尽快归还占用资金,
                      # 责令控股股东于…归还占用的全部资金), unless it says it was done (已按监管要求归还, 按照要求归还)
                      # (已要求 and 已责令 are orders too; review 20 lifted the order after 按/据/照/依/应 up to 8
                      # characters back, and review 22 found that it lifted 依据《证券法》要求…归还 too, a live 资金占用
                      # read as repaid; review 22 then lifted it only after 已按/…日按, which missed 近日依据…要求公司
                      # 控股股东)
                      # (review 23: 已 is no sign, a party after the verb is: 近日依据《证券法》要求公司控股股东…归还
                      # is an order, 按照证监局要求归还了/已严格按照…要求归还 a repayment; the noun 要求 is followed by
                      # the repayment itself or its time, the verb by whom it orders)
                      + r"(?=要求|责令)"  # the verb first: the lookbehinds are tried only before it
                      + "".join(f"(?<!{w}[^，,。；;]{{{k}}})" for w in "按据照依应" for k in range(9)) + _PAPER_FOLLOWED
                      + r"(?<!监管)(?<!相关)(?:要求|责令)(?!并|改正措施|" + _NOUN_TIME + r")"  # (《…责令改正措施…》)
                      r"(?=[^，,。；;已]{0,24}?(?:归还|偿还|清偿))(?![^，,。；;]{0,24}?" + _THEN_DONE + r")|"
                      r"(?<!监管)(?<!相关)(?:要求|责令)(?!并|" + _NOUN_AFTER + r")"
                      r"(?=[^，,。；;已]{0,24}?(?:归还|偿还|清偿))(?![^，,。；;]{0,24}?" + _THEN_DONE + r")|"
                      # (review 21: 依法/按规定/依据《…》 要求控股股东…归还 is the verb, a party after it)
                      r"(?:要求|责令)(?=" + _ORDERED + r")(?=[^，,。；;已]{0,24}?(?:归还|偿还|清偿))"
                      r"(?![^，,。；;]{0,24}?" + _THEN_DONE + r")|"
                      r"(?<![供响相反对适])应(?:当|按|依|根据|尽快|及时|于|在)(?=[^，,。；;]{0,30}?(?:归还|偿还|清偿))"
                      r"(?!" + _OWED_THEN_PAID + ")"
           + "".join("|" + p for p in PENDING))  # an order, a suit, a promise (signal_pending.py)
# a remainder still open after good news (剩余3.5亿元尚未解除, 仍有4.5亿元逾期); a routine item (另有正常经营性往来款
# 尚在结算中) is none, a loan for daily operations overdue is one (尚有日常经营流动资金贷款1.5亿元逾期; review 10)
ROUTINE = (r"(?:正常|日常)(?:经营性?)?(?:往来|业务|结算|交易|关联交易)|"
            r"(?<!非)经营性(?:往来|业务|结算|交易)(?![^，,。；;]{0,6}?占用)")
REMAINDER = (r"(?:剩余|尚余|仍有|其余)[^。；;]{0,12}?(?:尚未|未|仍|逾期)|"
                        r"(?:尚有|还有|另有|余下)(?:(?!" + ROUTINE + r")[^。；;]){0,16}?"
                        r"(?:尚未|仍未|未能|(?:尚在|仍在)(?!信用期|结算|正常|履行|账期)|(?<!未)逾期|"
                        r"(?<!均)未(?=归还|偿还|清偿|解除|收回|支付|兑付|按期|按时|如期))|"
                        # further off only a cure not done or a risk still on (尚有1笔违规担保涉及金额5,000万元
                        # 未能解除, 还有12个账户仍被冻结), not 另有对子公司的担保仍处于担保期内 (review 8)
                        r"(?:尚有|还有|另有|余下)[^。；;]{0,24}?(?:(?:尚未|仍未|未能|(?<!均)未)(?=归还|偿还|清偿|解除|收回|支付|兑付|"
                        r"按期|按时|如期|解冻)|仍(?:处于|被|在)?(?:司法)?(?:冻结|查封|逾期|违约|占用))|"
                        r"(?<=[，,（(])余额(?:为|约为)?\s*(?:[1-9]|0\.\d*[1-9])(?![^，,。；;]{0,12}?(?:(?<!法)(?<!能)正常|(?<!非)经营性))|"
                        # 剩余占用资金余额1.1亿元 / 占用余额为1.1亿元: a balance still owed, not zero, nor the rest
                        # said done on its date (其余于2025年6月解除; not 其余于…前解除; the eighteenth session)
                        r"(?:剩余|尚余|其余)(?!(?:部分)?(?:也|亦)?(?:已)?于20\d\d年\d{1,2}月(?:\d{1,2}日)?(?:全部)?"
                        r"(?:解除|归还|收回|清偿|偿还)(?!前))[^。；;]{0,12}?(?<![\d.])(?!0(?:\.0+)?(?![\d.]))\d|"
                        r"(?:占用(?:资金)?|违规担保|逾期(?:借款|债务)?|未归还|未偿还|欠款)[^，,。；;]{0,4}余额(?:为|约为|合计)?\s*(?:[1-9]|0\.\d*[1-9])|"
                        # a repayment in assets not yet transferred (以资抵债…，但抵债资产尚未完成过户)
                        r"(?:抵债|抵偿)资产[^。；;]{0,12}?(?:尚未|未|仍未)(?:完成|办理)?(?:过户|交割|转让|移交)")
# after good news of an amount, not of all (已解除2笔, 已归还占用资金1.2亿元), a remainder still open counts further
# off (尚有…尚在催收中, …仍处于有效期内); after 已全部解除 only _REMAINDER (另有对子公司的担保仍处于担保期内) (review 9)
REMAINDER_OPEN = (r"(?:尚有|还有|另有|余下)(?:(?!" + ROUTINE + r"|(?:对|为|向)(?:全资|控股)?子公司)"
                             r"[^。；;]){0,24}?(?:尚未|仍未|未能|(?:尚在|仍在|仍处于)(?!信用期|结算|正常|履行|账期)|仍被|(?<!未)逾期)"
                  + "|" + REST_PLANNED)  # a plan for the rest (signal_pending.py)
# the good news that says a risk ENDED (repaid, lifted, closed), as against a clear saying it is not the company's
# (作为债权人, 担保余额), a denial (不存在减值) or a question (是否已归还): a 高 risk cleared by one of these is kept as
# a flag of the row (signals.py, ``cleared``), so a misread end is never silent
ENDED = (r"^(?!.*是否)(?=.*(?:归还|偿还|清偿|收回|退还|返还|追回|结清|付清|还清|兑付|解除|解冻|解封|结案|终止|摘帽|"
         r"消除|解决|整改|扭亏|恢复履职|取得联系|执行完毕|抵偿|抵债))")  # (抵偿: the eighteenth session, 作价抵偿…)
# good news of a 中 signal, or a 高 one's that says no end, which names the company as the one who claims: the
# trouble is the other side's (公司作为原告, 公司作为申请人, 公司起诉某某, 公司向其提起诉讼, 追偿): kept as ``excluded``
COMPANY_CLAIMS = r"原告|申请人|债权人|起诉|(?<![胜败撤])诉(?!讼)|提起|追偿|收到执行款"
# a counter-pattern that names another party as the one in trouble (客户拖欠公司货款, 交易对方申请冻结了…, 判令某某
# 公司支付拖欠的…), unless it is a hypothetical (如借款到期后公司未能按期还款, 若客户拖欠…): that one stays silent
HYPOTHETICAL = r"(?:若(?!干)|如果|如有|若有|倘若|一旦|假如|可能|如(?![期实数今此下附表图]))"
COUNTER_OTHER = (r"客户|供应商|对方|债务人|被告|被申请人|被执行人|借款人|承租人|借款方|承租方|出票人|承兑人|"
                 r"付款人|发行人|兑付方|融资方|经销商|买方|业主|发包方|总包方|商户|租户|用户|下游|采购方|"
                 r"受让方|甲方|合作方|少数股东|财务资助|(?:支付|向)(?:本|我|上市)?(?:子)?公司|"
                 r"要求|起诉|判令|判决|裁决|催告|遭")
