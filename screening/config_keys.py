"""The keys of a config file no section reads: misplaced or typo'd keys, and secrets written into the file.

config.toml is meant to be committed and shared ("secrets come from the environment only"), yet
``[telegram] token = "..."`` in it used to be read and used without a word, and ``[feishu] app_secret``
was refused as "not a [feishu] setting", which sent the user hunting for the right key name. Each is now
refused with the variable to export; the value is never echoed.
"""

from __future__ import annotations

import difflib
from typing import Any

# (section, key) -> (the variable to export, what else names it)
SECRET_KEYS: dict[tuple[str, str], tuple[str, str]] = {
    ("telegram", "token"): ("SCREENER_TELEGRAM__TOKEN", ""),
    ("telegram", "webhook_secret"): ("SCREENER_TELEGRAM__WEBHOOK_SECRET", ""),
    ("dingtalk", "client_id"): ("SCREENER_DINGTALK__CLIENT_ID", ""),
    ("dingtalk", "client_secret"): ("SCREENER_DINGTALK__CLIENT_SECRET", ""),
    ("feishu", "app_id"): ("SCREENER_FEISHU__APP_ID", ""),
    ("feishu", "app_secret"): ("SCREENER_FEISHU__APP_SECRET", ""),
    ("feishu", "verification_token"): ("SCREENER_FEISHU__VERIFICATION_TOKEN", ""),
    ("feishu", "encrypt_key"): ("SCREENER_FEISHU__ENCRYPT_KEY", ""),
    ("wecom", "corp_id"): ("SCREENER_WECOM__CORP_ID", ""),
    ("wecom", "agent_id"): ("SCREENER_WECOM__AGENT_ID", ""),
    ("wecom", "secret"): ("SCREENER_WECOM__SECRET", ""),
    ("wecom", "token"): ("SCREENER_WECOM__TOKEN", ""),
    ("wecom", "encoding_aes_key"): ("SCREENER_WECOM__ENCODING_AES_KEY", ""),
    ("engine", "api_key"): ("SCREENER_OPENAI_API_KEY", " (or the variable engine.api_key_env names)"),
    ("universe", "tushare_token"): ("TUSHARE_TOKEN", " (or the variable universe.tushare_token_env names)"),
}


def secret_problem(section: str, key: str) -> str | None:
    """The line refusing a secret written into the config file, or None for any other key."""
    found = SECRET_KEYS.get((section, key))
    if found is None:
        return None
    env, other = found
    return (f"config key [{section}] {key} is a secret: secrets are read from the environment only; delete it "
            f"from the file and export {env}=...{other}")


class ConfigKeyError(ValueError):
    """config.toml has keys no section knows (often a key under the wrong section): they would be ignored."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def misplaced_keys(data: dict[str, Any], sections: dict[str, Any]) -> list[str]:
    """One line per key config.toml has that its section does not, naming the section it belongs to.

    Unknown keys used to be ignored silently: ``webhook_url`` under ``[metrics]`` never reached the bot."""
    owners: dict[str, list[str]] = {}
    for name, model in sections.items():
        for key in getattr(model, "model_fields", {}):
            owners.setdefault(key, []).append(name)
    problems: list[str] = []
    for section, body in data.items():
        model = sections.get(section)
        if model is None:
            problems.append(f"[{section}] is not a section of this program's config "
                            f"(sections: {', '.join(sections)})")
            continue
        if not isinstance(body, dict):
            continue
        known = getattr(model, "model_fields", {})
        for key in body:
            secret = secret_problem(section, key)
            if secret:
                problems.append(secret)
                continue
            if key in known:
                continue
            home = [o for o in owners.get(key, []) if o != section]
            near = difflib.get_close_matches(key, list(known), n=1)
            where = f"; it belongs in [{home[0]}]" if home else (f"; did you mean {near[0]}?" if near else "")
            problems.append(f"config key [{section}] {key} is not a [{section}] setting{where}")
    return problems
