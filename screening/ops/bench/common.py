"""What every CPU bench shares: the timing record, the sample pool, the machine line, the RESULTS writer."""

from __future__ import annotations

import os
import platform
import random
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from screening.data.synthetic import generate_market
from screening.models import PoolItem, StockInput


@dataclass
class Timing:
    label: str
    stocks: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.stocks / self.seconds if self.seconds else float("inf")


def sample_pool(n: int, seed: int = 7) -> list[PoolItem]:
    """A random slice of the synthetic market (stable for a given n), so report lengths vary."""
    market = generate_market(5400, seed=0)
    picked: list[StockInput] = random.Random(seed).sample(market, min(n, len(market)))
    return [PoolItem(i, s.code, s) for i, s in enumerate(picked)]


def _version(pkg: str) -> str:
    for name in (pkg, f"{pkg}-cpu"):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return "-"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, {platform.system()} {platform.release()}"


def write_results(path: Path, title: str, timings: list[Timing], info: dict, command: str) -> str:
    lines = [
        f"\n## {title} ({time.strftime('%Y-%m-%d %H:%M')})",
        "",
        f"- command: `{command}`",
        f"- machine: {machine()}",
        f"- versions: python {platform.python_version()}, vllm {_version('vllm')}, "
        f"torch {_version('torch')}, transformers {_version('transformers')}, redis-py {_version('redis')}",
    ]
    for key, value in info.items():
        lines.append(f"- {key}: {value:.1f}" if isinstance(value, float) else f"- {key}: {value}")
    lines += ["", "| variant | stocks | seconds | stocks/s |", "|---|---:|---:|---:|"]
    lines += [f"| {t.label} | {t.stocks} | {t.seconds:.2f} | {t.rate:.2f} |" for t in timings]
    if len(timings) >= 2:
        base = timings[0]
        lines.append("")
        for t in timings[1:]:
            lines.append(f"- ratio {t.label} / {base.label}: {t.rate / base.rate:.3f}")
    text = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(
            "# Benchmark results\n\nAppended by `python -m screening bench`; "
            "every figure with the command and machine that produced it.\n"
        )
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)
    return text
