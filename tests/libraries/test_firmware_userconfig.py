"""A user's Mbed TLS overlay (2 KiB records each way, ECP window 2, no TLS 1.2)
on the emulated Cortex-M4, against our own build: its own image in a folder
keyed by the file's bytes, exact counts that differ from ours where the
overlay says they should and are identical run after run, TLS 1.2 cases
unsupported with the define named, and the file's text stored with the run."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest
from conftest import needs_tools
from plan_text import TLS12_SUITE, TLS13_SUITE, memory_tls, plan_text

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import target as targets
from tlsbench.targets import userconfig

pytestmark = needs_tools("qemu-system-arm", "arm-none-eabi-gcc")

OVERLAY = """/* a user's Mbed TLS overlay: small records, ECP window 2, no TLS 1.2, no 0-RTT (Mbed TLS's default) */
#define MBEDTLS_SSL_IN_CONTENT_LEN 2048
#define MBEDTLS_SSL_OUT_CONTENT_LEN 2048
#define MBEDTLS_ECP_WINDOW_SIZE 2
#undef MBEDTLS_SSL_PROTO_TLS1_2
#undef MBEDTLS_SSL_EARLY_DATA
"""
PLAN = plan_text("userconfig", select={"libraries": ["mbedtls"], "kinds": ["kex", "tls"], "algorithms": ["p256"]},
                 tls=memory_tls([TLS13_SUITE, TLS12_SUITE], ["p256"], ["full"]),
                 method={"warmup": 0, "repeats": 1, "rounds": 1, "outliers": "none", "timeout_s": 300})
TLS13 = "mbedtls/tls/TLS_AES_128_GCM_SHA256/p256/ecdsa-p256-full"
TLS12 = "mbedtls/tls/TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256/p256/ecdsa-p256-full"
# TLS 1.2 turned off by the overlay: the suite is unsupported, with the define named
TLS12_OFF = ("unsupported", "MBEDTLS_SSL_PROTO_TLS1_2 is off in your config (Mbed TLS (as configured) has no suite"
             " TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, object]:
    """Ours once, the overlay twice, in one store (one overlay image, built here when missing)."""
    folder = tmp_path_factory.mktemp("userconfig")
    overlay = folder / "my_mbedtls_config.h"
    overlay.write_text(OVERLAY)
    ours = targets.parse("qemu:mps2-an386")
    theirs = dataclasses.replace(ours, user=userconfig.parse([f"mbedtls={overlay}"], None))
    # ours and the overlay side by side in one run (the overlay as an alias): both images as built above
    paired = dataclasses.replace(ours, user=userconfig.parse([f"mbedtls@small={overlay}"], None))
    store = Store(folder / "r.sqlite")
    # "again" is measured again, never served from the result cache (it would repeat "theirs" then)
    ids = {name: runner.run(parse_plan(PLAN, "test plan"), PLAN, store, show_progress=False, target=t,
                            cache=name != "again")
           for name, t in (("ours", ours), ("theirs", theirs), ("again", theirs), ("paired", paired))}
    data = {name: report.load(store, run_id) for name, run_id in ids.items()}
    store.close()
    return {"overlay": overlay, "ours": ours, "theirs": theirs, "paired": paired, "store": folder / "r.sqlite",
            "ids": ids, **{f"{k} run": v for k, v in data.items()}}


def _case(data, name: str) -> dict:
    return next(c for c in data.cases if c["name"] == name)


def _counts(data) -> dict[tuple[str, str], float]:
    return {(c["name"], m): r["median"] for c in data.cases for m, r in c["results"].items()}


def test_the_overlay_has_its_own_image_beside_ours(runs) -> None:
    ours, theirs = runs["ours"], runs["theirs"]
    assert theirs.build_name == "qemu-mps2-an386" + userconfig.suffix(theirs.user)
    assert ours.firmware_path("mbedtls").exists() and theirs.firmware_path("mbedtls").exists()
    assert ours.firmware_path("mbedtls").read_bytes() != theirs.firmware_path("mbedtls").read_bytes()


def test_two_runs_of_the_overlay_give_identical_counts(runs) -> None:
    assert _counts(runs["theirs run"]) == _counts(runs["again run"])
    assert _counts(runs["theirs run"])
    store = Store(runs["store"], read_only=True)
    assert store.reuse_marks(runs["ids"]["again"]) == {}  # both measured
    store.close()


def test_the_overlay_changes_what_it_should(runs) -> None:
    ours, theirs = _case(runs["ours run"], TLS13)["results"], _case(runs["theirs run"], TLS13)["results"]
    # 2 KiB record buffers each way instead of 16 KiB, and the 40 bytes of 0-RTT state the client's handshake
    # no longer holds (exact: the same work otherwise; 40952 with 0-RTT on)
    assert ours["client_heap_peak_bytes"]["median"] - theirs["client_heap_peak_bytes"]["median"] == 40992
    assert ours["server_heap_peak_bytes"]["median"] > theirs["server_heap_peak_bytes"]["median"]
    # ECP window 2 instead of 4: more point additions per scalar multiplication
    derive = "mbedtls/kex/p256/derive"
    assert (_case(runs["theirs run"], derive)["results"]["instructions"]["median"]
            > _case(runs["ours run"], derive)["results"]["instructions"]["median"])
    # the handshake's bytes on the wire are the same
    assert theirs["c2s_bytes"]["median"] == ours["c2s_bytes"]["median"]


def test_tls12_turned_off_is_unsupported_with_the_define_named(runs) -> None:
    assert _case(runs["ours run"], TLS12)["status"] == "ok"
    case = _case(runs["theirs run"], TLS12)
    assert (case["status"], case["reason"]) == TLS12_OFF


def test_the_run_stores_the_files_text_and_hash(runs) -> None:
    record = runs["theirs run"].run.machine["user_build"]
    assert record == {"configs": {"mbedtls": {"path": str(runs["overlay"]), "full": False, "text": OVERLAY,
                                              "sha256": hashlib.sha256(OVERLAY.encode()).hexdigest()}},
                      "cflags": []}
    assert "user_build" not in runs["ours run"].run.machine


def test_a_rebuild_happens_only_when_an_input_changed(runs) -> None:
    from tlsbench.targets import firmware

    assert firmware.stale(runs["theirs"], ["mbedtls"]) == {}
    assert firmware.stale(runs["ours"], ["mbedtls"]) == {}
    assert firmware.read_stamp(runs["theirs"], "mbedtls")["user"] == userconfig.digest(runs["theirs"].user)
    assert "user" not in firmware.read_stamp(runs["ours"], "mbedtls")


def test_the_overlay_in_another_folder_is_the_same_image(runs, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere.h"
    moved.write_text(OVERLAY)
    elsewhere = dataclasses.replace(runs["ours"], user=userconfig.parse([f"mbedtls={moved}"], None))
    assert elsewhere.build_name == runs["theirs"].build_name


def test_two_configurations_of_one_library_in_one_run(runs) -> None:
    """The alias is its own library column with its own image (the overlay's, reused: the same inputs),
    each measured exactly as in its own run."""
    paired, data = runs["paired"], runs["paired run"]
    assert [lib["library"] for lib in data.libraries] == ["mbedtls", "mbedtls@small"]
    assert paired.firmware_path("mbedtls") == runs["ours"].firmware_path("mbedtls")
    assert paired.firmware_path("mbedtls@small") == runs["theirs"].firmware_path("mbedtls")
    counts = _counts(data)
    mine = {(n, m): v for (n, m), v in counts.items() if n.startswith("mbedtls/")}
    alias = {(n.replace("mbedtls@small/", "mbedtls/"), m): v for (n, m), v in counts.items()
             if n.startswith("mbedtls@small/")}
    assert mine == _counts(runs["ours run"])
    assert alias == {k: v for k, v in _counts(runs["theirs run"]).items() if k[0] != TLS12}
    assert ours_minus_theirs(mine, alias, TLS13, "client_heap_peak_bytes") == 40992
    case = _case(data, TLS12.replace("mbedtls/", "mbedtls@small/"))
    assert (case["status"], case["reason"]) == TLS12_OFF


def ours_minus_theirs(mine: dict, alias: dict, case: str, metric: str) -> float:
    return mine[(case, metric)] - alias[(case, metric)]


def test_the_alias_has_its_own_label_and_compare_sets_it_beside_its_library(runs) -> None:
    from tlsbench.engine import labels
    from tlsbench.report import compare

    recorded = labels.recorded(runs["paired run"].run.machine)
    sha = hashlib.sha256(OVERLAY.encode()).hexdigest()
    assert recorded["build.config.mbedtls@small"] == sha[:16] and "build.config.mbedtls" not in recorded
    store = Store(runs["store"], read_only=True)
    run_id = runs["ids"]["paired"]
    result = compare.compare(store, run_id, run_id, versions=("mbedtls", "mbedtls@small"))
    store.close()
    assert result.context_differences[:2] == [
        f"mbedtls your config file: - -> my_mbedtls_config.h (layered over ours, sha256 {sha[:16]})",
        "mbedtls your config: + /* a user's Mbed TLS overlay: small records, ECP window 2, no TLS 1.2, no 0-RTT"
        " (Mbed TLS's default) */"]
    exact = {(r.name, r.metric): r for r in result.exact}
    derive = exact[("mbedtls/kex/p256/derive", "instructions")]
    ours, theirs = _counts(runs["ours run"]), _counts(runs["theirs run"])
    assert (derive.verdict, derive.a, derive.b) == ("changed", ours[(derive.name, "instructions")],
                                                    theirs[(derive.name, "instructions")])
    assert derive.b > derive.a  # ECP window 2: more point additions
