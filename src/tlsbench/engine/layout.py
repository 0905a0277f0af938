"""Where a round's timed loop sits in memory, chosen on purpose.

A loop's speed can depend on where its stack frame lands (Mytkowicz et al.,
"Producing Wrong Data Without Doing Anything Obviously Wrong!", ASPLOS 2009):
here Mbed TLS AES-128-GCM took one of 2-3 speeds depending on the stack
offset, repeating every 32 bytes. One process per round drew one of them at
random (the kernel randomises the stack start in 16-byte steps), so a case's
median depended on its draws. Instead each round asks the agent to put the
timed passes' frame at a stated offset within a 4 KiB page (``stack_at``,
independent of the random start) and to hold a block of ``heap_shift`` bytes
during them; the offsets of a case's rounds are spread over the page with
alternate 32-byte phases, from a seed of the run. Firmware keeps offset 0:
its counts are exact and must not move.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

PAGE = 4096
STEP = 16  # the stack's alignment on the host ABIs
PERIOD = 32  # the repeat of the speed levels seen (two 16-byte phases)


@dataclass(frozen=True)
class Placement:
    stack_at: int  # low 12 bits of the timed frame's address
    heap_shift: int  # bytes allocated before, and held during, the timed passes

    def fields(self) -> dict[str, int]:
        return {"stack_at": self.stack_at, "heap_shift": self.heap_shift}


def _draw(seed: int, case: str, what: str) -> int:
    digest = hashlib.sha256(f"{seed}/{case}/{what}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def placement(seed: int, case: str, rnd: int, rounds: int) -> Placement:
    """The placement of round ``rnd`` of ``rounds``: the rounds' stack offsets
    are evenly spaced over the page from a start drawn for the case, the
    spacing an odd number of 16-byte steps so consecutive rounds alternate
    the two phases of the 32-byte pattern; the heap shift is drawn per round."""
    start = _draw(seed, case, "stack") % (PAGE // STEP) * STEP
    step = max(STEP, PAGE // max(1, rounds) // STEP * STEP)
    if step % PERIOD == 0:
        step += STEP
    stack_at = (start + rnd * step) % PAGE
    heap_shift = _draw(seed, case, f"heap/{rnd}") % (PAGE // STEP) * STEP
    return Placement(stack_at, heap_shift)
