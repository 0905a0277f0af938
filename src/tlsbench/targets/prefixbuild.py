"""Building a pinned OpenSSL into its own tree under build/libs (and the
build folder and logged build steps the other pinned prefixes share).

A version of OpenSSL other than the system's (versions.py) is built from its
pinned source (its record's pins) out of tree, in build/libs/openssl-<label>:
only the shared libraries (no apps, docs or tests), which the agent links
with an RPATH, so the system's libcrypto is never replaced and never loaded
by that agent. make's targets are the two .so files, not build_libs: that
also builds libcrypto.a and libssl.a, whose objects OpenSSL compiles a
second time (932 of 3.5.7's 2,093 objects), for archives nothing links. A
stamp records the source archive and the
Configure arguments; the same inputs are not built again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import subprocess
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.errors import SetupError
from tlsbench.targets import sources

logger = logging.getLogger(__name__)

STAMP = ".tlsbench-built"
# Configure arguments besides the prefix: what the agent needs and nothing more
OPENSSL_OPTIONS = ("no-docs", "no-tests", "no-apps", "shared")
SHARED_LIBRARIES = ("libcrypto.so", "libssl.so")


def build_dir(ident: str) -> Path:
    """build/libs/openssl-3.5: named by the version, whichever is the default."""
    v = versions.version_of(ident)
    return paths.root() / "build" / "libs" / f"{v.library}-{v.label}"


def build_openssl(ident: str, src: Path, jobs: int) -> Path:
    """The build tree of OpenSSL ``ident`` (e.g. "openssl@3.5"), built when
    missing or made from other inputs; returns it (libcrypto.so, libssl.so,
    include/ with the generated headers)."""
    out = build_dir(ident)
    pin = sources.load_lock().get(versions.version_of(ident).lock)
    archive = pin.sha256[pin.archive] if pin else sources.describe(ident)
    configure = [str(src / "Configure"), f"--prefix={out / 'prefix'}", "--libdir=lib", *OPENSSL_OPTIONS]
    want = hashlib.sha256(json.dumps({"archive": archive, "configure": configure}).encode()).hexdigest()
    stamp = out / STAMP
    built = all((out / name).exists() for name in SHARED_LIBRARIES)
    if built and stamp.exists() and stamp.read_text().strip() == want:
        return out
    out.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    logger.info(f"building {ident} from {src.name} in {out} "
                f"(Configure + make {' '.join(SHARED_LIBRARIES)}, {jobs} jobs; once)")
    run(configure, out, f"{ident}: Configure")
    run(["make", f"-j{jobs}", "build_generated"], out, f"{ident}: make build_generated")
    run(["make", f"-j{jobs}", *SHARED_LIBRARIES], out, f"{ident}: make {' '.join(SHARED_LIBRARIES)}")
    stamp.write_text(want + "\n")
    return out


def run(cmd: list[str], cwd: Path, what: str, env: dict[str, str] | None = None) -> None:
    """Runs a build step, its output appended to the build log; a failure names the step."""
    log_file = paths.data_dir() / "logs" / "build.log"
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        proc = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, env=env)
    if proc.returncode != 0:
        raise SetupError(f"{what} failed (exit {proc.returncode}; full log: {log_file})")
