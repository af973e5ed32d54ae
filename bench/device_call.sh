#!/usr/bin/env bash
# One call of the GPU bench on the device machine, after the eight staging calls (bench/README.md):
# installs vLLM's kit and Redis the first time in a lease, runs bench/gpu_bench.py inside the call's
# time limit, and leaves everything in $OUT (run.tgz; with --cache also ~/.cache/vllm in 15 MB pieces,
# so the next lease of the same configuration starts warm: runs 35-37 showed vLLM's compile-cache
# directory follows the configuration, not the machine).
#
#   bash bench/device_call.sh CONFIGS PHASES [--cache]
#
# Why a script: the call's command was retyped each session (2,000 characters at most) and a forgotten
# piece cost a lease's chance (run 37 did not tar its cache). Environment: CALL_S (the call's limit the
# bench may fill, default 560), N (stocks, default 2400), CACHE_IN (a folder of cache.tgz.* pieces to
# untar before the start, e.g. .gpu/cache).
set -u
configs=${1:?CONFIGS}
phases=${2:?PHASES}
cache=${3:-}
call_s=${CALL_S:-560}
[ "$cache" = "--cache" ] && call_s=$((call_s - 40))  # tar + split of ~300 MB after the bench

if [ ! -x /tmp/redis/rs ]; then
  bash /root/stage/device-install.sh > /tmp/install.log 2>&1 || { tail -20 /tmp/install.log; exit 2; }
  mkdir -p /tmp/redis
  for d in /root/stage/*.deb; do dpkg -x "$d" /tmp/redis; done
  printf '#!/bin/sh\nLD_LIBRARY_PATH=/tmp/redis/usr/lib/x86_64-linux-gnu exec /tmp/redis/usr/bin/redis-server "$@"\n' \
    > /tmp/redis/rs
  chmod +x /tmp/redis/rs
fi
if [ -n "${CACHE_IN:-}" ] && ls "$CACHE_IN"/cache.tgz.* > /dev/null 2>&1; then
  cat "$CACHE_IN"/cache.tgz.* | tar -C / -xzf - && echo "compile cache from $CACHE_IN untarred" >&2
fi

out=$(mktemp -d /tmp/bench-XXXX)
cp /tmp/install.log "$out/" 2> /dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
PYTHONPATH=/tmp/site:. python bench/gpu_bench.py --model-dir /tmp/models --n "${N:-2400}" --configs "$configs" \
  --phases "$phases" --fast-every 1.0 --fast-jobs 12 --warmup 512 --probe --out "$out" \
  --redis-server /tmp/redis/rs --budget-s $((call_s - SECONDS)) > "$out/stdout.txt" 2>&1
# every compile-cache directory's key factors (a few kB each), kept with or without --cache: which factor
# put moe35-fp8 (machine L) and moe35-fp8-h100 (M, N, O) in different directories is still open, and
# `python bench/cache_keys.py A.json B.json` names it once both files are here
mkdir -p "$out/cache_keys"
for f in /root/.cache/vllm/torch_compile_cache/*/rank_*/*/cache_key_factors.json; do
  [ -f "$f" ] && cp "$f" "$out/cache_keys/$(echo "$f" | cut -d/ -f6).json"
done
tar -C "$out" -czf "$OUT/run.tgz" .
if [ "$cache" = "--cache" ]; then
  (cd / && tar -czf /tmp/c.tgz root/.cache/vllm && split -b 15M -d -a 1 /tmp/c.tgz "$OUT/cache.tgz.")
fi
tail -30 "$out/stdout.txt"
