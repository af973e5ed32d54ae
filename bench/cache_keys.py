"""Name the factors that put two vLLM engine starts in different compile-cache directories.

    python bench/cache_keys.py A.json B.json
    python bench/cache_keys.py bench/gpu_runs/run33-cache-key-0e24805934.json OUT/cache_keys/62283df66e.json

vLLM writes ``cache_key_factors.json`` beside each compiled backbone (``~/.cache/vllm/torch_compile_cache/
<dir>/rank_0_0/backbone/``): the config, code and compiler hashes and every environment variable it hashes.
bench/device_call.sh copies each such file into the call's run.tgz (``cache_keys/<dir>.json``).

Why: a cold start costs 440-470 s of a 1,800 s device session and a warm one ~100 s, so a cache carried from
one lease to the next is worth a quarter of a session. Runs 35-37 showed it does not carry between
``moe35-fp8`` (machine L, gpu_memory_utilization 0.9) and ``moe35-fp8-h100`` (M, N, O, 0.8), though their
printed engine configs are equal; vLLM 0.26's source is not here to say why. The twin engine
(``moe35-fp8-twin``: 0.55 and 0.35) starts warm only if that setting is not the reason. The printed lines
say which of config, code, compiler or environment differs, so the next session knows before it spends a
cold start on it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# what each hash covers in vLLM's compilation backend (backends.py: the directory is sha256 of env, config,
# code and compiler hashes), so a difference points at where to look next
HASHES = {
    "config_hash": "an engine setting VllmConfig.compute_hash takes in (the file does not list them)",
    "code_hash": "a source file torch.compile traced, path or content (VLLM_LOGGING_LEVEL=DEBUG prints the list)",
    "compiler_hash": "the compiler's system: torch, triton, CUDA, the device",
}


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """One line per factor whose value differs (or exists on one side only); empty when the keys agree."""
    lines = [f"{k}: {a.get(k)!r} != {b.get(k)!r}" for k in HASHES if a.get(k) != b.get(k)]
    env_a, env_b = a.get("env") or {}, b.get("env") or {}
    for name in sorted(set(env_a) | set(env_b)):
        if env_a.get(name, "<absent>") != env_b.get(name, "<absent>"):
            lines.append(f"env {name}: {env_a.get(name, '<absent>')!r} != {env_b.get(name, '<absent>')!r}")
    others = sorted((set(a) | set(b)) - set(HASHES) - {"env"})
    lines += [f"{k}: {a.get(k)!r} != {b.get(k)!r}" for k in others if a.get(k) != b.get(k)]
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python bench/cache_keys.py A.json B.json", file=sys.stderr)
        return 2
    try:
        a, b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in argv)
    except (OSError, ValueError) as exc:
        print(f"cache_keys: {exc}", file=sys.stderr)
        return 2
    lines = differences(a, b)
    print("\n".join(lines) if lines else "same factors: both starts share one compile-cache directory")
    for name, covers in HASHES.items():
        if any(line.startswith(name) for line in lines):
            print(f"{name} differs: {covers}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
