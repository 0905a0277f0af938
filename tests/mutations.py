"""Byte mutations for the loaders' property tests: a shipped file, cut and
spliced at random places with bytes a parser finds interesting, run under one
derandomized budget (the same examples on every run)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st


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
