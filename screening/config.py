"""Settings: config.toml, overridden by ``SCREENER_<SECTION>__<KEY>`` environment variables.

Secrets (the bot token, webhook secrets) are read from the environment only; config.toml
names which variable holds each, so the file can be committed and shared.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from screening.config_keys import ConfigKeyError, misplaced_keys

DEFAULT_CONFIG = Path(os.environ.get("SCREENER_CONFIG", "config.toml"))


def cache_dir() -> Path:
    """Where built models and the default universe live (XDG cache, overridable)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ashare-screener"


class EngineSettings(BaseModel):
    kind: Literal["vllm", "openai", "rules"] = "vllm"
    model: str = Field("", description="HF folder or hub id; empty = the bundled SmolLM2-135M")
    # a peft LoRA adapter folder applied to every request (`python -m screening finetune train` makes one);
    # "bundled": the one shipped for the bundled SmolLM2-135M (screening/finetune/adapter); empty: none
    lora_adapter: str = ""
    max_lora_rank: int | None = None  # vLLM's LoRA rank ceiling; None: the adapter's rank, rounded up to one vLLM has
    max_model_len: int = 4096
    max_report_tokens: int = 1500
    max_output_tokens: int = 160
    # the system prompt names the announcement risk signals and shows one worked answer (1,088 tokens with
    # Qwen3.5's tokenizer: two whole cache blocks). Unset: on for a real model (engine.model names one),
    # off for the bundled 135M model, which parrots the worked answer of the full prompt as its reason;
    # set it to override either way (doctor warns)
    risk_signals: bool = True
    gpu_memory_utilization: float = 0.9
    kv_cache_gib: float | None = None  # explicit KV-cache size; needed on CPU, where the share is of RAM
    enforce_eager: bool = False
    dtype: str = "auto"
    quantization: str | None = None
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    async_scheduling: bool | None = None  # None: vLLM's choice (0.26 turns it on); False is passed as False
    # vLLM's structured-output backend for the answer's JSON; its mask is filled on the CPU every step (RESULTS.md)
    guided_backend: Literal["xgrammar", "guidance"] = "xgrammar"
    enable_prefix_caching: bool = True
    # multimodal checkpoints (Qwen3.5) screened as text: vLLM skips the vision tower and its processor
    language_model_only: bool = False
    gdn_prefill_backend: str | None = None  # Qwen3.5's linear-attention prefill (0.26's FlashInfer one needs a DSL)
    moe_config_dir: str = "bundled"  # tuned fused-MoE tables for vLLM (vllm_engine.use_moe_configs); "" = none
    load_format: str = "auto"
    seed: int = 0
    # openai engine
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key_env: str = "SCREENER_OPENAI_API_KEY"
    served_model: str = ""
    concurrency: int = 64
    server_priority: bool = False  # the server runs --scheduling-policy priority: send the lane as priority
    request_timeout_s: float = 120.0
    retries: int = 3

    @model_validator(mode="before")
    @classmethod
    def _prompt_for_the_model(cls, data: Any) -> Any:
        """risk_signals left unset follows the model: the bundled one never gets the full prompt."""
        if isinstance(data, dict) and "risk_signals" not in data:
            return {**data, "risk_signals": bool(data.get("model"))}
        return data


class BatcherSettings(BaseModel):
    enabled: bool = True
    token_budget: int = 65536  # prompt tokens in one engine call
    max_batch: int = 512
    bucket_width: float = 100.0  # longest/shortest prompt ratio within one call (batcher.py: why so wide)


class InputSettings(BaseModel):
    max_file_mb: float = 20.0
    max_rows: int = 10_000
    max_xlsx_uncompressed_mb: float = 200.0
    max_xlsx_entries: int = 2_000


class RedisSettings(BaseModel):
    url: str = "redis://127.0.0.1:6379/0"
    prefix: str = "screener"
    claim_idle_ms: int = 300_000
    max_deliveries: int = 3
    result_ttl_s: int = 7 * 24 * 3600
    cache_ttl_s: int = 24 * 3600
    no_worker_s: float = 10.0  # `screen --via-queue` says so when no live worker is seen this long


class WorkerSettings(BaseModel):
    # stocks taken from the queue ahead of the engine, and the largest group of crash suspects re-run together
    batch_stocks: int = 512
    max_in_flight: int = 1024  # bulk requests submitted to the engine at once (the fast lane comes on top)
    # fast-lane hold, cooldown and its refill floor (queue/pace.py FastHold; off: -1 / 0 / 0)
    fast_hold_bulk: int = -1
    fast_hold_max_s: float = 2.0
    fast_hold_gap_s: float = 1.0
    fast_cool_bulk: int = Field(default=0, ge=0)  # 0: off (a cap of 0 would stop the bulk job while /screen jobs come)
    fast_cool_s: float = Field(default=10.0, ge=0)
    bulk_admit_per_s: float = 0.0  # bulk handed to the engine at most this fast (queue/pace.py); 0: unpaced
    bulk_admit_burst: int = 32
    bulk_refill_min: int = 0  # bulk handed to the engine in groups of at least this many (queue/pace.py); 0: any
    fast_refill_min: int = Field(default=0, ge=0)  # bulk_refill_min while the cooldown runs (near a /screen)
    # the lanes this worker claims jobs from: a second worker with ["fast"] and an engine of its own serves /screen
    lanes: list[Literal["fast", "bulk"]] = Field(default=["fast", "bulk"], min_length=1)
    # the claim leg (RESULTS.md): read the fast stream every fast_poll_ms with the engine full (0: only with room);
    # prepare a claimed job prepare_chunk stocks a round (0: all), prepare_chunk_fast while /screens come (pace.py)
    fast_poll_ms: int = 20
    prepare_chunk: int = 256
    prepare_chunk_fast: int = Field(default=0, ge=0)
    flush_s: float = 0.05  # finished rows are written to Redis at least this often
    heartbeat_s: float = 5.0
    block_ms: int = 1000


class TelegramSettings(BaseModel):
    token: SecretStr | None = None  # only from SCREENER_TELEGRAM__TOKEN
    base_url: str = "https://api.telegram.org/bot"
    base_file_url: str = "https://api.telegram.org/file/bot"
    allowed_chats: list[int] = Field(default_factory=list)
    admin_users: list[int] = Field(default_factory=list)
    max_jobs_per_user: int = 2
    max_rows_per_user: int = 10_000
    mode: Literal["polling", "webhook"] = "polling"
    webhook_url: str = ""
    # loopback: the documented deployment puts a TLS proxy in front; inside docker set 0.0.0.0
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = 8443


class ChatFrontSettings(BaseModel):
    """What every enterprise-IM front shares: on/off, the allow-list and the per-user limits.

    Ids are the vendor's own strings (DingTalk conversationId / staffId, Feishu chat_id / open_id, WeCom
    UserID). Credentials are never here: each front reads them from SCREENER_<FRONT>__* variables.
    """

    enabled: bool = False
    allowed_chats: list[str] = Field(default_factory=list)  # empty = nobody but admins
    admin_users: list[str] = Field(default_factory=list)
    max_jobs_per_user: int = 2
    max_rows_per_user: int = 10_000


class DingTalkSettings(ChatFrontSettings):
    """``[dingtalk]``: an enterprise internal robot over Stream mode (no public URL needed)."""

    stale_after_s: float = 300.0  # a message older than this (createAt) is refused as a replay


class FeishuSettings(ChatFrontSettings):
    """``[feishu]``: long connection (no public URL) or the HTTP event callback behind your TLS proxy."""

    mode: Literal["ws", "http"] = "ws"
    domain: str = "https://open.feishu.cn"  # Lark: https://open.larksuite.com
    listen: str = "127.0.0.1"
    port: int = 8444
    path: str = "/feishu/events"


class WeComSettings(ChatFrontSettings):
    """``[wecom]``: a self-built app's callback URL (behind your TLS proxy) and its send API."""

    api_base: str = "https://qyapi.weixin.qq.com"
    listen: str = "127.0.0.1"
    port: int = 8445
    path: str = "/wecom/callback"


WEBHOOK_SECRET_ENV = "SCREENER_TELEGRAM__WEBHOOK_SECRET"
# what Telegram accepts as a webhook secret_token (Bot API, setWebhook)
WEBHOOK_SECRET_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")


def webhook_problem(webhook_url: str, secret: str) -> str | None:
    """What stops webhook mode from starting, or None (the bot and ``doctor`` both ask)."""
    if not webhook_url:
        return "telegram.mode = 'webhook' but telegram.webhook_url is empty"
    return webhook_secret_problem(secret)


def webhook_secret_problem(secret: str) -> str | None:
    """Why this webhook secret cannot be used, or None.

    Without one, anyone who learns the webhook URL can post updates that claim to come from an
    allowed chat: the allow-list checks ids inside the update, which the sender chooses.
    """
    if not secret:
        return (f"telegram.mode = 'webhook' needs a secret: set {WEBHOOK_SECRET_ENV} (1-256 characters "
                "A-Z a-z 0-9 _ -); Telegram sends it with every update and the bot rejects posts without it")
    if not WEBHOOK_SECRET_RE.fullmatch(secret):
        return (f"{WEBHOOK_SECRET_ENV} has {len(secret)} characters, some outside A-Z a-z 0-9 _ - "
                "(or more than 256): Telegram refuses such a secret_token")
    return None


def parse_hhmm(value: str) -> str:
    """'8:45' / '08:45' -> '08:45'; ValueError for anything else."""
    text = str(value).strip().replace("：", ":")
    try:
        hh, mm = text.split(":")
        h, m = int(hh), int(mm)
    except ValueError:
        raise ValueError(f"not a time of day HH:MM: {value!r}") from None
    if not (0 <= h <= 23 and 0 <= m <= 59):
        raise ValueError(f"not a time of day HH:MM: {value!r}")
    return f"{h:02d}:{m:02d}"


class UniverseSettings(BaseModel):
    """The ``[universe]`` section: the local market data and how it is refreshed."""

    path: str = ""  # empty: <cache>/universe.sqlite, filled by `python -m screening universe refresh`
    # screen against the synthetic demo market (its own file); every output then says 演示数据
    demo: bool = False
    provider: Literal["auto", "akshare", "tushare"] = "auto"  # auto: AKShare, then Tushare when a token is set
    tushare_token_env: str = "TUSHARE_TOKEN"  # the environment variable holding the Tushare Pro token
    announcement_days: int = Field(30, ge=0, le=90)  # days of announcement titles in each report text
    open_risk_days: int = Field(365, ge=0)  # an open 高 risk's title is kept this long past it (refresh_open_risks)
    min_coverage: float = Field(0.9, gt=0, le=1)  # a refresh with fewer stocks than this share of the last is refused
    max_quote_age_days: int = Field(3, ge=0)  # trading days before a stored quote is flagged stale
    refresh_enabled: bool = True  # the bot refreshes on trading days before the digest
    refresh_time: str = "08:00"  # Asia/Shanghai
    evening_refresh_time: str | None = None  # e.g. "20:30", after the day's reports are out
    refresh_attempts: int = Field(4, ge=1)
    breaker_failures: int = Field(3, ge=1)  # consecutive failures that open a provider's circuit breaker
    breaker_cooldown_s: float = Field(1800.0, ge=0)
    pace_s: float = Field(0.5, ge=0)  # mean pause between Eastmoney calls (jittered): bursts get an IP banned

    @field_validator("refresh_time")
    @classmethod
    def _refresh_time(cls, v: str) -> str:
        return parse_hhmm(v)

    @field_validator("evening_refresh_time")
    @classmethod
    def _evening(cls, v: str | None) -> str | None:
        return parse_hhmm(v) if v else None


class PushTarget(BaseModel):
    """One enterprise-IM webhook. The URL carries an access token: prefer ``url_env``."""

    name: str
    kind: Literal["wecom", "feishu", "dingtalk"]
    url: str = ""  # the webhook URL (a credential: better in the environment, see url_env)
    url_env: str = ""  # environment variable holding the URL; wins over url
    secret_env: str = ""  # environment variable holding the signing secret (Feishu, DingTalk)
    msg_type: Literal["post", "interactive"] = "interactive"  # Feishu only
    time: str | None = None  # HH:MM; None = digest.time
    pool_file: str = ""  # this target's own pool file; empty = digest.pool_file / the universe
    enabled: bool = True

    @field_validator("time")
    @classmethod
    def _time(cls, v: str | None) -> str | None:
        return parse_hhmm(v) if v else None


class DigestSettings(BaseModel):
    """The ``[digest]`` section of config.toml."""

    enabled: bool = True
    time: str = "08:45"  # default send time (Asia/Shanghai), before the 09:15 call auction
    timezone: str = "Asia/Shanghai"
    misfire_grace_hours: float = 2.0  # a restart or a stall up to this long after the time still sends
    holidays: list[dt.date] = Field(default_factory=list)  # closed days the operator adds past exchange-calendars
    # a 调休待定 day (past exchange-calendars, no notice imported, possibly bridged): skip or still run the
    # refresh and the digest; a statutory holiday never runs either
    on_unknown_days: Literal["skip", "send"] = "skip"
    calendar_dir: str = ""  # imported holiday notices (`python -m screening calendar import`); empty = <cache>/calendar
    pool_file: str = ""  # default digest pool; empty = the whole universe
    lane: Literal["fast", "bulk"] = "bulk"
    screen_timeout_s: float = 3600.0
    top_n: int = 10
    max_change_lines: int = 30
    max_st_lines: int = 30
    max_failed_lines: int = 20
    allow_demo: bool = False  # a universe of demo data is never pushed to subscribers unless the operator says so
    lease_s: float = 120.0  # the renewed (day, chat) "sending" lease: a bot killed mid-build blocks sends this long
    guard_ttl_hours: float = 36.0  # the once-per-(day, chat) "sent" mark lives this long
    history_days: int = 40  # per-day snapshots kept this long
    out_dir: str = ""  # XLSX/PNG files; empty = <cache>/digests
    send_files: bool = True  # Telegram: also send the XLSX and the chart
    push_attempts: int = 4
    push_backoff_s: float = 1.0  # first retry wait; doubles, capped at 30 s
    push_timeout_s: float = 15.0
    targets: list[PushTarget] = Field(default_factory=list)

    @field_validator("time")
    @classmethod
    def _time(cls, v: str) -> str:
        return parse_hhmm(v)

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def holiday_set(self) -> frozenset[dt.date]:
        return frozenset(self.holidays)

    def calendar_store(self) -> Path:
        return Path(self.calendar_dir) if self.calendar_dir else cache_dir() / "calendar"


class MetricsSettings(BaseModel):
    """The ``[metrics]`` section of config.toml."""

    worker_port: int = Field(0, ge=0, le=65535, description="worker /metrics and /healthz; 0 = off")
    bot_port: int = Field(0, ge=0, le=65535, description="bot /metrics and /healthz; 0 = off")
    listen: str = "127.0.0.1"  # 0.0.0.0 inside docker so Prometheus (and the healthcheck) can reach it
    json_logs: bool = False  # one JSON object per log line, with job ids where the record has them


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SCREENER_", env_nested_delimiter="__", extra="ignore", toml_file=DEFAULT_CONFIG
    )

    engine: EngineSettings = EngineSettings()
    batcher: BatcherSettings = BatcherSettings()
    input: InputSettings = InputSettings()
    universe: UniverseSettings = UniverseSettings()
    redis: RedisSettings = RedisSettings()
    worker: WorkerSettings = WorkerSettings()
    telegram: TelegramSettings = TelegramSettings()
    dingtalk: DingTalkSettings = DingTalkSettings()
    feishu: FeishuSettings = FeishuSettings()
    wecom: WeComSettings = WeComSettings()
    digest: DigestSettings = DigestSettings()
    metrics: MetricsSettings = MetricsSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))

    def universe_path(self) -> Path:
        return Path(self.universe.path) if self.universe.path else cache_dir() / "universe.sqlite"


def load_settings(path: str | Path | None = None) -> Settings:
    """Load settings from ``path`` (or $SCREENER_CONFIG / ./config.toml); a missing file means defaults.

    A key in the wrong section (or a typo) raises ConfigKeyError naming it, instead of being ignored.
    """
    from screening.config_files import announce, find_config

    choice = find_config(path)  # --config, $SCREENER_CONFIG, ./config.toml, the user's (created from the default)
    toml_file = choice.path
    global LAST_CONFIG
    LAST_CONFIG = toml_file
    if toml_file is not None:
        sections = {name: f.annotation for name, f in Settings.model_fields.items()}
        problems = misplaced_keys(tomllib.loads(toml_file.read_text(encoding="utf-8")), sections)
        if problems:
            raise ConfigKeyError(problems)
    cls = type("Settings", (Settings,), {"model_config": {**Settings.model_config, "toml_file": toml_file}})
    settings: Settings = cls()
    announce(choice, engine_summary(settings.engine))
    return settings


LAST_CONFIG: Path | None = None  # the file the last load_settings read: error messages name it


def engine_summary(engine: EngineSettings) -> str:
    """The engine settings that decide speed and answers, in one phrase (the config line shows it)."""
    model = engine.model or "bundled SmolLM2-135M"
    parts = [f"engine {engine.kind}", f"model {model}", f"adapter {engine.lora_adapter or 'none'}",
             f"prompt {'full' if engine.risk_signals else 'compact'}",
             "eager" if engine.enforce_eager else "compiled"]
    if engine.kv_cache_gib is not None:
        parts.append(f"kv_cache {engine.kv_cache_gib:g} GiB")
    return ", ".join(parts)


def config_problems(exc: Exception, path: str | Path | None = None) -> list[str]:
    """One line per invalid key: the key, the value, the message, and where to fix it.

    Used by every entry point so a bad config.toml or environment variable stops the program
    at start with a message that names the key, instead of failing later in a worker loop.
    """
    from pydantic import ValidationError

    shown = str(path or LAST_CONFIG or DEFAULT_CONFIG)
    if isinstance(exc, ConfigKeyError):
        return [f"{line} (fix {shown})" for line in exc.problems]
    if not isinstance(exc, ValidationError):
        return [f"{shown}: {type(exc).__name__}: {exc}"]
    lines = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        env = "SCREENER_" + key.upper().replace(".", "__")
        lines.append(f"config key {key} = {err.get('input')!r}: {err['msg']} "
                     f"(fix [{key.rsplit('.', 1)[0]}] in {shown}, or the environment variable {env})")
    return lines
