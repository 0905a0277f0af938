"""The library records (src/tlsbench/libraries): each consistent with the
files it names, so a new record that misses its lock section, adapter
folder or profile fails here and not in a build."""

from __future__ import annotations

from pathlib import Path

from tlsbench.libraries import registry
from tlsbench.targets import sources

ROOT = Path(__file__).resolve().parents[2]


def test_names_are_unique_and_each_has_its_adapter_folder() -> None:
    names = registry.names()
    assert len(names) == len(set(names))
    assert [n for n in names if not (ROOT / "agent" / "adapters" / n / "library.cmake").exists()] == []


def test_every_version_is_of_its_library_and_the_default_is_one_of_them() -> None:
    for lib in registry.LIBRARIES:
        assert {v.library for v in lib.versions} == {lib.name}
        labels = [v.label for v in lib.versions]
        assert len(labels) == len(set(labels)) and lib.default in labels, lib.name


def test_every_lock_section_named_is_in_the_lock_file() -> None:
    pins = sources.load_lock(ROOT / "libraries.lock.toml")
    named = {v.lock for lib in registry.LIBRARIES for v in lib.versions} | {
        c for lib in registry.LIBRARIES for c in lib.companion_locks}
    assert sorted(named - set(pins) - {"system"}) == []


def test_each_library_pins_its_own_sources_and_the_lock_file_none() -> None:
    """A library's pinned sources (its versions' and its companions', as GnuTLS 3.8's nettle) are in its
    record, whose module names it; libraries.lock.toml holds only what is no library under test."""
    pins = sources.load_lock(ROOT / "libraries.lock.toml")
    for lib in registry.LIBRARIES:
        named = {v.lock for v in lib.versions if v.lock != "system"} | set(lib.companion_locks)
        assert {p.library for p in lib.pins} == named, lib.name
        assert {pins[s].declared_in for s in named} <= {f"libraries/{lib.name}.py"}, lib.name
        assert (ROOT / "src" / "tlsbench" / "libraries" / f"{lib.name}.py").exists()
    in_lock = sorted(s for s, p in pins.items() if p.declared_in == "libraries.lock.toml")
    assert in_lock == ["qemu"]


def test_a_library_with_a_system_version_names_its_package() -> None:
    with_system = {lib.name for lib in registry.LIBRARIES if any(v.lock == "system" for v in lib.versions)}
    assert with_system == {lib.name for lib in registry.LIBRARIES if lib.system_package}


def test_default_profiles_exist_and_firmware_by_default_has_one() -> None:
    for lib in registry.LIBRARIES:
        if lib.default_profile is not None:
            assert (ROOT / "agent" / "adapters" / lib.name / "profiles" / f"{lib.default_profile}.h").exists()
    assert [lib.name for lib in registry.LIBRARIES if lib.firmware == "default" and lib.default_profile is None] == []


def test_the_registry_answers_the_old_lists() -> None:
    assert registry.default_plan() == ("mbedtls", "wolfssl", "openssl", "gnutls")
    assert registry.firmware() == ("mbedtls", "wolfssl")
    assert registry.firmware_on_request() == ("bearssl",)
    assert registry.get("nosuch") is None


def test_each_library_declares_how_it_takes_a_users_configuration() -> None:
    """The table is the records': a library that takes no --config needs no row here."""
    from tlsbench.libraries.configs import ConfigMechanism, MbedtlsUserConfig, WolfsslUserSettings

    assert all(lib.config_mechanism is None or isinstance(lib.config_mechanism, ConfigMechanism)
               for lib in registry.LIBRARIES)
    mechanisms = {lib.name: type(lib.config_mechanism).__name__ for lib in registry.LIBRARIES if lib.config_mechanism}
    assert mechanisms == {"mbedtls": MbedtlsUserConfig.__name__, "wolfssl": WolfsslUserSettings.__name__}
    for lib in registry.LIBRARIES:  # what the harness needs, and which cases a define decides, are declared
        if lib.config_mechanism is not None:
            assert lib.config_mechanism.needs and lib.config_mechanism.case_needs, lib.name


def test_size_rules_name_known_probes() -> None:
    from tlsbench.families.size import probes

    named = {p for lib in registry.LIBRARIES for p in lib.size_unsupported}
    assert sorted(named - set(probes.PRIMITIVES)) == []


def test_each_core_profile_is_its_header_and_its_sources_in_library_cmake() -> None:
    from tlsbench.targets import boardprofiles
    from tlsbench.targets.board import BOARDS

    cores = set(boardprofiles.CORES) | {b.cpu for b in BOARDS.values()}
    for lib in registry.LIBRARIES:
        adapter = ROOT / "agent" / "adapters" / lib.name
        cmake = (adapter / "library.cmake").read_text()
        for prof in lib.core_profiles:
            header = (adapter / "profiles" / f"{prof.name}.h").read_text()
            assert [d for d in prof.defines if f"#define {d}\n" not in header] == [], prof.name
            assert [s for s in prof.sources if s not in cmake] == [], prof.name
            assert prof.cores and set(prof.cores) <= cores, prof.name


# tlsbench with one more library registered by one line, its pinned source in its own record
WITH_DEMO = '''
import dataclasses, sys
from tlsbench.libraries import registry
from tlsbench.libraries.record import Library, PinnedSource, Version
pin = PinnedSource("demo", package="bearssl", version="0.6+dfsg.1-4", suite="trixie", upstream="0.6",
                   archive="bearssl_0.6+dfsg.1.orig.tar.xz", source_dir="bearssl-0.6", marker="inc/bearssl.h",
                   sha256={"bearssl_0.6+dfsg.1.orig.tar.xz": "102a625bd8f61552" + "0" * 48}, tar_only=True,
                   declared_in="libraries/demo.py")
demo = Library("demo", "Demo", (Version("demo", "1.0", "demo", "a library declared by its record alone"),), "1.0",
               in_default_plan=False, pins=(pin,))
registry.LIBRARIES = (*registry.LIBRARIES, demo)  # the one line
from tlsbench.cli.main import main
sys.exit(main(sys.argv[1:]))
'''


def test_a_library_is_its_record_and_one_registration_line() -> None:
    """A record with its own pin, registered by one line, is listed with that pin: no lock-file section
    and no row in any table here (its adapter folder is what the build needs, not the listing)."""
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-c", WITH_DEMO, "list", "libraries"], capture_output=True, text=True,
                       timeout=120)
    assert (p.returncode, p.stderr) == (0, "")
    lines = p.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("demo "))
    assert lines[at].split(None, 1)[1] == "a library declared by its record alone (default)"
    assert lines[at + 1].strip() == ("not built (tlsbench build --libraries demo); source: Debian source package"
                                     " bearssl 0.6+dfsg.1-4 (trixie), bearssl_0.6+dfsg.1.orig.tar.xz sha256"
                                     " 102a625bd8f61552...")
