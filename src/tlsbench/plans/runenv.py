"""The environment a run's processes start with (plan key ``[method] env``).

Every process a run starts (agents, TLS servers, client tools) inherits
tlsbench's environment, so the plan's variables are set on it for the length
of the run and restored afterwards. They are stored with the run's plan and
shown in its report; compare lists a difference in them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from tlsbench.errors import PlanError
from tlsbench.plans.plan import check_env


def parse_assignments(items: list[str], allow_loader: bool = False) -> dict[str, str]:
    """NAME=VALUE strings from the command line."""
    env: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise PlanError(f"--env takes NAME=VALUE, got {item!r}")
        if name in env:
            raise PlanError(f"--env sets {name} twice")
        env[name] = value
    return check_env(env, allow_loader)


@contextmanager
def applied(env: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
