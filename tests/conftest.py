"""Shared fixtures. Tests that need the agents build them (idempotent)."""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import alone
import images
import pytest
import worker_tail

from tlsbench import paths
from tlsbench.families.primitive.catalog import LIBRARIES
from tlsbench.families.tls.certs import Chain, make_chain
from tlsbench.targets import build
from tlsbench.targets import target as targets

FAKE_AGENT = Path(__file__).parent / "fake_agent.py"
_DATABASES = itertools.count(1)


@pytest.fixture(autouse=True)
def _settling_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every round counts as steady: whether a paced host run measures a case again at its end depends on
    the machine's speed, and tests assert exact facts (tests/agent/test_clean_timing.py turns it on, with
    the fake agent's references)."""
    from tlsbench.engine import settling

    monkeypatch.setattr(settling, "STEADY_SPEED", 0.0)


@pytest.fixture(scope="session")
def agents() -> dict[str, Path]:
    """All four real agents (and the selftest double), built if missing."""
    if not all(paths.agent_path(lib).exists() for lib in (*LIBRARIES, "selftest", "selftest-notls")):
        build.build_agents(list(LIBRARIES))
    return {lib: paths.agent_path(lib) for lib in LIBRARIES}


@pytest.fixture(scope="session")
def firmware_images() -> Callable[..., targets.Target]:
    """firmware_images(target, libraries=None, opt="Os") -> target: that
    target's images of these libraries (default: the firmware libraries'
    default versions) and the selftest double, built only when missing or
    stale for their inputs, once per session, under a lock (tests/images.py)."""
    return images.ensure_firmware


@pytest.fixture(scope="module")
def firmware(agents, firmware_images) -> targets.Target:
    """The Cortex-M4's images of the firmware libraries (and the host agents beside them)."""
    return firmware_images(images.M4)


@pytest.fixture(scope="module")
def chain() -> Chain:
    """An ECDSA P-256 server chain of fresh keys."""
    return make_chain("ecdsa-p256", "full", "server")


@pytest.fixture
def fake_agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder whose tlsbench-agent-openssl is tests/fake_agent.py."""
    script = tmp_path / "tlsbench-agent-openssl"
    script.write_text(f"#!{sys.executable}\nimport runpy\nrunpy.run_path({str(FAKE_AGENT)!r}, run_name='__main__')\n")
    script.chmod(0o755)
    monkeypatch.setenv("TLSBENCH_AGENT_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def old_db(tmp_path: Path) -> Path:
    """A database of schema version 4 holding a tiny real run (fixtures/old-db: a hash, a signature, a handshake)."""
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript((Path(__file__).parent / "fixtures" / "old-db" / "old-schema-v4.sql").read_text())
    db.commit()
    assert db.execute("PRAGMA user_version").fetchone()[0] == 4
    db.close()
    return path


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "results.sqlite"


def tlsbench_cmd() -> list[str]:
    return [sys.executable, "-m", "tlsbench"]


def env_without_agent_dir() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("TLSBENCH_AGENT_DIR", None)
    return env


# pyproject's timeout (600 s) bounds a test and its set-up; one whose set-up may build firmware
# from nothing (CI has no compiler cache) gets this long, unless it names its own
BUILDING_TIMEOUT_S = 1200


# the mark of a module whose set-up builds a library, an agent or firmware from source
builds_in_set_up = pytest.mark.timeout(BUILDING_TIMEOUT_S)


# modules whose set-up or tests take minutes, longest first (the last fresh-clone CI's --durations,
# 28 Nov: setup + call seconds of their slowest tests): parallel workers (pytest-xdist, with
# --no-loadscope-reorder) start them first, so no worker is left with one of them at the end
LONG_MODULES = ("test_labgrid", "test_sanitized_agents", "test_gnutls38", "test_firmware_userconfig",
                "test_host_userconfig", "test_device_tls", "test_memory", "test_new_cores", "test_serial_target",
                "test_cli", "test_hwcrypto_firmware", "test_firmware_plan", "test_firmware_wolfssl_overlay",
                "test_firmware_on_demand", "test_nucleo_library_fit", "test_nucleo_boards", "test_device_server")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "firmware_images" in getattr(item, "fixturenames", ()) and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(BUILDING_TIMEOUT_S))
    first = {name: rank for rank, name in enumerate(LONG_MODULES)}
    items.sort(key=lambda item: first.get(item.module.__name__ if item.module else "", len(first)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """A test marked `alone` compares timings: while it runs (set-up to
    teardown) no other worker runs a test; without workers this does nothing."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    with alone.holding(item.get_closest_marker("alone") is not None):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Under CI (CI=true) nothing skips: a skip there means setup or an earlier
    module left something out, so it fails, naming its reason."""
    outcome = yield
    report = outcome.get_result()
    outside = item.get_closest_marker("outside_checkout") is not None  # may be absent where CI clones
    if report.skipped and os.environ.get("CI") == "true" and not hasattr(report, "wasxfail") and not outside:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"CI: this test would have skipped ({reason}); under CI every test runs"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    worker_tail.record(report)


def pytest_terminal_summary(terminalreporter) -> None:
    worker_tail.summary(terminalreporter.write_line)


def needs_tools(*tools: str) -> pytest.MarkDecorator:
    """Skips a test module when a tool scripts/setup installs is missing on a
    developer's machine; under CI (CI=true) a missing tool fails instead of
    skipping, so a broken setup cannot pass as skipped tests."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing and os.environ.get("CI") == "true":
        raise RuntimeError(f"CI: {', '.join(missing)} missing (scripts/setup should have installed them)")
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)} (installed by scripts/setup)")


@pytest.fixture(scope="session")
def pg_server() -> Iterator:
    """A PostgreSQL server of the tests' own (tests/pg_server.py). Missing
    PostgreSQL skips on a developer's machine and fails under CI."""
    import pg_server as pg

    missing = [] if pg.find_bindir() is not None else ["PostgreSQL server (initdb, postgres)"]
    try:
        import psycopg  # noqa: F401
    except ImportError:
        missing.append("psycopg")
    if missing and os.environ.get("CI") == "true":
        pytest.fail(f"CI: {', '.join(missing)} missing (scripts/setup should have installed them)")
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (installed by scripts/setup)")
    server = pg.start_server()
    yield server
    server.stop()
    shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's store lives, once per back end: a SQLite file, or a
    fresh database on the tests' PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "results.sqlite")
    return request.getfixturevalue("pg_server").new_database(f"t{next(_DATABASES)}")
