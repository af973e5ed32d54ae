"""docker/: the compose file validates and agrees with config.toml, pyproject.toml and Settings.

``docker-compose config`` (Debian's docker-compose, no engine needed) validates the file
against the Compose schema; where it is not installed that part is skipped and the YAML
structure is still checked here.
"""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from screening.config import Settings
from screening.metrics import MetricsSettings
from tests.fixtures_redis import REPO

DOCKER = REPO / "docker"


def compose() -> dict:
    return yaml.safe_load((DOCKER / "compose.yaml").read_text(encoding="utf-8"))


def toml(name: str) -> dict:
    return tomllib.loads((REPO / name).read_text(encoding="utf-8"))


def env_of(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def container_ports(service: dict) -> set[int]:
    out = set()
    for p in service.get("ports", []) + service.get("expose", []):
        out.add(int(str(p).split(":")[-1].split("/")[0]))
    return out


def test_compose_validates_with_docker_compose(tmp_path: Path) -> None:
    exe = shutil.which("docker-compose")
    if exe is None:
        pytest.skip("docker-compose not installed (apt-get install docker-compose); YAML checks below still run")
    # a copy with an .env made from the example: env_file must exist, and the repo's .env is the user's
    (tmp_path / "docker").mkdir()
    for p in DOCKER.iterdir():
        if p.is_file() and p.name != ".env":
            shutil.copy(p, tmp_path / "docker" / p.name)
    shutil.copy(DOCKER / ".env.example", tmp_path / "docker" / ".env")
    for name in ("config.toml", "config.gpu.toml"):
        shutil.copy(REPO / name, tmp_path / name)
    proc = subprocess.run([exe, "-f", "compose.yaml", "config"], cwd=tmp_path / "docker", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    resolved = yaml.safe_load(proc.stdout)
    assert set(resolved["services"]) == {"redis", "bot", "worker"}
    # MODEL_NAME empty in the example: the default checkpoint path is config.gpu.toml's
    model = env_of(resolved["services"]["worker"])["SCREENER_ENGINE__MODEL"]
    assert model == toml("config.gpu.toml")["engine"]["model"]


def test_redis_service_aof_volume_healthcheck() -> None:
    redis = compose()["services"]["redis"]
    assert redis["image"].startswith("redis:7")
    cmd = " ".join(redis["command"])
    assert "--appendonly yes" in cmd and "--appendfsync everysec" in cmd
    assert any(str(v).endswith(":/data") for v in redis["volumes"])
    assert "redis-cli" in redis["healthcheck"]["test"] and "ping" in redis["healthcheck"]["test"]
    assert redis["volumes"][0].split(":")[0] in compose()["volumes"]


def test_services_reach_redis_by_service_name_and_match_config() -> None:
    c = compose()
    cfg_url = urlsplit(toml("config.toml")["redis"]["url"])
    gpu_url = urlsplit(toml("config.gpu.toml")["redis"]["url"])
    for name in ("bot", "worker"):
        svc = c["services"][name]
        url = urlsplit(env_of(svc)["SCREENER_REDIS__URL"])
        assert url.hostname in c["services"], f"{name}: redis host {url.hostname} is not a compose service"
        assert url.hostname == "redis" and (url.port or 6379) == 6379
        assert url.path == cfg_url.path == gpu_url.path, "same Redis database as config.toml"
        assert svc["depends_on"]["redis"]["condition"] == "service_healthy"
        assert svc["env_file"] in (".env", [".env"])
    assert gpu_url.hostname == "redis", "config.gpu.toml is the docker worker's config"


def test_metrics_ports_match_config() -> None:
    c = compose()
    metrics = MetricsSettings(**toml("config.toml")["metrics"])
    for name, key, port in (("worker", "WORKER_PORT", metrics.worker_port), ("bot", "BOT_PORT", metrics.bot_port)):
        svc = c["services"][name]
        env = env_of(svc)
        assert port > 0
        assert int(env[f"SCREENER_METRICS__{key}"]) == port
        assert env["SCREENER_METRICS__LISTEN"] == "0.0.0.0", "a container must listen beyond its loopback"
        assert port in container_ports(svc)
        assert f"127.0.0.1:{port}/healthz" in " ".join(svc["healthcheck"]["test"])
        dockerfile = (DOCKER / svc["build"]["dockerfile"].removeprefix("docker/")).read_text()
        assert f"EXPOSE {port}" in dockerfile


def test_worker_gpu_model_volume_and_image_pin() -> None:
    c = compose()
    worker = c["services"]["worker"]
    devices = worker["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["driver"] == "nvidia" and "gpu" in devices[0]["capabilities"]
    mounts = {str(v).removesuffix(":ro").removesuffix(":rw").rsplit(":", 1)[1] for v in worker["volumes"]}
    model = env_of(worker)["SCREENER_ENGINE__MODEL"]
    assert "/models" in mounts and model.startswith("/models/")
    assert env_of(worker)["SCREENER_CONFIG"] == "/app/config.gpu.toml"
    # the worker's base image is the official vLLM image of the version pinned in pyproject's gpu extra
    pins = [d for d in toml("pyproject.toml")["project"]["optional-dependencies"]["gpu"] if d.startswith("vllm==")]
    version = pins[0].split("==")[1]
    first = [ln for ln in (DOCKER / "Dockerfile.worker").read_text().splitlines() if ln.startswith("FROM ")]
    assert first == [f"FROM vllm/vllm-openai:v{version}"]
    bot_from = [ln for ln in (DOCKER / "Dockerfile.bot").read_text().splitlines() if ln.startswith("FROM ")]
    assert bot_from and "python:3.1" in bot_from[0] and "slim" in bot_from[0]


def test_every_screener_variable_names_a_real_setting() -> None:
    """A typo in SCREENER_<SECTION>__<KEY> is silently ignored by pydantic-settings: catch it here."""
    sections = dict(Settings.model_fields)
    nested = {name: f.annotation for name, f in sections.items()}
    nested["metrics"] = MetricsSettings
    for svc_name, svc in compose()["services"].items():
        for key in env_of(svc):
            if not key.startswith("SCREENER_") or "__" not in key or key == "SCREENER_CONFIG":
                continue
            section, _, field = key.removeprefix("SCREENER_").lower().partition("__")
            assert section in nested, f"{svc_name}: {key}: no [{section}] section"
            assert field in nested[section].model_fields, f"{svc_name}: {key}: no key {field} in [{section}]"


def test_env_example_has_names_only_and_env_is_ignored() -> None:
    lines = [ln.strip() for ln in (DOCKER / ".env.example").read_text().splitlines()]
    entries = [ln for ln in lines if ln and not ln.startswith("#")]
    assert entries and all(ln.endswith("=") and ln.count("=") == 1 for ln in entries), entries
    names = {ln[:-1] for ln in entries}
    assert "SCREENER_TELEGRAM__TOKEN" in names
    # every ${VAR} compose interpolates is documented in the example
    text = (DOCKER / "compose.yaml").read_text()
    import re

    assert set(re.findall(r"\$\{(\w+)", text)) <= names
    ignored = subprocess.run(["git", "check-ignore", "-q", "docker/.env"], cwd=REPO)
    assert ignored.returncode == 0, "docker/.env must be git-ignored"
    assert "SCREENER_TELEGRAM__TOKEN" not in text, "the token comes from .env only"
