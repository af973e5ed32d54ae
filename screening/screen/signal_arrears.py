"""The operating-arrears row's words (拖欠经营款项): suppliers, builders, staff or the tax office unpaid, and the
counterparties whose arrears to the company are not the company's.

Moved out of signal_table.py (at its 450-line limit) when review 18 (2026-12-06) added the counterparties that refuse
to pay the company (总包方, 甲方, 受让方…) and a contract's 如…逾期支付 boilerplate; the row there reads these tuples
unchanged (``signals.TABLE_ID`` hashes every signal_*.py module).
"""

from __future__ import annotations

from screening.screen.signal_gaps import G as _G

# a payment held back or late (twelfth session: 拒绝/停止/暂停/逾期支付 as well as 延期支付)
# (thirteenth session's open list: 拖延支付, 未按合同约定支付, 未按期支付)
PAY_LATE = (r"(?:延期|延迟|迟延|推迟|逾期|拒绝|拒不|停止|暂停|拖延|未(?:能)?(?:(?:按|按照|依照)(?:合同|协议)?约定"
            r"(?:的?(?:期限|时间))?|按期|按时|如期|及时|足额))支付")
# the gap in "a customer owes the company": not over the company's staff or suppliers (下游回款困难拖欠公司员工工资
# 及供应商货款 is the company's arrears; twelfth session)
_NOT_STAFF = r"(?:(?!员工|职工|工人|工资|供应商)[^，,。；;：:！!？?\n]){0,12}"

ARREARS = (
    r"(?:拖欠|欠付|欠缴|欠发|拖发)" + _G + r"(?:货款|工资|薪酬|薪资|工程款|款项|账款|租金|社保|社会保险|税款|税费|电费"
    r"|运费|服务费|设备款|采购款|材料款|劳务款|分包款|加工费|滞纳金)",  # review 21; 材料款… review 24
    # a demand on the company for its overdue bills (供应商…要求支付逾期货款的律师函; review 9's open list)
    r"(?:要求|催促|催收|追讨|催讨|敦促|追索|催告)(?:(?:本|我|上市)?公司|[本我]司|我方)?(?:尽快|立即|及时|限期)?支付"
    r"逾期(?:的)?(?:货款|工程款|款项|账款|租金|运费|服务费|设备款|采购款|材料款)",
    r"欠薪", PAY_LATE + _G + r"(?:货款|工资|薪酬|工程款|款项|账款|运费|租金|转让款|设备款|采购款|材料款|服务费)",
)

# a debtor named, then the company itself in brackets (被告一（本公司）, 被告（以下简称“某某”，即发行人）): no debtor
_NOT_US = r"(?![一二三四五六]?[（(](?:[^（()）]{0,20}?[，,])?(?:即|系)?(?:(?:本|上市)?公司|发行人))"

ARREARS_NOT = (
    r"(?:拒绝|拒不|停止|暂停|逾期)支付(?:本|我)?(?:子)?公司(?!员工|职工|债)",  # review 18
    r"(?:(?:如|若|如果|倘若|一旦)[^，,。；;]{0,8}?|(?:采购方|受让方|承租方|总包方|甲方|合作方)[^，,。；;]{0,12}?)"
    + PAY_LATE,
    r"(?:客户|对方|债务人|被告|经销商|买方|承租人|被执行人|业主(?:方|单位)?|(?:发|总)包方|商户|租户|用户|政府|下游)"
    + _NOT_US
    # not across a cause's end (受客户回款不及时影响公司拖欠供应商货款) unless owed to it (导致拖欠公司工程款)
    + r"(?:(?!影响|导致|致使|造成|使得|要求|催告|催促)[^，,。；;：:！!？?\n]){0,12}"  # 客户要求贵公司支付拖欠: on it
    + r"(?:拖欠|欠付|欠缴|" + PAY_LATE + r")" + _NOT_STAFF + r"(?:公司|本公司|子公司|我司)?" + _NOT_STAFF
    + r"(?:货款|工程款|款项|账款|租金|电费|水费|设备款|材料款|分包款|劳务款|加工费|服务费)",  # review 25
    r"(?:客户|对方|债务人|被告|经销商|买方|承租人|被执行人|业主(?:方|单位)?|发包方|商户|租户|用户|政府|下游)"
    + _NOT_US + r"[^，,。；;：:！!？?\n]{0,12}"
    r"(?:拖欠|欠付|欠缴|" + PAY_LATE + r")(?:公司|本公司|子公司|我司)"
    + _NOT_STAFF + r"(?:货款|工程款|款项|账款|租金|电费|水费)",
    # a named party's late payment the company sues over (因某某公司未按合同约定支付货款，公司对其提起诉讼)
    r"(?:拖欠|欠付|" + PAY_LATE + r")[^。；;]{0,30}?[，,](?:本|全资子|控股子|子)?公司(?:已|将)?"
    # (review 25: 向其发出付款计划, 向其提出延期付款申请, 向其申请分期付款 are the company's own)
    r"(?:(?:对其|向其)(?:提起|提出(?:诉讼|仲裁|索赔)|申请(?:财产|诉前|仲裁|强制|支付令|冻结|执行|保全|查封)"
    r"|发出(?:律师|催|《(?!付款|还款|延期|分期|展期|承诺|致歉|关于[^》]{0,20}?(?:说明|致歉|承诺|申请|计划)))"
    r"|发送(?![《“]?(?:付款|还款|延期|分期|展期|关于[^》]{0,20}?(?:说明|申请|计划)))"
    r"|发函(?!说明|沟通|协商|商请|告知|致歉|通报|请求|申请|恳请|解释|表示|确认|承诺)"
    r"|催|追|主张)|起诉其)",  # (review 27: 发送付款计划, 发函商请延期/告知付款安排/致歉)
    r"(?<![及与和])(?:其|该公司)" + _G + r"(?:拖欠|欠付)(?:公司|本公司|子公司|我司)" + _G
    + r"(?:货款|工程款|款项|账款|租金)",
    r"(?:拖欠|欠付|" + PAY_LATE + r")[^，,。；;]{0,8}的(?:客户|业主|经销商|商户|租户|用户)",
    r"(?:防范|化解|清理|清欠|杜绝|根治|治欠|防止|严禁|避免|确保不|不得)[^，,。；;]{0,4}(?:拖欠|欠薪|欠付)[^，,。；;]{0,8}",
    r"绩效(?:薪酬|年薪)?[^，,。；;]{0,4}(?:延期|延迟)支付|(?:延期|延迟)支付的?(?:部分)?绩效(?:薪酬|年薪)?",
    # what the company claims from a debtor (review 19: 公司起诉某某有限公司，要求其支付拖欠的货款; review 20: a
    # named debtor, 判决/裁决, 被申请人), not from the company (判令公司支付, 向公司发函，要求其支付)
    # (review 21: a party named between, not the company's own name or 贵公司/我公司/本集团, nor after the
    # company was written to: 致函公司，/向公司发送催款通知书，要求其支付)
    r"(?=要求|判令|判决|请求|裁决|催告|催促|督促)"  # the verb first: the lookbehinds are tried only before it
    + "".join(f"(?<!{to}公司[^，,。；;]{{{k}}}[，,])" for to in ("向", "向本", "向上市", "致函", "致", "致本")
              for k in range(13))
    # (thirteenth session's open list: 公司收到某某物流有限公司的催款函，要求其支付拖欠运费)
    + "".join(f"(?<!{got}[^，,。；;]{{{k}}}函[，,])" for got in ("公司收到", "公司已收到") for k in range(41))
    + r"(?:要求|判令|判决|请求|裁决|催告|催促|督促)"
    # (the seventeenth session: a 股份/股份有限公司 named as the payer is the listed company itself:
    # 要求某某股份支付拖欠的工程款, 要求某某科技股份有限公司支付拖欠运费)
    r"(?!(?:本|上市|贵|我)?公司|[我本]司|本集团|(?:全资|控股)?子公司|我方|贵方|发行人|本企业"
    r"|[^，,。；;]{0,16}?股份(?:有限公司)?(?:尽快|立即|及时|限期)?(?:支付|偿还|归还|结清))"
    # none named only after the company sued (公司起诉客户，要求支付…), not after staff or suppliers asked; 请求判令支付
    # names none (the seventeenth session: 原告某某公司起诉被告一（发行人）…，请求判令支付拖欠货款 is the company's)
    r"(?:(?!(?:判令|判决|裁决)?(?:尽快|立即|及时|限期|按时|补发)?(?:支付|偿还|归还|结清))|" + "|".join(
        f"(?<=(?<![^，,。；;\\s本子母于日内后时月年])公司{v}[^，,。；;]{{{k}}}[，,](?:要求|请求))"
        for v in ("起诉", "已起诉", "诉") for k in range(17)) + ")"
    # (review 23: （为公司全资子公司）, （系公司下属全资子公司）, （公司全资孙公司）, （以下简称“某某”，系公司…）, and
    # 起诉某某有限公司（公司全资子公司），要求其支付: a subsidiary, no outside debtor)
    r"(?<!子公司[)）][，,]要求)(?<!孙公司[)）][，,]要求)"
    r"(?![^，,。；;]{0,20}?[（(](?:[^（()）]{0,16}?[，,、])?(?:即|系|为|是)?(?:本|上市)?公司(?:的|下属)?"
    r"(?:持股\d+(?:\.\d+)?%的)?(?:全资|控股)?(?:子公司|孙公司)?[)）])"
    r"[^，,。；;]{0,20}?(?:支付|偿还|归还|结清)[^，,。；;]{0,4}?(?:拖欠|欠付|逾期)",
    # 公司遭到某某有限公司恶意拖欠货款 (review 20), a debtor named; not 公司遭员工投诉拖欠工资 (review 22)
    # (review 23: 遭某某医院/多家房地产企业/合作方拖欠 too; not 员工称遭公司拖欠, 遭供应商追讨拖欠的采购款)
    r"遭(?:到|受|遇)?(?!(?:本|上市|该)?公司)(?:(?!举报|投诉|报道|起诉|追讨|催收|讨薪|反映|称)[^，,。；;]){0,16}?"
    r"(?:有限公司|集团|公司|企业|医院|学校|单位|客户|业主方?|合作方|经销商|购货方|采购方|发包方|开发商|政府|债务人|对方)"
    r"的?(?:恶意|长期|持续|多次)?(?:拖欠|欠付)",
)

# (review 19: 供应商已要求其支付 is a demand, not a payment)
# (review 20: 已按照法院判决要求支付完毕 is a payment)
# 已判决/已责令公司补发 is an order (review 25), and 已责成/已判公司/已下达指令由公司 (review 27)
# (the eighteenth session's fresh set: 已与员工达成分期支付安排 is a plan to pay, not a payment)
ARREARS_PAID = (r"已(?!判|裁|责令|责成|通知|函告|督办|命令|敦促)"  # (review 28: 已判定/判其/裁公司/督办/命令)
                r"(?![^，,。；;]{0,16}(?:协议|方案|计划|(?<![按照据的])安排|(?<![按照据同])(?<!判决)(?<!裁定)(?<!裁决)(?<!调解书)要求|"
                r"催告|催促|督促|敦促|督办|命令|起诉|申请|"  # 按照劳动监察部门的指令/责成的期限 is followed (review 28)
                r"(?<![按照据依的行门局委队])(?<!法院)(?<!仲裁)(?:判决|判令|裁决|裁定|责令|责成|指令)(?!生效|书)))"
                r"(?:(?!同意|延期|延迟|推迟|展期|暂缓)[^，,。；;]){0,16}?"
                r"(?:支付|付清|结清|清偿|偿还|缴纳|补缴|补发|发放)(?:完毕)?(?!首期|第一期|部分)",)

# who sues in the lawsuit row's clear (公司向法院起诉…: the company as the plaintiff): the company or a subsidiary,
# not a 分公司 of another (公司遭到债权人某某资产管理股份有限公司江苏省分公司向法院起诉 is a suit against the
# company; the seventeenth session), but the company's own branch named after it (公司江苏省分公司向法院起诉…)
COMPANY_SUER = (r"(?:(?<!有限)(?<!责任)(?<!集团)(?<!分)(?:公司|子公司)|(?:子公司(?:(?!公司)[^，,。；;对向被的]){2,20}?"
                r"|(?:^|(?<=[，,。；;\s]))(?:本|上市)?公司[^，,。；;公司对向被的遭到由]{1,6}分)公司)")

# a counterclaim standing later in the sentence (公司起诉某某公司后，对方提起反诉，要求公司赔偿…): the company is
# a defendant too, so no good news of the lawsuit row clears it (the eighteenth session's fresh set); one not made
# (未提起反诉), withdrawn (撤回反诉) or dismissed (对方的反诉已被驳回) leaves the clear as it was
NO_COUNTERCLAIM = r"(?![^。；;！!？?\n]*?(?<!未)(?<!未曾)(?<!没有)(?<!撤回)(?<!不)(?:提起|提出)(?:了)?反诉)"

# the debt-default row's 拖欠…利息/借款/票款 said paid or owed to the company (review 23: 已结清拖欠的票款及利息,
# 已全额支付拖欠的汇票款及利息, 判令某某有限公司向公司支付拖欠的…): a clear and a counter there
DEBT_PAID = (r"已(?:全额|全部|足额)?(?:结清|付清|还清|支付|偿还|清偿)了?(?:全部|所有)?(?:拖欠|欠付)",
             r"拖欠的[^，,。；;]{0,16}?已(?:全额|全部|足额)?(?:结清|付清|还清|偿还|清偿)",)  # 拖欠的银行垫款已全部结清
DEBT_TO_COMPANY = (r"向(?:本|上市)?(?:子)?公司(?:支付|偿还|归还)(?:全部)?(?:拖欠|欠付)",
                   # 公司起诉某某，要求其支付拖欠的
                   r"(?:^|(?<=[，,。；;\s]))(?:本|全资子|控股子|子)?公司(?:已)?(?:向法院)?起诉[^，,。；;]{1,24}[，,]要求其"
                   r"(?:支付|偿还|归还)(?:拖欠|欠付)",
                   # the company's borrower or lessee (review 24: 承租人拖欠子公司融资租赁租金, 借款人没有能力偿还)
                   # (review 25: not 公司（借款人）, 借款人某某股份有限公司（即本公司）; 财务资助逾期未还: its loan)
                   r"(?<!作为)(?<![（(])(?:借款人|承租人|借款方|承租方|债务人|财务资助)"
                   # (review 27: 借款人（孙公司）, （下属子公司）, （为公司全资子公司）)
                   r"(?![^，,。；;（(]{0,20}[（(](?:即|系|为)?(?:本|上市)?(?:公司)?(?:下属|全资|控股){0,2}[子孙]?公司)"
                   r"[^，,。；;]{0,20}?(?:拖欠|欠付|无力|(?:没有|并无|无)能力|逾期未(?:偿)?还|未(?:能)?(?:偿还|清偿|归还))",
                   # a hypothetical (若发行人没能按期兑付本息, 如公司未能按期偿还借款, 若…可能没有能力偿还)
                   r"(?:若(?!干)|如果|倘若|一旦|假如|如(?![期实数今此下附表图前上]))"
                   # 如本公告所述 (25, 26), 如本报告第三节所示, 如…中所说明 (27)
                   r"(?:(?!已|截至|目前|所述|(?:所示|所说明|所列|所载)(?=[，,])|公告|披露|说明的|提示的|报中)"
                   r"[^。；;但]){0,30}?"
                   r"(?:无力|(?:没有|并无|无)能力|没能|未能|没有能够|未能够|未(?=偿还|清偿|偿付|兑付))(?:按期|按时|如期|及时)?(?:足额)?"
                   r"(?:偿还|偿付|清偿|兑付)")

# the debt-default row's (债务违约, 高) arrears of debt, not of operating bills (拖欠的货款/设备款及利息 are the
# arrears row's; reviews 20, 21)
DEBT_ARREARS = (
    r"拖欠(?:(?!(?<![借贷票垫])(?<!票据)(?<!融资)款|租金|工资|薪酬|运费|服务费)"
    r"(?:[^，,。；;：:！!？?\n]|(?<=\d),(?=\d{3}))){0,12}(?:债务|利息)",
    r"拖欠" + _G + r"(?:借款|贷款|本息|(?<!代)垫款|(?:汇票|票据|商票)票?款)",
    # a lender named in full (拖欠中国某某银行股份有限公司某某分行贷款本息), 融资租赁 rent, 到期债务 (thirteenth
    # session's open list)
    r"拖欠[^，,。；;]{0,24}?(?:银行|分行|支行|公司|信托|计划)" + _G + r"(?:借款|贷款|本息|融资款|本金)",
    r"拖欠" + _G + r"融资租赁" + _G + r"(?:租金|款)", r"拖欠" + _G + r"(?:到期|逾期)债务",
)

# the company sued for its own debt, or its bill unpaid while it raises the money (review 9's open list,
# seventeenth session): a lessor's claim that the company's subsidiary, the lessee, owes rent (某某融资租赁公司
# 诉称承租人（公司子公司）拖欠租金), a bill not honoured for a customer's want of money while the company raises
# funds to pay it (因客户资金紧张导致汇票到期未能兑付，公司正积极筹措资金). Sentence patterns of the debt-default
# row: they cross a clause. (A lender's suit for a loan's principal, 某某银行起诉公司，要求偿还借款本金, stays the
# lawsuit's 中: the pinned sets read it so, signals_eval.tsv and tests/test_signals_review6.py.)
_LENDER = r"(?:银行|分行|支行|信托|金融租赁|融资租赁|资产管理|小额贷款|保理)"
_US = r"(?:本|上市)?公司(?:的)?(?:全资|控股)?(?:子公司)?"
DEBT_SUED = (
    _LENDER + r"[^，,。；;]{0,20}?(?:诉称|起诉|主张)(?:承租人|借款人)[（(](?:即|系|为)?" + _US + r"[)）]"
    r"(?:拖欠|欠付|逾期未付|未(?:按期|按时)?(?:支付|偿还))[^，,。；;]{0,6}?(?:租金|借款|贷款|本息|本金)",
    r"因(?:客户|下游)[^。；;]{0,20}?(?:汇票|商票|承兑)[^。；;]{0,10}?未(?:能)?(?:兑付|支付)[^。；;]{0,4}?[，,]"
    r"(?:本|上市)?公司(?:正|已|将|正在)?(?:积极|努力)?(?:筹措|筹集)(?:资金|款项)",
)

# (the twentieth session) a later title that ends an overdue debt (关于逾期债务已全部清偿完毕的公告; blind set 3): the
# 债务违约 row lifts with it only a mention of that kind (关于公司部分债务逾期的公告), not one of a reorganisation or
# a blacklisting (破产重整, 失信被执行人), nor one naming no kind (无力偿还, 交叉违约: all kinds, which no such end
# covers). All of it, said done: not 部分, 尚未, 将于 (signals._came)
DEBT_ENDED = (r"(?:逾期|违约)(?:的)?(?:借款|贷款|债务|本息|票据|债券)?(?:本息)?(?:均)?已(?:经)?(?:全部|全额)"
              r"(?:清偿|偿还|归还|兑付|结清)",)
DEBT_KINDS = (("逾期", r"逾期|到期未|(?<!交叉)违约(?!处置)|展期|未能?(?:按期|按时|如期)"),
              ("重整", r"重整|破产|清算|管理人|债权申报"), ("失信", r"失信"))
