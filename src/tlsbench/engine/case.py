"""What the runner measures: a case, one raw sample, and one round's outcome."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    library: str
    kind: str
    alg: str  # algorithm, or the TLS suite
    op: str  # operation, or for TLS the variant (families.tls.names)
    size: int | None

    @property
    def name(self) -> str:
        base = f"{self.library}/{self.kind}/{self.alg}/{self.op}"
        return base if self.size is None else f"{base}/{self.size}"


@dataclass(frozen=True)
class Sample:
    """One stored batch: ``total`` of ``counter`` over ``iters`` operations,
    the ``idx``-th batch of its case (warm-ups numbered apart)."""

    idx: int
    warmup: bool
    iters: int
    counter: str
    total: int

    @staticmethod
    def one(idx: int, counter: str, total: int) -> Sample:
        """A measured value of one operation (a handshake, a memory pass)."""
        return Sample(idx, False, 1, counter, total)


@dataclass
class Measured:
    status: str
    reason: str
    iters: int | None
    transcript: str
    samples: list[Sample]
    results: list[tuple]

    @staticmethod
    def not_run(status: str, reason: str, transcript: str = "") -> Measured:
        """A case that ended without samples (unsupported, failed, ...): the reason is the result."""
        return Measured(status, reason, None, transcript, [], [])


def split_repeats(repeats: int, rounds: int) -> list[int]:
    """Measured batches per round: as even as possible, the extra ones first."""
    base, extra = divmod(repeats, rounds)
    return [base + (1 if r < extra else 0) for r in range(rounds)]
