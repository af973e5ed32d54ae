#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite: real redis-server, real vLLM on the CPU,
# real python-telegram-bot against the fake Bot API server in tests/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate
ruff check screening bot tests
python -m pytest -q "$@"
