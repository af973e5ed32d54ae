"""The asset-freeze row's words (资产冻结): whose accounts or assets a court froze, seized or debited, and when a lift
ends it.

The longest row of the table, and the one most reviews have sharpened (the company first of several whose accounts
were frozen, the court debiting the company's account, the other side's assets, the company as the applicant, a
partial lift, a lift followed by a new freeze). Kept in a module of its own so signal_table.py stays a table a reader
can check against the prompt; the row there reads these tuples unchanged (``signals.TABLE_ID`` hashes the rows, not
where they are written).
"""

from __future__ import annotations

from screening.screen.signal_gaps import G as _G
from screening.screen.signal_gaps import L as _L
from screening.screen.signal_rights import RIGHT_IF

# the shortest span (_L): 解除司法冻结并被轮候冻结 ends one freeze and starts another, which stays a risk
# a lift only sought is none (公司正在与申请人积极协商，争取尽快解除银行账户冻结: the eighteenth session's fresh set)
# and one still being negotiated (公司正在积极协商解除子公司股权冻结: the eighteenth session's multi-line twins), not
# one negotiated already (经协商已解除, 已与申请人协商解除, 积极协商解除了)
# (the nineteenth session) and one negotiated with no word of its time (公司与申请执行人协商解除银行账户冻结: the talks
# are the company's present, its accounts frozen), unless 已 or 经 before it in its clause says the talks are done
_TALKED = "|".join(rf"(?<={w}[^，,。；;：:！!？?\n]{{{k}}}协商)" for w in "已经" for k in range(17))
_SOUGHT = (r"(?<!尽快)(?<!争取)(?<!力争)(?<!早日)(?<!推动)(?<!以便)(?<!拟)(?<!计划)(?<!寻求)(?<!努力)"
           r"(?:(?<!正在协商)(?<!积极协商)(?<!正在沟通)(?<!积极沟通)(?<!努力协商)(?<!将协商)(?:(?<!协商)|" + _TALKED
           + r")|(?=解除了|解冻了))")
# a lift not yet made, its word up to 16 characters before it in the clause with no 已 between (公司拟通过提供担保的
# 方式解除银行账户冻结, 公司正与申请人协商解除…, 正在办理银行账户解除冻结手续, 申请法院解除, 待…后解除: the
# eighteenth session's open list); not 申请人/申请执行人 (已与申请人协商解除 is done), and 解除了 is done whatever
# came before (signals.py reads the row's lift here blanked; one left unblanked reads as the freeze, still in force)
_NOT_YET = (r"拟", r"计划", r"正在", r"正与", r"(?<![即必已])(?<!已经)将", r"(?<![期对有])待", r"申请(?!人|执行人)",
            r"请求")
_GAP = r"[^，,。；;：:！!？?\n已]"
_PENDING = "".join(rf"(?<!{w}{_GAP}{{{k}}})" for w in _NOT_YET for k in range(17))
# and a lift negotiated as a matter still open (公司与申请人协商解除银行账户冻结事宜), or one asked for
# (已向法院提出解除银行账户冻结的申请)
_MATTER = r"(?:" + "".join(rf"(?<!协商{_GAP}{{{k}}})" for k in range(17)) + r"|(?!" + _L + r"(?:冻结|查封)事宜))"
_SOUGHT += r"(?:" + _PENDING + _MATTER + r"(?!" + _L + r"(?:冻结|查封)的?申请)|(?=解除了|解冻了))"
# the 股份冻结 row's lift (signal_table.py), as sought or not yet made as the company's (控股股东正在积极协商解除股份
# 冻结 stands: the eighteenth session's open list): not 尚未解除质押的股份被司法冻结; 解除其被司法冻结的股份 is a lift
SHARES_LIFTED = (r"(?<!未)(?<!无法|不能|未能)" + _SOUGHT + r"解除(?!质押|抵押)"
                 r"(?:(?!被(?!(?:司法|轮候)?冻结的?(?:股份|股权|全部|\d)))[^，,。；;：:！!？?\n]){0,12}?冻结",
                 _SOUGHT + r"解冻")
# a shareholding's lift left unblanked by that row's counter, so not made (控股股东所持股份无法解除冻结, 正在办理股份
# 解除冻结手续: the eighteenth session's open list), never a form's question (股份是否已解除冻结)
SHARES_UNLIFTED = (r"(?:股份|股权)" + _G + r"(?:(?:无法|不能|未能|尚未|仍未)(?:全部)?|(?<!是否)(?<!是否已))"
                   r"解除(?:司法|轮候)?冻结",)
UNFROZEN = (r"(?<!未)(?<!是否)(?<!是否已)(?<!申请)(?<!请求)" + _SOUGHT + r"解除" + _L + r"(?:冻结|查封)",
            r"(?<!未)" + _SOUGHT + r"解冻",
            # (the twenty-second session) the lift after the freeze's word, said without 已 (关于公司银行账户冻结
            # 解除的公告, 银行账户冻结事项解除: read 资产冻结 高, good news raising the risk; 已 there is
            # FROZEN_CLEARS' cleared); not one sought, pending or only a condition, time or form field (冻结解除前,
            # 冻结解除后方可, 冻结解除手续, 冻结解除时间：不适用)
            _SOUGHT + r"(?:冻结|查封)(?:的)?(?:事项|情形|措施|状态)?(?:均|全部)?(?:解除|解冻|解封)"
            r"(?!的?(?:申请|手续|事宜|工作|程序|时间|日期|进展|进度|情况|条件|前|之前|以前|后|之后|以后))")

FROZEN = (
    # wording 2024-2026 filings use (a trial, 2026-12-06)
    r"(?:部分|资金|募集资金|公司)账户" + _G + r"(?:冻结|查封)",
    r"专户" + _G + r"(?:冻结|查封)",
    r"(?:银行账户|基本账户|基本户|一般户|银行存款|主要资产|核心资产|主要生产|厂房|土地使用权)" + _G + r"(?:冻结|查封)",
    r"查封冻结",
    r"被" + _G + r"查封",
    r"资产" + _G + r"司法拍卖",
    r"房产" + _G + r"(?:司法拍卖|查封)",
    # (a fresh-text measure, 2026-12-06: 公司名下部分资产已被法院拍卖 read nothing)
    r"(?:资产|房产|土地|厂房|设备)" + _G + r"被(?:法院|人民法院)?(?:司法)?(?:拍卖|变卖)",
    r"(?:重要|核心|主要)(?:全资|控股)?子公司[^，,。；;]{0,20}冻结",
    # a subsidiary's equity frozen, the company's holder unsaid (关于子公司股权被冻结的公告, 公司全资子公司某某有限公司
    # 100%股权被法院冻结): the company's asset, read 股份冻结 中 alone (the eighteenth session's multi-line fresh set).
    # The words start after 子公司, so that it is the party named before them (a later 关于子公司股权解除冻结的公告 ends
    # it, 关于公司银行账户解除冻结的公告 does not); not another holder's stake in it (少数股东所持子公司股权,
    # 持有的控股子公司…股权, 该子公司: the company's own 所持/持有的 is read above), another company's subsidiary
    # (客户某某公司的子公司), a hypothetical (如子公司股权被冻结, 股权可能被冻结), nor a lift (子公司股权冻结解除).
    # \s\s: a holder blanked by FROZEN_NOT (少数股东所持)
    r"(?:(?<=子公司)|(?<=孙公司))(?<![的之持有该对户方如若]子公司)(?<![的之持有该对户方如若]孙公司)(?<!参股子公司)"
    r"(?<![的之持有该对户方如若]全资子公司)(?<![的之持有该对户方如若]控股子公司)(?<!\s\s子公司)"
    r"(?:[^，,。；;：:！!？?\s被的之所持有股]{0,24}?)?(?:\d+(?:\.\d+)?%|部分|全部)?股权"
    r"(?:(?:已|均|亦|也)?(?<!可能)(?<!或将)(?<!将)(?<!会)(?:被|遭)[^，,。；;：:！!？?\n]{0,10}?|仍(?:处于)?(?:司法|轮候)?|)"
    r"冻结(?![^，,。；;将拟预计争尽待]{0,6}?(?<![未没能法])(?<!没有)解除)",  # as the 股份冻结 row's 股权冻结
    r"(?:查封|冻结|扣划|划扣)了?(?:作为被执行人的)?(?:(?:本|我|上市)?公司|[本我]司|(?:全资|控股)?子公司)"
    r"(?![^，,。；;、及和与]{0,6}?(?:债务人|控股股东|实际控制人|实控人|股东|董事|监事|高级管理人员|高管|被告|对方))"
    r"(?:(?:名下|持有|所持)的?[^，,。；;：:！!？?\n]{0,20}?|的?" + _G + r")"  # 持有的某某新材料有限公司100.00%股权
    r"(?:银行|账户|专户|存款|资产|土地|厂房|房产|股权|基本户|一般户)",
    # (twelfth session: 公司通过全资子公司间接持有的某某矿业有限公司70%股权被司法冻结; review 19: 直接及间接合计持有)
    r"(?<!子)(?<!有限)(?<!责任)(?<!集团)(?<!标的)(?<!投资)(?<!控股)公司(?:通过[^，,。；;被]{0,12}?)?"
    r"(?:间接|直接|合计|及|和|与|或|(?:全资|控股)?子公司){0,4}(?:持有|所持)"
    r"(?!的?(?:本|上市)?公司股)的?"  # not a shareholder 某某实业公司持有的公司股权 (review 21)
    + r"[^，,。；;：:！!？?\n]{0,20}?股权" + _G
    # a full name and 70.00%: 20; not 是否仍处于 (review 21), 是否存在被冻结的情形 (review 23)
    + r"(?:(?<!是否)(?<!是否存在)(?<!是否曾)被" + _G + r"|(?<!是否)(?<!是否存在)仍(?:有[^，,。；;]{0,10}?)?处于)冻结",
    # (the thirteenth session's open list: 公司仍有2家子公司股权处于冻结状态, 股权中仍有51%股权处于冻结状态)
    r"(?<!是否)(?<!有限)(?<!集团)公司仍有[^，,。；;]{0,12}?股权(?:仍)?处于(?:司法)?冻结",
    r"公司(?:名下|所)?(?:持有|所持)有?的?(?:全资|控股)?子公司[^，,。；;]{0,16}?股权[^，,。；;：:！!？?\n]{0,12}被[^，,。；;：:！!？?\n]{0,12}冻结",
    # the company first of those whose accounts a court froze (冻结了公司、控股股东…名下的银行账户), the court
    # acting on it (法院从公司基本户中扣划…), an account frozen without naming whose (诉前保全冻结银行账户), and
    # the accounts a partial lift leaves (其余5个账户仍处于冻结状态) (a review, 2026-12-06)
    r"(?:查封|冻结|扣划|划扣)了?(?:本|我|上市)?公司[、及和与][^，,。；;]{0,24}?(?:银行|账户|专户|存款|资产|土地|厂房|房产)",
    r"(?:(?:法院|执行(?!董事|资金|制度)|司法|保全)[^，,。；;]{0,16}?|(?:法院|判决书|裁定书|调解书|裁决书)[^，,。；;]{0,40}?)从(?:(?:本|我|上市)?公司|(?:全资|控股)?子公司)(?:的|名下的?)?[^，,。；;]{0,10}?(?:扣划|划扣|划转|扣收|冻结)",
    r"从(?:(?:本|我|上市)?公司|(?:全资|控股)?子公司)(?:的|名下的?)?[^，,。；;]{0,10}?(?:扣划|划扣|划转|扣收)[^，,。；;]{0,6}?(?:执行款|案款|执行标的|诉讼费)",
    r"(?<!(?<!的)申请)(?<!解除)(?<!对方)(?<!被)冻结了?(?:银行账户|基本账户|基本户|一般户|银行存款)(?![^，,。；;]{0,8}?已)",
    r"(?:账户|存款|资金|资产)" + _G + r"仍(?:处于|被|在)?(?:司法)?(?:冻结|查封)",
    r"(?<!已)(?:尽快|争取|力争|早日|推动|以便|寻求|努力)解冻",  # a lift sought (_SOUGHT above), the freeze stands
    # the same for a lift of named assets (争取早日解除账户冻结, 公司正在积极协商解除子公司股权冻结): only a lift
    # UNFROZEN left unblanked comes here, a sought one (_SOUGHT), one not made (未解除) or asked for (申请解除), never
    # a form's question (是否已解除…冻结; the eighteenth session's multi-line twins)
    r"(?<!是否)(?<!是否已)解除" + _L + r"(?:银行账户|账户|专户|存款|资产|基本户|一般户|股权)的?(?:冻结|查封)",
    # the accounts a partial lift leaves, counted first (已有2个解除冻结，仍有3个账户处于冻结状态; the eighteenth
    # session's fresh set), as 股份冻结 reads 仍有2,000万股处于冻结状态
    r"(?<![如若])(?<!如果)(?<!是否)(?<!倘若)(?:仍有|尚有|还有)(?:[^，,。；;]|(?<=\d),(?=\d)){0,12}?(?:账户|专户|基本户|一般户|存款|资金)(?:仍)?(?:处于|被)(?:司法)?"
    r"(?:冻结|查封)",
    r"被" + _G + r"(?:扣划|划扣)",
    # a long name of the party that had them frozen (被交易对方某某有限公司申请冻结), one named as applying
    # (申请人某某公司申请冻结银行存款) (review 9's open list)
    r"(?:银行账户|基本账户|基本户|一般户|银行存款|募集资金专户)被[^，,。；;：:！!？?\n]{0,30}?(?:冻结|查封)",
    r"(?<!被)(?<!作为)(?:申请人|申请执行人|交易对方|交易对手|债权人)(?![为是：:]?(?:本|我|上市)?公司|[（(])"
    # (and through the court, 交易对方某某有限公司申请法院冻结了银行账户: review 9's open list, seventeenth session)
    r"[^，,。；;]{0,30}?(?<!被)申请(?:(?:人民)?法院)?(?:财产保全|诉前保全|诉讼保全|保全)?冻结了?"
    r"(?:银行账户|基本账户|基本户|一般户|银行存款)",
    r"被(?:司法)?(?:冻结|查封)的?(?:银行账户|账户|银行存款|存款|资金|资产|金额)"
    r"(?![^，,。；;]{0,8}?已)",  # not 被冻结的银行账户已全部解除冻结 (the lift itself is blanked by UNFROZEN)
)
# another debtor, not the company as the debtor (公司作为债务人的…, 重整债务人名下的…, 债务人（即公司）; twelfth
# session)
_DEBTOR = r"(?<!作为)(?<!重整)债务人(?![（(](?:即|系)?(?:本|上市)?公司)"
# the company named before the other side, both in trouble (公司及交易对方…, 公司与交易对方…)
_WITH_US = r"(?<!公司及交易)(?<!公司和交易)(?<!公司与交易)(?<!公司、交易)"
# the role is the company itself (被申请人本公司, 被告即公司, 对方上市公司): its own assets, still counted
_NOT_SELF = r"(?![（(]?(?:即|系|为|是)?(?:(?:本|我|上市)?公司|[本我]司))"
# another party's name up to its 公司 (被申请人某某公司): up to 20 characters, none that acts (申请, 向法院, 被, 的),
# not the company's own (本公司, 子公司, 即公司); then its assets (的/名下) frozen, no 公司 between them and the freeze
# (与被申请人某某公司的纠纷导致公司账户被冻结 is the company's) nor the company after it (冻结了公司…)
_CO_NAME = (r"(?:(?!冻结|查封|申请|向法院)[^，,。；;：:！!？?\n被向对为与和及的在于已将从因由就即系（()）、]){1,20}?"
            r"(?<![本我子])(?<!上市)")
_ITS_ASSETS_FROZEN = (r"公司(?:的|名下的?)(?:(?!公司|[本我]司)[^，,。；;：:！!？?\n]){0,6}?"
                      r"(?:银行账户|账户|存款|资金|资产|财产|房产|土地|厂房|设备|股权)"
                      r"(?:(?!公司|[本我]司)[^，,。；;：:！!？?\n]){0,12}?(?<!(?<!被)申请)(?:冻结|查封|扣划|划扣)"
                      r"(?!了?(?:(?:本|我|上市)?公司|[本我]司|(?:全资|控股)?子公司))")
FROZEN_NOT = (
    # the other side's assets, not the other side freezing the company's (对方申请冻结了公司…, 交易对方某某有限公司申请
    # 冻结银行账户: review 9's open list)
    *RIGHT_IF,  # first: 如公司未按期还款，银行有权冻结公司账户 (signal_rights.py)
    *UNFROZEN,
    # (not the other side applying through the court, 对方某某有限公司申请法院冻结了…, nor the company named with it,
    # 公司及交易对方某某有限公司银行账户被冻结: review 9's open list, seventeenth session)
    r"(?:被告|被申请人|" + _WITH_US + r"对方|" + _DEBTOR + r")" + _NOT_SELF + r"(?:的|名下的?)?(?!申请|向法院)" + _G
    + r"(?<!(?<!被)申请)(?<!(?<!被)申请法院)(?<!(?<!被)申请人民法院)(?:冻结|查封|扣划|划扣)"
    r"(?!了?(?:(?:本|我|上市)?公司|[本我]司|(?:全资|控股)?子公司))",
    # the other side named as a company before its own assets (被申请人某某公司的银行账户已被法院冻结), which the
    # 12-character gap above stops short of; 交易对方/债务人 only where the name's bare 公司 kept the denial
    # (signal_words.OTHER_PARTY) from reading them as another party's (某某有限公司 is read there)
    r"(?<!作为)(?:被告|被申请人|(?<!交易)对方)" + _CO_NAME + _ITS_ASSETS_FROZEN,
    r"(?:交易对方|交易对手|" + _DEBTOR + r")" + _CO_NAME + r"(?<!有限)(?<!责任)(?<!集团)(?<!标的)" + _ITS_ASSETS_FROZEN,
    r"(?<!为)(?<!系)(?<!列入)(?<!纳入)被执行人(?![（(的]|名下)[^，,。；;：:！!？?\n]{0,20}?(?:冻结|查封|扣划|划扣)",
    # the company the applicant (公司…申请财产保全，法院冻结银行存款); a borrower's, a minority's (reviews 8-10)
    r"(?:^|(?<=[，,。；;\s]))(?:本公司|公司|(?:全资|控股)?子公司)(?:(?!被|对方|债权人|获悉|得知)[^，,。；;]|[，,](?=已|并|遂|随即|依法|向|于|同时|及时)){0,20}?(?<!被)申请(?:(?!被(?!告|申请人)|对方|债权人|原告|申请|银行(?!存款|账户)|变更|解除|置换|复议|异议|撤销|仍|分期|暂缓|延期|中止)[^。；;]){0,30}?冻结了?(?:银行账户|基本账户|基本户|一般户|银行存款)",
    r"(?<![及和与、])(?<!作为)(?:借款人|承租人|" + _DEBTOR + r")"
    r"(?:的|名下的?)?[^，,。；;]{0,12}?(?:账户|存款|资金|资产|土地|房产|厂房)[^，,。；;]{0,8}仍(?:处于|被|在)?(?:法院|司法)?(?:冻结|查封)|(?<!作为)少数股东[^，,。；;]{0,24}?(?:持有|所持)",
)
# lifted in the same sentence (已全部解除冻结, 已于/已在…解除冻结, 冻结事项已全部解除); a part lifted, an earlier
# freeze, a count (已解冻800万元), a freeze after it (基本户仍被冻结) or 已于近日申请解除 is not (reviews 8-10)
FROZEN_CLEARS = (
    # a clause of its own after the lift's words (公司积极协商解除银行账户冻结，目前已全部解除: the eighteenth session)
    r"(?:(?<=[，,])(?:目前|现|截至目前)?已全部解除(?=[。；;！!\n]|$)|已(?:[于在](?:(?!申请|提出|提交|请求|向|缴纳|协商|办理|沟通|要求|提供)[^，,。；;]){0,12})?(?:全部)?(?:解除(?:冻结|查封)|解冻|解封)|(?:冻结|查封)(?:的)?(?:事项|情形|措施|状态)?(?:均)?已(?:[于在](?:(?!申请|提出|提交|请求|向|缴纳|协商|办理|沟通|要求|提供)[^，,。；;]){0,12})?(?:全部)?解除)(?!\s*(?:\d|[一二两三四五六七八九十]+[个笔户])|的?(?:申请|手续|事宜|工作|程序)|的?(?:银行)?(?:账户|资金|存款|金额)[^，,。；;]{0,4}?(?:\d|[一二两三四五六七八九十]+[个笔户]))(?![^。；;！!？?\n]*?(?:(?<![未没不])(?:仍|再次|又)[^，,。；;]{0,6}?(?:冻结|查封)|遭[^，,。；;]{0,12}?(?:冻结|查封)|(?:仍|目前|尚|还)(?:存在|有)(?!关)[^，,。；;]{0,12}?(?:冻结|查封)|(?<![未没不再次又])被[^，,。；;]{0,6}?(?:冻结|查封)(?!期间|期内|的?情形|的?情况|而(?:受到|遭受|造成|产生|导致|影响)|事项(?:均|亦|也)?(?:已|全部))|冻结了?(?:(?:本|我|上市|母)?公司|[本我]司|(?:全资|控股)?子公司)|(?:冻结|查封)[^。；;]{0,20}?(?:尚未|仍未|未)(?:解除|解冻)|(?:账户|存款|资金|资产)(?:的)?(?:冻结|查封)(?:金额|资金)?(?:合计|共计|为|\d)))",
)
FROZEN_SENTENCE = (
    # the accounts counted, then frozen (共有银行账户23个，其中17个处于冻结状态; review 9's open list)
    r"(?:银行账户|账户)[^。；;！!？?\n]{0,20}?[，,]其中[^，,。；;]{0,8}?仍?(?:处于|被)(?:司法)?(?:冻结|查封)",
    r"(?:法院|判决书|裁定书|调解书|裁决书)[^。；;！!？?\n]{0,40}?[，,]从(?:(?:本|我|上市)?公司|(?:全资|控股)?子公司)(?:的|名下的?)?[^，,。；;]{0,10}?(?:扣划|划扣|扣收)",
)
FROZEN_RESOLVES = (
    r"(?:账户|银行存款|资产|厂房|土地|股权)" + _G + r"(?:解除|解冻|解封)",
    r"解除" + _G + r"(?:账户|银行存款|资产|厂房|土地)" + _G + r"(?:冻结|查封)",
)
