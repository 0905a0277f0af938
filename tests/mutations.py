"""Byte mutations for the loaders' property tests: a shipped file, cut and
spliced at random places with bytes a parser finds interesting, run under one
derandomized budget (the same examples on every run)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tlsbench.errors import PlanError

Loaded = TypeVar("Loaded")


def mutated(seeds: list[bytes], interesting: list[bytes]) -> st.SearchStrategy[bytes]:
    """One of seeds with 1 to 6 spans of up to 8 bytes each replaced by one of
    interesting or by up to 6 random bytes."""

    @st.composite
    def strategy(draw: st.DrawFn) -> bytes:
        data = bytearray(draw(st.sampled_from(seeds)))
        for _ in range(draw(st.integers(1, 6))):
            at = draw(st.integers(0, len(data)))
            cut = draw(st.integers(0, 8))
            data[at:at + cut] = draw(st.one_of(st.sampled_from(interesting), st.binary(max_size=6)))
        return bytes(data)

    return strategy()


def fuzz_budget(examples: int) -> settings:
    """examples derandomized examples, however slow, with a tmp_path fixture."""
    return settings(max_examples=examples, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def loaded_or_refused_in_one_line(path: Path, data: bytes, load: Callable[[Path], Loaded]) -> Loaded | None:
    """data written to path and loaded: what load returns, or None where it
    refuses with a PlanError of one line that starts with the file's name."""
    path.write_bytes(data)
    try:
        return load(path)
    except PlanError as e:
        assert str(e).startswith(str(path)) and "\n" not in str(e)
        return None
