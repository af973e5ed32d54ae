#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite: real redis-server, real vLLM on the CPU,
# real python-telegram-bot against the fake Bot API server in tests/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# the compose file is validated with Debian's docker-compose (no Docker engine needed)
if ! command -v docker-compose >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq docker-compose >/dev/null
fi
. .venv/bin/activate
ruff check screening bot tests
mypy
python -m pytest -q "$@"
