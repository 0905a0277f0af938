"""The command line, end to end, with the real agents."""

from __future__ import annotations

import csv
import io
import json
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from conftest import env_without_agent_dir, tlsbench_cmd

from tlsbench.engine import metrics
from tlsbench.families.primitive.family import HOST_MEMORY_PASSES, KEYED_KINDS

JSON_FIELDS = {"format", "run", "target", "library", "library_version", "kind", "name", "params", "metric", "unit", "n",
               "median", "mean", "stdev", "min", "max", "ci95_low", "ci95_high"}


def tlsbench(db: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([*tlsbench_cmd(), "--db", str(db), *args], capture_output=True, text=True,
                          timeout=timeout, env=env_without_agent_dir())


def test_json_output_is_only_json_and_reports_render(agents, db_path: Path) -> None:
    p = tlsbench(db_path, "run", "--algorithms", "sha256,ed25519,x25519", "--sizes", "64,1024",
                 "--repeats", "3", "--warmup", "0", "--min-sample-ms", "1", "--json")
    assert p.returncode == 0, p.stderr
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    assert rows and all(JSON_FIELDS <= set(r) for r in rows) and {r["format"] for r in rows} == {1}
    # one object per metric of a case, as the README says (not one per case)
    sha = [r["metric"] for r in rows if r["library"] == "openssl" and r["case"].endswith("sha256/hash/64")]
    assert len(sha) == len(set(sha)) > 1 and "wall_ns" in sha
    ed = [r for r in rows if r["library"] == "mbedtls" and r["name"] == "ed25519"]
    assert ed and all(r["status"] == "unsupported" and r["median"] is None for r in ed)
    ok = [r for r in rows if r["status"] == "ok"]
    assert {r["library"] for r in ok} == {"openssl", "gnutls", "mbedtls", "wolfssl"}
    # 3 repeats (timed metrics) and 3 rounds of one memory pass, of 8 for kinds with keys (family.HOST_MEMORY_PASSES)
    memory = set(metrics.MEMORY_FIELDS.values())
    assert all(r["n"] == (3 * HOST_MEMORY_PASSES if r["metric"] in memory and r["kind"] in KEYED_KINDS else 3)
               and r["min"] <= r["median"] <= r["max"] for r in ok)
    assert {r["params"]["size"] for r in ok if r["name"] == "sha256"} == {64, 1024}
    # which stored column the reports show: a host timing's fastest sample, a count's median
    assert {r["estimator"] for r in ok if r["metric"] == "wall_ns"} == {"min"}
    assert {r["estimator"] for r in ok if r["metric"] == "throughput"} == {"max"}
    assert {r["estimator"] for r in ok if r["metric"] in memory} == {"median"}

    run_id = rows[0]["run"]
    table = tlsbench(db_path, "report", str(run_id))
    assert table.returncode == 0 and "unsupported" in table.stdout and "MB/s" in table.stdout
    md = tlsbench(db_path, "report", str(run_id), "--format", "markdown").stdout
    assert "| kind | algorithm | op | size |" in md
    parsed = list(csv.DictReader(io.StringIO(tlsbench(db_path, "report", "--format", "csv").stdout)))
    assert {r["status"] for r in parsed} >= {"ok", "unsupported"}
    doc = json.loads(tlsbench(db_path, "report", str(run_id), "--format", "json").stdout)
    assert doc["run"] == run_id and len(doc["libraries"]) == 4 and doc["machine"]["cores"] >= 1
    assert "complete" in tlsbench(db_path, "runs").stdout


def test_bad_input_is_one_clear_line(db_path: Path) -> None:
    p = tlsbench(db_path, "run", "--algorithms", "aes-128-gmc")
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().startswith("tlsbench: error: unknown algorithm 'aes-128-gmc' (did you mean aes-128-gcm")
    p = tlsbench(db_path, "run", "--libraries", "boringssl")
    assert p.returncode == 2 and "unknown library 'boringssl'" in p.stderr
    assert not db_path.exists()  # a run refused before it began makes no database
    from tlsbench.engine.store import Store

    Store(db_path).close()  # an empty database: reading one that does not exist is its own error
    p = tlsbench(db_path, "report", "42")
    assert p.returncode == 2 and "no run 42" in p.stderr
    other = db_path.with_name("other.sqlite")
    Store(other).close()
    p = tlsbench(db_path, "report", "42", "--db", str(other))  # --db after the subcommand wins
    assert p.returncode == 2 and f"no run 42 in {other}" in p.stderr


def test_list_algorithms_shows_the_support_matrix(agents, db_path: Path) -> None:
    out = tlsbench(db_path, "list", "algorithms").stdout
    ed = next(line for line in out.splitlines() if line.split()[:2] == ["sig", "ed25519"])
    assert ed.split()[3:7] == ["unsupported", "yes", "yes", "yes"]  # mbedtls, wolfssl, openssl, gnutls


@pytest.mark.parametrize("kill_after", [1, 5, 20])  # kill -9 at different points of the second round
def test_a_killed_run_keeps_its_cases_and_resumes(agents, db_path: Path, kill_after: int) -> None:
    args = [*tlsbench_cmd(), "--db", str(db_path), "run", "--libraries", "openssl", "--kinds", "hash",
            "--sizes", "64,256,1024", "--repeats", "4", "--rounds", "2", "--warmup", "0", "--min-sample-ms", "5",
            "--no-progress"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env_without_agent_dir())
    deadline = time.monotonic() + 120
    finished = 0
    while time.monotonic() < deadline and finished < kill_after:  # killed in its second round
        time.sleep(0.2)
        try:
            with sqlite3.connect(db_path) as db:
                finished = db.execute("SELECT count(*) FROM cases WHERE status='ok'").fetchone()[0]
        except sqlite3.OperationalError:
            pass
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db_path) as db:
        before = dict(db.execute("SELECT name, id FROM cases WHERE status='ok'"))
        partial = db.execute("SELECT count(*) FROM cases WHERE status='partial'").fetchone()[0]
        status = db.execute("SELECT status FROM runs WHERE id=1").fetchone()[0]
    assert kill_after <= len(before) < 27 and partial > 0 and status == "running"
    assert "incomplete" in tlsbench(db_path, "runs").stdout

    p = tlsbench(db_path, "run", "--resume", "1", "--no-progress")
    assert p.returncode == 0, p.stderr
    with sqlite3.connect(db_path) as db:
        after = dict(db.execute("SELECT name, id FROM cases WHERE status='ok' AND rounds_done=2"))
        assert db.execute("SELECT status FROM runs WHERE id=1").fetchone()[0] == "complete"
        n = {row[0] for row in db.execute("SELECT n + removed FROM results WHERE metric='wall_ns'")}
    assert len(after) == 9 * 3  # every case exactly once, both rounds done
    assert all(after[name] == case_id for name, case_id in before.items())  # kept, not re-measured
    assert n == {4}  # 2 + 2 batches per case, whether its rounds ran before or after the kill


def test_ctrl_c_stores_the_run_and_names_the_resume_command(agents, db_path: Path) -> None:
    args = [*tlsbench_cmd(), "--db", str(db_path), "run", "--libraries", "openssl", "--kinds", "hash",
            "--algorithms", "sha1,sha256", "--sizes", "64,256,1024", "--repeats", "5",
            "--warmup", "0", "--min-sample-ms", "150", "--no-progress"]
    # every case's timing lasts at least 0.75 s (5 samples of 150 ms) and its memory pass
    # comes after every case's timing, so once two cases have stored their timings
    # ("partial") the four left (over 3 s) and all six memory passes are still to
    # run: the signal cannot arrive after the run ended
    # a shell starts background jobs with SIGINT ignored, and the child would inherit that
    # (CI launched so: the run then ignored the signal and ended with 0): give it the default
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env_without_agent_dir(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    finished = 0
    while time.monotonic() < deadline and finished < 2 and proc.poll() is None:
        time.sleep(0.1)
        try:
            with sqlite3.connect(db_path, timeout=10) as db:  # waits out the run's own writes
                finished = db.execute("SELECT count(*) FROM cases WHERE status IN ('partial', 'ok')").fetchone()[0]
        except sqlite3.OperationalError:  # not created yet
            pass
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, f"exit {proc.returncode} after {finished} cases stored; stderr: {err[-2000:]}"
    assert f"run 1 keeps what it measured; finish it with: tlsbench run --db {db_path} --resume 1" in err
    assert "Traceback" not in err
    assert tlsbench(db_path, "run", "--resume", "1", "--no-progress").returncode == 0


def test_a_closed_pipe_ends_quietly(db_path: Path) -> None:
    proc = subprocess.Popen([*tlsbench_cmd(), "--db", str(db_path), "list", "algorithms"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env_without_agent_dir())
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and err == ""


def test_version() -> None:
    p = subprocess.run([*tlsbench_cmd(), "--version"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("tlsbench 0.")


def test_every_option_has_help() -> None:
    import argparse

    from tlsbench.cli import parser

    missing = []
    top = parser()
    subs = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    todo = [("tlsbench", top), *((f"tlsbench {n}", p) for n, p in subs.choices.items())]
    for name, p in todo:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [(f"{name} {n}", sp) for n, sp in action.choices.items()]
            elif action.option_strings and not action.help:
                missing.append(f"{name} {action.option_strings[0]}")
    assert missing == []


def test_report_metric_a_tls_run_did_not_measure_names_the_per_side_ones(db_path: Path) -> None:
    from stored_tls_run import make_tls_run

    from tlsbench.engine.store import Store

    run = make_tls_run(Store(db_path))
    p = tlsbench(db_path, "report", str(run), "--metric", "heap_peak_bytes")
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "per side: client_heap_peak_bytes, server_heap_peak_bytes;" in p.stderr
    ok = tlsbench(db_path, "report", str(run), "--metric", "client_heap_peak_bytes")
    assert ok.returncode == 0 and "30,000 B" in ok.stdout


def test_kinds_narrow_a_preset_that_names_algorithms_of_other_kinds():
    """--kinds on a preset with its own algorithm list (the firmware's cortex-m plan names sha1 among
    them) keeps the preset's algorithms of those kinds instead of refusing the preset's own list."""
    from tlsbench.cli import parser
    from tlsbench.cli import run as cli
    from tlsbench.families.primitive.catalog import ALGORITHMS

    a = parser().parse_args(["run", "--preset", "cortex-m", "--kinds", "tls,hash"])
    plan, source = cli.plan_from_args(a)
    assert plan.kinds == ["tls", "hash"]
    assert plan.algorithms and all(x in ALGORITHMS["hash"] for x in plan.algorithms)
    assert "sha1" in plan.algorithms and "# overridden on the command line: --kinds tls,hash" in source
    a = parser().parse_args(["run", "--preset", "cortex-m", "--kinds", "tls"])
    plan, _ = cli.plan_from_args(a)
    assert plan.kinds == ["tls"] and plan.algorithms == []
