"""The host's memory passes for the kinds with keys: one with the run's key
and one per further key set drawn with the run, each in an agent whose heap
has the history of the case's own, so the run measures the spread of the
counts that depend on the keys and random values a host run draws."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import env_without_agent_dir, tlsbench_cmd

from tlsbench.engine import agent, pacing
from tlsbench.engine.case import Case
from tlsbench.engine.protocol import encode_request
from tlsbench.engine.store import Store
from tlsbench.families.primitive import keys as keys_mod
from tlsbench.families.primitive.catalog import LIBRARIES
from tlsbench.families.primitive.family import HOST_MEMORY_PASSES, bench_fields


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_hello_first_leaves_the_set_up_heap_where_the_reference_workload_does(agents, library: str) -> None:
    """A further key set's agent gets `hello` where the case's own got the
    paced reference workload: the set-up's held heap is the same to the byte;
    with nothing first it is not, for Mbed TLS (the first output allocates
    stdout's buffer)."""
    ks = keys_mod.generate()
    case = Case(library, "kex", "p256", "derive", None)
    bench = encode_request("bench", kind="kex", alg="p256", op="derive", warmup=0, repeats=1, min_ns=0,
                           **bench_fields(case, ks))

    def held(before: list[str]) -> int:
        resp = agent.call(agents[library], [*before, bench], 60, "set-up heap").responses[-1]
        return int(resp.of_type("memory")[0]["setup_heap_held"])

    assert held(["hello"]) == held([pacing.REQUEST])
    if library == "mbedtls":
        assert held([]) - held(["hello"]) == 32


def test_a_host_run_stores_a_memory_pass_per_key_set_and_round(agents, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    p = subprocess.run([*tlsbench_cmd(), "--db", str(db), "run", "--libraries", "mbedtls", "--algorithms",
                        "p256,sha256", "--ops", "derive,hash", "--sizes", "64", "--repeats", "2", "--rounds", "2",
                        "--warmup", "0", "--min-sample-ms", "1", "--no-progress"],
                       capture_output=True, text=True, timeout=600, env=env_without_agent_dir())
    assert p.returncode == 0, p.stderr
    store = Store(db)
    run = store.latest_run_id()
    assert len(store.get_run(run).keys["spread"]) == HOST_MEMORY_PASSES - 1  # drawn with the run, kept for a resume
    allocs = store.per_op_values(run, "allocations")
    assert len(allocs["mbedtls/kex/p256/derive"][1]) == 2 * HOST_MEMORY_PASSES  # 2 rounds of 8 key sets
    assert len(allocs["mbedtls/hash/sha256/hash/64"][1]) == 2  # no keys: one pass a round
