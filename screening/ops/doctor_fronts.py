"""``doctor``'s check of the enterprise-IM fronts: credentials present, someone allowed to use them.

The variable names are the fronts' contract with the operator (docs/IM.md); the fronts themselves
(bot/<front>/) read them and say the same when one is missing, but only once the bot starts.
"""

from __future__ import annotations

from collections.abc import Mapping

from screening.config import Settings
from screening.ops.findings import Finding

FRONT_ENV: dict[str, tuple[str, ...]] = {
    "dingtalk": ("SCREENER_DINGTALK__CLIENT_ID", "SCREENER_DINGTALK__CLIENT_SECRET"),
    "feishu": ("SCREENER_FEISHU__APP_ID", "SCREENER_FEISHU__APP_SECRET"),
    "wecom": ("SCREENER_WECOM__CORP_ID", "SCREENER_WECOM__AGENT_ID", "SCREENER_WECOM__SECRET",
              "SCREENER_WECOM__TOKEN", "SCREENER_WECOM__ENCODING_AES_KEY"),
}
FEISHU_HTTP_ENV = ("SCREENER_FEISHU__VERIFICATION_TOKEN",)  # the callback's check of who posts


def check_fronts(settings: Settings, env: Mapping[str, str]) -> list[Finding]:
    findings: list[Finding] = []
    for name, needed in FRONT_ENV.items():
        front = getattr(settings, name)
        if not front.enabled:
            continue
        wanted = needed + (FEISHU_HTTP_ENV if name == "feishu" and settings.feishu.mode == "http" else ())
        missing = [v for v in wanted if not env.get(v)]
        if missing:
            findings.append(Finding("fail", name, f"[{name}] enabled but {', '.join(missing)} not set",
                                    "set them in the environment (docs/IM.md says where each comes from)"))
            continue
        if not front.allowed_chats and not front.admin_users:
            findings.append(Finding("warn", name, f"[{name}] allowed_chats and admin_users are empty: "
                                    "everyone is refused", "send /whoami to the bot and add the ids it shows"))
            continue
        where = "long connection" if name != "wecom" and getattr(front, "mode", "ws") == "ws" else (
            f"callback on {front.listen}:{front.port}{front.path}")
        findings.append(Finding("ok", name, f"credentials set, {len(front.allowed_chats)} chat(s) and "
                                f"{len(front.admin_users)} admin(s) allowed, {where}"))
    return findings
