"""bench/refill_overlap.py: bulk requests handed over inside a fast job's decode window, read from the worker's log."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "refill_overlap.py"


def _mod():  # type: ignore[no-untyped-def]
    if str(SCRIPT.parent) not in sys.path:  # it imports its sibling gpu_common, as `python bench/...` finds it
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("refill_overlap_under_test", SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


LOG = """\
2026-12-04 16:20:05,000 INFO screening.worker: rows: 3 of 1 jobs written (576 in flight, 1 prompt / 1 output)
2026-12-04 16:20:06,000 INFO screening.worker: rows: 100 of 1 jobs written (476 in flight, 1 prompt / 1 output)
(EngineCore pid=1) INFO 12-04 16:20:06 [core.py:1] something else
2026-12-04 16:20:07,000 INFO screening.worker: rows: 10 of 1 jobs written (576 in flight, 1 prompt / 1 output)
2026-12-04 16:20:09,000 INFO screening.worker: rows: 5 of 2 jobs written (571 in flight, 1 prompt / 1 output)
"""


def test_handed_over_counts_the_refill_inside_the_window(tmp_path: Path) -> None:
    m = _mod()
    log = tmp_path / "r.vllm.log"
    log.write_text(LOG, encoding="utf-8")
    writes = m.worker_writes(log)
    assert [(w[1], w[2]) for w in writes] == [(3, 576), (100, 476), (10, 576), (5, 571)]
    t0 = writes[0][0]
    # 06 -> 07: 476 -> 576 in flight while 10 rows left = 110 handed over; 07 -> 09: 571 - 576 + 5 = 0
    assert m.handed_in(writes, t0 + 1.5, t0 + 4.5) == 110
    assert m.handed_in(writes, t0 + 2.5, t0 + 4.5) == 0
    assert m.handed_in(writes, t0 + 10, t0 + 11) == 0  # nothing written in the window


def test_spearman_is_the_rank_correlation() -> None:
    m = _mod()
    assert m.spearman([1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]) == 1.0
    assert m.spearman([1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]) == -1.0


def test_a_gzipped_log_reads_the_same(tmp_path: Path) -> None:
    import gzip

    m = _mod()
    (tmp_path / "r.vllm.log.gz").write_bytes(gzip.compress(LOG.encode("utf-8")))
    (tmp_path / "plain.vllm.log").write_text(LOG, encoding="utf-8")
    assert m.worker_writes(tmp_path / "r.vllm.log") == m.worker_writes(tmp_path / "plain.vllm.log")
