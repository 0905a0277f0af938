"""Exact counts at scale: `run --jobs N` measures N emulator sessions at once
and stores them in plan order with the counts of one at a time; the result
cache reuses an outcome only when every input that decides it is the same,
and marks what it reused in the store, the --json lines and the report."""

from __future__ import annotations

import dataclasses
import inspect
import io
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import needs_tools
from plan_text import one_size_plan

from tlsbench.engine import parallel, result_cache, runner
from tlsbench.engine.case import Case, Measured
from tlsbench.engine.store import Store
from tlsbench.errors import PlanError
from tlsbench.plans import runenv
from tlsbench.plans.plan import Plan, parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import boardprofiles, cyclemodel
from tlsbench.targets import target as targets

M4 = targets.parse("qemu:mps2-an386")
# two cheap cases: one hash of 64 bytes in each library
PLAN = one_size_plan("exact-runs", ["mbedtls", "wolfssl"], "hash", ["sha256"], repeats=2, warmup=0,
                     timeout_s=300)


def _run(store: Store, target: targets.Target, plan_text: str = PLAN, **how) -> int:
    return runner.run(parse_plan(plan_text, "test plan"), plan_text, store, show_progress=False, quiet=True,
                      target=target, **how)


def _samples(store: Store, run_id: int) -> dict[str, list[tuple]]:
    """case name -> its stored batches (every counter), in case order."""
    return {c["name"]: [tuple(s) for s in store.db.execute(
        "SELECT idx, warmup, iters, counter, total FROM samples WHERE case_id=? ORDER BY warmup, idx, counter",
        (c["id"],))] for c in store.cases(run_id)}


def _results(store: Store, run_id: int) -> dict[tuple[str, str], tuple]:
    return {(r["name"], r["metric"]): (r["status"], r["unit"], r["n"], r["removed"], r["median"], r["mean"],
                                       r["stdev"], r["min"], r["max"], r["ci95_low"], r["ci95_high"])
            for r in store.results(run_id)}


# ---- without an emulator ----

def test_every_input_of_the_key_changes_it() -> None:
    """A part that changes gives another key: changed input is never served from the cache."""
    case = Case("mbedtls", "hash", "sha256", "hash", 64)
    base = dict(case=case, rnd=0, family_module="tlsbench.families.primitive.family", target_name="qemu:mps2-an386",
                build_name="qemu-mps2-an386", image_sha256="a" * 64, emulator="QEMU 7.2 -icount shift=7",
                plugin_sha256="b" * 64, board_profile_text="name = 'x'\n", method={"repeats": 3}, tls={"bulk_kib": 16},
                material={"seed": 1})
    changed = dict(case=Case("mbedtls", "hash", "sha256", "hash", 1024), rnd=1,
                   family_module="tlsbench.families.tls.family", target_name="qemu:mps2-an500",
                   build_name="qemu-mps2-an386-mbedtls.small", image_sha256="c" * 64,
                   emulator="QEMU 8.0 -icount shift=7",
                   plugin_sha256="d" * 64, board_profile_text="name = 'x'\n# edited\n", method={"repeats": 2},
                   tls={"bulk_kib": 1}, material={"seed": 2})
    assert set(changed) == set(inspect.signature(result_cache.key_parts).parameters)  # no input left untried
    key = result_cache.key_of(result_cache.key_parts(**base))
    assert key == result_cache.key_of(result_cache.key_parts(**dict(base)))
    for name, value in changed.items():
        parts = result_cache.key_parts(**{**base, name: value})
        assert result_cache.key_of(parts) != key, name
    assert result_cache.key_parts(**base)["protocol_version"] == "2"  # the agent protocol (no_room in end records)


def test_side_by_side_stores_in_plan_order() -> None:
    """The first case finishes last (it waits for the others): still stored first."""
    cases = [Case("mbedtls", "hash", "sha256", "hash", s) for s in (64, 128, 256)]
    later_done = threading.Event()
    finished: list[int] = []

    def measure(case: Case, rnd: int) -> Measured:
        if case.size == 64:
            assert later_done.wait(60)
        elif case.size == 256:
            later_done.set()
        finished.append(case.size or 0)
        return Measured("ok", "", 1, "", [], [])

    stored: list[int] = []
    parallel.measure_in_order([(0, c) for c in cases], 3, lambda r, c: True, lambda c, r: None, measure,
                              lambda c, r, m, t: stored.append(c.size or 0), lambda c: None)
    assert finished[-1] == 64
    assert stored == [64, 128, 256]


def test_a_stop_stores_what_finished_once_in_plan_order() -> None:
    """Ctrl-C while the second outcome is being stored: what finished is stored once each, in plan order."""
    cases = [Case("mbedtls", "hash", "sha256", "hash", s) for s in (64, 128, 256, 512)]
    stored: list[int] = []
    calls = 0

    def store(case: Case, rnd: int, m: Measured, started: float) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt
        stored.append(case.size or 0)

    with pytest.raises(KeyboardInterrupt):
        parallel.measure_in_order([(0, c) for c in cases], 2, lambda r, c: (c.size or 0) not in stored,
                                  lambda c, r: None, lambda c, r: Measured("ok", "", 1, "", [], []), store,
                                  lambda c: None)
    assert stored[:2] == [64, 128] and stored == sorted(set(stored))


def test_host_timings_refuse_more_than_one_job(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = subprocess.run([sys.executable, "-m", "tlsbench.cli", "--db", str(db), "run", "--jobs", "2",
                           "--preset", "quick"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ("tlsbench: error: --jobs 2: its metrics are timed on a clock, which a case running beside"
                           " it would slow: one case at a time; give --jobs 1 or leave it out\n")
    assert not db.exists()  # refused before anything was stored
    assert parallel.checked_jobs(None, targets.HOST.one_at_a_time()) == 1
    with pytest.raises(PlanError, match=r"^--jobs 0: give a number of sessions of 1 or more$"):
        parallel.checked_jobs(0, None)


# ---- on the emulated Cortex-M4 ----

emulated = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")


@pytest.fixture(scope="module")
def firmware(firmware_images) -> targets.Target:
    return firmware_images(M4, ["mbedtls", "wolfssl"])


@pytest.fixture(scope="module")
def measured(firmware, tmp_path_factory) -> tuple[Store, int, int]:
    """One run measured one case at a time, then the same plan two at a time, neither from the cache."""
    store = Store(tmp_path_factory.mktemp("exact") / "r.sqlite")
    alone = _run(store, firmware, jobs=1, cache=False)
    side_by_side = _run(store, firmware, jobs=2, cache=False)
    return store, alone, side_by_side


@emulated
def test_two_jobs_count_what_one_does_in_plan_order(measured) -> None:
    store, alone, side_by_side = measured
    assert _samples(store, side_by_side) == _samples(store, alone)
    assert _results(store, side_by_side) == _results(store, alone)
    order = [c.name for c in runner.expand(parse_plan(PLAN, "test plan"))]
    for run_id in (alone, side_by_side):
        assert [c["name"] for c in store.cases(run_id)] == order  # case ids follow the plan
        assert {c["status"] for c in store.cases(run_id)} == {"ok"}
    assert store.reuse_marks(side_by_side) == {}  # cache=False (--no-cache): measured again


@emulated
def test_a_rerun_reuses_every_case_marked_and_equal(measured, firmware) -> None:
    store, alone, _ = measured
    out = io.StringIO()
    again = runner.run(parse_plan(PLAN, "test plan"), PLAN, store, show_progress=False, quiet=True,
                       target=firmware, jobs=2, json_out=out)
    first = {c["name"]: c["id"] for c in store.cases(alone)}
    marks = store.reuse_marks(again)
    assert set(marks) == set(first)
    assert all(store.db.execute("SELECT reused_from IS NULL FROM cases WHERE id=?", (i,)).fetchone()[0]
               for i in marks.values())  # copied from a measured case, never from a copy
    assert _samples(store, again) == _samples(store, alone)
    assert _results(store, again) == _results(store, alone)
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert rows and all(r["reused"] is True for r in rows)
    text = report.render(report.load(store, again), "table")
    assert f"REUSED: 2 of 2 cases reused from the result cache, marked {report.REUSED_MARK}" in text
    assert text.count(report.REUSED_MARK) == 1 + 2  # the legend and each case's cell
    assert report.REUSED_MARK not in report.render(report.load(store, alone), "table")


@emulated
def test_changed_inputs_are_measured_again(measured, firmware, tmp_path: Path) -> None:
    """Another method (repeats), a board profile (the cycle-model plugin), an edited profile, another
    image's hash: none is served from the cache."""
    store, alone, _ = measured
    other_method = _run(store, firmware, PLAN.replace("repeats = 2", "repeats = 1"), jobs=2)
    assert store.reuse_marks(other_method) == {}

    profile = boardprofiles.resolve("nucleo-f446re")
    cyclemodel.build_plugin()
    with runenv.applied(cyclemodel.run_env(profile)):
        modelled = _run(store, firmware, jobs=2)
    assert store.reuse_marks(modelled) == {}
    edited = tmp_path / "my-f446re.toml"
    edited.write_text(profile.text + "\n# edited: the same numbers, another text\n")
    with runenv.applied(cyclemodel.run_env(boardprofiles.resolve(str(edited)))):
        modelled_again = _run(store, firmware, jobs=2)
    assert store.reuse_marks(modelled_again) == {}
    with runenv.applied(cyclemodel.run_env(profile)):  # the first profile again: its run is reused
        reused = _run(store, firmware, jobs=2)
    assert set(store.reuse_marks(reused)) == {c["name"] for c in store.cases(modelled)}

    # another image: the same case's key with another SHA-256 finds nothing
    stored = store.get_run(alone)
    session = runner._Session(store, alone, Plan.from_dict(stored.plan), stored.keys, firmware, None)
    session.infos = {"mbedtls": firmware.probe_library("mbedtls")}
    session.use_cache(True)
    case = runner.expand(parse_plan(PLAN, "p"))[0]
    assert session.reused(case, 0) is not None
    session.infos["mbedtls"] = dataclasses.replace(session.infos["mbedtls"], agent_sha256="0" * 64)
    assert session.reused(case, 0) is None


def _emulator_starts_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """qemu-system-arm on PATH answers --version as the real one (its line is part of every key) and fails
    any other start, writing its arguments to the file returned."""
    real = shutil.which("qemu-system-arm")
    assert real is not None
    starts = tmp_path / "emulator-starts"
    fake = tmp_path / "bin" / "qemu-system-arm"
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport os, sys\n"
                    f"if sys.argv[1:] == ['--version']:\n    os.execv({real!r}, [{real!r}, '--version'])\n"
                    f"with open({str(starts)!r}, 'a') as f:\n    f.write(' '.join(sys.argv[1:]) + '\\n')\n"
                    "sys.exit(1)\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    return starts


def _images_one_byte_longer(target: targets.Target, folder: Path) -> targets.Target:
    """The target with its images copied into ``folder``, a byte appended to each: another SHA-256, the
    same program (its linker maps copied as they are)."""

    class Copied(type(target)):  # type: ignore[misc,valid-type]
        def build_dir(self) -> Path:
            return folder

        def prepare_images(self, libraries: list[str]) -> None:
            return None  # copied, never built here

    copied = Copied(**{f.name: getattr(target, f.name) for f in dataclasses.fields(target)})
    for lib in ("mbedtls", "wolfssl"):
        copied.firmware_path(lib).parent.mkdir(parents=True, exist_ok=True)
        copied.firmware_path(lib).write_bytes(target.firmware_path(lib).read_bytes() + b"\0")
        copied.map_path(lib).write_bytes(target.map_path(lib).read_bytes())
    return copied


@emulated
def test_a_cached_session_starts_no_emulator_and_a_changed_image_does(
        measured, firmware, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case of the plan in the cache: the run starts no emulator (the probe's answers are stored under
    the image's SHA-256 too) and stores what the measured run did. An image one byte longer is asked
    and measured again: nothing of it comes from the cache."""
    store, alone, _ = measured
    starts = _emulator_starts_recorded(tmp_path, monkeypatch)
    again = _run(store, firmware, jobs=1)
    assert not starts.exists()
    assert set(store.reuse_marks(again)) == {c["name"] for c in store.cases(alone)}
    assert _results(store, again) == _results(store, alone)
    libs = "SELECT library, version, config, agent_sha256, counters, counters_missing_json FROM run_libraries" \
           " WHERE run_id=? ORDER BY library"
    assert [tuple(r) for r in store.db.execute(libs, (again,))] == [tuple(r) for r in store.db.execute(libs, (alone,))]

    changed = _images_one_byte_longer(firmware, tmp_path / "changed")
    other = _run(store, changed, jobs=1)
    assert store.reuse_marks(other) == {}
    asked = starts.read_text().splitlines()
    assert {line.split("-kernel ")[1] for line in asked} == {str(changed.firmware_path(lib))
                                                             for lib in ("mbedtls", "wolfssl")}
    assert {(c["status"], c["reason"].split(":")[0]) for c in store.cases(other)} == {("failed", "agent unavailable")}


@emulated
def test_checks_run_for_the_cases_the_cache_cannot_serve(measured, firmware) -> None:
    """A case served from the cache was measured after its checks passed under the same key: only the
    others are checked (all of them with --no-cache)."""
    store, alone, _ = measured
    stored = store.get_run(alone)
    session = runner._Session(store, alone, Plan.from_dict(stored.plan), stored.keys, firmware, None)
    session.use_cache(True)
    session.infos = {lib: session._probed(lib) for lib in ("mbedtls", "wolfssl")}  # the stored answers
    cases = runner.expand(parse_plan(PLAN, "p"))
    assert session.to_check(cases) == []
    session.infos["wolfssl"] = dataclasses.replace(session.infos["wolfssl"], agent_sha256="0" * 64)
    assert [c.library for c in session.to_check(cases)] == ["wolfssl"]
    session.use_cache(False)
    assert session.to_check(cases) == cases
