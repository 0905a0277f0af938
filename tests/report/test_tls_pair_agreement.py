"""scripts/tls-pair-agreement on runs it has no figure of: one line that says so, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tlsbench import paths
from tlsbench.engine.case import Sample
from tlsbench.engine.store import Store


def _hash_run(store: Store) -> int:
    run = store.create_run(target="host", plan_name="p", plan_source="", plan={"method": {}},
                           machine={"cpu_model": "cpu"}, version="1", keys={})
    store.put_case(run, name="l/hash/a/hash", library="l", kind="hash", alg="a", op="hash", size=None, params={},
                   status="ok", reason="", iters=10, started=0, transcript="",
                   samples=[Sample(i, False, 10, "wall_ns", 1000 + i) for i in range(4)])
    return run


def test_runs_without_tls_figures_get_one_line_naming_them(db_path: Path) -> None:
    store = Store(db_path)
    a, b = _hash_run(store), _hash_run(store)
    store.close()
    done = subprocess.run([sys.executable, str(paths.root() / "scripts" / "tls-pair-agreement"), str(db_path),
                           str(a), str(b)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (f"tls-pair-agreement: runs {a} and {b} share no figure of"
                                   " client_cpu_ns, server_cpu_ns")
