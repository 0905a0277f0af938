"""The four host agents built under AddressSanitizer and
UndefinedBehaviorSanitizer (-DTB_SANITIZE=address,undefined, into
build/asan; Mbed TLS and wolfSSL, built from source, are under
AddressSanitizer too, without UBSan: undefined behaviour inside a library
is the library's (agent/CMakeLists.txt); the system OpenSSL and GnuTLS
are not sanitized) run the quick plan: every case ok or
unsupported, and no sanitizer report anywhere (any report ends the agent:
-fno-sanitize-recover=all, halt_on_error). The test builds the
agents itself (a few minutes on 2 cores the first time, seconds after)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from agent_builds import build_agent_tree
from conftest import builds_in_set_up, needs_tools

from tlsbench import paths, versions
from tlsbench.engine import agent
from tlsbench.families.primitive.catalog import LIBRARIES
from tlsbench.targets import prefixbuild, sources

pytestmark = [needs_tools("cmake", "ninja", "gcc"), pytest.mark.slow, builds_in_set_up]

SANITIZERS = "address,undefined"
# -O1, as AddressSanitizer's documentation and Mbed TLS's own ASanDbg build type use: every access is
# still instrumented (the optimizer removes no more of them than at -O2), and wolfSSL's and Mbed TLS's
# largest files compile in about 40% less CPU time
OPT = "-O1 -g -DNDEBUG"


def build_sanitized_agents() -> Path:
    build = paths.root() / "build" / "asan"
    # the default versions' trees (a lock section per version, versions.py)
    locks = {lib: versions.version_of(lib).lock for lib in LIBRARIES if versions.version_of(lib).lock != "system"}
    srcs = sources.ensure_sources(sorted(set(locks.values())))
    trees = [f"-DTB_{lib.upper()}_SOURCE_DIR={srcs[lock]}" for lib, lock in locks.items() if lib != "openssl"]
    if "openssl" in locks:  # a pinned OpenSSL: its (unsanitized) libraries, built once into build/libs
        src = srcs[locks["openssl"]]
        trees += [f"-DTB_OPENSSL_BUILD_DIR={prefixbuild.build_openssl('openssl', src, 2)}",
                  f"-DTB_OPENSSL_SOURCE_DIR={src}"]
    return build_agent_tree(build, ["-DCMAKE_BUILD_TYPE=RelWithDebInfo", f"-DCMAKE_C_FLAGS_RELWITHDEBINFO={OPT}",
                                    f"-DTB_SANITIZE={SANITIZERS}",
                                    f"-DTB_LIBRARIES={';'.join(LIBRARIES)}", "-DTB_SELFTEST=OFF", *trees])


@pytest.fixture(scope="module")
def asan_dir() -> Path:
    return build_sanitized_agents()


def test_sanitized_agents_say_so_and_measure_no_heap(asan_dir: Path) -> None:
    """hello names the sanitized build; a bench has a stack figure but no
    heap figures (the sanitizer owns malloc, so they would be wrong)."""
    req = "bench kind=hash alg=sha256 op=hash size=64 warmup=0 repeats=1 min_ns=1000"
    hello, bench = agent.call(asan_dir / "tlsbench-agent-mbedtls", ["hello", req], 60, "sanitized agent").responses
    assert f"sanitized (-fsanitize={SANITIZERS})" in str(hello.of_type("hello")[0]["config"])
    assert bench.status == "ok"
    memory = bench.of_type("memory")
    assert len(memory) == 1 and sorted(memory[0].fields) == ["stack"], memory


def test_libraries_get_address_checks_and_our_code_both(asan_dir: Path) -> None:
    commands = subprocess.run(["ninja", "-C", str(asan_dir), "-t", "commands", "tlsbench-agent-wolfssl",
                               "tlsbench-agent-mbedtls"], capture_output=True, text=True, check=True,
                              timeout=60).stdout.splitlines()

    def flags(source: str) -> str:
        return next(c for c in commands if c.rstrip().endswith(source))

    for ours in ("core/agent.c", "adapters/wolfssl/adapter.c", "adapters/mbedtls/adapter.c"):
        assert f"-fsanitize={SANITIZERS}" in flags(ours) and "-fno-sanitize=undefined" not in flags(ours), ours
    for theirs in ("src/internal.c", "library/ssl_tls.c"):
        assert f"-fsanitize={SANITIZERS}" in flags(theirs) and flags(theirs).count("-fno-sanitize=undefined") == 1


def test_quick_plan_under_sanitizers(asan_dir: Path, tmp_path: Path) -> None:
    """Any sanitizer report ends its agent with an error, so it fails its
    case or check with the report's last line; the stored transcripts and
    check details are searched for reports as well."""
    env = dict(os.environ, TLSBENCH_AGENT_DIR=str(asan_dir), ASAN_OPTIONS="detect_leaks=1:halt_on_error=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    db = tmp_path / "results.sqlite"
    proc = subprocess.run([sys.executable, "-m", "tlsbench", "run", "--preset", "quick", "--db", str(db), "--json",
                           # every code path once: the sanitizers check each call, the timing loops add nothing
                           "--repeats", "1", "--warmup", "0"],
                          capture_output=True, text=True, env=env, timeout=900)
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    bad = [(r["case"], r["status"], r.get("reason")) for r in rows if r["status"] not in ("ok", "unsupported")]
    assert bad == [], bad
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert {r["library"] for r in rows} == set(LIBRARIES)
    with closing(sqlite3.connect(db)) as conn:
        evidence = [t for (t,) in conn.execute("SELECT transcript FROM cases UNION ALL SELECT detail FROM checks")]
    reports = [t[-2000:] for t in evidence if "Sanitizer" in t or "runtime error:" in t]
    assert evidence and reports == [], reports
    print(f"\nquick plan under {SANITIZERS}: {len(rows)} results, "
          f"{sum(r['status'] == 'ok' for r in rows)} ok, {sum(r['status'] == 'unsupported' for r in rows)} unsupported")
