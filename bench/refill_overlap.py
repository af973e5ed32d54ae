"""Does a fast job decode slowly because bulk requests are prefilled beside it? Read from a GPU run's records.

For each fast job of the interactive phases (``fast_traces`` in the bench jsonl: wall-clock submit time
and the offsets of its first and last token) this counts the bulk requests the worker handed to vLLM
inside the job's decode window, from the worker's ``rows:`` log lines in the same run's log (bulk in
flight before and after each write: handed = rise in flight + rows written). Prints the rank
correlation of decode time with that count, and the fastest and slowest quarters.

    python bench/refill_overlap.py bench/gpu_runs/run20-moe35-fp8-async-cold bench/gpu_runs/run21-moe35-fp8-same-lease

(runs 20-21 have left the tree for its size: `git show 2162ee5:bench/gpu_runs/<name>.jsonl.gz` and
`git show e8173b9:bench/gpu_runs/<name>.vllm.log.gz` bring them back.)

Each argument is a run's path without its ``.jsonl`` / ``.vllm.log`` suffix (the log may be gzipped,
``.vllm.log.gz``, as the runs from 22 on are kept). The log's timestamps are read as UTC, as the device
writes them. A line per worker variant (``interactive@pace`` -> ``pace``) follows the pooled figures.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import statistics
from pathlib import Path

from gpu_common import read_kept

ROWS_LINE = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+) INFO screening\.worker: rows: (\d+) of \d+ jobs "
                       r"written \((\d+) in flight")


def worker_writes(log: Path) -> list[tuple[float, int, int]]:
    """(wall time, rows written, bulk in flight after) of every ``rows:`` line."""
    out = []
    for line in read_kept(log).splitlines():
        m = ROWS_LINE.match(line)
        if m:
            at = dt.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=dt.UTC).timestamp()
            out.append((at, int(m.group(2)), int(m.group(3))))
    return out


def handed_in(writes: list[tuple[float, int, int]], start: float, end: float) -> int:
    """Bulk requests handed over between ``start`` and ``end``: each write's rise in flight plus its rows."""
    before = [w for w in writes if w[0] < start]
    prev = before[-1] if before else None
    handed = 0
    for w in (w for w in writes if start <= w[0] <= end):
        if prev is not None:
            handed += max(0, w[2] - prev[2] + w[1])
        prev = w
    return handed


def spearman(x: list[float], y: list[float]) -> float:
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=v.__getitem__)
        r = [0.0] * len(v)
        for rank, i in enumerate(order):
            r[i] = float(rank)
        return r

    a, b = ranks(x), ranks(y)
    ma, mb = statistics.mean(a), statistics.mean(b)
    cov = sum((p - ma) * (q - mb) for p, q in zip(a, b, strict=True))
    return cov / (sum((p - ma) ** 2 for p in a) * sum((q - mb) ** 2 for q in b)) ** 0.5


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", help="run paths without the .jsonl / .vllm.log suffix")
    a = p.parse_args()
    jobs: list[tuple[float, int]] = []  # (decode seconds, bulk handed over during it)
    by_variant: dict[str, list[tuple[float, int]]] = {}
    for run in a.runs:
        writes = worker_writes(Path(run + ".vllm.log"))
        for line in read_kept(Path(run + ".jsonl")).splitlines():
            rec = json.loads(line)
            if not rec["phase"].startswith("interactive"):
                continue
            for t in rec.get("fast_traces", []):
                if t.get("bulk_age_s") is None or "decode" not in t["legs"]:
                    continue  # claimed outside the bulk job, or no engine timing
                start = t["submit_wall"] + t["at"]["first_token"]
                job = (t["legs"]["decode"], handed_in(writes, start, t["submit_wall"] + t["at"]["last_token"]))
                jobs.append(job)
                by_variant.setdefault(rec["phase"].partition("@")[2] or "(config)", []).append(job)
    jobs.sort()
    rho = spearman([j[0] for j in jobs], [float(j[1]) for j in jobs])
    print(f"{len(jobs)} fast jobs; Spearman(decode, bulk handed over during it) = {rho:.2f}")
    q = max(1, len(jobs) // 4)
    for name, group in (("fastest quarter", jobs[:q]), ("slowest quarter", jobs[-q:])):
        print(f"{name}: decode median {statistics.median(j[0] for j in group):.2f} s, bulk handed over "
              f"median {statistics.median(j[1] for j in group):g}")
    for variant, group in sorted(by_variant.items()):
        print(f"{variant}: {len(group)} jobs, decode median {statistics.median(j[0] for j in group):.2f} s, "
              f"bulk handed over during it median {statistics.median(j[1] for j in group):g}")


if __name__ == "__main__":
    main()
