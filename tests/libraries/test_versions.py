"""Library versions as a dimension: name@version selection, its errors, the
agents' names, and compare between two versions of one library."""

from __future__ import annotations

import subprocess

import pytest
from conftest import env_without_agent_dir, tlsbench_cmd

from tlsbench import paths, versions
from tlsbench.errors import PlanError
from tlsbench.plans.plan import parse_plan
from tlsbench.report.compare import RunSide, compare_runs, one_version


def test_a_bare_name_and_its_default_version_are_one_identifier() -> None:
    assert versions.canonical("openssl") == "openssl"
    assert versions.canonical(f"openssl@{versions.DEFAULTS['openssl']}") == "openssl"
    # the newest pinned releases are the defaults; the older ones keep their names
    assert versions.DEFAULTS == {"mbedtls": "3.6.7", "wolfssl": "5.9", "openssl": "3.5", "gnutls": "3.7",
                                 "bearssl": "0.6"}
    assert versions.canonical("openssl@3.5") == "openssl" and versions.canonical("openssl@3.0") == "openssl@3.0"
    assert versions.canonical("wolfssl@5.9") == "wolfssl" and versions.canonical("mbedtls@3.6") == "mbedtls@3.6"
    assert versions.identifiers()[:4] == ["mbedtls", "wolfssl", "openssl", "gnutls"]
    assert {"openssl@3.0", "wolfssl@5.7", "mbedtls@3.6"} <= set(versions.identifiers())


def test_an_unknown_version_is_one_line_listing_the_versions_allowed() -> None:
    with pytest.raises(PlanError) as e:
        versions.canonical("openssl@9.9")
    assert str(e.value) == "unknown version 'openssl@9.9'; openssl versions: openssl@3.0, openssl@3.5 (default)"


def test_a_plan_selects_versions_and_names_the_line_of_a_bad_one() -> None:
    plan = parse_plan('[select]\nlibraries = ["openssl@3.5", "openssl@3.0", "wolfssl"]\n')
    assert plan.libraries == ["openssl", "openssl@3.0", "wolfssl"]
    with pytest.raises(PlanError, match=r"^p.toml:2: \[select\] libraries: unknown version 'wolfssl@5.8'; "
                                        r"wolfssl versions: wolfssl@5.7, wolfssl@5.9 \(default\)$"):
        parse_plan('[select]\nlibraries = ["wolfssl@5.8"]\n', "p.toml")
    with pytest.raises(PlanError, match="lists a library version twice"):
        parse_plan('[select]\nlibraries = ["openssl", "openssl@3.5"]\n', "p.toml")


def test_the_cli_refuses_an_unknown_version_in_one_line() -> None:
    p = subprocess.run([*tlsbench_cmd(), "run", "--libraries", "mbedtls,openssl@9.9"], capture_output=True,
                       text=True, env=env_without_agent_dir())
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == "tlsbench: error: unknown version 'openssl@9.9'; openssl versions: openssl@3.0, " \
                       "openssl@3.5 (default)\n"


def test_each_version_has_its_own_agent() -> None:
    assert paths.agent_path("openssl").name == "tlsbench-agent-openssl"
    assert paths.agent_path("openssl@3.5").name == "tlsbench-agent-openssl-3.5"
    assert versions.agent_name("wolfssl@5.9") == paths.agent_path("wolfssl@5.9").name


def test_a_further_firmware_version_is_its_own_image_and_its_archives_are_its_library() -> None:
    from tlsbench.families.size.maps import component_of
    from tlsbench.targets import build, target

    board = target.parse("qemu:mps2-an386")
    assert board.firmware_path("mbedtls@3.6.7").name == "tlsbench-agent-mbedtls-3.6.7"
    assert board.map_path("mbedtls@3.6.7").name == "tlsbench-agent-mbedtls-3.6.7.map"
    assert build.is_firmware_library("mbedtls@3.6.7") and not build.is_firmware_library("openssl@3.5")
    assert not build.is_firmware_library("mbedtls@9.9")
    # Mbed TLS's MBEDTLS_TARGET_PREFIX names a further version's archives (library.cmake)
    assert component_of("mbedtls-3.6.7/library/libv3_6_7_mbedcrypto.a(aes.c.obj)", "mbedtls@3.6.7") == "library"
    assert component_of("CMakeFiles/x.dir/adapters/mbedtls/sym.c.obj", "mbedtls@3.6.7") == "adapter"
    assert component_of("libtb_wolfssl-5.9.a(aes.c.obj)", "wolfssl@5.9") == "library"
    assert component_of("libtb_wolfssl-5.9.a(aes.c.obj)", "mbedtls@3.6.7") == "other"


def test_the_mbedtls_3_6_7_agent_is_built_from_its_pinned_tree(agents) -> None:
    from tlsbench.targets import build
    from tlsbench.targets.libraries import probe

    names = versions.canonical("mbedtls@3.6.7"), versions.canonical("mbedtls@3.6")
    if not all(paths.agent_path(n).exists() for n in names):
        build.build_agents(list(names))
    new, old = (probe(n) for n in names)
    assert new.version.startswith("Mbed TLS 3.6.7") and old.version.startswith("Mbed TLS 3.6.6")
    assert "(mbedtls-3.6.7)" in new.config and "(mbedtls-3.6.6)" in old.config
    # the same configuration header and profile: the version is the only difference
    assert new.config.replace("3.6.7", "3.6.6") == old.config


def _side(run_id: int, values: dict[str, list[float]], versions_of: dict[str, str]) -> RunSide:
    ctx = {"cpu": "x", **{f"{lib} version": v for lib, v in versions_of.items()}}
    return RunSide(run_id, ctx, {"public_key_bytes": "bytes"},
                   {"public_key_bytes": {n: ("ok", v) for n, v in values.items()}})


def test_compare_matches_two_versions_case_by_case_and_shows_their_versions() -> None:
    one_run = _side(7, {"openssl@3.5/kem/ml-kem-768/keygen": [1184.0], "openssl/kem/ml-kem-768/keygen": [1200.0],
                        "wolfssl@5.9/kem/ml-kem-768/keygen": [1184.0]},
                    {"openssl@3.5": "OpenSSL 3.5.7", "openssl": "OpenSSL 3.0.19", "wolfssl@5.9": "5.9.2"})
    # the run's names are those of its day; today's names select its cases by their recorded versions
    a, b = (one_version(one_run, versions.canonical(n)) for n in ("openssl@3.0", "openssl@3.5"))
    assert list(a.values["public_key_bytes"]) == list(b.values["public_key_bytes"]) == ["openssl/kem/ml-kem-768/keygen"]
    result = compare_runs(a, b, "public_key_bytes")
    assert "openssl version: OpenSSL 3.0.19 -> OpenSSL 3.5.7" in result.context_differences
    [row] = [r for r in result.exact if r.name == "openssl/kem/ml-kem-768/keygen"]
    assert (row.a, row.b) == (1200.0, 1184.0)


def test_a_run_stored_before_a_default_changed_reads_by_its_recorded_versions(monkeypatch) -> None:
    """A bare "openssl" in a run made while 3.0 was the default is OpenSSL 3.0
    (its recorded version string says so): after the default moves to 3.5,
    openssl@3.0 selects that run's "openssl" cases and "openssl" its
    "openssl@3.5" ones; a version the run lacks selects nothing."""
    old_run = _side(3, {"openssl/kem/x/keygen": [1.0], "openssl@3.5/kem/x/keygen": [2.0],
                        "wolfssl/kem/x/keygen": [3.0]},
                    {"openssl": "OpenSSL 3.0.19 27 Jan 2026", "openssl@3.5": "OpenSSL 3.5.7 1 Jul 2026",
                     "wolfssl": "5.7.2"})
    monkeypatch.setitem(versions.DEFAULTS, "openssl", "3.5")
    monkeypatch.setitem(versions.DEFAULTS, "wolfssl", "5.9")
    old, new = versions.canonical("openssl@3.0"), versions.canonical("openssl@3.5")
    assert (old, new) == ("openssl@3.0", "openssl")
    a, b = one_version(old_run, old), one_version(old_run, new)
    assert a.values["public_key_bytes"] == {"openssl/kem/x/keygen": ("ok", [1.0])}
    assert b.values["public_key_bytes"] == {"openssl/kem/x/keygen": ("ok", [2.0])}
    assert a.context["openssl version"].startswith("OpenSSL 3.0") and b.context["openssl version"].startswith(
        "OpenSSL 3.5")
    assert one_version(old_run, "wolfssl@5.7").values["public_key_bytes"] == {"wolfssl/kem/x/keygen": ("ok", [3.0])}
    assert one_version(old_run, "wolfssl").values["public_key_bytes"] == {}  # no 5.9 in that run
    # Mbed TLS 3.6 is 3.6.6 only: a run whose mbedtls reports 3.6.7 has no case of it
    run_367 = _side(4, {"mbedtls/kex/x/keygen": [5.0]}, {"mbedtls": "Mbed TLS 3.6.7"})
    assert one_version(run_367, versions.canonical("mbedtls@3.6")).values["public_key_bytes"] == {}
    assert one_version(run_367, versions.canonical("mbedtls@3.6.7")).values["public_key_bytes"] == {
        "mbedtls/kex/x/keygen": ("ok", [5.0])}


def test_the_system_tools_are_compared_with_the_system_version(monkeypatch) -> None:
    """`openssl speed`, s_time and s_server are the system's OpenSSL 3.0:
    fidelity measures the agent of that version, also once 3.5 is the
    default; a pinned OpenSSL's build tree is named by its version."""
    from tlsbench.targets import build, prefixbuild

    assert versions.system_identifier("openssl") == versions.canonical("openssl@3.0")
    monkeypatch.setitem(versions.DEFAULTS, "openssl", "3.5")
    assert versions.system_identifier("openssl") == "openssl@3.0"
    assert paths.agent_path(versions.system_identifier("openssl")).name == "tlsbench-agent-openssl-3.0"
    assert prefixbuild.build_dir("openssl").name == prefixbuild.build_dir("openssl@3.5").name == "openssl-3.5"
    assert build._openssl_trees("openssl@3.0", {}, {}, 1) == ("system", "-")
