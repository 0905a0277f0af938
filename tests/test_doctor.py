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
