"""What the runner measures: a case, one raw sample, one round's outcome and
a metric's stored summary."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Generic, TypeVar

from tlsbench.engine.stats import Summary


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


T = TypeVar("T")


class _SummaryField(Generic[T]):
    """A Result's attribute that reads its Summary's field of the same name."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, result: Any, owner: type | None = None) -> T:
        return getattr(result.summary, self.name)


@dataclass(frozen=True)
class Result:
    """A case's summary of one metric over every kept sample, as stored: the
    metric's name and unit and its stats.Summary (whose fields it reads
    through, so the store and the reports name them as before)."""

    metric: str
    unit: str
    summary: Summary

    @staticmethod
    def of(metric: str, unit: str, n: int, removed: int, median: float, mean: float, stdev: float | None,
           min: float, max: float, ci95_low: float | None, ci95_high: float | None) -> Result:
        """From the values one by one (a stored row, a scaled copy)."""
        return Result(metric, unit, Summary(n, removed, median, mean, stdev, min, max, ci95_low, ci95_high))

    @staticmethod
    def exact(metric: str, unit: str, value: float) -> Result:
        """One value measured once (a size, a count): no spread, no interval."""
        return Result.of(metric, unit, 1, 0, value, value, None, value, value, None, None)

    def flat(self) -> dict:
        """metric, unit and the summary's fields in one mapping, in the order
        the --json lines have always had them."""
        return {"metric": self.metric, "unit": self.unit, **asdict(self.summary)}

    # the summary's fields, read through
    n = _SummaryField[int]()
    removed = _SummaryField[int]()
    median = _SummaryField[float]()
    mean = _SummaryField[float]()
    stdev = _SummaryField[float | None]()
    min = _SummaryField[float]()
    max = _SummaryField[float]()
    ci95_low = _SummaryField[float | None]()
    ci95_high = _SummaryField[float | None]()


@dataclass
class Measured:
    status: str
    reason: str
    iters: int | None
    transcript: str
    samples: list[Sample]
    results: list[Result]
    # host rounds: placement and pace (layout.py, pacing.py), stored in case_rounds
    round_info: dict | None = None
    # the case's parameters as stored, when its family has its own (a size probe's parts); None: op and size
    params: dict | None = None
    # the stored case this outcome was copied from (the result cache), None: measured
    reused_from: int | None = None

    @staticmethod
    def not_run(status: str, reason: str, transcript: str = "") -> Measured:
        """A case that ended without samples (unsupported, failed, ...): the reason is the result."""
        return Measured(status, reason, None, transcript, [], [])


def split_repeats(repeats: int, rounds: int) -> list[int]:
    """Measured batches per round: as even as possible, the extra ones first."""
    base, extra = divmod(repeats, rounds)
    return [base + (1 if r < extra else 0) for r in range(rounds)]
