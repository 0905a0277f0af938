"""Code size per primitive (tlsbench sizes): the size probes of Mbed TLS and
wolfSSL build for qemu:mps2-an386 and run without faulting, every figure is
the probe image minus the empty image (checked by hand against
arm-none-eabi-size), composites are not smaller than their parts, and the
stored run renders and compares."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import builds_in_set_up, needs_tools
from images import M4

from tlsbench.engine.store import Store
from tlsbench.families.size import probes as sizeprobes
from tlsbench.report import compare
from tlsbench.report import tables as report
from tlsbench.targets import target as targets

pytestmark = [needs_tools("qemu-system-arm", "arm-none-eabi-gcc"), builds_in_set_up]


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Store, int]:
    store = Store(tmp_path_factory.mktemp("sizes") / "r.sqlite")
    run_id = sizeprobes.run(M4, store)
    return store, run_id


def _flash(store: Store, run_id: int) -> dict[tuple[str, str], int]:
    return {(r["library"], r["alg"]): int(r["median"]) for r in store.results(run_id) if r["metric"] == "flash_bytes"}


def test_every_probe_builds_and_runs_without_fault(stored) -> None:
    for lib, probe, exe in sizeprobes.manifest(M4.cmake_dir()):
        proc = subprocess.run(targets.qemu_command(M4.board, M4.cmake_dir() / exe), capture_output=True,
                              timeout=300, check=False)
        assert proc.returncode == 0, f"{lib}/{probe}: exit {proc.returncode}: {proc.stdout[-300:]!r}"
        assert b"fault" not in proc.stdout, f"{lib}/{probe} faulted: {proc.stdout[-300:]!r}"


def test_every_primitive_is_a_positive_size_or_unsupported(stored) -> None:
    store, run_id = stored
    cases = store.cases(run_id)
    assert {(c["library"], c["alg"]) for c in cases} == {
        (lib, p) for lib in ("mbedtls", "wolfssl") for p in sizeprobes.PRIMITIVES}
    flash = _flash(store, run_id)
    for c in cases:
        if c["status"] == "unsupported":
            assert sizeprobes.unsupported(c["library"], c["alg"]) == c["reason"] and c["reason"]
            assert (c["library"], c["alg"]) not in flash  # never a 0
        else:
            assert c["status"] == "ok"
            assert flash[(c["library"], c["alg"])] > 0, c["name"]
    assert ("mbedtls", "ed25519-sign") not in flash and ("wolfssl", "ed25519-sign") in flash


def test_a_composite_is_not_smaller_than_its_part(stored) -> None:
    store, run_id = stored
    f = _flash(store, run_id)
    for lib in ("mbedtls", "wolfssl"):
        assert f[(lib, "aes-128-cbc-hmac-sha1")] >= f[(lib, "aes-128-cbc")]
        assert f[(lib, "ecdsa-p256-sign-verify")] >= f[(lib, "ecdsa-p256-sign")]
        assert f[(lib, "ecdsa-p256-sign-verify")] >= f[(lib, "ecdsa-p256-verify")]
    assert f[("mbedtls", "aes-128-gcm")] >= f[("mbedtls", "aes-128")]
    assert f[("mbedtls", "aes-128-cbc")] >= f[("mbedtls", "aes-128")]
    assert f[("wolfssl", "ed25519-sign-verify")] >= f[("wolfssl", "ed25519-sign")]


def _size(path: Path) -> tuple[int, int, int]:
    line = subprocess.run(["arm-none-eabi-size", "-B", str(path)], capture_output=True, text=True,
                          check=True).stdout.splitlines()[1]
    text, data, bss = (int(v) for v in line.split()[:3])
    return text, data, bss


def test_the_empty_image_subtraction_by_hand(stored) -> None:
    """sha256 of Mbed TLS: (text + data) of the probe minus the empty
    probe's, less the probe's own object, is the stored flash figure."""
    store, run_id = stored
    d = M4.cmake_dir()
    t1, d1, b1 = _size(d / "tb-sizeprobe-mbedtls-sha256")
    t0, d0, b0 = _size(d / "tb-sizeprobe-mbedtls-empty")
    case = next(c for c in report.load(store, run_id).cases if c["name"] == "mbedtls/size/sha256/image")
    import json

    own = json.loads(case["params_json"])["probe_own"]
    assert case["results"]["flash_bytes"]["median"] == (t1 + d1) - (t0 + d0) - own["flash_bytes"]
    assert case["results"]["ram_bytes"]["median"] == (d1 + b1) - (d0 + b0) - own["ram_bytes"]
    # and the probe's own object is small next to what SHA-256 pulls in
    assert 0 < own["flash_bytes"] < case["results"]["flash_bytes"]["median"]


def test_the_stored_run_renders_and_compares(stored) -> None:
    store, run_id = stored
    data = report.load(store, run_id)
    text = report.render(data, "markdown")
    assert "plan code-size" in text and "| size | sha256 | image |" in text
    assert "unsupported" in text and "B flash" in text
    header, body = report.pivot(data)
    assert header[-2:] == ["mbedtls", "wolfssl"]
    result = compare.compare(store, run_id, run_id, metric="flash_bytes")
    ok = [r for r in result.rows if r.verdict not in ("not measured",)]
    assert ok and all(r.verdict == "same" for r in ok), {r.verdict for r in ok}


def test_a_probe_subset_keeps_the_table_order_and_an_unknown_name_lists_the_known() -> None:
    from tlsbench.errors import PlanError

    assert sizeprobes.chosen(["x25519", "sha256"]) == ("sha256", "x25519")
    assert sizeprobes.chosen(None) == tuple(sizeprobes.PRIMITIVES)
    with pytest.raises(PlanError, match=r"unknown size probe 'sha265'; known: drbg, sha256, sha512"):
        sizeprobes.chosen(["sha256", "sha265"])
