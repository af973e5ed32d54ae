#!/usr/bin/env bash
# Set up (idempotent) and run the tests: real redis-server, real vLLM on the CPU, real
# python-telegram-bot against the fake Bot API server in tests/.
#   bash scripts/test.sh           the whole suite (what CI runs): ruff, mypy, every test, on two
#                                  pytest-xdist workers (tests/fixtures_markers.py says how they share)
#   bash scripts/test.sh --quick   the inner loop: ruff, mypy and the tests not marked slow (no model
#                                  engine, no long process scenarios)
# Further arguments go to pytest: bash scripts/test.sh --quick tests/test_rules.py -k st
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=0
if [ "${1:-}" = "--quick" ]; then QUICK=1; shift; fi
bash scripts/setup.sh
# the compose file is validated with Debian's docker-compose (no Docker engine needed)
if [ "$QUICK" = 0 ] && ! command -v docker-compose >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq docker-compose >/dev/null
fi
. .venv/bin/activate
ruff check screening bot tests
mypy
# two workers: vLLM on the CPU computes on one core and leaves the other to its front end
WORKERS=${SCREENER_TEST_WORKERS:-2}
if [ "$QUICK" = 1 ]; then
  python -m pytest -q -m "not slow" -n "$WORKERS" --dist loadgroup --no-loadscope-reorder "$@"
else
  python -m pytest -q -n "$WORKERS" --dist loadgroup --no-loadscope-reorder --durations=15 "$@"
fi
