"""The same Mbed TLS overlay on the host, with a wolfSSL user_settings.h
overlay beside it: their agents in one folder keyed by both files' bytes,
every agent of the run from that folder, what they turn off unsupported with
the define named, and the record buffers' 2 x 14 KiB gone from the
handshake's heap."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import needs_tools
from plan_text import one_size_plan
from test_firmware_userconfig import OVERLAY, PLAN, TLS12, TLS12_OFF, TLS13, _case

from tlsbench.engine import runner
from tlsbench.engine.store import Store
from tlsbench.plans.plan import parse_plan
from tlsbench.report import tables as report
from tlsbench.targets import build, userconfig
from tlsbench.targets import target as targets

pytestmark = needs_tools("cc", "cmake")

WOLFSSL_SETTINGS = """/* a user's wolfSSL settings over ours: SP maths small, no ChaCha20-Poly1305 */
#define WOLFSSL_SP_SMALL
#undef HAVE_CHACHA
#undef HAVE_POLY1305
"""
WOLFSSL_PLAN = one_size_plan("wolfssl-userconfig", ["wolfssl"], "aead", ["chacha20-poly1305", "aes-128-gcm"],
                             warmup=0, repeats=1, rounds=1, outliers="none", min_sample_ms=1)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("host-userconfig")
    overlay, settings = folder / "my_mbedtls_config.h", folder / "my_settings.h"
    overlay.write_text(OVERLAY)
    settings.write_text(WOLFSSL_SETTINGS)
    theirs = dataclasses.replace(targets.HOST, user=userconfig.parse([f"mbedtls={overlay}",
                                                                      f"wolfssl={settings}"], None))
    build.ensure_host_agents(theirs, ["mbedtls", "wolfssl"])
    # our wolfSSL and the user's settings side by side in one run (the settings as an alias)
    paired = dataclasses.replace(targets.HOST, user=userconfig.parse([f"wolfssl@small={settings}"], None))
    paired.prepare_user_build(["wolfssl"])
    store = Store(folder / "r.sqlite")
    ids = {name: runner.run(parse_plan(plan, "test plan"), plan, store, show_progress=False, target=t)
           for name, t, plan in (("ours", targets.HOST, PLAN), ("theirs", theirs, PLAN),
                                 ("wolfssl", theirs, WOLFSSL_PLAN), ("paired", paired, WOLFSSL_PLAN))}
    data = {name: report.load(store, run_id) for name, run_id in ids.items()}
    store.close()
    return {"target": theirs, "paired target": paired, **data}


def test_the_overlay_agent_lives_in_its_own_folder(runs) -> None:
    theirs = runs["target"]
    assert theirs.build_name == "host" + userconfig.suffix(theirs.user)
    assert theirs.agent_path("mbedtls") == theirs.build_dir() / "tlsbench-agent-mbedtls"
    assert targets.HOST.agent_path("mbedtls").parent.name == "host"
    assert theirs.user.configs[0].sha256 in runs["theirs"].libraries[0]["config"]
    assert "user's configuration" not in runs["ours"].libraries[0]["config"]


def test_tls12_turned_off_on_the_host_names_the_define(runs) -> None:
    assert _case(runs["ours"], TLS12)["status"] == "ok"
    case = _case(runs["theirs"], TLS12)
    assert (case["status"], case["reason"]) == TLS12_OFF


def test_the_smaller_records_leave_the_handshakes_heap(runs) -> None:
    ours, theirs = _case(runs["ours"], TLS13)["results"], _case(runs["theirs"], TLS13)["results"]
    for side in ("client", "server"):
        saved = ours[f"{side}_heap_peak_bytes"]["median"] - theirs[f"{side}_heap_peak_bytes"]["median"]
        assert saved >= 2 * (16384 - 2048), side


def test_a_wolfssl_overlay_turns_chacha20_off_and_names_it(runs) -> None:
    data = runs["wolfssl"]
    status = {c["name"]: (c["status"], c["reason"]) for c in data.cases}
    assert status == {
        "wolfssl/aead/aes-128-gcm/encrypt/64": ("ok", ""), "wolfssl/aead/aes-128-gcm/decrypt/64": ("ok", ""),
        "wolfssl/aead/chacha20-poly1305/encrypt/64": ("unsupported", "HAVE_CHACHA is off in your config"
                                                      " (not supported by this library build)"),
        "wolfssl/aead/chacha20-poly1305/decrypt/64": ("unsupported", "HAVE_CHACHA is off in your config"
                                                      " (not supported by this library build)")}
    wolfssl = runs["target"].user.of("wolfssl")
    assert f"with the user's settings after ours (sha256 {wolfssl.sha256})" in data.libraries[0]["config"]


def test_two_configurations_of_one_library_in_one_run_on_the_host(runs) -> None:
    """Ours (build/host, as built) and the alias's agent, built in the folder of its inputs and linked
    beside ours under its own name: both measured, each as configured."""
    paired, data = runs["paired target"], runs["paired"]
    assert paired.build_name == "host"  # an alias alone leaves the library's own agents ours
    link = paired.agent_path("wolfssl@small")
    alone = paired.image_of("wolfssl@small")[0]
    assert link.name == "tlsbench-agent-wolfssl-small" and link.resolve() == (
        alone.build_dir() / "tlsbench-agent-wolfssl").resolve()
    assert alone.build_name == "host" + userconfig.suffix(userconfig.parse(
        [f"wolfssl={paired.user.configs[0].path}"], None))
    status = {c["name"]: (c["status"], c["reason"]) for c in data.cases}
    assert status == {
        "wolfssl/aead/aes-128-gcm/encrypt/64": ("ok", ""), "wolfssl/aead/aes-128-gcm/decrypt/64": ("ok", ""),
        "wolfssl/aead/chacha20-poly1305/encrypt/64": ("ok", ""),
        "wolfssl/aead/chacha20-poly1305/decrypt/64": ("ok", ""),
        "wolfssl@small/aead/aes-128-gcm/encrypt/64": ("ok", ""),
        "wolfssl@small/aead/aes-128-gcm/decrypt/64": ("ok", ""),
        "wolfssl@small/aead/chacha20-poly1305/encrypt/64": ("unsupported", "HAVE_CHACHA is off in your config"
                                                            " (not supported by this library build)"),
        "wolfssl@small/aead/chacha20-poly1305/decrypt/64": ("unsupported", "HAVE_CHACHA is off in your config"
                                                            " (not supported by this library build)")}
    config = {lib["library"]: lib["config"] for lib in data.libraries}
    assert "user's settings" not in config["wolfssl"]
    assert f"with the user's settings after ours (sha256 {paired.user.configs[0].sha256})" in config["wolfssl@small"]
