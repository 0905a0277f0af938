"""Property tests of the command line's value parsers: whatever a user types
for --sizes, --libraries-style selections, --env or a method number, the
answer is a value or one PlanError line, never a traceback."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tlsbench.cli.args import choose as _choose
from tlsbench.errors import PlanError
from tlsbench.families.primitive.plan import MAX_SIZE
from tlsbench.families.primitive.plan import sizes_arg as _sizes
from tlsbench.plans.plan import METHOD_BOUNDS, method_value_problem
from tlsbench.plans.runenv import parse_assignments

EXAMPLES = int(os.environ.get("TLSBENCH_FUZZ_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
numbers = st.one_of(st.integers(min_value=-(10 ** 30), max_value=10 ** 30).map(str), st.floats().map(str),
                    st.sampled_from(["", " ", "0", "1", "1e3", "9" * 5000, "0x10", "\u0661\u0662"]))


def _one_line(e: PlanError) -> None:
    assert str(e) and "\n" not in str(e)


@SETTINGS
@given(st.lists(st.one_of(numbers, st.text(max_size=8)), max_size=6).map(",".join))
def test_sizes_are_a_list_in_bounds_or_refused(text: str) -> None:
    try:
        sizes = _sizes(text)
    except PlanError as e:
        _one_line(e)
        return
    assert sizes and all(1 <= n <= MAX_SIZE for n in sizes) and sizes == sorted(set(sizes))


@SETTINGS
@given(st.text(max_size=40))
def test_a_selection_is_known_names_or_refused(text: str) -> None:
    allowed = ["openssl", "gnutls", "mbedtls", "wolfssl"]
    try:
        chosen = _choose("library", text, allowed, "tlsbench list libraries")
    except PlanError as e:
        _one_line(e)
        return
    assert all(name in allowed for name in chosen)


@SETTINGS
@given(st.lists(st.text(max_size=20), max_size=4), st.booleans())
def test_env_assignments_are_valid_or_refused(items: list[str], allow_loader: bool) -> None:
    try:
        env = parse_assignments(items, allow_loader)
    except PlanError as e:
        _one_line(e)
        return
    assert all("\0" not in v for v in env.values())
    assert allow_loader or not any(n == "PATH" or n.startswith("LD_") for n in env)


@SETTINGS
@given(st.sampled_from(sorted(METHOD_BOUNDS)),
       st.one_of(st.integers(), st.floats(), st.booleans(), st.text(max_size=5), st.none()))
def test_method_values_are_judged_never_raise(key: str, value: object) -> None:
    problem = method_value_problem(key, value)
    assert problem is None or (problem.startswith("must be ") and "\n" not in problem)
