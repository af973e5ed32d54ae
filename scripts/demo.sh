#!/usr/bin/env bash
# The main job on the embedded default: no GPU, no bot token, no internet.
# Starts a local Redis (AOF on) and the worker with vLLM on the CPU and the bundled model,
# screens examples/sample_pool.csv through the queue, and writes the report to report/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate

RUN=.run; mkdir -p "$RUN/redis"
PORT=${SCREENER_DEMO_REDIS_PORT:-6390}
POOL=${1:-examples/sample_pool.csv}
export SCREENER_REDIS__URL="redis://127.0.0.1:$PORT/0"

redis-server --port "$PORT" --bind 127.0.0.1 --dir "$(pwd)/$RUN/redis" --appendonly yes \
  --appendfsync everysec --save "" --daemonize yes --pidfile "$(pwd)/$RUN/redis.pid" \
  --logfile "$(pwd)/$RUN/redis.log"
cleanup() {
  [ -n "${WORKER:-}" ] && kill -TERM "$WORKER" 2>/dev/null && wait "$WORKER" 2>/dev/null || true
  redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
}
trap cleanup EXIT
for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done

echo "== starting the worker (loads vLLM on the CPU; about a minute)"
python -m screening worker --engine vllm >"$RUN/worker.log" 2>&1 &
WORKER=$!

echo "== screening $POOL through the queue"
python -m screening screen "$POOL" --via-queue --out report --format table
echo "== done: report/screen.xlsx, report/screen.png, report/screen.json (worker log: $RUN/worker.log)"
