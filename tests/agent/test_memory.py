"""Every agent runs every operation of the check workload under valgrind
without a memory error: a wrong read can give a plausible wrong answer, or
a wrong time. The suite runs one check of each operation (every adapter
path, at under half the cost), and SLH-DSA's small ("s") parameter sets
only through their fast ("f") twins: the same adapter calls, while one "s"
signature alone is a third of a library's check time natively and tens
of seconds under valgrind; scripts/valgrind-checks runs all of them."""

from __future__ import annotations

import os

import pytest

from tlsbench.engine import agent
from tlsbench.families.primitive import checks, keys
from tlsbench.families.primitive.catalog import ALGORITHMS, LIBRARIES
from tlsbench.targets.libraries import probe

ALL = {(kind, alg) for kind, algs in ALGORITHMS.items() for alg in algs}
VALGRIND = ("valgrind", "-q", "--error-exitcode=99", "--leak-check=no")
# a parameter set checked through its twin (the same adapter path, other parameters)
FAST_TWIN = {"slh-dsa-sha2-128s": "slh-dsa-sha2-128f"}


def check_items(library: str, every: bool) -> list[checks.CheckItem]:
    """The check workload this library supports: every item, or the first of each operation."""
    info = probe(library)
    items = [it for it in checks.phase1_items(keys.generate(), ALL) if (it.kind, it.alg, it.op) in info.support]
    if every:
        return items
    first: dict[tuple[str, str, str], checks.CheckItem] = {}
    present = {it.alg for it in items}
    for it in items:
        if FAST_TWIN.get(it.alg) not in present:
            first.setdefault((it.kind, it.alg, it.op), it)
    return list(first.values())


def run_under_valgrind(library: str, items: list[checks.CheckItem]) -> agent.CallResult:
    requests = [checks.request_for(it) for it in items]
    return agent.call(probe(library).path, requests, 900, f"{library} under valgrind", wrapper=VALGRIND)


@pytest.mark.parametrize("library", LIBRARIES)
def test_checks_run_clean_under_valgrind(agents, library: str) -> None:
    every = check_items(library, every=True)
    items = every if os.environ.get("TLSBENCH_VALGRIND_EVERY") == "1" else check_items(library, every=False)
    # every operation of the workload is checked, itself or through its fast twin
    assert {(it.kind, FAST_TWIN.get(it.alg, it.alg), it.op) for it in items} == {
        (it.kind, FAST_TWIN.get(it.alg, it.alg), it.op) for it in every}
    res = run_under_valgrind(library, items)
    assert len(res.responses) == len(items) and res.stderr == ""


@pytest.mark.parametrize("library", ("mbedtls", "wolfssl", "openssl", "gnutls"))
def test_process_heap_peak_agrees_with_valgrind_massif(agents, tmp_path, library: str) -> None:
    """The counting allocator's high-water mark over a whole handshake request
    against valgrind massif's peak of the same request (a separate run: under
    valgrind its allocator replaces ours). Ours counts usable block sizes,
    massif requested ones: within 10%."""
    import re

    from tlsbench import paths
    from tlsbench.engine import agent
    from tlsbench.families.tls.cases import TlsCase, handshake_request
    from tlsbench.families.tls.certs import make_chain

    req = handshake_request(TlsCase(13, "TLS_AES_128_GCM_SHA256", "x25519", make_chain("ecdsa-p256")),
                            repeats=1, warmup=0) + " stack=0"
    ours = agent.call(paths.agent_path(library), [req], 60, "heap").responses[0].of_type("process_heap")[0]["peak"]
    out = tmp_path / "massif.out"
    agent.call(paths.agent_path(library), [req], 600, "massif",
               wrapper=("valgrind", "--tool=massif", "--threshold=0", "--peak-inaccuracy=0",
                        f"--massif-out-file={out}"))
    massif = max(int(v) for v in re.findall(r"mem_heap_B=(\d+)", out.read_text()))
    assert abs(ours / massif - 1) < 0.10, (ours, massif)
