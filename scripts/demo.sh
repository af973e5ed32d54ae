#!/usr/bin/env bash
# The main job on the embedded default: no GPU, no bot token, no internet.
# Starts a local Redis (AOF on) and the worker with vLLM on the CPU and the bundled model,
# screens examples/sample_pool.csv through the queue, and writes the report to report/ (in the
# directory it was called from). The sample's figures are illustrative: that run is labelled demo
# data (演示数据) on every row, in the table title and in the XLSX. A pool of your own is filled from
# the local universe after `python -m screening universe refresh`; before one, from the demo
# universe, and labelled so.
set -euo pipefail
CALLER=$(pwd)
ARG=${1:-}
if [ -n "$ARG" ]; then
  case "$ARG" in /*) POOL=$ARG ;; *) POOL="$CALLER/$ARG" ;; esac
  [ -f "$POOL" ] || { echo "error: $ARG: no such file" >&2; exit 2; }
fi
OUTDIR="$CALLER/report"
cd "$(dirname "$0")/.."
bash scripts/setup.sh
. .venv/bin/activate

RUN=.run; mkdir -p "$RUN/redis"
PORT=${SCREENER_DEMO_REDIS_PORT:-6390}
POOL=${POOL:-$(pwd)/examples/sample_pool.csv}
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

echo "== starting the worker (loads vLLM on the CPU; about a minute)" >&2
python -m screening worker --engine vllm >"$RUN/worker.log" 2>&1 &
WORKER=$!

real_universe() {  # 1 when `universe refresh` has filled the local universe with market data
  python -m screening universe status --format json 2>/dev/null | python -c \
    'import json, sys; d = json.load(sys.stdin); print(int(bool(d["stocks"]) and not d["demo"]))' 2>/dev/null || echo 0
}
DEMO=()
if [ -z "$ARG" ] || [ "$(real_universe)" != 1 ]; then
  DEMO=(--demo)
  echo "== DEMO DATA (演示数据): illustrative figures, not market data; run" \
       "'python -m screening universe refresh' for real data" >&2
fi
echo "== screening $POOL through the queue" >&2
python -m screening screen "$POOL" --via-queue --out "$OUTDIR" --format table "${DEMO[@]}"
echo "== done: $OUTDIR/screen.xlsx, screen.png, screen.json (worker log: $(pwd)/$RUN/worker.log)" >&2
