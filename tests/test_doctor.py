"""``python -m screening doctor``: names a stopped Redis and a wrong model path with the fix (exit 1),
says all is well on a sound setup (exit 0), checks the bot token with getMe against the fake Bot
API, and each push target without sending anything.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from screening.config import WEBHOOK_SECRET_ENV, DigestSettings, Settings, TelegramSettings
from screening.ops import doctor
from tests.fixtures_redis import REPO, RedisServer


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCREENER_")}
    env["SCREENER_CONFIG"] = str(REPO / ".no-config-in-tests.toml")
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


def test_names_stopped_redis_and_wrong_model_path(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)  # a real server, then stopped: the port is known and dead
    server.stop()
    missing = tmp_path / "models" / "Qwen-nope"
    proc = subprocess.run([sys.executable, "-m", "screening", "doctor"], cwd=REPO, capture_output=True, text=True,
                          timeout=120, env=_env(SCREENER_REDIS__URL=server.url, SCREENER_ENGINE__KIND="vllm",
                                                SCREENER_ENGINE__MODEL=str(missing)))
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "Traceback" not in out + proc.stderr
    redis_line = next(ln for ln in out.splitlines() if ln.startswith("FAIL  redis"))
    assert f"127.0.0.1:{server.port}" in redis_line and "not reachable" in redis_line
    assert "fix: start Redis: `redis-server --appendonly yes" in out and "SCREENER_REDIS__URL" in out
    model_line = next(ln for ln in out.splitlines() if ln.startswith("FAIL  model"))
    assert str(missing) in model_line and "no such file or directory" in model_line and "engine.model" in model_line
    assert "SCREENER_ENGINE__MODEL" in out
    assert "gpu" in out and ("no GPU: CPU engine" in out or "cuda:0" in out)
    assert "2 problem(s)" in out


def test_model_folder_problems(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (f,) = [x for x in doctor.check_model_folder(empty, "engine.model") if x.level == "fail"]
    assert "config.json is missing" in f.message
    (empty / "config.json").write_text("{not json")
    (f,) = [x for x in doctor.check_model_folder(empty, "engine.model") if x.level == "fail"]
    assert "unreadable" in f.message and "JSONDecodeError" in f.message
    (empty / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"],
                                                   "max_position_embeddings": 2048}))
    fails = [x.message for x in doctor.check_model_folder(empty, "engine.model", 4096) if x.level == "fail"]
    assert any("no weight files" in m for m in fails)
    assert any("max_model_len = 4096 exceeds" in m for m in fails)
    a_file = empty / "config.json"
    (f,) = doctor.check_model_folder(a_file, "engine.model")
    assert f.level == "fail" and "is a file" in f.message


def test_all_well_exit_0(redis_server, tmp_path: Path, capsys) -> None:
    cfg = tmp_path / "ok.toml"
    cfg.write_text(f'[engine]\nkind = "rules"\n[redis]\nurl = "{redis_server.url}"\nprefix = "doc"\n')
    args = SimpleNamespace(config=str(cfg), skip=[], json=False)
    saved = os.environ.pop(doctor.TOKEN_ENV, None)
    try:
        assert doctor.main(args) == 0
    finally:
        if saved is not None:
            os.environ[doctor.TOKEN_ENV] = saved
    out = capsys.readouterr().out
    assert "ok    redis" in out and "answers PING" in out
    assert "no live worker" in out  # a warning: jobs would wait, but nothing is broken
    assert "FAIL" not in out


def test_config_error_names_the_key(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text('[engine]\nkind = "gpt"\n[redis]\nclaim_idle_ms = "soon"\n')
    _, findings = doctor.check_config(str(cfg))
    text = "\n".join(f"{f.message} | {f.fix}" for f in findings)
    assert "engine.kind" in text and "SCREENER_ENGINE__KIND" in text
    assert "redis.claim_idle_ms" in text and "SCREENER_REDIS__CLAIM_IDLE_MS" in text


async def test_bot_token_getme_against_configured_server() -> None:
    from tests.fake_bot_api import FakeBotAPI

    fake = await FakeBotAPI().start()
    try:
        settings = Settings().model_copy(update={"telegram": TelegramSettings(base_url=fake.base_url)})
        (ok,) = await asyncio.to_thread(doctor.check_telegram, settings, {doctor.TOKEN_ENV: fake.token})
        assert ok.level == "ok" and "token valid: @" in ok.message
        wrong = "999:definitely-wrong"
        (bad,) = await asyncio.to_thread(doctor.check_telegram, settings, {doctor.TOKEN_ENV: wrong})
        assert bad.level == "fail" and "rejected the token" in bad.message and "@BotFather" in bad.fix
        assert wrong not in bad.message + bad.fix
        (skipped,) = doctor.check_telegram(settings, {})
        assert skipped.level == "info" and "not checked" in skipped.message
    finally:
        await fake.stop()


def test_webhook_mode_needs_url_and_secret() -> None:
    def webhook(url: str = "https://bot.example.com/tg/hook") -> Settings:
        return Settings().model_copy(update={"telegram": TelegramSettings(mode="webhook", webhook_url=url)})

    assert doctor.check_webhook(Settings(), {}) == []  # polling: nothing to check
    (no_url,) = doctor.check_webhook(webhook(""), {})
    assert no_url.level == "fail" and "webhook_url is empty" in no_url.message
    (no_secret,) = doctor.check_webhook(webhook(), {})
    assert no_secret.level == "fail" and WEBHOOK_SECRET_ENV in no_secret.message and "token_urlsafe" in no_secret.fix
    (bad,) = doctor.check_webhook(webhook(), {WEBHOOK_SECRET_ENV: "not/allowed"})
    assert bad.level == "fail" and "outside A-Z" in bad.message and "not/allowed" not in bad.message + bad.fix
    (plain,) = doctor.check_webhook(webhook("http://bot.example.com/hook"), {WEBHOOK_SECRET_ENV: "s3cret_ok"})
    assert plain.level == "warn" and "not HTTPS" in plain.message
    (ok,) = doctor.check_webhook(webhook(), {WEBHOOK_SECRET_ENV: "s3cret_ok"})
    assert ok.level == "ok" and "s3cret_ok" not in ok.message


def test_push_targets_checked_without_sending() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    live = listener.getsockname()[1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    targets = [
        {"name": "ops", "kind": "dingtalk", "url_env": "DT_URL", "secret_env": "DT_SECRET"},
        {"name": "team", "kind": "feishu", "url_env": "FS_URL", "secret_env": "FS_SECRET"},
        {"name": "desk", "kind": "wecom", "url_env": "WC_URL"},
        {"name": "gone", "kind": "wecom", "url": f"http://127.0.0.1:{dead}/cgi-bin/webhook/send?key=SECRETKEY"},
        {"name": "off", "kind": "wecom", "enabled": False},
    ]
    env = {"DT_URL": f"http://127.0.0.1:{live}/robot/send?access_token=TOKEN123", "DT_SECRET": "s",
           "FS_URL": f"http://127.0.0.1:{live}/open-apis/bot/v2/hook/abc"}
    try:
        settings = Settings().model_copy(update={"digest": DigestSettings.model_validate({"targets": targets})})
        findings = doctor.check_push(settings, env)
    finally:
        listener.close()
    by = {f.message.split(":", 2)[1]: f for f in findings}
    assert by["ops"].level == "ok" and "nothing sent" in by["ops"].message
    assert by["team"].level == "fail" and "FS_SECRET" in by["team"].message
    assert by["desk"].level == "fail" and "no webhook URL" in by["desk"].message and "WC_URL" in by["desk"].fix
    assert by["gone"].level == "fail" and "not reachable" in by["gone"].message
    assert "off" not in by
    text = " ".join(f.message + f.fix for f in findings)
    assert "TOKEN123" not in text and "SECRETKEY" not in text


def test_fronts_check_names_missing_credentials_and_empty_allow_lists() -> None:
    from screening.config import DingTalkSettings, FeishuSettings, Settings, WeComSettings
    from screening.ops.doctor_fronts import check_fronts

    s = Settings().model_copy(update={
        "dingtalk": DingTalkSettings(enabled=True, allowed_chats=["cid1"]),
        "feishu": FeishuSettings(enabled=True, mode="http", admin_users=["ou_1"]),
        "wecom": WeComSettings(enabled=True)})
    env = {"SCREENER_DINGTALK__CLIENT_ID": "id", "SCREENER_DINGTALK__CLIENT_SECRET": "s",
           "SCREENER_FEISHU__APP_ID": "cli_1", "SCREENER_FEISHU__APP_SECRET": "s",
           **{f"SCREENER_WECOM__{k}": "v" for k in ("CORP_ID", "AGENT_ID", "SECRET", "TOKEN", "ENCODING_AES_KEY")}}
    by = {f.check: f for f in check_fronts(s, env)}
    assert by["dingtalk"].level == "ok" and "long connection" in by["dingtalk"].message
    assert by["feishu"].level == "fail" and "SCREENER_FEISHU__VERIFICATION_TOKEN" in by["feishu"].message
    assert by["wecom"].level == "warn" and "everyone is refused" in by["wecom"].message
    assert check_fronts(Settings(), env) == []  # fronts that are off are not checked


def test_adapter_check_names_the_prompt_key_that_moved(tmp_path: Path) -> None:
    """The shipped adapter on config.toml's prompt is fine; with risk_signals turned on it is out of its
    training distribution and doctor names the key; a bundled adapter under another model fails."""
    from screening.config import EngineSettings
    from screening.ops.doctor_adapter import check_adapter

    def findings(**engine: object) -> list:
        return check_adapter(Settings(engine=EngineSettings(**engine)))  # type: ignore[arg-type]

    prompt = {"max_model_len": 4096, "max_report_tokens": 1500, "max_output_tokens": 160}
    assert findings(**prompt) == []  # no adapter configured: nothing to check
    (ok,) = findings(lora_adapter="bundled", risk_signals=False, **prompt)
    assert ok.level == "ok" and "trained on this prompt" in ok.message
    (moved,) = findings(lora_adapter="bundled", risk_signals=True, **prompt)
    assert moved.level == "warn" and "risk_signals = True (trained with False)" in moved.message
    assert "finetune train" in moved.fix
    (other,) = findings(lora_adapter="bundled", model="/models/qwen", risk_signals=False, **prompt)
    assert other.level == "fail" and "bundled SmolLM2" in other.message
    from screening.finetune import SHIPPED_ADAPTER

    bare = tmp_path / "adapter"
    bare.mkdir()
    (bare / "adapter_config.json").write_text((SHIPPED_ADAPTER / "adapter_config.json").read_text())
    (nocard,) = findings(lora_adapter=str(bare), risk_signals=False, **prompt)
    assert nocard.level == "warn" and "--write-card" in nocard.fix
