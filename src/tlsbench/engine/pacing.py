"""How fast the machine is right now: the reference workload before and
after each round of a host case, and the rule that flags a round measured
in a slow phase.

The agents' ``reference`` request times fixed integer work (eight
independent xorshift64 chains, no memory, no allocation:
agent/core/reference.c). It is bound by the core's throughput, as the crypto
is: on a shared virtual machine a neighbour on the same physical core slows
both by up to 2x in bursts of tenths of a second to seconds, while a single
dependent chain (the reference before, ``lanes=1``) held 0.96 of its best
(docs/method.md, "Which reference workload"). A round whose slower reference
(the one before it or the one after it) is slower than SLOW_RATIO of the
run's best so far is flagged slow in the store (case_rounds.slow); a case
with no steady round is measured again at the end of the run
(engine/settling.py).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from tlsbench.engine import agent
from tlsbench.errors import AgentError

SLOW_RATIO = 0.90  # speed relative to the run's best below which a round is flagged slow
LANES = 8  # independent chains: throughput-bound (1: the single dependent chain of runs before)
# steps per lane, about 4 ms on our machines: a probe of the machine's phase (which lasts seconds), twice per
# round; 4,000,000 (about 14-18 ms) took a quarter of a tls run's measuring time
STEPS = 1_000_000
KIND = f"xorshift64 x{LANES} lanes, {STEPS:,} steps"  # stored with each run: references compare only in kind
CHAIN_KIND = "xorshift64 chain, 10,000,000 steps"  # the reference of runs stored before lanes
PRIME = 3  # references at the start of a run, so its first rounds have a best to be compared with


SEED = 0x9E3779B97F4A7C15


def xorshift_lanes(steps: int, lanes: int = LANES) -> int:
    """The reference workload in Python, for tests (slow for STEPS): lane k
    starts at SEED + k, the result is the lanes' values XORed."""
    mask, out = (1 << 64) - 1, 0
    for k in range(lanes):
        x = SEED + k
        for _ in range(steps):
            x ^= (x << 13) & mask
            x ^= x >> 7
            x ^= (x << 17) & mask
        out ^= x
    return out


RESULT = 13736588419170277519  # xorshift_lanes(STEPS), as computed by every agent (tests check it)
REQUEST = f"reference steps={STEPS} lanes={LANES}"


def parse(resp: agent.Response) -> int:
    """The wall time (ns) of an answered reference request, its result checked."""
    if resp.status != "ok":
        raise AgentError(f"reference workload: {resp.status}: {resp.message}")
    recs = resp.of_type("reference")
    if len(recs) != 1 or "wall_ns" not in recs[0].fields:
        raise AgentError("reference workload: no timed reference record")
    if int(recs[0]["result"]) != RESULT:
        raise AgentError(f"reference workload computed {recs[0]['result']}, expected {RESULT}")
    return int(recs[0]["wall_ns"])


def answered(responses: list[agent.Response], i: int, what: str) -> int | None:
    """The reference workload's time in the i-th answer of a call that ran it beside a case's request, None
    (with a warning naming ``what``) when that answer has none."""
    try:
        return parse(responses[i])
    except (AgentError, IndexError) as e:
        print(f"warning: {what}: {e or 'no reference answer'}", file=sys.stderr, flush=True)
        return None


def reference_ns(path: Path, timeout: float = 30) -> int:
    """One timed reference workload in a fresh agent: its wall time in ns.
    (A primitive's round runs it in the same process as the bench request.)"""
    return parse(agent.call(path, [REQUEST], timeout, "reference workload").responses[0])


@dataclass
class Pace:
    """The run's best reference so far and the slow-phase rule."""

    best_ns: int | None = None
    seen: list[int] = field(default_factory=list)

    def note(self, ns: int) -> None:
        self.seen.append(ns)
        self.best_ns = ns if self.best_ns is None else min(self.best_ns, ns)

    def speed(self, ns: int) -> float:
        """Speed relative to the best (1.0: as fast as the fastest seen)."""
        return 1.0 if not self.best_ns or ns <= 0 else self.best_ns / ns

    def slow(self, ns: int) -> bool:
        return self.speed(ns) < SLOW_RATIO
