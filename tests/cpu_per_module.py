"""CPU seconds (user + system, this process and the children it waited for)
per test module, printed at the end of a run (scripts/test --cpu-per-module,
or PYTHONPATH=tests pytest -p cpu_per_module -n 0 ...; CPU_PER_MODULE_JSON=file
writes them too). A module's share holds its set-up and teardown (module
fixtures end in its last test's teardown) and the session fixtures its first
test set up. Without workers only: a worker's children are its own."""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Iterator

import pytest

_cpu: dict[str, float] = {}


def _now() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    before = _now()
    yield
    module = item.nodeid.split("::")[0]
    _cpu[module] = _cpu.get(module, 0.0) + _now() - before


def pytest_terminal_summary(terminalreporter) -> None:
    total = sum(_cpu.values())
    terminalreporter.write_line(f"CPU seconds per module (user + system), {total:.0f} in all:")
    for module, seconds in sorted(_cpu.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{seconds:8.1f}  {module}")
    out = os.environ.get("CPU_PER_MODULE_JSON")
    if out:
        with open(out, "w") as f:
            json.dump(_cpu, f, indent=1, sort_keys=True)
