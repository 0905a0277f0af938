"""Fetching sources: checksums are enforced, the mirror comes from the system."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tlsbench import paths
from tlsbench.errors import SetupError
from tlsbench.targets import sources


def test_lock_file_pins_both_embedded_libraries() -> None:
    pins = sources.load_lock()
    assert pins["mbedtls"].upstream.startswith("3.6.") and pins["wolfssl"].upstream.startswith("5.7.")
    for pin in pins.values():
        assert all(len(h) == 64 for h in pin.sha256.values())


def test_a_corrupted_download_is_a_hard_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TLSBENCH_ROOT", str(tmp_path))
    shutil.copy(Path(__file__).parents[2] / "libraries.lock.toml", tmp_path)
    pin = sources.load_lock()["mbedtls"]
    downloads = tmp_path / "third_party" / "downloads"
    downloads.mkdir(parents=True)
    for name in pin.sha256:
        (downloads / name).write_bytes(b"not the real file")
    with pytest.raises(SetupError, match="checksum mismatch for mbedtls_"):
        sources.ensure_sources(["mbedtls"])
    assert list((tmp_path / "third_party" / "src").glob("mbedtls*")) == []


def test_an_empty_list_fetches_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build that needs no pinned source (the selftest firmware) asks for
    none and gets none, even where nothing was downloaded yet: no network
    mid-suite; None still means every pinned source."""
    monkeypatch.setenv("TLSBENCH_ROOT", str(tmp_path))
    shutil.copy(Path(__file__).parents[2] / "libraries.lock.toml", tmp_path)
    fetched: list[list[str]] = []

    def no_network(pins: list[sources.PinnedSource], downloads: Path) -> None:
        fetched.append(sorted(p.library for p in pins))
        raise SetupError("no network in this test")

    monkeypatch.setattr(sources, "_download", no_network)
    assert sources.ensure_sources([]) == {}
    assert fetched == []
    with pytest.raises(SetupError, match="no network"):
        sources.ensure_sources()
    assert fetched == [sorted(sources.load_lock())]


def test_verified_sources_are_in_place() -> None:
    """After setup, each pinned source tree carries the checksum it was
    verified with and still matches its manifest, file by file."""
    sources.ensure_sources()
    for lib, pin in sources.load_lock().items():
        tree = paths.third_party() / "src" / pin.source_dir
        if sources.user_source_of_lock(lib) is None:
            assert json.loads((tree / sources.VERIFIED_MARK).read_text())["archive_sha256"] == pin.sha256[pin.archive]
            assert sources.still_verified(tree, pin.sha256[pin.archive])


def test_a_user_source_tree_must_look_right(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TLSBENCH_WOLFSSL_SOURCE replaces the default wolfSSL's tree, whichever
    lock section that is; a further version's has its own variable."""
    from tlsbench import versions

    lock = versions.version_of("wolfssl").lock
    assert sources.lock_variable(lock) == "TLSBENCH_WOLFSSL_SOURCE"
    assert sources.lock_variable(versions.version_of("wolfssl@5.7").lock) in (
        "TLSBENCH_WOLFSSL_SOURCE", "TLSBENCH_WOLFSSL_5_7_SOURCE")
    monkeypatch.setenv("TLSBENCH_WOLFSSL_SOURCE", str(tmp_path))
    with pytest.raises(SetupError, match="does not look like a wolfssl source tree"):
        sources.ensure_sources([lock])
    (tmp_path / "wolfssl").mkdir()
    (tmp_path / "wolfssl" / "version.h").write_text("")
    assert sources.ensure_sources([lock]) == {lock: tmp_path}


def test_mirror_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TLSBENCH_DEBIAN_MIRROR", "http://mirror.invalid/debian")
    assert sources.system_mirror() == "http://mirror.invalid/debian"


def test_a_changed_file_in_a_verified_tree_is_unpacked_again(tmp_path: Path) -> None:
    """The marker holds the tree's manifest: an edited, added or removed file
    makes the tree unverified, whatever the marker says."""
    from tlsbench.targets import sources

    tree = tmp_path / "lib-1.0"
    (tree / "src").mkdir(parents=True)
    (tree / "src" / "a.c").write_text("int a;\n")
    (tree / "README").write_text("x\n")
    (tree / sources.VERIFIED_MARK).write_text(
        json.dumps({"archive_sha256": "abc", "files": sources._tree_manifest(tree)}))
    assert sources.still_verified(tree, "abc")
    assert not sources.still_verified(tree, "another archive")
    (tree / "src" / "a.c").write_text("int a = 1;\n")
    assert not sources.still_verified(tree, "abc")
    (tree / "src" / "a.c").write_text("int a;\n")
    (tree / "src" / "b.c").write_text("int b;\n")
    assert not sources.still_verified(tree, "abc")
    (tree / "src" / "b.c").unlink()
    assert sources.still_verified(tree, "abc")
    (tree / sources.VERIFIED_MARK).write_text("abc\n")  # a marker of the older kind: not enough
    assert not sources.still_verified(tree, "abc")


def test_a_record_declares_its_own_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library's pinned source may live in its record: load_lock reads it beside the lock file's
    sections, and one section declared in both is an error naming both places."""
    import dataclasses

    from tlsbench.libraries import registry
    from tlsbench.libraries.record import Library, PinnedSource, Version

    pin = dataclasses.replace(sources.load_lock()["bearssl"], library="demo", declared_in="libraries/demo.py")
    demo = Library("demo", "Demo", (Version("demo", "1", "demo"),), "1", pins=(pin,))
    monkeypatch.setattr(registry, "LIBRARIES", (*registry.LIBRARIES, demo))
    assert sources.load_lock()["demo"] == pin and isinstance(pin, PinnedSource)
    twice = dataclasses.replace(pin, library="qemu")
    monkeypatch.setattr(registry, "LIBRARIES", (*registry.LIBRARIES, dataclasses.replace(demo, pins=(twice,))))
    with pytest.raises(SetupError, match=r"libraries.lock.toml: \[qemu\] is also pinned in libraries/demo.py:"
                                         r" declare it once"):
        sources.load_lock()
    # two records pinning one section: the second names the first
    twice = dataclasses.replace(pin, library="mbedtls", declared_in="")
    monkeypatch.setattr(registry, "LIBRARIES", (*registry.LIBRARIES, dataclasses.replace(demo, pins=(twice,))))
    with pytest.raises(SetupError, match=r"^libraries/demo.py: \[mbedtls\] is also pinned in libraries/mbedtls.py:"
                                         r" declare it once$"):
        sources.load_lock()
