"""Faults and inputs that must end in one clear line with nothing stored
lost or changed: SIGTERM/SIGHUP during a run, a bad certs --out, loader
variables in --env, raw HTML in a plan name."""

from __future__ import annotations

import os
import resource
import signal
import socket
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from conftest import tlsbench_cmd
from plan_text import one_size_plan

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError, StoreError
from tlsbench.plans import runenv
from tlsbench.plans.plan import Method, Plan
from tlsbench.report import tables

# the fake agent crashes on sha1 (a failed case, stored), then hangs on sha224: the signal lands mid-run
HANGING_PLAN = one_size_plan("stop", ["openssl"], "hash", ["sha1", "sha224"], warmup=0, repeats=3, rounds=1,
                             outliers="none", min_sample_ms=1, timeout_s=600)


def _cli(db: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*tlsbench_cmd(), "--db", str(db), *args], capture_output=True, text=True,
                          timeout=timeout)


def _default_signals() -> None:
    # a background launch inherits some signals ignored (SIGINT; SIGHUP under nohup): the run gets the defaults
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def _stored(db: Path) -> list[tuple]:
    with sqlite3.connect(db, timeout=10) as c:
        return c.execute("SELECT r.status, c.name, c.status, c.rounds_done FROM cases c JOIN runs r"
                         " ON r.id = c.run_id ORDER BY c.id").fetchall()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_end_a_run_as_ctrl_c_does(fake_agent_dir: Path, tmp_path: Path, signum: int) -> None:
    db, plan = tmp_path / "r.sqlite", tmp_path / "stop.toml"
    plan.write_text(HANGING_PLAN)
    proc = subprocess.Popen([*tlsbench_cmd(), "--db", str(db), "run", "--plan", str(plan), "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_signals)
    deadline = time.monotonic() + 60
    before: list[tuple] = []
    while time.monotonic() < deadline and not before and proc.poll() is None:
        time.sleep(0.1)
        try:
            before = _stored(db)
        except sqlite3.OperationalError:  # not created yet
            pass
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    name = signal.Signals(signum).name
    assert proc.returncode == 128 + signum, err
    assert err.splitlines()[-1] == (f"tlsbench: stopped by {name}: run 1 keeps what it measured; finish it with:"
                                    f" tlsbench run --db {db} --resume 1")
    assert [row[:3] for row in before] == [("running", "openssl/hash/sha1/hash/64", "failed")]
    assert _stored(db) == before


def test_certs_out_an_existing_file_is_one_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("kept")
    p = _cli(tmp_path / "r.sqlite", "certs", "--out", str(afile), "--key-types", "ed25519")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"tlsbench: error: --out {afile}: is a file, not a folder; give a folder (it is made if"
                        " missing)\n")
    assert afile.read_text() == "kept"


def test_certs_out_a_folder_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("kept")
    p = _cli(tmp_path / "r.sqlite", "certs", "--out", str(afile / "sub"), "--key-types", "ed25519")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"tlsbench: error: --out {afile}/sub: cannot make the folder (Not a directory); give a"
                        " folder that exists or can be made\n")
    assert afile.read_text() == "kept" and sorted(tmp_path.iterdir()) == [afile]


@pytest.mark.parametrize("name", ["PYTHONPATH", "OPENSSL_CONF", "OPENSSL_MODULES", "GCONV_PATH", "LD_PRELOAD"])
def test_variables_that_change_the_code_need_allow_loader_env(name: str) -> None:
    with pytest.raises(PlanError) as e:
        runenv.parse_assignments([f"{name}=/tmp/x"])
    assert str(e.value) == (f"{name} changes which code runs and is measured: refused unless allowed"
                            " ([method] allow_loader_env = true, or --allow-loader-env)")
    assert runenv.parse_assignments([f"{name}=/tmp/x"], allow_loader=True) == {name: "/tmp/x"}
    # a tunable that keeps the code (the presets use it) needs no permission
    assert runenv.parse_assignments(["OPENSSL_ia32cap=~0x200000200000000"]) == {
        "OPENSSL_ia32cap": "~0x200000200000000"}


def test_loader_env_on_the_command_line_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    p = _cli(db, "run", "--libraries", "openssl", "--algorithms", "sha256", "--env", "PYTHONPATH=/tmp/evil")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == ("tlsbench: error: PYTHONPATH changes which code runs and is measured: refused unless"
                        " allowed ([method] allow_loader_env = true, or --allow-loader-env)\n")


def test_markdown_report_escapes_a_plan_name_with_html(fake_agent_dir: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "r.sqlite")
    plan = Plan(name="<img src=x onerror=alert(1)>_[x](y)", libraries=["openssl"], kinds=["hash"],
                algorithms=["sha256"], sizes=[64],
                method=Method(warmup=0, repeats=3, outliers="none", min_sample_ms=1, timeout_s=10))
    run_id = runner.run(plan, "test", store, show_progress=False)
    text = tables.render(tables.load(store, run_id), "markdown")
    store.close()
    assert text.splitlines()[0] == (f"## tlsbench run {run_id}: plan &lt;img src=x onerror=alert(1)&gt;\\_\\[x\\](y),"
                                    " target host, complete")
    assert "<img" not in text


def _run_into(db: Path, *algs: str) -> int:
    store = Store(db)
    plan = Plan(name="faults", libraries=["openssl"], kinds=["hash"], algorithms=list(algs), sizes=[64],
                method=Method(warmup=0, repeats=3, outliers="none", min_sample_ms=1, timeout_s=10))
    try:
        return runner.run(plan, "test", store, show_progress=False)
    finally:
        store.close()


def _xor(db: Path, offsets: range) -> None:
    data = bytearray(db.read_bytes())
    for at in offsets:
        data[at] ^= 0x5A
    db.write_bytes(bytes(data))


def _damage_like_test_store_faults(db: Path) -> None:
    page = 4096  # b-tree page types of pages 2-4 and content past their headers
    _xor(db, range(page, 4 * page, page))
    _xor(db, range(page + 16, 4 * page, 97))


@pytest.mark.parametrize("command", [["runs"], ["report"], ["compare", "1", "1"], ["history", "x"], ["db", "check"]])
def test_reading_another_programs_database_writes_nothing(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "other.sqlite"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        c.execute("INSERT INTO notes (text) VALUES ('mine')")
        c.execute("PRAGMA user_version = 7")
    c.close()
    before = db.read_bytes()
    p = _cli(db, *command)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"tlsbench: error: results database {db} has no tlsbench results (not a tlsbench database,"
                        " or empty); a run stores into it (tlsbench run), or give the --db of an earlier run\n")
    assert db.read_bytes() == before and sorted(tmp_path.iterdir()) == [db]


@pytest.mark.parametrize("command", [["runs"], ["report", "1"], ["db", "check"]])
def test_reading_a_path_that_does_not_exist_creates_nothing(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "mistyped.sqlite"
    p = _cli(db, *command)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"tlsbench: error: results database {db} does not exist; a run stores into it (tlsbench"
                        f" run --db {db}), or give the --db of an earlier run\n")
    assert list(tmp_path.iterdir()) == []


def test_reading_a_tlsbench_database_leaves_its_bytes_alone(fake_agent_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    _run_into(db, "sha256")
    before = db.read_bytes()
    for command in (["runs"], ["report"], ["compare", "1", "1"], ["db", "check"]):
        assert _cli(db, *command).returncode == 0
    assert db.read_bytes() == before


def test_db_check_says_what_is_damaged_and_what_is_readable(fake_agent_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    _run_into(db, "sha256", "sha384", "sha512", "md5")
    _damage_like_test_store_faults(db)
    damaged = db.read_bytes()
    p = _cli(db, "db", "check")
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr.splitlines() == [
        f"{db}: damaged (1 finding(s) of SQLite integrity_check):",
        "  database disk image is malformed",
        "readable: runs 0 row(s), then: database disk image is malformed; run_libraries 0 row(s), then: database"
        " disk image is malformed; checks 4 row(s); code_sizes 0 row(s); run_labels 5 row(s); run_board_profiles"
        " 0 row(s); cases 4 row(s); samples 6 row(s); results 3 row(s); case_rounds 4 row(s)",
        f"copy what is readable into a new file with: tlsbench db check --db {db} --salvage NEW.sqlite",
    ]
    assert db.read_bytes() == damaged


def test_salvage_copies_every_readable_row_into_a_new_file(fake_agent_dir: Path, tmp_path: Path) -> None:
    db, new = tmp_path / "r.sqlite", tmp_path / "new.sqlite"
    _run_into(db, "sha256", "sha384")
    with sqlite3.connect(db) as c:  # damage the samples' pages only: every run and case survives
        root = c.execute("SELECT rootpage FROM sqlite_master WHERE name='samples'").fetchone()[0]
    c.close()
    _xor(db, range((root - 1) * 4096, (root - 1) * 4096 + 1))
    damaged = db.read_bytes()
    p = _cli(db, "db", "check", "--salvage", str(new))
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        f"salvaged into {new}: runs 1 row(s); run_libraries 1 row(s); checks 2 row(s); code_sizes 0 row(s);"
        " run_labels 5 row(s); run_board_profiles 0 row(s); cases 2 row(s); samples 0 row(s), then: database"
        " disk image is malformed; results 3 row(s); case_rounds 2 row(s)",
        f"check what it holds with: tlsbench runs --db {new}",
    ]
    assert db.read_bytes() == damaged
    assert _cli(new, "db", "check").stdout == f"{new}: ok (SQLite integrity_check)\n"
    store = Store(new, read_only=True)
    assert [(c["name"], c["status"]) for c in store.cases(1)] == [("openssl/hash/sha256/hash/64", "ok"),
                                                                   ("openssl/hash/sha384/hash/64", "failed")]
    store.close()
    again = _cli(db, "db", "check", "--salvage", str(new))  # never over a file
    assert again.stderr == (f"tlsbench: error: --salvage {new}: the file exists; give a new file (nothing is"
                            " overwritten)\n")


def _no_room() -> None:
    # a disk with no room left, for this process only: every write past 0 bytes fails (EFBIG)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def _cli_on_a_full_disk(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*tlsbench_cmd(), "--db", str(db), *args], capture_output=True, text=True, timeout=60,
                          preexec_fn=_no_room, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, cwd=db.parent)


def test_a_full_disk_leaves_no_new_database(fake_agent_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "new.sqlite"
    p = _cli_on_a_full_disk(db, "run", "--libraries", "openssl", "--algorithms", "sha256", "--no-progress")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == f"tlsbench: error: results database {db}: disk I/O error: the disk reported an error; check it\n"
    assert list(tmp_path.iterdir()) == [fake_agent_dir / "tlsbench-agent-openssl"]


def test_a_full_disk_leaves_no_empty_output_and_keeps_an_earlier_one(fake_agent_dir: Path, tmp_path: Path) -> None:
    db, out = tmp_path / "r.sqlite", tmp_path / "out.csv"
    _run_into(db, "sha256")
    stored = db.read_bytes()
    p = _cli_on_a_full_disk(db, "report", "--format", "csv", "-o", str(out))
    assert (p.returncode, p.stdout, p.stderr) == (2, "", f"tlsbench: error: cannot write {out}: File too large\n")
    assert not out.exists()
    out.write_text("an earlier report\n")
    assert _cli_on_a_full_disk(db, "report", "--format", "csv", "-o", str(out)).returncode == 2
    assert out.read_text() == "an earlier report\n" and db.read_bytes() == stored
    assert sorted(f.name for f in tmp_path.iterdir()) == ["out.csv", "r.sqlite", "tlsbench-agent-openssl"]


def test_the_run_lock_file_goes_when_the_run_ends(fake_agent_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    run_id = _run_into(db, "sha256")
    store = Store(db)
    with store.lock_run(run_id):
        assert (tmp_path / f"r.sqlite.run-{run_id}.lock").exists()
        with pytest.raises(StoreError) as held:
            with store.lock_run(run_id):
                pass
        assert str(held.value) == (f"run {run_id} is being measured by process {os.getpid()} on"
                                   f" {socket.gethostname()}; wait for it to finish (lock: {db}.run-{run_id}.lock)")
    store.close()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["r.sqlite", "tlsbench-agent-openssl"]


def test_an_absurd_plan_is_refused_with_its_size_before_anything_is_stored(tmp_path: Path) -> None:
    db, plan = tmp_path / "r.sqlite", tmp_path / "huge.toml"
    sizes = ", ".join(str(n) for n in range(1, 111_113))  # 9 hashes x 111,112 sizes: a million cases
    plan.write_text(f'name = "huge"\n[select]\nlibraries = ["openssl"]\nkinds = ["hash"]\nsizes = [{sizes}]\n')
    p = _cli(db, "run", "--plan", str(plan))
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"tlsbench: error: plan file {plan} expands to 1,000,008 cases, at least 33 hours of sampling:"
                        " more than --max-cases 20000; narrow it (fewer sizes, algorithms or libraries) or allow it"
                        " with --max-cases 1000008\n")
    assert sorted(tmp_path.iterdir()) == [plan]  # no database made for a run that never began


def test_max_cases_is_the_limit(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    p = _cli(db, "run", "--libraries", "openssl", "--algorithms", "sha256,sha512", "--sizes", "16,64",
             "--max-cases", "3")
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == ("tlsbench: error: plan 'default' expands to 4 cases, at least 1 s of sampling: more than"
                        " --max-cases 3; narrow it (fewer sizes, algorithms or libraries) or allow it with"
                        " --max-cases 4\n")
    assert list(tmp_path.iterdir()) == []


def test_the_case_count_is_the_expansions_length_for_every_preset() -> None:
    from tlsbench.engine import plan_size
    from tlsbench.plans.plan import load_preset, presets

    for name in presets():
        plan, _ = load_preset(name)
        plan.sizes = [*plan.sizes, 3, 5, 7]
        plan.tls.capacity_clients = [*plan.tls.capacity_clients, 33, 34]
        assert plan_size.case_count(plan, runner.expand) == len(runner.expand(plan)), name


def test_a_damaged_firmware_image_is_named_before_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tlsbench.targets import firmware
    from tlsbench.targets import target as targets

    monkeypatch.setenv("TLSBENCH_ROOT", str(tmp_path))
    monkeypatch.setattr(firmware, "inputs", lambda *a, **k: {"opt": "Os"})  # the build's other inputs: not at stake
    m3 = targets.parse("qemu:mps2-an385")
    image = m3.firmware_path("mbedtls")
    image.parent.mkdir(parents=True)
    image.write_bytes(b"\x7fELF" + bytes(4096))
    firmware.write_stamp(m3, "mbedtls", "Os")  # as a build does after linking the image
    assert firmware.damaged_image(m3, "mbedtls") is None
    image.write_bytes(image.read_bytes()[:1000])  # truncated, e.g. a copy cut short
    stamp = firmware.stamp_path(m3, "mbedtls").read_text()
    said = (f"firmware image {image} is damaged (SHA-256 differs from its build); rebuild with tlsbench build"
            " --target qemu:mps2-an385")
    assert firmware.damaged_image(m3, "mbedtls") == said
    # a run names it as the reason its cases cannot run, before starting the emulator
    monkeypatch.setattr(firmware, "ensure", lambda *a, **k: [])
    plan = Plan(name="fw", libraries=["mbedtls"], kinds=["hash"], algorithms=["sha256"], sizes=[64])
    session = runner._Session(None, 1, plan, {}, m3, None)  # type: ignore[arg-type]
    session.probe_libraries()
    assert session.unavailable == {"mbedtls": said}
    assert firmware.stamp_path(m3, "mbedtls").read_text() == stamp and len(image.read_bytes()) == 1000


def test_a_cmake_cache_from_before_the_checkout_moved_is_configured_afresh(tmp_path: Path,
                                                                            caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import shutil

    from tlsbench.targets import cmake_cache

    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed")
    old = tmp_path / "old"
    (old / "agent").mkdir(parents=True)
    (old / "agent" / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.13)\nproject(x NONE)\n")

    def configure(root: Path) -> subprocess.CompletedProcess:
        return subprocess.run(["cmake", "-S", str(root / "agent"), "-B", str(root / "build")], capture_output=True,
                              text=True, timeout=120)

    assert configure(old).returncode == 0
    new = tmp_path / "new"
    old.rename(new)  # the checkout moved
    assert configure(new).returncode != 0  # as CMake says: the cache names the old folders
    caplog.set_level(logging.INFO, logger="tlsbench")
    assert cmake_cache.drop_if_moved(new / "build", new / "agent")
    said = caplog.messages
    assert said == [f"{new}/build: its CMake cache was configured elsewhere (CMAKE_HOME_DIRECTORY {old}/agent,"
                    f" CMAKE_CACHEFILE_DIR {old}/build): configuring it afresh"]
    assert configure(new).returncode == 0
    assert not cmake_cache.drop_if_moved(new / "build", new / "agent") and len(caplog.messages) == 1


def test_a_short_seeded_fuzz_of_command_lines_finds_nothing() -> None:
    import sys

    script = Path(__file__).resolve().parent.parent / "scripts" / "fuzz-parsers"
    p = subprocess.run([sys.executable, str(script), "--lines", "0", "--plans", "0", "--boards", "0", "--args",
                        "200", "--seed", "1"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    last = p.stdout.splitlines()[-1]
    assert last.startswith("command lines: 200 mutated, ") and last.endswith(
        " refused in one line, 0 tracebacks or malformed errors")


def test_reading_a_postgresql_database_without_tlsbench_tables_adds_none(pg_server) -> None:
    import psycopg

    url = pg_server.new_database("not_tlsbench")
    shown = f"postgresql://tlsbench@127.0.0.1:{pg_server.port}/not_tlsbench"
    p = subprocess.run([*tlsbench_cmd(), "--db", url, "runs"], capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (f"tlsbench: error: results database {shown} has no tlsbench results (not a tlsbench"
                        " database, or empty); a run stores into it (tlsbench run), or give the --db of an earlier"
                        " run\n")
    with psycopg.connect(url) as db:
        assert db.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema='public'"
                          ).fetchone()[0] == 0


@pytest.mark.parametrize("library", ["x" * 300, "../../../etc", ""])
def test_a_profile_naming_no_library_is_one_line(library: str) -> None:
    from tlsbench.targets import target as targets

    with pytest.raises(PlanError) as e:
        targets.parse("qemu:mps2-an386", profiles=f"{library}=small")
    assert str(e.value) == f"--profile expects LIBRARY=PROFILE, e.g. mbedtls=small (got '{library}=small')"


def test_reading_after_a_writer_was_killed_mid_transaction_sees_what_was_committed(
        fake_agent_dir: Path, tmp_path: Path) -> None:
    import sys

    db = tmp_path / "r.sqlite"
    _run_into(db, "sha256")
    # a writer killed inside a transaction leaves a hot journal that a read-only connection cannot roll back
    killed = ("import os, sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute('PRAGMA cache_size=1')\n"
              "c.execute('BEGIN')\nfor i in range(5000):\n    c.execute(\"INSERT INTO run_labels VALUES (1, ?, ?)\","
              " (f'k{i}', 'v' * 200))\nos._exit(9)\n")
    assert subprocess.run([sys.executable, "-c", killed, str(db)], timeout=60).returncode == 9
    assert (tmp_path / "r.sqlite-journal").exists()
    p = _cli(db, "runs")
    assert p.returncode == 0, p.stderr
    header, row = p.stdout.splitlines()  # run 1, complete, without the killed transaction's labels
    assert row.split()[0] == "1" and row.split()[3] == "complete" and "k0=" not in row
    assert not (tmp_path / "r.sqlite-journal").exists()
