"""The primitive family's keys of a plan's [select] table: algorithms,
operations and message sizes (plan.algorithms, plan.ops, plan.sizes), from a
plan file or `tlsbench run` flags (--algorithms, --ops, --sizes)."""

from __future__ import annotations

import argparse
from typing import Any

from tlsbench.errors import PlanError
from tlsbench.families.primitive.catalog import ALGORITHMS, BENCH_OPS, DEFAULT_SIZES, KINDS
from tlsbench.plans.checks import Locator, check_list
from tlsbench.plans.flags import choose, comma_list
from tlsbench.plans.model import Plan

MAX_SIZE = 1 << 20
TABLE = "select"


def all_algorithm_names() -> list[str]:
    return [a for algs in ALGORITHMS.values() for a in algs]


def all_ops() -> list[str]:
    return sorted({op for ops in BENCH_OPS.values() for op in ops})


def _check_sizes(loc: Locator, value: object) -> list[int]:
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_SIZE for v in value)
    ):
        raise loc.error(TABLE, "sizes", f"must be a non-empty list of integers 1..{MAX_SIZE}")
    return sorted(set(value))


def sizes_arg(text: str) -> list[int]:
    """--sizes: byte counts, sorted and each once."""
    try:
        sizes = sorted({int(t) for t in comma_list(text)})
    except ValueError:
        raise PlanError(f"--sizes must be a comma-separated list of integers, got {text!r}") from None
    if not sizes or sizes[0] < 1 or sizes[-1] > MAX_SIZE:
        raise PlanError(f"--sizes must list byte counts 1..{MAX_SIZE}, got {text!r}")
    return sizes


class PrimitiveSection:
    """algorithms (empty: every algorithm of the kinds), ops (empty: each kind's default ops), sizes."""

    table = None
    keys = {
        "algorithms": "list of algorithm names",
        "ops": "list of operations",
        "sizes": "list of message sizes in bytes",
    }

    def defaults(self) -> dict[str, Any]:
        return {"algorithms": [], "ops": [], "sizes": list(DEFAULT_SIZES)}

    def parse(self, loc: Locator, given: dict, plan: Plan) -> None:
        if "algorithms" in given:
            plan.algorithms = check_list(loc, TABLE, "algorithms", given["algorithms"],  # type: ignore[attr-defined]
                                         all_algorithm_names())
        if "ops" in given:
            plan.ops = check_list(loc, TABLE, "ops", given["ops"], all_ops())  # type: ignore[attr-defined]
        if "sizes" in given:
            plan.sizes = _check_sizes(loc, given["sizes"])  # type: ignore[attr-defined]

    def validate(self, plan: Plan, loc: Locator) -> None:
        p: Any = plan
        if not p.sizes or not all(1 <= n <= MAX_SIZE for n in p.sizes):
            raise loc.error(TABLE, "sizes", f"must be a non-empty list of integers 1..{MAX_SIZE}")
        primitive_kinds = [k for k in p.kinds if k in KINDS]
        for alg in p.algorithms:
            if not any(alg in ALGORITHMS[k] for k in primitive_kinds):
                raise loc.error(TABLE, "algorithms", f"{alg!r} is not of the selected kinds ({', '.join(p.kinds)})")
        if p.ops and not any(op in BENCH_OPS[k] for k in primitive_kinds for op in p.ops):
            raise loc.error(TABLE, "ops", "no selected kind has any of these operations")

    def load(self, stored: dict) -> dict[str, Any]:
        return {k: list(stored[k]) for k in ("algorithms", "ops", "sizes") if k in stored}

    def dump(self, plan: Plan) -> dict[str, Any]:
        p: Any = plan
        return {"algorithms": list(p.algorithms), "ops": list(p.ops), "sizes": list(p.sizes)}

    def long_lists(self, plan: Plan) -> dict[str, int]:
        return {"sizes": len(plan.sizes)}  # type: ignore[attr-defined]

    def cut(self, plan: Plan, keep: dict[str, int]) -> None:
        plan.sizes = plan.sizes[:keep.get("sizes", 1)]  # type: ignore[attr-defined]

    def device_side(self, plan: Plan) -> str:
        return ""

    def firmware_problem(self, plan: Plan, target_name: str, what: str) -> str | None:
        return None

    def add_select_flags(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--algorithms", help="comma-separated algorithm names (default: every algorithm of the kinds;"
                       " tlsbench list algorithms)")
        p.add_argument("--ops", help="comma-separated operations, e.g. encrypt,sign (default: every benchmarked op)")
        p.add_argument("--sizes", help="message sizes in bytes, e.g. 64,1024,16384 (default: the plan's)")

    def add_target_flags(self, p: argparse.ArgumentParser) -> None:
        """None: its cases run alike on every target."""

    def apply_flags(self, a: argparse.Namespace, plan: Plan, kinds_given: bool) -> list[str]:
        p: Any = plan
        flags = []
        if kinds_given and not a.algorithms:  # --kinds narrows the plan: its algorithms of the other kinds go too
            p.algorithms = [x for x in p.algorithms if any(x in ALGORITHMS[k] for k in p.kinds if k in ALGORITHMS)]
        if a.algorithms:
            p.algorithms = choose("algorithm", a.algorithms, all_algorithm_names(), "tlsbench list algorithms")
            if not kinds_given:
                p.kinds = [k for k in KINDS if any(x in ALGORITHMS[k] for x in p.algorithms)]
            flags.append(f"--algorithms {a.algorithms}")
        if a.ops:
            p.ops = choose("operation", a.ops, all_ops(), "tlsbench run --help")
            flags.append(f"--ops {a.ops}")
        if a.sizes:
            p.sizes = sizes_arg(a.sizes)
            flags.append(f"--sizes {a.sizes}")
        return flags


SECTION = PrimitiveSection()
