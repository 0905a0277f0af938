"""doctor and list: what is there, and what is not, with how to get it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import doctor
from tlsbench.families.primitive.catalog import LIBRARIES


def test_doctor_finds_everything_after_setup(agents) -> None:
    findings = doctor.diagnose()
    missing = [f"{f.what}: {f.detail}" for f in findings if not f.ok]
    assert missing == []
    agents_found = [f for f in findings if f.what.endswith(" agent")]
    assert len(agents_found) == len(LIBRARIES)
    assert all("algorithms" in f.detail for f in agents_found)


def test_doctor_says_how_to_get_a_missing_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TLSBENCH_AGENT_DIR", str(tmp_path))  # an empty folder: no agents
    findings = {f.what: f for f in doctor.diagnose()}
    for lib in LIBRARIES:
        f = findings[f"{lib} agent"]
        assert not f.ok and "not built" in f.detail and f.fix == "tlsbench build"


def test_progress_bar_on_a_terminal_and_plain_lines_elsewhere() -> None:
    import io

    from tlsbench.engine.progress import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    p = Progress(4, stream=tty)
    for _ in range(4):
        p.update("openssl/hash/sha256/hash/64")
    assert "[######------------------] 1/4 cases  25%" in tty.getvalue() and tty.getvalue().endswith("\n")
    plain = io.StringIO()
    p = Progress(2, stream=plain)
    p.update("a")
    p.update("b")
    assert plain.getvalue().splitlines()[-1].startswith("progress: 2/2 cases (100%)")


def test_list_presets_and_targets(capsys) -> None:
    from tlsbench.cli import main

    assert main(["list", "presets"]) == 0
    out = capsys.readouterr().out
    assert "default" in out and "quick" in out and "hashes" in out
    assert main(["list", "targets"]) == 0
    assert capsys.readouterr().out.startswith("host")


def test_doctor_says_which_targets_have_firmware_and_notes_are_not_ok(capsys) -> None:
    from tlsbench.cli import main
    from tlsbench.targets import target as targets

    findings = {f.what: f for f in doctor.diagnose()}
    emulated = [b for b, v in targets.BOARDS.items() if v.machine]
    assert all(f"firmware qemu:{b}" in findings for b in emulated)
    for f in findings.values():
        if f.what.startswith("firmware "):
            assert f.detail.startswith("built: ") or (f.note and f.fix == f"tlsbench build --target {f.what[9:]}")
    main(["doctor"])
    out = capsys.readouterr().out
    # an unavailable counter is a note, never "ok ... not available"
    assert not [line for line in out.splitlines() if line.startswith("ok") and "not available" in line]


def test_a_source_is_named_by_the_agents_built_from_it() -> None:
    """The default Mbed TLS agent is built from the mbedtls@3.6.7 lock section: its source line says
    "mbedtls", the agent's name, and the 3.6.6 section is mbedtls@3.6's."""
    from tlsbench import versions

    assert versions.DEFAULTS["mbedtls"] == "3.6.7"
    assert doctor.source_users("mbedtls@3.6.7") == "mbedtls"
    assert doctor.source_users("mbedtls") == "mbedtls@3.6"
    assert doctor.source_users("wolfssl@5.9") == "wolfssl"
    assert doctor.source_users("qemu") == "qemu"  # no library version: the section's own name


def test_doctor_names_the_release_each_agent_was_built_from(agents) -> None:
    """The version the agent itself reports (its library's headers at build time), beside the pinned
    source it was built from: the default Mbed TLS is 3.6.7, its 3.6.6 source is mbedtls@3.6's."""
    findings = {f.what: f for f in doctor.diagnose()}
    assert findings["mbedtls agent"].detail.startswith(
        "Mbed TLS 3.6.7, built from mbedtls 3.6.7-3, libraries/mbedtls.py [mbedtls@3.6.7]; ")
    assert findings["gnutls agent"].detail.startswith("3.7.9, built from the system's development files; ")


def test_doctor_flags_an_agent_built_from_another_release(agents, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent left from a build of another tree (it reports 3.6.6 where the default's source is 3.6.7)."""
    import dataclasses

    real = doctor.probe

    def older(name: str, timeout: float = 30.0):
        info = real(name, timeout)
        return dataclasses.replace(info, version="Mbed TLS 3.6.6") if name == "mbedtls" else info

    monkeypatch.setattr(doctor, "probe", older)
    f = {f.what: f for f in doctor.diagnose()}["mbedtls agent"]
    assert not f.ok
    assert f.detail.startswith("Mbed TLS 3.6.6, built from mbedtls 3.6.7-3, libraries/mbedtls.py [mbedtls@3.6.7]; ")
    assert f.fix == "tlsbench build --libraries mbedtls   (the agent is not 3.6.7)"
