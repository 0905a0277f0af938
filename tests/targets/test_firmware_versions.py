"""Library versions on firmware, by name: a plan naming Mbed TLS 3.6.6 and
3.6.7 runs each from its own image on qemu:mps2-an386 (built on demand),
stores both with their versions and code sizes, counts exactly the same
instructions in two runs, and counts differently where the code differs
(3.6.7 rewrote the ECP reduction X25519 uses); compare --versions matches the
two case by case. A further version's size probes are their own images."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools
from images import M4

from tlsbench import paths, versions
from tlsbench.cli import main
from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.families.size import probes as sizeprobes
from tlsbench.plans.plan import parse_plan
from tlsbench.report import compare
from tlsbench.targets import build, firmware

pytestmark = builds_in_set_up

# by their labels, so the test reads the same whichever of the two is the default
OLD, NEW = versions.canonical("mbedtls@3.6"), versions.canonical("mbedtls@3.6.7")
PLAN = f"""
name = "firmware-versions"
[select]
libraries = ["{OLD}", "{NEW}"]
kinds = ["kex"]
algorithms = ["x25519"]
ops = ["exchange"]
[method]
repeats = 2
warmup = 1  # the first operation of an image counts a few instructions apart (as the cortex-m plan, warm up once)
rounds = 1
timeout_s = 300
"""
DERIVE = "kex/x25519/exchange"  # a key pair and a shared secret
# measured on qemu:mps2-an386 (-Os, arm-none-eabi-gcc 12.2.1), in this test and by
# `tlsbench run --target qemu:mps2-an386 --libraries mbedtls,mbedtls@3.6.7 --kinds kex --algorithms x25519
# --ops exchange`, every repeat alike
EXCHANGE = {"3.6.6": 23_067_506, "3.6.7": 15_974_389}


def test_each_version_is_its_own_image_with_its_own_stamp() -> None:
    assert M4.firmware_path(OLD) != M4.firmware_path(NEW)
    assert firmware.stamp_path(M4, OLD) != firmware.stamp_path(M4, NEW)
    old = firmware.inputs(M4, OLD, "Os", agent_hash="h", toolchain="gcc")
    new = firmware.inputs(M4, NEW, "Os", agent_hash="h", toolchain="gcc")
    assert old["library"] != new["library"]  # a stale tree of one version never passes for the other's
    assert {k: v for k, v in old.items() if k != "library"} == {k: v for k, v in new.items() if k != "library"}
    assert build.firmware_identifiers(["mbedtls@3.6", "mbedtls@3.6.7"]) == [OLD, NEW]
    assert sorted(build.firmware_versions()) == sorted(
        versions.identifier(v) for lib in build.FIRMWARE_LIBRARIES for v in versions.VERSIONS[lib])


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Store, int, int]:
    store = Store(tmp_path_factory.mktemp("fwversions") / "r.sqlite")
    ids = [runner.run(parse_plan(PLAN, "test plan"), PLAN, store, show_progress=False, target=M4) for _ in (1, 2)]
    yield store, ids[0], ids[1]
    store.close()


def _exchange(store: Store, run_id: int) -> dict[str, list[float]]:
    return {name.split("/", 1)[0]: values
            for name, (status, values) in store.per_op_values(run_id, "instructions").items()
            if name.endswith(DERIVE) and status == "ok"}


@needs_tools("qemu-system-arm", "arm-none-eabi-gcc")
def test_a_run_naming_two_versions_stores_both_with_their_versions(two_runs) -> None:
    store, first, _second = two_runs
    libs = {r["library"]: r for r in store.libraries(first)}
    assert set(libs) == {OLD, NEW}
    assert libs[OLD]["version"].startswith("Mbed TLS 3.6.6") and libs[NEW]["version"].startswith("Mbed TLS 3.6.7")
    assert "mbedtls_3.6.6.orig" in libs[OLD]["source"] and "mbedtls_3.6.7.orig" in libs[NEW]["source"]
    assert libs[OLD]["agent_sha256"] != libs[NEW]["agent_sha256"]
    assert {r["library"] for r in store.code_sizes(first)} == {OLD, NEW}
    assert {(c["library"], c["status"]) for c in store.cases(first)} == {(OLD, "ok"), (NEW, "ok")}
    assert firmware.stale(M4, [OLD, NEW]) == {}  # both images built on demand, each with its stamp


@needs_tools("qemu-system-arm", "arm-none-eabi-gcc")
def test_exact_counts_repeat_and_differ_where_the_code_differs(two_runs) -> None:
    store, first, second = two_runs
    a, b = _exchange(store, first), _exchange(store, second)
    assert a == b  # two runs, the same instructions to the last one
    # and every repeat; 3.6.7 replaced the ECP reduction X25519 uses
    assert a == {OLD: [EXCHANGE["3.6.6"]] * 2, NEW: [EXCHANGE["3.6.7"]] * 2}


@needs_tools("qemu-system-arm", "arm-none-eabi-gcc")
def test_compare_versions_on_firmware_runs(two_runs, capsys: pytest.CaptureFixture[str]) -> None:
    store, first, second = two_runs
    result = compare.compare(store, first, second, versions=(OLD, NEW))
    [row] = [r for r in result.exact if r.name == f"mbedtls/{DERIVE}" and r.metric == "instructions"]
    assert (row.verdict, row.a, row.b) == ("changed", EXCHANGE["3.6.6"], EXCHANGE["3.6.7"])
    assert any(d.startswith("mbedtls version: Mbed TLS 3.6.6") and "Mbed TLS 3.6.7" in d
               for d in result.context_differences)
    assert main(["--db", str(store.path), "compare", str(first), str(second), "--versions",
                 "mbedtls@3.6,mbedtls@3.6.7"]) == 0
    assert f"mbedtls/{DERIVE}" in capsys.readouterr().out


@needs_tools("arm-none-eabi-gcc", "cmake")
def test_a_further_version_has_its_own_size_probes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "checkout"  # configured only (no compile), away from the real build folders
    root.mkdir()
    for name in ("agent", "third_party", "libraries.lock.toml"):
        os.symlink(paths.root() / name, root / name)
    monkeypatch.setenv("TLSBENCH_ROOT", str(root))
    libs = build.firmware_identifiers(["wolfssl@5.7", "wolfssl@5.9"])
    folder = build.configure_firmware(M4, libs, size_probes=True)
    probes = {(lib, probe): exe for lib, probe, exe in sizeprobes.manifest(folder)}
    for lib in libs:
        pq = "kem" in versions.version_of(lib).features
        exe = f"tb-sizeprobe-{lib.replace('@', '-')}"
        assert probes[(lib, "sha256")] == f"{exe}-sha256" and probes[(lib, "empty")] == f"{exe}-empty"
        assert ((lib, "mlkem768") in probes) == pq, lib
        assert (sizeprobes.unsupported(lib, "mlkem768") is None) == pq, lib
    old = next(lib for lib in libs if "kem" not in versions.version_of(lib).features)
    assert sizeprobes.unsupported(old, "mldsa44").endswith(f"; {versions.canonical('wolfssl@5.9')} has")
