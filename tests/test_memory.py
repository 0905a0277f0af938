"""Every agent runs the whole check workload under valgrind without a memory
error: a wrong read can give a plausible wrong answer, or a wrong time."""

from __future__ import annotations

import pytest

from tlsbench import agent, checks, keys
from tlsbench.catalog import ALGORITHMS, LIBRARIES
from tlsbench.libraries import probe

ALL = {(kind, alg) for kind, algs in ALGORITHMS.items() for alg in algs}
VALGRIND = ("valgrind", "-q", "--error-exitcode=99", "--leak-check=no")


@pytest.mark.parametrize("library", LIBRARIES)
def test_checks_run_clean_under_valgrind(agents, library: str) -> None:
    info = probe(library)
    items = [it for it in checks.phase1_items(keys.generate(), ALL) if (it.kind, it.alg, it.op) in info.support]
    requests = [checks.request_for(it) for it in items]
    res = agent.call(info.path, requests, 900, f"{library} under valgrind", wrapper=VALGRIND)
    assert len(res.responses) == len(items) and res.stderr == ""
