"""How the worker hands vLLM new bulk requests: paced (a token bucket), in refill groups, held for the fast lane.

Why (bench/RESULTS.md, runs 19-21): bulk requests all ask for one short JSON answer, so requests
handed to vLLM together finish together; the worker then refills hundreds of slots at once and vLLM
prefills them in a few steps of up to ``max_num_batched_tokens`` tokens. Rows arrive in waves (gaps of
over a second with no row, 5-38% of a phase with fewer than 400 bulk requests running), and a /screen
request decodes its ~38 tokens in steps that carry those prefill bursts (60-84 ms a token). Handing
bulk requests over at a steady rate spreads the prefills over the steps and the finishes over time,
so no step carries a burst and the batch does not drain between waves. Off (rate 0) by default, and
measured so on the H200 (bench/RESULTS.md, runs 22-23): the trickle puts prefill into every step, mixed
steps run without vLLM's full CUDA graphs, and a /screen decoded in 6.3-7.0 s against 2.7 s under the hold,
with bulk 0.63x (120/s). Kept as a setting for engines whose mixed steps are cheap.

Refill groups (``worker.bulk_refill_min``, ``refill_room``) go the other way. The engine core's own clocks
(bench/RESULTS.md, runs 26-29, ``gpu_bench.py --probe``) split the steps in two: in seconds of decode-only
steps a step costs 48-87 ms of wall (its forward 16-31 ms of it), in seconds with prefill 205-310 ms. Guided
answers end at different lengths, so a few slots free up at nearly every step, and refilling them at once
(or from vLLM's own waiting queue) puts a small prefill into many steps: each pays the prefill price.
Unguided answers of one fixed length end together, refill in a few big steps, and ran 1.35-1.36x faster on
the same engine (1.76x on another machine, run 24). With a floor on the refill, the worker waits until
that many slots are free and hands them over together: the prefills gather into few steps and the steps
between stay decode-only. Off (0) until measured on the GPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class AdmissionPace:
    """At most ``rate`` admissions a second, with bursts of at most ``burst``; rate 0 = unpaced."""

    rate: float
    burst: int
    _tokens: float = field(default=0.0, init=False)
    _at: float | None = field(default=None, init=False)

    def allowed(self, want: int, now: float) -> int:
        """How many of ``want`` admissions may go now (call ``spend`` with the number that went)."""
        if self.rate <= 0:
            return want
        if self._at is None:
            self._tokens = float(self.burst)  # a fresh worker may start with one burst
        else:
            self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now
        return max(0, min(want, int(self._tokens)))

    def spend(self, n: int) -> None:
        if self.rate > 0:
            self._tokens -= n

    def wait_s(self) -> float:
        """Seconds until one more admission is allowed (0 when unpaced or already allowed)."""
        if self.rate <= 0 or self._tokens >= 1:
            return 0.0
        return (1 - self._tokens) / self.rate


def refill_room(room: int, in_bulk: int, waiting_bulk: int, refill_min: int) -> int:
    """Bulk requests to hand over now: ``room``, or 0 while fewer than ``refill_min`` slots are free.

    A group smaller than the floor still goes when nothing bulk is in flight (the start, or a job
    after an idle engine) or when it is all that waits (a job's tail), so a job always finishes.
    """
    if refill_min <= 0 or room >= refill_min or in_bulk == 0 or waiting_bulk <= room:
        return room
    return 0


@dataclass
class FastHold:
    """The cap on bulk requests in flight that the fast lane puts on the worker now (None: no cap).

    The hold (``worker.fast_hold_bulk``, queue/worker.py says why): while a fast request is live, bulk
    is admitted only below ``bulk`` in flight, for at most ``max_s``, then freely for ``gap_s``, so the
    bulk job always progresses. The cooldown (``worker.fast_cool_bulk``, 0 = off, the default): for ``cool_s``
    after a fast request was last live, bulk is capped at ``cool_bulk`` (a cap of at least 1: it progresses).
    Why: a decode step's cost is mostly the engine core's CPU per running request (bench/RESULTS.md,
    runs 26-29: 48-87 ms at ~512), and draining a full batch takes a bulk answer's lifetime (~40
    steps), longer than a /screen; a batch kept narrow while /screen jobs keep coming is already
    narrow when the next one lands, and the market job runs full width when nobody asks. Measured on an
    H100 (bench/RESULTS.md, run 43): the first /screen after a quiet spell still decodes beside the full
    batch already running (p95 5.32 s against 2.61 s with the batch always narrow), so it stays off.

    The cooldown's refill floor (``worker.fast_refill_min``, 0 = off, the default): while the cooldown runs,
    bulk is handed over in groups of at least that many (``refill_room``), the base floor otherwise. Why
    (bench/RESULTS.md, runs 61-62, an H100 at the cooldown's 192): in the 1 s /screen phases 13-15% of the
    engine steps carried a bulk refill's prefill (~6,000 tokens, 185-210 ms a step against 15-17 ms
    decode-only) and held 66-69% of the step time; each finished bulk answer was replaced at once, so a
    /screen's ~40 decode steps met about six such steps. Gathered refills put fewer, larger prefill steps
    beside it; applied all the time the same floor cost the bulk job 0.82x (run 30), so it follows the
    cooldown. Not yet measured on a GPU (bench variants narrow256fc64k192r32 / r64).
    """

    bulk: int
    max_s: float
    gap_s: float
    cool_bulk: int = 0
    cool_s: float = 0.0
    cool_refill_min: int = 0
    _since: float | None = field(default=None, init=False)  # start of the current hold
    _free_until: float = field(default=0.0, init=False)  # no new hold before this (the bulk job's turn)
    _last_fast: float | None = field(default=None, init=False)

    @property
    def holding(self) -> bool:
        return self._since is not None

    def cap(self, fast_live: bool, now: float) -> int | None:
        """The bulk in-flight cap at ``now`` (monotonic seconds), given whether a fast request is live."""
        if fast_live:
            self._last_fast = now
        caps = [c for c in (self._hold(fast_live, now), self._cool(now)) if c is not None]
        return min(caps) if caps else None

    def refill_min(self, base: int, now: float) -> int:
        """The refill floor at ``now``: ``cool_refill_min`` while the cooldown runs (after ``cap``), else ``base``."""
        if self.cool_refill_min > 0 and self._cooling(now):
            return self.cool_refill_min
        return base

    def _cooling(self, now: float) -> bool:
        return self._last_fast is not None and now - self._last_fast < self.cool_s

    def _hold(self, fast_live: bool, now: float) -> int | None:
        if self.bulk < 0 or not fast_live:
            self._since = None
            return None
        if self._since is None:
            if now < self._free_until:
                return None
            self._since = now
        elif now - self._since >= self.max_s:
            self._since, self._free_until = None, now + self.gap_s
            return None
        return self.bulk

    def _cool(self, now: float) -> int | None:
        if self.cool_bulk < 1 or not self._cooling(now):
            return None
        return self.cool_bulk


@dataclass
class PrepareChunks:
    """How many stocks of a claimed job one round prepares: ``fast`` while a /screen is held or was fewer than
    ``cool_s`` ago (0: off), else ``chunk`` (0: the whole job at once).

    Why: a round that prepares a chunk runs nothing else, and a /screen arriving meanwhile waits for it twice,
    to be claimed and to be collected. Runs 49-50 (H100, 2026-12-06): at 64 a chunk instead of 256 the claim
    leg's p95 fell from 0.47-0.98 s to 0.11-0.31 s and the collect leg's from 0.48-0.99 s to 0.03-0.16 s, the
    /screen p95 by 16-18% at one a second; but the bulk job alone ran 0.72-0.87x, the worker spending four
    rounds where it spent one. So the small chunk only while the fast lane is busy.
    """

    chunk: int
    fast: int = 0
    cool_s: float = 0.0
    _seen: float | None = field(default=None, init=False)  # when a /screen was last held

    def size(self, fast_held: bool, now: float) -> int:
        if fast_held:
            self._seen = now
        if self.fast > 0 and self._seen is not None and now - self._seen < self.cool_s:
            return self.fast
        return self.chunk
