"""Building a pinned GnuTLS, with the nettle it needs, into its own prefix.

A version of GnuTLS other than the system's (versions.py) is built from its
pinned source (its record's pins) out of tree into build/libs/gnutls-<label>/
prefix: first nettle (GnuTLS 3.8 needs nettle >= 3.10, newer than the
system's), then GnuTLS's library alone (make -C gl, -C lib: no tools, docs, tests,
C++ or DANE). Both are shared and carry an RPATH to the prefix, so the agent
built against them loads neither the system's libgnutls nor its libnettle.
Optional dependencies this benchmark never exercises (p11-kit, TPM,
certificate compression, IDN, NLS) are left out, so no system package beyond
libgmp, libtasn1 and libunistring is needed. A stamp records the source
archives and the configure arguments; the same inputs are not built again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from tlsbench import versions
from tlsbench.libraries import gnutls
from tlsbench.targets import prefixbuild, sources

logger = logging.getLogger(__name__)

(NETTLE_LOCK,) = gnutls.LIBRARY.companion_locks  # its one companion: nettle
# Both are compiled at -O2, their configure's own level, without debug information: nothing reads it,
# and writing it (nettle's -ggdb3 adds every macro) is much of the compile time. GCC's code is the
# same with and without -g. nettle's configure appends -ggdb3 and its warnings to any CFLAGS, so its
# make is given CFLAGS too.
NO_DEBUG_INFO = "CFLAGS=-O2"
# nettle's configure: shared only, with its assembly (m4), no docs, no OpenSSL glue in its benchmark
NETTLE_OPTIONS = ("--disable-static", "--disable-documentation", "--disable-openssl", NO_DEBUG_INFO)
# GnuTLS's configure: what the adapter needs and nothing more; the algorithms keep their defaults
GNUTLS_OPTIONS = (
    "--disable-doc", "--disable-tools", "--disable-tests", "--disable-cxx", "--disable-nls",
    "--disable-libdane", "--disable-full-test-suite", "--disable-maintainer-mode",
    # its developer warnings include -fanalyzer, which multiplies the compile time
    "--disable-gcc-warnings",
    "--without-p11-kit", "--without-tpm2", "--without-tpm", "--without-idn",
    "--without-zlib", "--without-brotli", "--without-zstd", NO_DEBUG_INFO,
)
LIBRARIES = ("libgnutls.so", "libnettle.so", "libhogweed.so")


def prefix_of(ident: str) -> Path:
    """build/libs/gnutls-3.8/prefix: include/ and lib/ of GnuTLS and its nettle."""
    return prefixbuild.build_dir(ident) / "prefix"


def build_gnutls(ident: str, src: Path, jobs: int) -> Path:
    """The prefix of GnuTLS ``ident`` (e.g. "gnutls@3.8"), built when missing
    or made from other inputs; returns it."""
    out = prefixbuild.build_dir(ident)
    prefix = out / "prefix"
    nettle_src = sources.ensure_sources([NETTLE_LOCK])[NETTLE_LOCK]
    pins = sources.load_lock()
    lib = prefix / "lib"
    common = [f"--prefix={prefix}", f"--libdir={lib}"]
    nettle_cfg = [str(nettle_src / "configure"), *common, *NETTLE_OPTIONS]
    gnutls_cfg = [str(src / "configure"), *common, *GNUTLS_OPTIONS]
    archives = [_archive(pins, versions.version_of(ident).lock, ident), _archive(pins, NETTLE_LOCK, NETTLE_LOCK)]
    want = hashlib.sha256(json.dumps({"archives": archives, "nettle": nettle_cfg,
                                      "gnutls": gnutls_cfg}).encode()).hexdigest()
    stamp = out / prefixbuild.STAMP
    built = all((lib / name).exists() for name in LIBRARIES)
    if built and stamp.exists() and stamp.read_text().strip() == want:
        return prefix
    stamp.unlink(missing_ok=True)
    logger.info(f"building {ident} from {src.name} with {nettle_src.name} in {out} "
                f"(configure + make, {jobs} jobs; once)")
    nettle_dir, gnutls_dir = out / "nettle", out / "gnutls"
    for d in (nettle_dir, gnutls_dir):
        d.mkdir(parents=True, exist_ok=True)
    # nettle is no libtool library: GnuTLS finds it through the prefix's pkg-config files and the
    # RPATH below, which libgnutls.so needs too (a RUNPATH is not inherited by a library's own needs)
    env = {**os.environ, "PKG_CONFIG_PATH": str(lib / "pkgconfig"), "LDFLAGS": f"-Wl,-rpath,{lib}"}
    prefixbuild.run(nettle_cfg, nettle_dir, f"{ident}: nettle configure", env)
    prefixbuild.run(["make", f"-j{jobs}", NO_DEBUG_INFO, "install-here"], nettle_dir, f"{ident}: nettle make", env)
    prefixbuild.run(gnutls_cfg, gnutls_dir, f"{ident}: configure", env)
    # the library needs gnulib's libgnu (gl/) first; lib/ alone is the library, its headers and gnutls.pc
    prefixbuild.run(["make", f"-j{jobs}", "-C", "gl"], gnutls_dir, f"{ident}: make -C gl", env)
    prefixbuild.run(["make", f"-j{jobs}", "-C", "lib", "install"], gnutls_dir, f"{ident}: make -C lib", env)
    stamp.write_text(want + "\n")
    return prefix


def _archive(pins: dict[str, sources.PinnedSource], lock: str, name: str) -> str:
    pin = pins.get(lock)
    return pin.sha256[pin.archive] if pin else sources.describe(name)
