"""Building the agents with CMake (both cores; reuses the build dir): the
host executables, or the firmware of a board cross-compiled with its
toolchain file (agent/cmake/arm-none-eabi.cmake, riscv32-unknown-elf.cmake)."""

from __future__ import annotations

import fcntl
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.errors import PlanError, SetupError
from tlsbench.libraries import registry
from tlsbench.libraries.record import Library
from tlsbench.targets import cmake_cache, firmware, gnutlsbuild, prefixbuild, sources, userconfig
from tlsbench.targets.base import Target

logger = logging.getLogger(__name__)


@contextmanager
def building(folder: Path) -> Iterator[None]:
    """Holds folder's build lock: one build at a time in a build folder across
    processes (two runs at once, parallel test workers); the kernel drops it
    when its holder dies."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with (folder.parent / f"{folder.name}.building").open("w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def build_agents(libraries: list[str] | None = None, jobs: int | None = None,
                 user: userconfig.UserBuild = userconfig.NONE) -> None:
    """The host agents of these library identifiers (default: every version
    versions.py knows but those built on request): the default versions as before, each further
    version as its own agent (tlsbench-agent-<lib>-<label>) built against its pinned tree, under
    the build folder's lock (building). user: the user's config files and compiler options,
    built in their own folder (targets.userconfig)."""
    with building(paths.build_dir("host" + userconfig.suffix(user))):
        _build_agents(libraries, jobs, user)


def _build_agents(libraries: list[str] | None, jobs: int | None, user: userconfig.UserBuild) -> None:
    """build_agents' work, its lock held."""
    try:
        idents = [versions.canonical(lib) for lib in (libraries or versions.built_by_default())]
    except PlanError as e:
        raise SetupError(str(e)) from None
    if shutil.which("cmake") is None:
        raise SetupError("cmake not found (apt-get install cmake)")
    jobs = jobs or os.cpu_count() or 2
    libs = [i for i in idents if "@" not in i]
    extra = [i for i in idents if "@" in i]
    pinned = {i: versions.version_of(i).lock for i in idents if versions.version_of(i).lock != "system"}
    # the default build (scripts/setup, CI) fetches every pinned source: a later on-request build
    # (gnutls@3.8, firmware) then needs no network; each tree's files are hashed once
    wanted = list(sources.load_lock()) if libraries is None else sorted(set(pinned.values()))
    with _trees_built_meanwhile(idents, pinned, jobs) as srcs:
        srcs.update(sources.ensure_sources([lock for lock in wanted if lock not in srcs]))
    entries = []  # CMake's TB_VERSION_AGENTS: <lib>|<label>|<dir>|<dir2>
    for ident in extra:  # each further version by its library's recipe (libraries/<name>.py: host_build)
        v = versions.version_of(ident)
        recipe = _library(v.library).host_build
        if recipe == "build-tree":
            entries.append(f"{v.library}|{v.label}|{'|'.join(_openssl_trees(ident, srcs, pinned, jobs))}")
        elif recipe == "prefix":  # e.g. a pinned GnuTLS and its nettle, built once into their prefix
            prefix = gnutlsbuild.build_gnutls(ident, srcs[pinned[ident]], jobs)
            entries.append(f"{v.library}|{v.label}|{prefix}|-")
        else:
            entries.append(f"{v.library}|{v.label}|{srcs[pinned[ident]]}|-")
    build = paths.build_dir("host" + userconfig.suffix(user))
    build.mkdir(parents=True, exist_ok=True)
    userconfig.check(user, build, {}, ["cc"], firmware=False)
    configure = [
        "cmake", "-S", str(paths.root() / "agent"), "-B", str(build),
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DTB_LIBRARIES={';'.join(libs)}",
        f"-DTB_VERSION_AGENTS={';'.join(entries)}",
        *userconfig.cmake_defines(user, build, {}),
    ]
    if shutil.which("ninja") and not (build / "Makefile").exists():
        configure += ["-G", "Ninja"]
    for lib in libs:
        if _library(lib).host_build == "build-tree":  # the system's, or a pinned one built into build/libs
            build_tree, source_tree = _openssl_trees(lib, srcs, pinned, jobs)
            configure += [f"-DTB_{lib.upper()}_BUILD_DIR={build_tree}", f"-DTB_{lib.upper()}_SOURCE_DIR={source_tree}"]
        elif lib in pinned:
            configure.append(f"-DTB_{lib.upper()}_SOURCE_DIR={srcs[pinned[lib]]}")
    logger.info(f"configuring agents ({', '.join(idents)}) in {build}")
    cmake_cache.drop_if_moved(build, paths.root() / "agent")  # the checkout moved since
    _run(configure, "cmake configure")
    logger.info(f"building agents with {jobs} jobs")
    try:
        _run(["cmake", "--build", str(build), "--parallel", str(jobs)], "cmake build")
    except SetupError as e:
        if not user:
            raise
        raise SetupError(userconfig.first_error(user, build, str(e))) from None


def ensure_host_agents(target: Target, libraries: list[str]) -> None:
    """Builds the host agents of a user's build (their own folder) when one of them is missing."""
    missing = [lib for lib in libraries if not target.agent_path(lib).exists()]
    if missing:
        logger.info(f"host agents for your build ({', '.join(missing)}) missing: building them in {target.build_dir()}")
        own = [lib for lib in libraries if lib not in target.user.aliases]
        # this folder's agents all at once when one is missing (as before); an alias alone when only it is
        build_host_agents(target, [*(own if set(own) & set(missing) else []),
                                   *(a for a in missing if a in target.user.aliases)])


def build_host_agents(target: Target, libraries: list[str] | None, jobs: int | None = None) -> None:
    """The host agents of a target's user build: the libraries in its folder; each configuration alias
    ("mbedtls@a2") as its library in the alias's own folder (keyed by its config), linked into this folder
    under the alias's agent name, where a run's processes find every agent (AGENT_DIR_ENV)."""
    aliases = [a for a in target.user.aliases if libraries is None or a in libraries]
    own = None if libraries is None else [lib for lib in libraries if lib not in target.user.aliases]
    if own is None or own or not aliases:
        build_agents(own, jobs=jobs, user=target.user)
    for alias in aliases:
        image, library = target.image_of(alias)
        logger.info(f"{alias}: {library} with {image.user.configs[0].flag().split('=', 1)[1]}, in {image.build_dir()}")
        build_agents([library], jobs=jobs, user=image.user)
        link = target.build_dir() / versions.agent_name(alias)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.unlink(missing_ok=True)  # relative: the checkout may move
        link.symlink_to(os.path.relpath(image.build_dir() / versions.agent_name(library), link.parent))


def _library(name: str) -> Library:
    lib = registry.get(name)
    assert lib is not None, name  # identifiers were checked by versions.canonical
    return lib


@contextmanager
def _trees_built_meanwhile(idents: list[str], pinned: dict[str, str], jobs: int) -> Iterator[dict[str, Path]]:
    """Fetches the sources of the pinned build-tree libraries (OpenSSL) and builds them in a thread
    while the block fetches and unpacks the other sources (OpenSSL's Configure and the unpacking
    each keep one core busy); yields lock section -> tree so far; a failed build is raised after it."""
    trees = [i for i in idents if i in pinned and _library(versions.version_of(i).library).host_build == "build-tree"]
    own = sources.ensure_sources(sorted({pinned[i] for i in trees}))  # first: one download at a time
    with ThreadPoolExecutor(max_workers=1) as pool:
        done = [pool.submit(prefixbuild.build_openssl, i, own[pinned[i]], jobs) for i in trees]
        yield own
        for future in done:
            future.result()


def _openssl_trees(ident: str, srcs: dict[str, Path], pinned: dict[str, str], jobs: int) -> tuple[str, str]:
    """The "build-tree" recipe (OpenSSL's own Configure and make): a version's (build
    tree, source tree) for CMake, ("system", "-") for the system's, else its pinned
    source built once into build/libs."""
    if ident not in pinned:
        return "system", "-"
    src = srcs[pinned[ident]]
    return str(prefixbuild.build_openssl(ident, src, jobs)), str(src)


OPT_LEVELS = {"Os": "MinSizeRel", "O2": "RelWithDebInfo", "O3": "Release"}
# Firmware libraries: the embedded ones (each library's record says; OpenSSL and GnuTLS are the PC side).
FIRMWARE_LIBRARIES = registry.firmware()
# Firmware libraries built only when named (--libraries, a plan's
# libraries), so a default firmware build builds what it always did.
FIRMWARE_ON_REQUEST = registry.firmware_on_request()


def build_firmware(target: Target, libraries: list[str] | None = None, opt: str = "Os",
                   jobs: int | None = None, size_probes: bool | tuple[str, ...] = False) -> list[str]:
    """Cross-compiles the firmware agents of target's board (under its build
    folder's lock); returns the libraries built (the selftest double is always
    built too). size_probes: the per-primitive size probes too (agent/sizeprobe;
    tlsbench sizes): True every one, or these probes' names (each library's empty probe too)."""
    with building(target.cmake_dir()):
        return _build_firmware(target, libraries, opt, jobs, size_probes)


def _build_firmware(target: Target, libraries: list[str] | None, opt: str,
                    jobs: int | None, size_probes: bool | tuple[str, ...]) -> list[str]:
    """build_firmware's work, its lock held."""
    board = target.board
    assert board is not None
    libs = firmware_identifiers(libraries if libraries is not None or not target.user.aliases
                                else target.user.with_aliases(list(FIRMWARE_LIBRARIES)))
    built = []
    for alias in [lib for lib in libs if lib in target.user.aliases]:  # each in its own build (keyed by its config)
        image, library = target.image_of(alias)
        logger.info(f"{alias}: {library} with {image.user.configs[0].flag().split('=', 1)[1]}, in {image.build_dir()}")
        built += [alias for _ in build_firmware(image, [library], opt, jobs, size_probes)]
    libs = [lib for lib in libs if lib not in target.user.aliases]
    if not libs and built:
        return built
    build = configure_firmware(target, libs, opt, size_probes)
    jobs = jobs or os.cpu_count() or 2
    logger.info(f"building firmware with {jobs} jobs")
    # one image at a time: an image too big for the board is a finding ("does
    # not fit", with the bytes), not a failed build of the others
    for lib in ["selftest", *libs]:
        exe = versions.agent_name(lib)
        marker = build / f"{exe}.does-not-fit"
        marker.unlink(missing_ok=True)
        try:
            _run(["cmake", "--build", str(build), "--parallel", str(jobs), "--target", exe],
                 f"cmake build (firmware {lib})")
        except SetupError as e:
            overflow = overflows(str(e))
            if not overflow and target.user:  # the user's config or flags: the compiler's first error, one line
                raise SetupError(userconfig.first_error(target.user, build, str(e))) from None
            if not overflow:
                raise
            marker.write_text(f"does not fit {board.name}: {overflow}")
            logger.info(f"{lib}: does not fit {board.name}: {overflow}")
            firmware.write_stamp(target, lib, opt)  # a finding from these inputs: not built again for them
            continue
        firmware.write_stamp(target, lib, opt)
        if lib != "selftest":
            built.append(lib)
    if size_probes:  # every probe image asked for; one too big for the board is simply absent (said by sizes)
        keep_going = ["-k", "0"] if (build / "build.ninja").exists() else ["-k"]
        chosen = _probe_targets(build, size_probes)
        try:
            _run(["cmake", "--build", str(build), "--parallel", str(jobs), *chosen, "--", *keep_going],
                 "cmake build (size probes)")
        except SetupError as e:
            # only images too big for the board may be missing: any compile error is an error
            if not overflows(str(e)) or _compile_errors(str(e)):
                raise
    return built


def configure_firmware(target: Target, libs: list[str], opt: str = "Os",
                       size_probes: bool | tuple[str, ...] = False) -> Path:
    """Configures (CMake) the firmware build of these library identifiers in
    target's build folder, each further version its own image; returns the folder."""
    board = target.board
    assert board is not None
    bad = [lib for lib in libs if not is_firmware_library(lib)]
    if bad:
        allowed = ", ".join(FIRMWARE_LIBRARIES + FIRMWARE_ON_REQUEST)
        raise SetupError(f"{bad[0]!r} has no firmware build; firmware libraries: {allowed}")
    if opt not in OPT_LEVELS:
        raise SetupError(f"unknown optimisation level {opt!r}; one of: {', '.join(OPT_LEVELS)}")
    chain = board.toolchain
    for tool in ("cmake", f"{chain.prefix}gcc"):
        if shutil.which(tool) is None:
            raise SetupError(f"{tool} not found (apt-get install cmake {chain.packages})")
    defaults = [lib for lib in libs if "@" not in lib]
    extra = [lib for lib in libs if "@" in lib]
    locks = {lib: versions.version_of(lib).lock for lib in libs}
    srcs = sources.ensure_sources(sorted(set(locks.values())))
    entries = [f"{versions.base(lib)}|{versions.version_of(lib).label}|{srcs[locks[lib]]}|-" for lib in extra]
    build = target.cmake_dir()
    build.mkdir(parents=True, exist_ok=True)
    agent_dir = paths.root() / "agent"
    configure = [
        "cmake", "-S", str(agent_dir), "-B", str(build),
        f"-DCMAKE_TOOLCHAIN_FILE={agent_dir / 'cmake' / chain.cmake_file}",
        f"-DCMAKE_BUILD_TYPE={OPT_LEVELS[opt]}", f"-DTB_CPU={board.cpu}", f"-DTB_PLATFORM={board.platform}",
        f"-DTB_MACHINE={board.name}", f"-DTB_LIBRARIES={';'.join(defaults)}",
        f"-DTB_VERSION_AGENTS={';'.join(entries)}",
        f"-DTB_SIZE_PROBES={'ON' if size_probes else 'OFF'}", f"-DTB_ONE_SIDE={'ON' if target.one_side else 'OFF'}",
    ]
    if shutil.which("ninja") and not (build / "Makefile").exists():
        configure += ["-G", "Ninja"]
    for lib in defaults:
        configure.append(f"-DTB_{lib.upper()}_SOURCE_DIR={srcs[locks[lib]]}")
    for lib, profile in target.profiles:
        configure.append(f"-DTB_{lib.upper()}_PROFILE={profile}")
    if target.user:  # the user's config files (checked first) and compiler options
        userconfig.check(target.user, build, dict(target.profiles), user_compiler(target), firmware=True)
        configure += userconfig.cmake_defines(target.user, build, dict(target.profiles))
    lean = ", one-side image" if target.one_side else ""
    logger.info(f"configuring firmware for {target.name} ({board.cpu}, -{opt}{lean}; "
                f"{', '.join(libs) or 'selftest only'})")
    cmake_cache.drop_if_moved(build, agent_dir)  # the checkout moved since
    _run(configure, "cmake configure (firmware)")
    return build


def user_compiler(target: Target) -> list[str]:
    """The compiler (and its core options) that builds the target's images, to ask what a configuration defines."""
    board = target.board
    if board is None:
        return ["cc"]
    return [f"{board.toolchain.prefix}gcc", *(["-mthumb", f"-mcpu={board.cpu}"] if board.arch == "arm" else [])]


def turned_off(target: Target) -> dict[str, set[str]]:
    """What the user's configurations of the target turned off, per library and per alias (none without them)."""
    if not target.user.configs:
        return {}
    out = _turned_off_here(target)
    for alias in target.user.aliases:  # each from its own build
        image, library = target.image_of(alias)
        out[alias] = _turned_off_here(image).get(library, set())
    return out


def _turned_off_here(target: Target) -> dict[str, set[str]]:
    return userconfig.turned_off(target.user, target.build_dir() if target.board is None else target.cmake_dir(),
                                 dict(target.profiles), user_compiler(target), target.board is not None)


def firmware_identifiers(libraries: list[str] | None) -> list[str]:
    """The library identifiers a firmware build names (default: each firmware
    library's default version); a further version (wolfssl@5.9) is its own
    image beside the default one. An unknown version is one line listing the allowed."""
    libs = list(FIRMWARE_LIBRARIES if libraries is None else libraries)
    try:
        return [versions.canonical(lib) if versions.base(lib) in FIRMWARE_LIBRARIES else lib for lib in libs]
    except PlanError as e:
        raise SetupError(str(e)) from None


def firmware_versions() -> list[str]:
    """Every library identifier with a firmware build: the defaults, then the further versions."""
    return [*FIRMWARE_LIBRARIES, *(i for i in versions.identifiers()
                                   if "@" in i and versions.base(i) in FIRMWARE_LIBRARIES)]


def _probe_targets(build: Path, probes: bool | tuple[str, ...]) -> list[str]:
    """cmake --build's --target options for these probes (none: build everything)."""
    if probes is True:
        return []
    wanted = {"empty", *probes}
    manifest = (build / "sizeprobes.txt").read_text().split("\n")  # sizeprobe.cmake: "<library> <probe> <exe>"
    exes = [line.split()[2] for line in manifest if line.strip() and line.split()[1] in wanted]
    return [arg for exe in exes for arg in ("--target", exe)]


def is_firmware_library(ident: str) -> bool:
    """Whether a library identifier (any version) has a firmware build."""
    return ident in FIRMWARE_ON_REQUEST or (versions.base(ident) in FIRMWARE_LIBRARIES and not versions.problem(ident))


def _compile_errors(text: str) -> str:
    """Compiler/assembler errors in a build log excerpt (linker overflows aside)."""
    return "\n".join(line for line in text.splitlines()
                     if ("error:" in line.lower() or "Error:" in line) and "ld returned" not in line
                     and "collect2" not in line and "overflowed" not in line)


def overflows(text: str) -> str:
    """Why an image does not fit, from the linker's output: its "region `RAM'
    overflowed by N bytes" lines and the board scripts' own assertions
    (e.g. "less than 1 KiB of RAM left for the heap"), summarised."""
    found = re.findall(r"region `([A-Za-z0-9_]+)' overflowed by (\d+) bytes", text)
    out = [f"{region} short by {int(n):,} bytes" for region, n in dict(found).items()]
    out += sorted(set(re.findall(r"ld: (less than [^\n]*? left for the heap)", text)))
    return ", ".join(out)


def _run(cmd: list[str], what: str) -> None:
    """Runs a build step, its output appended to the build log; a failure
    names the step and quotes this step's own output (the linker's overflow
    lines first: they say by how much an image misses its board)."""
    log_dir = paths.data_dir() / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    log_file = log_dir / "build.log"
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    with log_file.open("a") as f:
        f.write("$ " + " ".join(cmd) + "\n" + proc.stdout)
    if proc.returncode != 0:
        lines = proc.stdout.strip().splitlines()
        overflow = [line for line in lines if "overflowed by" in line or "left for the heap" in line]
        first = [line for line in lines if " error: " in line][:1]  # the compiler's first error, however long the log
        raise SetupError(f"{what} failed (full log: {log_file}):\n" + "\n".join(overflow + first + lines[-15:]))
