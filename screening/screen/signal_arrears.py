"""The operating-arrears row's words (拖欠经营款项): suppliers, builders, staff or the tax office unpaid, and the
counterparties whose arrears to the company are not the company's.

Moved out of signal_table.py (at its 450-line limit) when review 18 (2026-12-06) added the counterparties that refuse
to pay the company (总包方, 甲方, 受让方…) and a contract's 如…逾期支付 boilerplate; the row there reads these tuples
unchanged (``signals.TABLE_ID`` hashes every signal_*.py module).
"""

from __future__ import annotations

from screening.screen.signal_gaps import G as _G

# a payment held back or late (twelfth session: 拒绝/停止/暂停/逾期支付 as well as 延期支付)
PAY_LATE = r"(?:延期|延迟|迟延|推迟|逾期|拒绝|拒不|停止|暂停)支付"
# the gap in "a customer owes the company": not over the company's staff or suppliers (下游回款困难拖欠公司员工工资
# 及供应商货款 is the company's arrears; twelfth session)
_NOT_STAFF = r"(?:(?!员工|职工|工人|工资|供应商)[^，,。；;：:！!？?\n]){0,12}"

ARREARS = (
    r"(?:拖欠|欠付|欠缴)" + _G + r"(?:货款|工资|薪酬|薪资|工程款|款项|账款|租金|社保|社会保险|税款|税费|电费"
    r"|运费|服务费|设备款|采购款)",  # review 21
    r"欠薪", PAY_LATE + _G + r"(?:货款|工资|薪酬|工程款|款项|账款|运费|租金|转让款)",
)

ARREARS_NOT = (
    r"(?:拒绝|拒不|停止|暂停|逾期)支付(?:本|我)?(?:子)?公司(?!员工|职工|债)",  # review 18
    r"(?:(?:如|若|如果|倘若|一旦)[^，,。；;]{0,8}?|(?:采购方|受让方|承租方|总包方|甲方|合作方)[^，,。；;]{0,12}?)"
    r"(?:拒绝|拒不|停止|暂停|逾期)支付",
    r"(?:客户|对方|债务人|被告|经销商|买方|承租人|被执行人|业主(?:方|单位)?|发包方|商户|租户|用户|政府|下游)"
    # not across a cause's end (受客户回款不及时影响公司拖欠供应商货款) unless owed to it (导致拖欠公司工程款)
    r"(?:(?!影响|导致|致使|造成|使得)[^，,。；;：:！!？?\n]){0,12}"
    + r"(?:拖欠|欠付|欠缴|" + PAY_LATE + r")" + _NOT_STAFF + r"(?:公司|本公司|子公司|我司)?" + _NOT_STAFF
    + r"(?:货款|工程款|款项|账款|租金|电费|水费)",
    r"(?:客户|对方|债务人|被告|经销商|买方|承租人|被执行人|业主(?:方|单位)?|发包方|商户|租户|用户|政府|下游)[^，,。；;：:！!？?\n]{0,12}"
    r"(?:拖欠|欠付|欠缴|" + PAY_LATE + r")(?:公司|本公司|子公司|我司)"
    + _NOT_STAFF + r"(?:货款|工程款|款项|账款|租金|电费|水费)",
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
    + "".join(f"(?<!{to}公司[^，,。；;]{{{k}}}[，,])" for to in ("向", "向本", "向上市", "致函") for k in range(13))
    + r"(?:要求|判令|判决|请求|裁决|催告|催促|督促)(?!(?:本|上市|贵|我)?公司|[我本]司|本集团|(?:全资|控股)?子公司)"
    # none named only after the company sued (公司起诉客户，要求支付…), not after staff or suppliers asked
    r"(?:(?!(?:尽快|立即|及时|限期|按时|补发)?(?:支付|偿还|归还|结清))|" + "|".join(
        f"(?<=(?<![限团任设])公司{v}[^，,。；;]{{{k}}}[，,](?:要求|请求))" for v in ("起诉", "已起诉", "诉")
        for k in range(17)) + ")"
    r"(?![^，,。；;]{0,20}?[（(](?:即|系)?(?:本|上市)?公司(?:的)?(?:全资|控股)?(?:子公司)?[)）])"
    r"[^，,。；;]{0,20}?(?:支付|偿还|归还|结清)[^，,。；;]{0,4}?(?:拖欠|欠付)",
    # 公司遭到某某有限公司恶意拖欠货款 (review 20), a debtor named; not 公司遭员工投诉拖欠工资 (review 22)
    r"遭(?:到|受)?(?:客户|对方|债务人|[^，,。；;]{0,16}?(?:有限公司|集团|公司))的?(?:恶意|长期|持续|多次)?(?:拖欠|欠付)",
)

# (review 19: 供应商已要求其支付 is a demand, not a payment)
# (review 20: 已按照法院判决要求支付完毕 is a payment)
ARREARS_PAID = (r"已(?![^，,。；;]{0,16}(?:协议|方案|计划|(?<![按照据同])(?<!判决)(?<!裁定)(?<!裁决)(?<!调解书)要求|"
                r"催告|催促|督促|起诉|申请))"
                r"[^，,。；;]{0,16}"
                r"(?:支付|付清|结清|清偿|偿还|缴纳|补缴)(?:完毕)?(?!首期|第一期|部分)",)
