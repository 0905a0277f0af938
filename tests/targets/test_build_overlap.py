"""The default build unpacks the other sources while the pinned OpenSSL builds in a thread: its
source is fetched first (one download at a time), each tree once, and a failed build is raised."""

from __future__ import annotations

from pathlib import Path

import pytest

from tlsbench import versions
from tlsbench.errors import SetupError
from tlsbench.targets import build, prefixbuild, sources, userconfig


def test_the_openssl_build_runs_beside_the_unpacking_and_its_failure_is_raised(monkeypatch) -> None:
    steps: list[tuple[str, ...]] = []

    def ensure_sources(locks: list[str] | None = None) -> dict[str, Path]:
        assert locks is not None  # every call names its trees: none is unpacked (and hashed) twice
        steps.append(("sources", *locks))
        return {lock: Path("/nonexistent") / lock for lock in locks}

    def build_openssl(ident: str, src: Path, jobs: int) -> Path:
        steps.append(("build", ident, str(src)))
        raise SetupError(f"{ident}: make build_libs failed (exit 2)")

    monkeypatch.setattr(sources, "ensure_sources", ensure_sources)
    monkeypatch.setattr(prefixbuild, "build_openssl", build_openssl)
    ossl = versions.version_of("openssl").lock
    assert ossl != "system"  # the default OpenSSL is a pinned one, built into build/libs
    with pytest.raises(SetupError, match=r"^openssl: make build_libs failed \(exit 2\)$"):
        build._build_agents(None, 2, userconfig.NONE)
    others = [lock for lock in sources.load_lock() if lock != ossl]
    assert steps[0] == ("sources", ossl)
    assert sorted(steps[1:]) == sorted([("build", "openssl", f"/nonexistent/{ossl}"), ("sources", *others)])
