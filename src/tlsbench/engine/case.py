"""What the runner measures: a case, and one round's outcome."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    library: str
    kind: str
    alg: str  # algorithm, or the TLS suite
    op: str  # operation, or for TLS "<group>/<cert key type>-<chain kind>"
    size: int | None

    @property
    def name(self) -> str:
        base = f"{self.library}/{self.kind}/{self.alg}/{self.op}"
        return base if self.size is None else f"{base}/{self.size}"


@dataclass
class Measured:
    status: str
    reason: str
    iters: int | None
    transcript: str
    samples: list[tuple[int, int, int, str, int]]
    results: list[tuple]
