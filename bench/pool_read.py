"""How long reading a whole-market pool file takes: every code an A-share board allows, one GBK CSV.

Why a bench and not a test: a test that asserted a time (it said < 10 s) failed under load beside other
work and proved nothing on a fast machine; the figure belongs here, with the machine that gave it.

    python bench/pool_read.py [--rows 44000] [--runs 3]

Prints one JSON line on stdout: rows, each run's seconds, the median and the spread (max - min).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from screening.config import InputSettings
from screening.data.pool import read_pool

HEADER = "代码,名称,最新价,涨跌幅,市盈率-动态,市净率,总市值"  # 同花顺's export header
CODES = [f"{p}{n:03d}" for p in ("600", "601", "603", "605", "688", "689", "000", "001", "002", "003", "300",
                                 "301", "302", "920") for n in range(1000)] + [
    f"{p}{n:04d}" for p in ("43", "83", "87") for n in range(10_000)]


def write_pool(path: Path, rows: int) -> None:
    lines = [HEADER] + [f"{CODES[i % len(CODES)]},股票{i},{10 + i % 50}.5,{i % 7 - 3}.1%,{i % 60},1.{i % 9},"
                        f"{i + 1}亿" for i in range(rows)]
    path.write_bytes(("\n".join(lines) + "\n").encode("gbk"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=len(CODES))
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "all.csv"
        write_pool(path, args.rows)
        settings = InputSettings(max_rows=max(args.rows, 10_000))
        seconds = []
        for _ in range(args.runs):
            start = time.perf_counter()
            pool = read_pool(path, settings)
            seconds.append(round(time.perf_counter() - start, 3))
            if len(pool.items) != args.rows or pool.failed_items:
                print(f"pool_read: expected {args.rows} parsed rows, got {len(pool.items)} "
                      f"and {len(pool.failed_items)} failed", file=sys.stderr)
                return 1
    print(json.dumps({"rows": args.rows, "seconds": seconds, "median_s": statistics.median(seconds),
                      "spread_s": round(max(seconds) - min(seconds), 3)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
