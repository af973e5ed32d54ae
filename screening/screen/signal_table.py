"""The text signals as data: one row per risk that an announcement title or a report sentence can state.

Every reader of risk text reads this one table: the rules floor (``screen/signals.py``), the full system
prompt's signal list (``screen/prompt.py`` renders it from ``GROUPS``), and the fine-tuning targets
(``finetune/``). So the words the model is told to look for, the words that raise a verdict without any
model, and the words a training answer names cannot drift apart.

A row: the signal's short name (what a flag and a reason say), the tier it justifies at least, the
patterns that state it (regular expressions, matched inside one clause), and counter-patterns: wording
that shares the signal's words but says the opposite or good news (撤销退市风险警示, 标准无保留意见, 解除质押).
Counter-pattern spans are blanked out of the clause before the patterns are tried, so "撤销退市风险警示"
is not read as "退市风险警示" while "撤销退市风险警示暨实施其他风险警示" still is; a ``clears`` word
(胜诉, 结案通知书) turns the whole sentence into good news for that one signal. Plain denials (不存在违规担保,
未收到立案调查通知) are handled once for every signal by ``signal_words.NEGATIONS``: a negation word earlier in the same
clause, or inside the match, cancels it.

The row and heading types are ``signal_rule.py``'s; the 业绩预告 group's rows are ``signal_earnings.py``'s (moved there
in the twenty-first session, this module being at the size limit), listed here in their place.
"""

from __future__ import annotations

from screening.screen import signal_arrears as _arr
from screening.screen import signal_freeze as _frz
from screening.screen.signal_arrears import ARREARS, ARREARS_NOT, ARREARS_PAID, DEBT_ARREARS, DEBT_PAID, DEBT_TO_COMPANY
from screening.screen.signal_controller import CONTROLLER_ENDED, CONTROLLER_IF, CONTROLLER_INSOLVENT
from screening.screen.signal_earnings import EARNINGS_ROWS
from screening.screen.signal_freeze import FROZEN, FROZEN_CLEARS, FROZEN_NOT, FROZEN_RESOLVES, FROZEN_SENTENCE
from screening.screen.signal_gaps import NO_OTHER_OPINION as _NO_OTHER_OPINION
from screening.screen.signal_gaps import G as _G
from screening.screen.signal_gaps import L as _L
from screening.screen.signal_gaps import S as _S
from screening.screen.signal_guarantee import GUARANTEE, GUARANTEE_NOT, GUARANTEE_SENTENCE, RELEASED
from screening.screen.signal_pending import SOLD_LATER as _SOLD_LATER
from screening.screen.signal_repaid import OCCUPIER_NAMED, REPAID
from screening.screen.signal_rights import RIGHT_IF  # before the hypothetical counters: both start at 如
from screening.screen.signal_rule import SignalGroup, SignalRule  # the row's type, and the heading's
from screening.screen.signal_words import JUDGED_OTHER, RULE_NOT_FAILED

# The describes are short on purpose: the prompt they render must stay 2 x 544 tokens of shared prefix with Qwen3.5's
# tokenizer (tests/test_qwen_tokenizer.py); the rows' names after each arrow say the rest. 2026-12-06: three new
# rows' names (拖欠经营款项, 审计机构辞任, 内控重大缺陷) were paid for by cutting as many tokens here; 2026-12-07
# (the twenty-first session) the 净资产为负 row's name by 业绩预告's: its 预计 and 降幅 went.
# (twenty-second session) 控股股东重整 by 债务违约's 或 and 、: 破产重整 names both.
GROUPS: tuple[SignalGroup, ...] = (
    SignalGroup("立案调查", "公司或实控人被证监会立案调查或受行政处罚"),
    SignalGroup("退市风险警示", "被实施退市风险警示(*ST)、其他风险警示(ST), 或可能被终止上市"),
    SignalGroup("审计意见", "无法表示、否定或保留意见, 持续经营重大不确定性"),
    SignalGroup("违规担保、资金占用", "为控股股东或关联方违规担保, 或控股股东非经营性占用公司资金"),
    SignalGroup("重大诉讼、仲裁", "公司为被告的重大诉讼、仲裁, 或银行账户、主要资产被冻结"),
    SignalGroup("商誉减值", "计提大额商誉减值准备"),
    SignalGroup("减持", "控股股东、实控人、5%以上股东或董监高减持"),
    SignalGroup("股权质押与冻结", "控股股东质押超过80%或有平仓风险, 股份被司法冻结或强制平仓"),
    SignalGroup("业绩预告", "预亏、首亏、预减超50%、续亏、净资产为负"),
    SignalGroup("债务违约", "债券或借款违约、展期、逾期, 破产重整"),
    SignalGroup("其他", "定期报告无法按期披露、财务造假、实控人被留置或失联; 监管函件"),
)


# a percentage of 80 or more / 10 or more, not read from the middle of a longer number
_PCT80 = r"(?<![\d.])(?:[89]\d|100)(?:\.\d+)?\s*%"
_PCT10 = r"(?<![\d.])(?:[1-9]\d|100)(?:\.\d+)?\s*%"

# what ends a risk, both as good news inside one sentence (clears) and as a later title (resolves)
# 结案 of a lawsuit (子公司诉讼结案) is not the investigation's; 终止重大资产重组暨收到立案调查 is no 终止…调查
_NJ = r"[^，,。；;：:！!？?\n暨及并和与]{0,12}"
_CASE_CLOSED = (r"(?<!诉讼)(?<!仲裁)(?<!案件)结案", r"撤销" + _NJ + r"立案", r"终止" + _NJ + r"调查")
# the company as the plaintiff (公司作为原告): not 某银行作为原告起诉公司, whose suit is against the company
_COMPANY_SUES = r"(?:^|(?<=[，,。；;\s]))(?:本公司|公司|全资子公司|控股子公司|子公司|我司)(?:的)?作为原告"
# a later title ends an investigation only when it is the investigation's end: 结案通知书, 终止调查, 立案调查…结案;
# a lawsuit's, a labour dispute's or a police case's 结案 / 撤销立案 (涉嫌单位行贿案撤销立案) is another matter
_INVESTIGATION_CLOSED = (r"(?<!执行)(?<!仲裁委员会)(?<!仲裁委)(?<!法院)结案通知书",
                         r"终止" + _NJ + r"(?<!倾销)(?<!补贴)(?<!垄断)(?<!保障措施)调查",
                         r"(?<!事故)(?<!事件)(?:立案|调查)(?:事项|案件)?" + _NJ + r"结案")
APPROVED = _APPROVED = r"(?<!未获)(?<!未予)(?<!不予)(?<![未不])(?:同意|批准|核准|获准)"  # not 未获同意
_WARNING_LIFTED = (
    # not refused, put off or in doubt (不同意撤销, 暂不撤销, 可能无法撤销, 撤销…事项存在重大不确定性: 2026-12-06)
    r"(?<!申请)(?<!不同意)(?<!暂不)(?<!无法)(?<!不能)(?<!未能)(?<!不予)撤销" + _L
    + r"风险警示(?:(?:及|和|与|、|以及)(?![^，,。；;]{0,4}?(?:实施|叠加))" + _L
    + r"风险警示)?(?![^，,。；;]{0,2}申请)(?![^，,。；;]{0,8}?(?:存在|不确定|尚未|进展|未满足))",
    # an application to lift a warning is not a lift (the stock stays under it); an approved one is
    r"申请撤销" + _L + r"风险警示" + r"[^。；;]{0,20}?" + _APPROVED,
    r"撤销" + _L + r"风险警示(?:的)?申请(?![^，,。；;]{0,12}?(?:未获|不予|未予|未能|被驳回))" + _G + _APPROVED,
)
# 违规担保已全部解除; not 尚未/已部分/仍待解除, 解除工作尚在推进中, 能否解除, 解除尚需, 解除期限已延期 (reviews)
# a date (2025年12月31日, 2025年12月, 2025-12-31) is one step when said done: 已于/已在, 已经于, 已分别于, 已按约定于
# (and the list's next date, …日、2025年12月31日), 于/在/截至 a date with 已 after it (于…到期后已解除, 截至…已全部
# 解除, 已按照约定于); a release only due is none (原约定于, 将于, 应于, 需于, 预计于, 最迟, 有望, 力争, 已开始解除;
# reviews 11-13). 分别于/全部于 only after 已 (not 有望分别于…、…解除, 目标全部于…前解除); a due word naming a
# done one's term is none (已于约定期限内, 已按照约定, 已按计划, 已在原定期限前, 已提前于原定到期日,
# 已随应付款项结清而, 已在最迟还款日前: review 13)
_D = r"20\d\d(?:年\d{1,2}月(?:\d{1,2}日)?|(?:-\d{1,2}-|/\d{1,2}/|\.\d{1,2}\.)\d{1,2})(?!\d)"
_TERM = r"(?!期限|到期|日期|时间|还款|的期限)"  # 约定期限, 原定到期日, 最迟还款日: the term of a done release
_GUARANTEE_ENDED = (r"违规担保(?:(?!能否|何时|难以|待|在解除前|于解除前|仍在|尚在|正在|处于|(?<!已)将|"
                    r"(?<![相对供])应(?![付收])|(?<!无)需|须|拟|预计|(?<![按照改定款])计划|争取|有望|可望|力争|开始|推进|着手|"
                    r"最迟" + _TERM + r"|(?<![按照依])约定" + _TERM + r"|原定" + _TERM + r")"
                    r"(?:(?:(?<=已于|已在|日、|月、)|(?<=已经于|已经在)|(?<=已分别于|已全部于|照约定于)"
                    r"|(?<=已按约定于|已经分别于|已经全部于))" + _D
                    + r"|(?<=[于在至])" + _D + r"(?=[^，,。；;：:！!？?\n]{0,11}?已)|[^，,。；;：:！!？?\n]"
                    r"|(?<=\d),(?=\d{3}))){0,12}"  # 违规担保3,000万元已于…全部解除: a number's comma is no break
                    r"(?:已)?(?:全部)?(?:解除|消除|清理完毕|整改完毕)"
                    # (not a part, 截至…已解除3,000万元, nor a field, 违规担保的解除情况：无; review 13; nor a promise,
                    # 违规担保已于2026年6月前解除的承诺尚未履行; review 14)
                    r"(?!部分|前|存在|尚|仍|需|须|以|过程|中|(?<!全部解除)\s*\d|(?:的)?(?:相关)?(?:工作|进展|进度|事宜|事项|方案|计划|措施|手续|"
                    r"申请|情况\s*[：:]|程序|相关|进程|期限|时间|路径|问题|承诺)"
                    r"(?![^，,。；;]{0,14}?已[^，,。；;]{0,14}?(?:完成|完毕|办结|消除|终止)))",
                    r"违规担保" + _G + r"整改是否(?:已)?(?:完成|完毕)",
                    r"违规担保" + _G + r"(?:不|无需|免于)(?:再)?承担",
                    # 公司已于2025年12月31日解除全部违规担保 (review 13)
                    r"(?:是否|已)(?:已|全部)*(?:(?<=已)[于在]" + _D + r")?解除" + _G + r"违规担保")
# a release that is not followed by a harder measure: 解除留置并被采取刑事强制措施 moves the case to the police
# (the gap may not run over 并/被/后/及 to a later measure's words, nor may one follow the release)
_NO_NEXT = r"[^，,。；;：:！!？?\n并被后及]{0,12}"
_BACK = (r"解除" + _NO_NEXT + r"(?:留置|强制措施|监视居住|取保候审)"
         r"(?![^。；;]{0,20}?(?:采取|转为|变更为|改为|逮捕|拘留|羁押|指定居所))",
         r"恢复履职", r"(?:已|恢复|重新)" + _G + r"取得联系(?![^。；;]{0,20}?(?:采取|逮捕|拘留|羁押|留置|强制措施))")

SIGNALS: tuple[SignalRule, ...] = (
    SignalRule("立案调查", "高", "立案调查", (
        r"立案告知书", r"立案调查", r"立案事项", r"被" + _G + r"立案",
        r"(?:证监会|证券监督管理委员会|证监局|稽查)" + _G + r"(?:立案|调查)", r"涉嫌" + _G + r"立案",
    # the investigation's own end only: not 民事诉讼已结案, 子公司诉讼结案
    ), (r"报案" + _S + r"公安机关" + _G + r"立案告知书", r"公安机关" + _G + r"立案告知书(?=[^。；;]{0,30}报案)"),
        # the company reported a crime against it: the police's 立案告知书 is its complaint accepted (2026-12-06)
        clears=(*_INVESTIGATION_CLOSED, r"(?<!事故)(?<!事件)(?:立案|调查)[^，,。；;：:！!？?\n暨及并和与]{0,24}结案"),
        resolves=_INVESTIGATION_CLOSED),
    SignalRule("行政处罚", "高", "立案调查", (
        # wording 2024-2026 filings use (a trial, 2026-12-06)
        r"行政处罚(?:决定|事先告知)",
        r"行政处罚事先告知书", r"行政处罚决定书", r"市场禁入", r"处以" + _G + r"罚款", r"给予警告",
    )),
    SignalRule("退市风险警示", "高", "退市风险警示", (
        # wording 2024-2026 filings use (a trial, 2026-12-06)
        r"市值" + _G + r"低于\s*(?:人民币)?\s*(?:3|三|5|五)亿", r"交易类(?:强制)?退市", r"规范类(?:强制)?退市",
        r"(?<!不)(?<!不得)低于(?:股票)?面值", r"(?:半数以上|过半数)董事" + _G + r"无法保证",
        r"限期改正" + _G + r"未" + _G + r"改正",
        r"孰低者" + _G + r"为负",
        r"退市风险警示", r"其他风险警示", r"终止上市", r"终止" + r"[^，,。；;]{0,6}" + r"股票上市", r"强制退市",
        r"退市整理期", r"暂停上市", r"(?:面值|市值)退市", r"(?:收盘价|股价)" + _G + r"低于\s*(?:人民币)?\s*(?:1|一)元",
        r"(?:变更为|冠以)[“\"「『]?\*?ST",  # 简称由“华纺股份”变更为“ST华纺”, 简称前冠以“ST”
        r"实施\s*\*?ST", r"股东人数低于",  # 关于公司股票被实施 *ST 的公告
        r"股票" + _G + r"摘牌", r"市值" + _G + r"低于(?:人民币)?(?:3|三)亿", r"终止上市事先告知书",
        r"交易所" + _G + r"事先告知书", r"进入" + _G + r"股份转让系统",
    ), (*_WARNING_LIFTED, r"(?:不|未)触及" + _L + r"(?:退市|风险警示)",  # _L: see signal_freeze.UNFROZEN
        # a bond's delisting after conversion, not 公司股票及可转债可能被终止上市
        r"(?:^|(?<=[，,。；;\s于]))(?:本次|本期|公司)?[“\"「『]?[^，,。；;“”\"」』股及和与、]{0,10}(?:转债|债券)"
        r"[”\"」』]?[^，,。；;：:！!？?\n]{0,24}终止上市"),
        clears=(r"摘帽", r"(?:风险警示|退市)(?:的)?情形已(?:经)?消除",
                # (the twenty-second session: 关于公司股票终止上市风险已消除的公告 read 高; in its own sentence only, a
                # 面值退市 risk gone leaves another cause's *ST standing, so it ends no earlier title)
                r"(?:终止上市|退市)(?:的)?风险(?:已(?:经)?|均已)(?:全部)?(?:消除|解除)"),
        resolves=(*_WARNING_LIFTED, r"摘帽"),
        kinds=(("退市风险警示", r"退市|\*ST|终止|暂停上市"), ("其他风险警示", r"其他风险警示|(?<!\*)ST"))),
    SignalRule("审计意见(无法表示/否定)", "高", "审计意见", (
        r"无法表示意见", r"否定意见",
    ), sentence=(r"未能" + _S + r"保持有效的" + _G + r"内部控制",),
        clears=(r"(?:无法表示意见|否定意见)" + _NO_OTHER_OPINION + r"消除",),  # not 上年保留意见…消除 (eighteenth)
        resolves=(r"(?:无法表示意见|否定意见)" + _NO_OTHER_OPINION + r"(?<!未)消除",)),
    SignalRule("审计意见(保留)", "中", "审计意见", (
        # the board's 专项说明 filed with every non-standard opinion names it only as 非标准审计意见
        r"保留意见", r"非标准?(?:审计)?意见", r"非标准?审计报告",
        r"强调事项段",  # 带强调事项段的无保留意见 is a non-standard opinion too
        r"非(?:标准的?)?无保留(?:审计)?意见",  # the board's 专项说明 on a 非标准无保留意见 / 非无保留意见
    ), (r"(?<!非)(?<!非标准)(?<!非标准的)(?:标准)?无保留(?:审计)?意见",), (r"(?:保留意见|非标)" + _S + r"消除",),
        resolves=(r"(?<!无)(?:保留意见|非标)" + _S + r"(?<!未)消除",)),
    # an auditor that quits mid-engagement, a material internal-control weakness: the audit's own warnings (2026-12-06)
    SignalRule("审计机构辞任", "中", "审计意见", (
        r"(?<!内部)(?:会计师事务所|审计机构|年审会计师)(?![^，,。；;]{0,3}负责人)" + _G + r"(?:辞任|辞聘|辞去)",
        r"决定辞任" + _G + r"审计(?!委员会)",
    )),
    SignalRule("内控重大缺陷", "中", "审计意见", (r"内部控制" + _G + r"重大缺陷",
    ), (r"重大缺陷(?:的)?(?:认定|定性|定量|评价)(?:情况|标准)?",),
        clears=(r"重大缺陷" + _G + r"(?:已)?(?:全部)?整改(?:完毕|完成)",)),
    SignalRule("持续经营不确定", "中", "审计意见", (
        r"持续经营" + _G + r"(?:重大)?不确定性", r"持续经营能力" + _G + r"重大疑虑",
    ), clears=(r"(?<!未)消除",), resolves=(r"持续经营" + _S + r"(?<!未)消除",)),
    SignalRule("违规担保", "高", "违规担保、资金占用", GUARANTEE, GUARANTEE_NOT,  # signal_guarantee.py
               sentence=GUARANTEE_SENTENCE, clears=(*_GUARANTEE_ENDED, *RELEASED), resolves=_GUARANTEE_ENDED),
    SignalRule("资金占用", "高", "违规担保、资金占用", (
        # wording 2024-2026 filings use (a trial, 2026-12-06)
        r"非经营性资金往来", r"挪用" + _G + r"资金", r"违规划转", r"违规(?:向|为)" + _G + r"拆(?:借|出)资金",
        r"资金" + _G + r"流向" + _G + r"(?:控股股东|实际控制人|实控人|关联方)",
        r"资金占用", r"占用" + _G + r"资金", r"违规占用", r"资金被" + _G + r"占用", r"未披露的?关联(?:方)?资金往来",
        # the controller's, not an employee's 职务侵占 (控股股东某某集团有限公司侵占公司资金2亿元; review 12)
        r"(?:控股股东|实际控制人|实控人|关联方|大股东)" + _G + r"侵占(?!其)" + _G + r"资金",  # not 起诉…侵占其资金
    ), (r"占用费", r"资金占用及其他关联资金往来",  # the annual report's routine statement, both its names
        r"(?:占用资金|资金占用)(?:及其他关联资金往来)?情况(?:的)?(?:专项)?(?:说明|审核报告|报告|汇总表)",
        # the annual reviews' titles (专项审核意见, (专项)核查意见, 独立董事…专项说明和独立意见): routine, whatever they
        # find
        r"(?:占用(?:本?公司)?资金|资金占用)[^。；;事整违]{0,20}?情况的(?:专项审核意见|(?:专项)?核查意见|专项说明|独立意见)",
        r"非经营性资金往来(?:情况)?(?:的)?(?:专项)?(?:说明|审核报告|审核意见|报告|汇总表)",
        r"(?:非经营性资金往来|资金占用|占用资金)(?:的)?余额(?:为|：|:)?\s*(?<![\d.,])(?:0|零)(?:\.0+)?\s*(?:元|万元|亿元)?(?![\d.,])",
        r"(?:严禁|禁止|防止|杜绝|不得)[^，,。；;]{0,4}挪用",
        # the rule against it (防止控股股东及关联方侵占上市公司资金, 承诺不以任何方式侵占; review 13; and 占用:
        # 《防范控股股东及关联方占用公司资金管理制度》, 承诺不以任何方式占用, review 14), not one that failed
        # (未能有效防范…占用; reviews 15, 16: signal_words.RULE_NOT_FAILED)
        RULE_NOT_FAILED + r"(?:严禁|禁止|防止|防范|严防|杜绝|避免|不得|不以任何方式)"
        r"[^，,。；;]{0,16}?(?:侵占|占用)",
        r"(?:员工|职员|财务人员|出纳)[^，,。；;]{0,8}挪用",  # and a risk factor (无法完全杜绝…占用资金的风险)
        r"(?:无法|不能|难以)(?:完全|及时|有效)?(?:杜绝|避免|防范|防止)[^，,。；;]{0,20}?(?:占用|侵占)[^，,。；;]{0,10}?的风险",
        # (review 19: 存在利用其控制地位占用公司资金的风险, 将面临控股股东占用资金的风险)
        r"(?:存在|面临)(?:(?!已|尚未|仍)[^，,。；;]){0,24}?(?:占用|侵占)(?:(?!无法|难以|未能|不能|收回)[^，,。；;]){0,10}?的(?:风险|可能)",
        r"(?:关注|核查|检查|是否存在)[^，,。；;]{0,12}资金" + _G + r"流向"),
        REPAID, sentence=(  # the controller owes the rest (已归还部分资金，剩余1.3亿元尚未归还), not its loans
            r"(?:控股股东|实际控制人|实控人)(?:(?!向(?!(?:本|上市)?公司))[^，,。；;]){0,8}归还(?:[（(][^（()）]{0,20}[)）]|(?!质押|个人|银行|信托|融资|借款|贷款|债务|债券|股票)[^。；;]){0,20}(?:剩余|尚有|还有|其余|余下)(?:(?!借款|贷款|融资)[^。；;]){0,16}?"
            r"(?:尚未|仍未|未)(?:归还|偿还|清偿)", OCCUPIER_NAMED),
        resolves=(r"占用" + _S + r"(?:已全部|全部)?(?:归还|偿还|清偿|收回|消除|解决|整改完成|整改完毕)",
                           r"(?:归还|偿还|清偿|收回)" + _G + r"占用")),
    SignalRule("重大诉讼", "中", "重大诉讼、仲裁", (
        r"重大诉讼", r"重大仲裁", r"(?:涉及|累计)" + _G + r"(?:诉讼|仲裁)",
        r"被(?!(?:(?:本|我)?公司|我司|(?:全资|控股)?子公司)(?:起诉|提起))" + _G + r"(?:起诉|提起诉讼|申请仲裁)",
        # not 某某公司遭到公司起诉, 未遭到起诉, 遭侵权后…起诉 (review 18)
        r"(?<!未)(?:遭到|遭(?!到))(?!(?:(?:本|我)?公司|我司|(?:全资|控股)?子公司)(?:起诉|提起))"
        r"(?:(?!后|侵|泄露|盗|冒|抢注|损害|骗|欺|而|并|已|就此)[^，,。；;：:！!？?\n]){0,30}?(?:起诉|提起诉讼|申请仲裁)",
        # (twelfth session: 遭…起诉, 被诉至法院, 被债权人追索, the company 被判承担; not 向被担保人追索, 被告被判令)
        # 被原告某某有限公司诉至法院 (review 19; a longer name after 被原告: review 9's open list), not 被公司诉至法院
        r"被(?!告|申请人|执行人|侵权|担保|(?:本|我|上市)?公司|我司|(?:全资|控股)?子公司)[^，,。；;：:！!？?\n]{0,24}?诉(?:至|到)"
        + _G + r"(?:法院|仲裁)", r"被(?!担保|告|申请人|执行人)" + _G + r"追索(?!权|的?(?:风险|可能))",
        r"被(?:原告|债权人)[^，,。；;：:！!？?\n]{0,40}?(?:诉(?:至|到)|起诉|提起诉讼|申请仲裁)",
        r"(?:^|(?<=[，,。；;\s]))(?:本公司|公司|全资子公司|控股子公司|子公司|我司)"
        r"(?![的之]?" + JUDGED_OTHER + r")(?:被告|[^，,。；;被的]){0,24}?被(?:法院)?判(?:决|令)?"
        + _G + r"(?:承担|支付|偿还|赔偿|返还|罚金)",
        # 被债权人某某银行股份有限公司向法院起诉: a long name before the court (a review, 2026-12-06)
        r"被(?!告|申请人|执行人|侵权|担保)(?:(?:(?!一事|事项|之事)[^，,。；;：:！!？?\n]){0,30}?|(?:(?!侵|泄露|盗|冒|抢注|损害|骗)[^，,。；;：:！!？?\n]){0,20}?就[^，,。；;：:！!？?\n]{0,30}?)向[^，,。；;]{0,10}?(?:法院|仲裁委员会|仲裁委)(?:提起)?(?:起诉|诉讼|申请仲裁|仲裁)",
        r"作为被(?:告|申请人)", r"公司为被(?:告|申请人)", r"(?:诉讼|仲裁)" + _G + r"进展", r"起诉(?:本)?公司",
        r"对(?:本)?公司提起(?:诉讼|仲裁)",
        r"判令(?:本)?公司", r"驳回(?:本)?公司" + _G + r"上诉", r"投资者诉讼", r"开庭传票", r"举证通知书",
        r"(?:仲裁)?答辩通知书", r"反诉",  # 2026-12-06; a counterclaim against the company (eighteenth session)
        r"(?:民事)?起诉状", r"应诉通知书", r"仲裁申请书", r"仲裁通知书",
        r"判决(?:本)?公司[^，,。；;]{0,20}(?:支付|偿还|赔偿|承担|返还)", r"败诉", r"仲裁通知",
        r"要求(?:本)?公司" + _G + r"(?:支付|赔偿|偿还|返还|承担)",
        r"(?:案件|案|诉讼|仲裁)" + _G + r"尚未(?:开庭|审理|判决|裁决|审结|结案)", r"尚未开庭",  # a live case
        r"虚假陈述" + _G + r"(?:纠纷|诉讼|索赔|案)",  # investors' claims
        r"送达" + _G + r"(?:案件|传票|起诉状|应诉通知书|诉讼材料)", r"(?:收到|接到)" + _G + r"传票",
        # a judgment the company has not paid: the court's enforcement (失信被执行人 is 债务违约's, 高)
        r"(?<!失信)(?:被列为|列为|成为)" + _G + r"(?<!失信)被执行人", r"(?:收到|接到)" + _G + r"执行通知书",
    ), (*RIGHT_IF, r"(?:根据|关注|视|跟进|跟踪)" + _G + r"(?:诉讼|仲裁)" + _G + r"进展", r"小额诉讼",
        r"涉及诉讼的担保(?:金额)?[^，,。；;：:！!？?\n\d]{0,12}(?:为\s*|[：:]\s*)?(?<![\d.,])(?:0|零)(?:\.0+)?\s*(?:元|万元|亿元)?(?![\d.,])",
        r"日常经营(?:中|活动中)?(?:的|产生的)?诉讼",
        r"(?:涉及|累计)" + _G + r"(?:诉讼|仲裁)" + _G + r"未达到",
        r"(?:涉及|累计)" + _G + r"(?:诉讼|仲裁)[^，,。；;]{0,8}(?:均为|系|属于|为)" + _G + r"(?:小额|日常经营)"),
        clears=tuple(_arr.NO_COUNTERCLAIM + c for c in (r"(?<!原告)(?<!对方)胜诉", r"(?:公司|子公司)作为申请人",
                r"(?:^|(?<=[，,。；;\s]))(?:本公司|公司|子公司|全资子公司|控股子公司)(?:就[^，,。；;]{0,20})?(?:诉|起诉)(?!公司|本公司)",
                r"(?:被告|对方|被申请人|债务人)[^，,。；;]{0,8}(?:被列为|列为|成为)[^，,。；;]{0,4}被执行人",
                r"和解", r"撤诉", r"驳回" + _G + r"(?:原告|对方|申请人)",
                _COMPANY_SUES, r"追偿",
                r"收到执行款", r"(?:公司|子公司)[^，,。；;]{0,8}为原告",
               r"(?:公司|子公司)为(?:本案|该案)?原告",  # not "某银行为原告"
               r"(?:诉讼|仲裁)" + _G + r"(?:结案|终结)",
               _arr.COMPANY_SUER +  # signal_arrears.py (the seventeenth session)
               r"(?:对|向)(?!(?:本公司|我司|公司|(?:全资|控股)?子公司|其)|[^，,。；;]{0,8}?对(?:本公司|我司|公司|(?:全资|控股)?子公司))"
               + _G + r"(?:提起诉讼|起诉)(?![公状])",
               r"(?:^|关于|(?<=[，,。；;\s]))(?:本公司|公司|全资子公司|控股子公司|子公司)提起(?:诉讼|仲裁)",
               r"(?:^|(?<=[，,。；;\s]))(?:本公司|公司|全资子公司|控股子公司|子公司)(?:已|依法|遂)?(?:对|向)其(?:(?!被)[^，,。；;：:！!？?\n]){0,12}(?:提起诉讼|起诉)"))),
    SignalRule("重大诉讼(超净资产10%)", "高", "重大诉讼、仲裁", (), sentence=(
        r"(?:诉讼|仲裁|涉案|被告|被申请人|再审|判决|判令|裁定|清偿责任|赔偿)" + _S + r"净资产" + _G + _PCT10,
    ), clears=(r"胜诉", r"撤诉", _COMPANY_SUES, r"担保余额")),
    SignalRule("资产冻结", "高", "重大诉讼、仲裁", FROZEN, FROZEN_NOT, clears=FROZEN_CLEARS,  # signal_freeze.py
               sentence=FROZEN_SENTENCE, resolves=FROZEN_RESOLVES),
    SignalRule("商誉减值", "中", "商誉减值", (
        r"商誉减值准备", r"计提" + _G + r"商誉", r"大额商誉减值", r"商誉" + _G + r"(?:大幅|全额)?减值",
    ), (r"减值测试" + _G + r"(?:未|不存在)", r"上年同期[^。；;]{0,20}商誉减值(?:准备)?",
        r"商誉(?:进行)?减值测试(?!" + _G + r"(?:计提|确认))", r"(?:无需|不需要?)计提" + _G + r"商誉减值(?:准备)?"),
        (r"未出现减值", r"不存在减值")),
    SignalRule("商誉减值致亏", "高", "商誉减值", (), sentence=(
        r"商誉" + _S + r"(?:由盈转亏|转为亏损|亏损|净利润为\s*-\s*\d|净利润(?:将|预计)?为负)",
        r"(?:由盈转亏|转为亏损|亏损)" + _S + r"商誉",
    ), counters=(r"上年同期[^。；;]{0,20}商誉减值(?:准备)?",), clears=(r"扭亏", r"未出现减值", r"不存在减值")),
    SignalRule("股东减持", "中", "减持", (
        r"减持", r"询价转让", r"权益变动至5(?:\.0+)?%以下",
        r"(?:股东|实际控制人|实控人|董事|监事|高级管理人员)" + _G + r"(?:大宗交易|协议)?(?:出售|转让)" + _G
        + r"(?:公司)?股份",
    ), (r"(?:若|如|如果|倘若|如有|若有)" + _G + r"减持",
        r"(?<![及和与、])员工持股计划[^，,。；;：:！!？?\n及和与、]{0,12}减持",
        r"减持(?:股份)?(?:将|应|须)(?:严格)?遵守",
        r"减持股份(?:管理)?(?:暂行)?(?:办法|规定|实施细则)",
        r"(?:有关|关于)减持(?:的)?(?:规定|要求)", r"回购" + r"[^。；;]{0,40}减持",
        r"(?:未|不|暂不)(?:实际)?(?:实施|进行|再|以任何方式)?减持", r"减持" + _G + r"届满" + _G + r"未" + _G + r"减持",
        r"终止" + _G + r"减持", r"减持" + _G + r"(?:未|不)实施", r"承诺" + _G + r"不" + _G + r"减持"),
        (r"未(?:实际)?(?:实施|进行|以任何方式|以任何形式)?减持" + _SOLD_LATER,  # signal_pending.py (session 18)
         r"不属于" + _G + r"(?:5%以上股东|董事|监事|高级管理人员|控股股东)")),
    SignalRule("清仓式减持", "高", "减持", (
        r"减持" + _G + r"(?:其)?(?:所)?持(?:有)?(?:的)?全部", r"清仓(?:式)?减持", r"不再持有(?:本?公司)?股份",
    ), clears=(r"未(?:实施|进行)?减持",)),
    SignalRule("质押风险", "中", "股权质押与冻结", (
        r"质押" + _G + r"(?:平仓|预警线|平仓线|违约)", r"(?:高比例|大比例)质押", r"(?:股份|股权)" + _G + r"全部质押",
    ), (r"解除质押", r"解押"), sentence=(
        r"质押" + _S + r"(?:比例|占)" + _G + _PCT80, _PCT80 + _G + r"(?:股份)?(?:已|被)?质押",
    )),
    SignalRule("股份冻结", "中", "股权质押与冻结", (
        r"司法冻结", r"轮候冻结", r"(?:股份|股权)" + _G + r"被" + _G + r"冻结",
        r"冻结了?(?:(?!(?:被告|被申请人|被执行人|对方|债务人)"
        r"(?![（(](?:即|系)?(?:本|上市)?(?:公司)?的?(?:控股股东|实际控制人|实控人)|(?:即|系)(?:本|上市)?(?:公司)?的?(?:控股股东|实际控制人|实控人)|(?:本|上市)?公司的?(?:控股股东|实际控制人|实控人)|"
        r"[的之]?(?:控股股东|实际控制人|实控人)(?:(?!持有|所持)[^，,。；;（(]){0,16}(?:持有|所持)的?(?:(?:本|上市)公司|公司(?:股份|股权))))[^，,。；;]){0,8}?(?:控股股东|实际控制人|实控人|股东)[^，,。；;]{0,16}?(?:持有|所持)的?(?:本|上市)?(?:公司)?"
        r"(?:全部)?(?:股份|股权)", r"司法拍卖", r"司法划转", r"司法处置", r"强制过户", r"司法标记", r"司法变卖",
        r"被(?:司法|轮候)?冻结(?:的)?(?:股份|股权)",  # 累计被冻结股份数量占其所持…100%
        r"(?:股份|股权)冻结(?![^，,。；;将拟预计争尽待]{0,6}?(?<![未没能法])(?<!没有)解除)",
        r"(?:股份|股权|股)[^，,。；;]{0,6}?仍(?:处于|被)(?:司法|轮候)?冻结",  # 剩余3,000万股仍处于冻结状态 (review 19)
        # 仍有2,000万股处于冻结状态 (review 20: the amount's comma inside the gap)
        r"仍有(?:[^，,。；;]|(?<=\d),(?=\d)){0,12}?股(?:份|权)?(?:处于|被)(?:司法|轮候)?冻结",
        *_frz.SHARES_UNLIFTED,  # 股份无法解除冻结, 正在办理股份解除冻结手续 (open lists; signal_freeze.py)
    ), _frz.SHARES_LIFTED, (r"已(?:[于在][^，,。；;]{0,12})?(?:全部)?解除",),
        resolves=(r"(?:股份|股权)" + _G + r"(?:解除|解冻)", r"解除" + _G + r"(?:股份|股权)" + _G + r"冻结",
                  r"解除" + _G + r"(?:司法|轮候)冻结"),
        # a 司法冻结 lifted lets the 轮候冻结 behind it take effect: a lift of one leaves the other
        kinds=(("司法冻结", r"司法冻结|(?<!轮候)(?<!司法)冻结"), ("轮候冻结", r"轮候冻结"))),
    SignalRule("强制平仓", "高", "股权质押与冻结", (
        # wording 2024-2026 filings use (a trial, 2026-12-06)
        r"强制卖出", r"(?<!避免)(?<!防止)(?<!以免)质押的?股份" + _G + r"被" + _G + r"处置",
        r"强制平仓", r"被动减持", r"违约处置",
    )),
    *EARNINGS_ROWS,  # 业绩预亏, 业绩续亏, 净资产为负: signal_earnings.py
    SignalRule("债务违约", "高", "债务违约", (
        # wording 2024-2026 filings use (a trial, 2026-12-06)
        r"(?<!根据)(?<!按照)(?<!依据)(?<!根据《)(?<!按照《)(?<!依据《)重整(?:进展|程序|计划|事项|投资协议)",
        r"进入" + _G + r"重整", r"(?:指定|选任)" + _G + r"(?<!受托)(?<!资产)(?<!基金)(?<!计划的)(?<!计划)管理人",
        r"债权申报", r"宣告破产", r"(?:借款|贷款|债务)" + _G + r"提前到期", r"商票" + _G + r"逾期",
        r"融资租赁(?:款|租金)?" + _G + r"逾期(?!率)", r"(?<!已发行)(?:尚未|仍未)(?:兑付|偿付|偿还)(?!的)",
        r"(?:到期|逾期)(?:尚|仍)未(?:兑付|偿付|偿还|支付|清偿)",
        r"尚欠(?!公司|本公司|子公司)" + _G + r"(?:本金|借款|利息|罚息)",
        r"(?:债券|本息|票据|汇票|借款|贷款|债务|利息)" + _G + r"(?:违约|逾期)",
        r"(?:无力|(?:没有|并无|无)能力)(?:偿还|偿付|清偿|兑付)", r"仍有" + _G + r"逾期",
        *DEBT_ARREARS,  # signal_arrears.py
        r"未按(?:合同)?约定" + _G + r"(?:归还|偿还|支付)" + _G + r"(?:借款|贷款|债务|本金|利息)",
        r"(?:贷款|借款|债务)" + _G + r"展期", r"兑付宽限期", r"兑付安排" + _G + r"调整", r"失信名单",
        r"(?:未能|没能|没有能够|未能够)" + _G + r"(?:兑付|偿还|偿付|支付|清偿)",
        r"(?:无法|不能)" + _G + r"(?:兑付|偿还|偿付|清偿)", r"(?:债券|票据)" + _G + r"展期", r"实质性违约",
        r"逾期" + _G + r"(?:借款|贷款|债务|本金|利息|本息|票据)", r"逾期未(?:偿还|兑付|偿付|支付|清偿|还(?!款计划))",
        r"到期未(?:兑付|偿还|偿付|支付|清偿)", r"失信被执行人", r"(?:暂停|停止)(?:兑付|偿付|还本|付息)",
        r"(?<!方)(?<!承租人)(?<!借款人)违约未(?:兑付|偿还|偿付|支付|清偿)(?!(?:本|我)?公司|[本我]司|子公司)",
        r"(?:没有|并未|未能|未)(?:按期|按时|如期|及时)(?:足额)?(?:兑付|偿还|偿付|清偿|还本付息|还本|付息|还款)",
        # interest or principal held back (review 19: 未按期足额支付债券利息, 暂停支付“21某某01”债券利息)
        r"(?:(?:没有|并未|未能|未)(?:按期|按时|如期|及时)(?:足额)?|暂停|停止)支付(?:(?!员工|职工|工资|转让|价款|对价)[^，,。；;]){0,14}?(?:利息|本金|本息)",
        r"(?:没有|并未)(?:兑付|偿还|偿付|清偿)",
        r"未(?:能)?(?:偿还|清偿|偿付|兑付|归还)(?:到期|逾期)的?(?:借款|贷款|债务|本息|本金|利息)",
        r"担保" + _G + r"逾期", r"逾期担保",  # a guarantee called: the company owes the debt it guaranteed
        r"(?:申请|被申请|受理|裁定)" + _G + r"(?:破产|重整|清算)", r"预重整", r"破产重整", r"交叉违约",
    ), (r"(?<![未能法有够])(?:按期|按时|如期)(?:足额)?(?:兑付|偿还|偿付)", r"(?<![未能法时期有])足额(?:兑付|偿付)",
        *RIGHT_IF, r"逾期(?:付款)?(?:利息|违约金|损失)",  # (a judgment makes a debtor pay, whoever it is)
        r"(?:理财|信托|资管|资产管理|私募|基金)(?:产品|计划)?" + _G + r"(?:暂停|停止)兑付",
        r"(?:持有|购买|认购|投资)的" + _G + r"(?:暂停|停止)兑付",  # a product the company bought
        # a bill held (review 19), not 公司作为出票人; a debtor's late interest, and a contract's condition (review 20)
        r"(?<!作为)(?<![（(])(?:出票人|承兑人|付款人|发行人|兑付方)[^，,。；;]{0,4}?(?:暂停|停止)兑付",
        r"(?<!作为)(?:借款人|承租人|融资方|债务人|客户)[^，,。；;]{0,12}?未(?:能)?(?:按期|按时|如期|及时)(?:足额)?支付"
        r"|未(?:能)?(?:按期|按时)(?:足额)?支付[^，,。；;]{0,14}?(?:利息|本金|本息)的(?=[，,])",
        r"应收(?:账款|款项|票据)?" + _G + r"逾期", r"失信被执行人(?=目录|信息查询|查询)",
        r"逾期担保[^，,。；;：:！!？?\n\d]{0,12}(?:为\s*|[：:]\s*)?(?<![\d.,])(?:0|零)(?:\.0+)?\s*(?:元|万元|亿元)?(?![\d.,])",
        r"(?:兑付|偿还)(?:完毕|完成)", r"已兑付", r"(?:预)?重整投资人", r"参与" + _G + r"(?:预)?重整",
        r"(?:就|对)[^，,。；;]{0,16}(?:应收|债权|款项)[^，,。；;]{0,16}(?:进行|办理|完成)?债权申报",
        r"宣告破产(?=[^。；;]{0,30}(?:应收|坏账|减值))",
        # 未按期还款 of the company's borrower, in a hypothetical (若/如前述…), in a form answered no (reviews 8-10)
        r"(?<!作为)(?:借款人|承租人|借款方|承租方|债务人|客户|交易对方)[^，,。；;]{0,12}?违约未(?:偿还|兑付|偿付|支付|清偿)",
        r"(?<!作为)(?:借款人|承租人|借款方|承租方|债务人|客户)(?:(?!导致|致使|造成|使得|影响)[^，,。；;]){0,12}?(?:未能|未|没有|并未)(?:按期|按时|如期|及时)(?:足额)?(?:还本付息|还本|付息|还款)|(?:^|(?<=[，,。；;\s年度内外时此另]))(?:(?:本|上市)?公司(?:(?:全资|控股)?子公司)?|(?:全资|控股)?子公司)(?:向|为)[^，,。；;]{0,20}?提供的(?:委托贷款|借款|财务资助)(?!担保)[^。；;]{0,30}?(?:未能|未)(?:按期|按时|如期)(?:足额)?(?:还本付息|还本|付息|还款)",
        r"(?:若(?!干)|如果|如(?![期实数今此下附表图]|前(?!述[^，,])|上(?!述[^，,])|[^，,。；;]{0,12}?(?:所述|所示|所列))|倘若|一旦|假如|可能)(?:(?!已|(?<![若果如旦])(?:目前|截至))[^。；;但]){0,30}?(?:未能|未|没有)(?:按期|按时|如期|及时)(?:足额)?(?:还本付息|还本|付息|还款)|未(?:能)?(?:按期|按时|如期)(?:还本付息|还本|付息|还款)(?:的)?(?:情况|情形)[：:]\s*(?:无(?![锡法])|不适用)",
        *DEBT_TO_COMPANY, CONTROLLER_INSOLVENT),  # the controller's own: 控股股东重整 (中), below
        (r"重整计划[^，,。；;]{0,16}执行完毕", r"(?:对|向)" + _G + r"(?:子公司|客户|债务人)" + _G + r"(?:申请|提起)",
         r"作为(?:债权人|申请人)",
         r"已[^，,。；;]{0,16}(?:清偿|偿还|兑付|归还)(?!方案|计划|安排|事宜)", *DEBT_PAID), sentence=_arr.DEBT_SUED,
        resolves=_arr.DEBT_ENDED, kinds=_arr.DEBT_KINDS),
    # arrears to suppliers, builders, staff or the tax office: a company short of cash pays these last before its
    # lenders; 中, not 高 (a disputed invoice reads the same), and another party's arrears to the company
    # (客户拖欠公司货款: a receivable) are blanked
    SignalRule("拖欠经营款项", "中", "债务违约", ARREARS, ARREARS_NOT, clears=ARREARS_PAID),  # signal_arrears.py
    SignalRule("控股股东重整", "中", "债务违约", (CONTROLLER_INSOLVENT,), (CONTROLLER_IF,),  # signal_controller.py
               clears=CONTROLLER_ENDED),
    SignalRule("无法按期披露", "高", "其他", (
        r"(?:无法|不能|未能)" + _G + r"(?:法定期限|按期|按时|如期)" + _G + r"披露",
        r"(?:无法|不能|未能)" + _G + r"披露" + _G + r"(?:年度报告|年报|半年度报告|半年报|季度报告|定期报告)",
        r"延期披露" + _G + r"(?:年度|定期)报告",
        r"未(?:在|于|能在|能于)?(?:法定|规定)期限(?:内)?披露",
        r"(?:年度报告|年报|半年度报告|半年报|定期报告)" + _G + r"(?:延期|推迟)披露", r"(?:年度报告|年报)披露延期",
    )),
    SignalRule("财务造假", "高", "其他", (
        # wording 2024-2026 filings use (a trial, 2026-12-06)
        r"(?<!是否存在)(?<!防范)(?<!防止)(?<!杜绝)(?<!和)虚构" + _G + r"(?:收入|营业收入|利润|业务|交易)",
        r"(?<!防范)(?<!防止)(?<!杜绝)(?<!反)财务舞弊", r"(?<!不法分子)(?<!他人)伪造" + _G + r"(?:合同|单据|凭证)",
        r"财务造假", r"虚增" + _G + r"(?:收入|利润|资产)", r"虚假记载", r"欺诈发行",
    )),
    SignalRule("实控人失联", "高", "其他", (
        # wording 2024-2026 filings use (a trial, 2026-12-06)
        r"(?:董事长|实际控制人|实控人|控股股东|总经理|董事(?!会)|高级管理人员|高管)(?![^，,。；;]{0,8}证人)" + _G
        + r"(?:配合|协助)(?:有关|相关)?(?:部门|机关|方面)?(?:监察|纪委|监委|纪检)?(?:机关|部门)?(?:开展)?(?:的)?调查",
        r"(?<!因公务)(?<!因工作原因)(?<!因出差)不能(?:正常)?履行(?:职责|职务)(?!或者?不履行)", r"联系不上",
        r"(?:董事长|实际控制人|实控人|控股股东|总经理|董事|监事|高级管理人员|高管|财务总监|董事会秘书)[^。；;]{0,20}刑事措施",
        r"限制出境",
        r"留置(?!权)", r"失联", r"(?<!对被执行人)(?:刑事)?强制措施", r"被" + _G + r"(?:逮捕|拘留)",
        r"(?:无法|未能|不能|尚未)" + _G + r"(?:取得)?联系", r"监视居住", r"带走" + _G + r"调查",
        r"(?:纪委|监委|监察委|纪检)" + _G + r"(?:审查|调查)", r"取保候审", r"羁押", r"无法(?:正常)?履(?:行)?职",
    ), clears=_BACK, resolves=_BACK),
    SignalRule("监管问询", "中", "其他", (
        r"问询函", r"关注函", r"警示函", r"监管函", r"监管工作函", r"通报批评", r"公开谴责", r"责令改正",
        r"监管措施", r"纪律处分", r"口头警示",
        r"监管警示", r"监管谈话", r"责令公开说明",
        r"(?:交易所|证监会|证监局|监管|上市公司管理)[^，,。；;]{0,30}(?:工作函|意见函)", r"不适合担任",  # 2026-12-06
    ), (r"不适合担任[^。；;]{0,30}期限(?:尚未|未)届满",)),
)

TIER_RANK = {"中": 1, "高": 2}
