"""Settings: config.toml, overridden by ``SCREENER_<SECTION>__<KEY>`` environment variables.

Secrets (the bot token, webhook secrets) are read from the environment only; config.toml
names which variable holds each, so the file can be committed and shared.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

DEFAULT_CONFIG = Path(os.environ.get("SCREENER_CONFIG", "config.toml"))


def cache_dir() -> Path:
    """Where built models and the default universe live (XDG cache, overridable)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ashare-screener"


class EngineSettings(BaseModel):
    kind: Literal["vllm", "openai", "rules"] = "vllm"
    model: str = Field("", description="HF folder or hub id; empty = the bundled SmolLM2-135M")
    max_model_len: int = 4096
    max_report_tokens: int = 1500
    max_output_tokens: int = 160
    gpu_memory_utilization: float = 0.9
    kv_cache_gib: float | None = None  # explicit KV-cache size; needed on CPU, where the share is of RAM
    enforce_eager: bool = False
    dtype: str = "auto"
    quantization: str | None = None
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    async_scheduling: bool = False
    enable_prefix_caching: bool = True
    load_format: str = "auto"
    seed: int = 0
    # openai engine
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key_env: str = "SCREENER_OPENAI_API_KEY"
    served_model: str = ""
    concurrency: int = 64
    request_timeout_s: float = 120.0
    retries: int = 3


class BatcherSettings(BaseModel):
    enabled: bool = True
    token_budget: int = 65536  # prompt tokens in one engine call
    max_batch: int = 512
    bucket_width: float = 1.5  # longest/shortest prompt ratio allowed within one call


class InputSettings(BaseModel):
    max_file_mb: float = 20.0
    max_rows: int = 10_000
    max_xlsx_uncompressed_mb: float = 200.0
    max_xlsx_entries: int = 2_000


class UniverseSettings(BaseModel):
    path: str = ""  # empty: <cache>/universe.csv, seeded from examples/


class RedisSettings(BaseModel):
    url: str = "redis://127.0.0.1:6379/0"
    prefix: str = "screener"
    claim_idle_ms: int = 300_000
    max_deliveries: int = 3
    result_ttl_s: int = 7 * 24 * 3600
    cache_ttl_s: int = 24 * 3600


class WorkerSettings(BaseModel):
    batch_stocks: int = 512
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
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443


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
        return Path(self.universe.path) if self.universe.path else cache_dir() / "universe.csv"


def load_settings(path: str | Path | None = None) -> Settings:
    """Load settings from ``path`` (or $SCREENER_CONFIG / ./config.toml); a missing file means defaults."""
    p = Path(path) if path else DEFAULT_CONFIG
    toml_file = p if p.exists() else None
    if path and toml_file is None:
        raise FileNotFoundError(f"config file not found: {p}")
    cls = type("Settings", (Settings,), {"model_config": {**Settings.model_config, "toml_file": toml_file}})
    return cls()
