"""Building the host agents with CMake (both cores; reuses the build dir)."""

from __future__ import annotations

import os
import shutil
import subprocess

from . import paths, sources
from .catalog import LIBRARIES
from .errors import SetupError


def build_agents(libraries: list[str] | None = None, jobs: int | None = None, log=print) -> None:
    libs = list(libraries or LIBRARIES)
    unknown = [lib for lib in libs if lib not in LIBRARIES]
    if unknown:
        raise SetupError(f"unknown library {unknown[0]!r}; known: {', '.join(LIBRARIES)}")
    if shutil.which("cmake") is None:
        raise SetupError("cmake not found (apt-get install cmake)")
    srcs = sources.ensure_sources([lib for lib in libs if lib in ("mbedtls", "wolfssl")])
    build = paths.build_dir("host")
    build.mkdir(parents=True, exist_ok=True)
    configure = [
        "cmake", "-S", str(paths.root() / "agent"), "-B", str(build),
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DTB_LIBRARIES={';'.join(libs)}",
    ]
    if shutil.which("ninja") and not (build / "Makefile").exists():
        configure += ["-G", "Ninja"]
    for lib, src in srcs.items():
        configure.append(f"-DTB_{lib.upper()}_SOURCE_DIR={src}")
    log(f"configuring agents ({', '.join(libs)}) in {build}")
    _run(configure, "cmake configure")
    jobs = jobs or os.cpu_count() or 2
    log(f"building agents with {jobs} jobs")
    _run(["cmake", "--build", str(build), "--parallel", str(jobs)], "cmake build")


def _run(cmd: list[str], what: str) -> None:
    log_dir = paths.data_dir() / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    log_file = log_dir / "build.log"
    with log_file.open("a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        proc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        tail = log_file.read_text().strip().splitlines()[-15:]
        raise SetupError(f"{what} failed (full log: {log_file}):\n" + "\n".join(tail))
