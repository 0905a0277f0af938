"""Firmware on demand: a run on an emulated board builds missing or stale
images itself. The decision is a pure function of the stamp written at
build time and the present inputs; the end-to-end test runs a plan in a
checkout whose build folder is empty."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import pytest
from conftest import needs_tools
from plan_text import one_size_plan

from tlsbench import paths
from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import build, firmware
from tlsbench.targets import target as targets

M3 = targets.parse("qemu:mps2-an385")


def _now(**changed: str) -> dict[str, str]:
    base = {"opt": "Os", "agent": "a", "library": "l", "profile": "p", "options": "o", "toolchain": "t"}
    return {**base, **changed}


def test_the_decision_names_what_changed() -> None:
    now = _now()
    assert firmware.why_stale(None, False, now) == "never built"
    assert firmware.why_stale(None, True, now) == "built without a record of its inputs"
    assert firmware.why_stale(dict(now), True, now) is None
    assert firmware.why_stale(_now(agent="x"), True, now) == "agent sources changed"
    assert firmware.why_stale(_now(toolchain="x", profile="y"), True, now) == "build profile, toolchain changed"
    assert firmware.why_stale(_now(library="x"), True, now) == "library source tree changed"
    assert firmware.why_stale(_now(options="x"), True, now) == "CMake options changed"


def test_a_changed_source_changes_the_agent_hash(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    shutil.copytree(paths.root() / "agent", agent)
    before = firmware.agent_sources_hash(agent)
    assert firmware.agent_sources_hash(agent) == before  # a pure function of the files
    tls = agent / "core" / "tls.c"
    tls.write_text(tls.read_text() + "\n/* one more line */\n")
    assert firmware.agent_sources_hash(agent) != before
    (agent / "core" / "tls.c").rename(agent / "core" / "tls2.c")  # a renamed file is a change too
    assert firmware.agent_sources_hash(agent) not in (before,)


def test_profiles_and_options_enter_the_inputs() -> None:
    small = targets.parse("qemu:mps2-an385", profiles="mbedtls=small")
    a = firmware.inputs(M3, "mbedtls", "Os", agent_hash="h", toolchain="gcc")
    b = firmware.inputs(small, "mbedtls", "Os", agent_hash="h", toolchain="gcc")
    c = firmware.inputs(M3, "mbedtls", "O2", agent_hash="h", toolchain="gcc")
    d = firmware.inputs(M3, "wolfssl", "Os", agent_hash="h", toolchain="gcc")
    assert a["profile"] != b["profile"] and a["options"] == b["options"]
    assert a["options"] != c["options"]
    assert a["library"] != d["library"]
    assert firmware.inputs(M3, "mbedtls", "Os", agent_hash="h", toolchain="gcc 13") != a


# any library shows it: Mbed TLS, whose image builds in less CPU than wolfSSL's
PLAN = one_size_plan("on-demand", ["mbedtls"], "hash", ["sha256"], repeats=1, warmup=0, timeout_s=300)


@needs_tools("qemu-system-arm", "arm-none-eabi-gcc")
def test_a_run_on_a_board_never_built_builds_its_firmware(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tlsbench")
    root = tmp_path / "checkout"
    root.mkdir()
    real = paths.root()
    for name in ("agent", "third_party", "libraries.lock.toml"):  # the sources, not the builds
        os.symlink(real / name, root / name)
    monkeypatch.setenv("TLSBENCH_ROOT", str(root))
    target = targets.parse("qemu:mps2-an385")
    assert not target.firmware_path("mbedtls").exists()
    store = Store(tmp_path / "r.sqlite")
    plan = parse_plan(PLAN, "test plan")
    run_id = runner.run(plan, PLAN, store, show_progress=False, target=target)
    cases = report.load(store, run_id).cases
    assert [(c["name"], c["status"]) for c in cases] == [("mbedtls/hash/sha256/hash/64", "ok")]
    assert "firmware for qemu:mps2-an385: mbedtls: never built: building it" in caplog.messages
    # now fresh: nothing to build; a changed input makes it stale again
    assert firmware.stale(target, ["mbedtls", "selftest"]) == {}
    assert firmware.stale(target, ["mbedtls"], agent_hash="other")["mbedtls"][0] == "agent sources changed"
    store.close()


def test_a_host_target_builds_no_firmware(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tlsbench")
    assert firmware.ensure(targets.HOST, ["mbedtls"], build.build_firmware) == []
    assert caplog.messages == []
