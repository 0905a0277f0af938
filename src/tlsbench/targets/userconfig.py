"""The user's own library configuration and compiler options (--config, --cflags).

Each library's own mechanism, not a third one: Mbed TLS takes the user's
file as MBEDTLS_USER_CONFIG_FILE over our base configuration and the build
profile (or, with ``full:``, as the whole MBEDTLS_CONFIG_FILE); wolfSSL
reads its user_settings.h, where the user's file is included last (after
our base and profile, so it may #undef what it turns off), or, with
``full:``, instead of ours. What the harness itself needs is one table
(each library record's config_mechanism, libraries/configs.py), checked by asking the compiler what the configuration
defines (``-dM -E``) before anything is built.

A build with user inputs lives in its own folder, named by the hash of
those inputs (the config files' bytes, the flags), so two configurations
coexist and nothing built from other bytes is reused; a build without
them keeps its folder and bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tlsbench import paths, versions
from tlsbench.errors import PlanError, SetupError
from tlsbench.libraries import registry
from tlsbench.libraries.configs import ConfigMechanism, Layering, WriteFile
from tlsbench.targets import sources

# Each library's mechanism is its record's (libraries/<name>.py: config_mechanism, libraries/configs.py).
MECHANISMS: dict[str, ConfigMechanism] = {lib.name: lib.config_mechanism for lib in registry.LIBRARIES
                                          if lib.config_mechanism is not None}


@dataclass(frozen=True)
class UserConfig:
    """One library's configuration file, as read when the run started."""
    library: str  # "mbedtls", "wolfssl", or an alias measured beside it ("mbedtls@a2")
    path: Path
    text: str
    full: bool  # replaces our base configuration instead of layering over it

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def is_alias(self) -> bool:
        return "@" in self.library

    def flag(self) -> str:
        return f"{self.library}={'full:' if self.full else ''}{self.path}"


@dataclass(frozen=True)
class UserBuild:
    """Everything of the user's that goes into an image besides our own sources.
    A config of an alias ("mbedtls@a2") is built apart (for_alias): the library's
    own images here take the configs of the libraries themselves (own)."""
    configs: tuple[UserConfig, ...] = ()
    cflags: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.configs or self.cflags)

    def of(self, library: str) -> UserConfig | None:
        """The config a library identifier's image is built with (an alias's own; a version's: its library's)."""
        return (next((c for c in self.configs if c.library == library), None) if library in self.aliases
                else next((c for c in self.own if c.library == versions.base(library)), None))

    @property
    def own(self) -> tuple[UserConfig, ...]:
        """The configs of the libraries themselves (not of their aliases)."""
        return tuple(c for c in self.configs if not c.is_alias)

    @property
    def builds_here(self) -> bool:
        """Whether the libraries' own images differ from ours (an alias alone leaves them ours)."""
        return bool(self.own or self.cflags)

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(c.library for c in self.configs if c.is_alias)

    def for_alias(self, alias: str) -> UserBuild:
        """The build of an alias's image: this build with the alias's file as its library's (the other
        libraries' files and the compiler options as they are), so the same inputs share one folder."""
        c = next(c for c in self.configs if c.library == alias)
        others = tuple(o for o in self.own if o.library != versions.base(alias))
        mine = UserConfig(versions.base(alias), c.path, c.text, c.full)
        return UserBuild(tuple(sorted((*others, mine), key=lambda x: x.library)), self.cflags)

    def with_aliases(self, libraries: list[str]) -> list[str]:
        """A plan's libraries with each configured alias measured right after its library (when the plan
        has that library and not the alias); an alias the configs do not name is refused."""
        unknown = [lib for lib in libraries if versions.is_alias(lib) and lib not in self.aliases]
        if unknown:
            raise PlanError(f"{unknown[0]} is an alias of {versions.base(unknown[0])} with its own configuration:"
                            f" give it with --config {unknown[0]}=PATH")
        out = list(libraries)
        for alias in self.aliases:
            if alias not in out and versions.base(alias) in out:
                out.insert(out.index(versions.base(alias)) + 1, alias)
        return out

    def record(self) -> dict[str, object]:
        """What a run stores: each file's text and SHA-256, the flags."""
        return {"configs": {c.library: {"path": str(c.path), "full": c.full, "sha256": c.sha256, "text": c.text}
                            for c in self.configs},
                "cflags": list(self.cflags)}


NONE = UserBuild()


def parse_config(items: list[str] | None) -> tuple[UserConfig, ...]:
    """--config LIB=[full:]PATH (repeatable) -> the files, read now."""
    out: dict[str, UserConfig] = {}
    for item in items or []:
        lib, sep, rest = item.partition("=")
        if not sep or not rest:
            raise PlanError(f"--config expects LIBRARY=PATH or LIBRARY=full:PATH, e.g. mbedtls=./my_config.h"
                            f" (got {item!r})")
        if versions.base(lib) not in MECHANISMS:
            raise PlanError(f"--config {item}: {lib!r} takes no configuration file; allowed: {', '.join(MECHANISMS)}")
        if "@" in lib and not versions.alias_syntax(lib):
            raise PlanError(f"--config {item}: {lib!r} is no alias: after '@' a name of lower-case letters, digits,"
                            " '_' or '-' starting with a letter (at most 24), not a version (a config applies to"
                            " every version of its library)")
        if lib in out:
            raise PlanError(f"--config {item}: {lib} has a configuration already ({out[lib].flag()});"
                            " one per library")
        full = rest.startswith("full:")
        path = Path(rest.removeprefix("full:")).expanduser().resolve()
        wrong_name = MECHANISMS[versions.base(lib)].full_name_problem(path) if full else None
        if wrong_name:
            raise PlanError(f"--config {item}: {wrong_name}")
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise PlanError(f"--config {item}: cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
        out[lib] = UserConfig(lib, path, text, full)
    for lib in out:
        if "@" in lib:
            versions.register_alias(lib)  # a library identifier from now on: plans, the store and reports name it
    return tuple(sorted(out.values(), key=lambda c: c.library))


def parse_cflags(text: str | None) -> tuple[str, ...]:
    """--cflags "-O2 -flto" -> an argument list (shell-like quoting, never a shell)."""
    if not text:
        return ()
    try:
        flags = shlex.split(text)
    except ValueError as e:
        raise PlanError(f"--cflags {text!r}: {e}") from None
    bad = [f for f in flags if ";" in f or not f.startswith("-")]
    if bad:
        raise PlanError(f"--cflags {text!r}: {bad[0]!r} is not a compiler option (each starts with '-',"
                        " none holds ';')")
    return tuple(flags)


def parse(config: list[str] | None, cflags: str | None) -> UserBuild:
    return UserBuild(parse_config(config), parse_cflags(cflags))


def from_record(record: dict | None) -> UserBuild:
    """The UserBuild a run stored (its files' text, not today's files)."""
    if not record:
        return NONE
    configs = tuple(UserConfig(lib, Path(c["path"]), c["text"], bool(c["full"]))
                    for lib, c in sorted(record.get("configs", {}).items()))
    for c in configs:
        if c.is_alias and versions.alias_syntax(c.library):
            versions.register_alias(c.library)
    return UserBuild(configs, tuple(record.get("cflags", ())))


def digest(user: UserBuild) -> str:
    """The hash of the user's inputs (files' bytes, flags), the key of their build folder (an alias's
    file is not: it goes into its own build, UserBuild.for_alias)."""
    data = json.dumps({"configs": [[c.library, c.full, c.sha256] for c in user.own],
                       "cflags": list(user.cflags)}, sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def suffix(user: UserBuild) -> str:
    """What a build folder's name gets for these inputs ("" for none: today's folders)."""
    return f"-user-{digest(user)[:12]}" if user.builds_here else ""


def _write_if_changed(path: Path, text: str) -> Path:
    """A generated file, rewritten only when its text changes (an unchanged one triggers no rebuild)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def staged(build: Path, config: UserConfig) -> Path:
    """The copy of the user's file the build compiles, at a fixed name in the
    build folder: the image and the compiler cache do not depend on where the
    user keeps it (a file that includes others names them by full path)."""
    library = versions.base(config.library)
    name = MECHANISMS[library].staged_name(library, config.full)
    return _write_if_changed(build / "userconfig" / library / name, config.text)


def _generated(build: Path, library: str) -> WriteFile:
    """Where a mechanism writes the headers it generates for a build (beside the staged copy)."""
    return WriteFile(build / "userconfig" / library, _write_if_changed)


def _profile(library: str, profiles: dict[str, str]) -> str:
    record = registry.get(library)
    return profiles.get(library) or (record.default_profile if record and record.default_profile else "default")


def cmake_defines(user: UserBuild, build: Path, profiles: dict[str, str]) -> list[str]:
    """The CMake -D options of these inputs (none for a build without them)."""
    out = [f"-DTB_USER_CFLAGS={';'.join(user.cflags)}"] if user.cflags else []
    for c in user.own:  # an alias's config: its own build (UserBuild.for_alias)
        adapter = paths.root() / "agent" / "adapters" / c.library
        profile_header = adapter / "profiles" / f"{_profile(c.library, profiles)}.h"
        copy = MECHANISMS[c.library].build_file(staged(build, c), c.full, profile_header, _generated(build, c.library))
        out.append(f"-DTB_{c.library.upper()}_USER_CONFIG={copy}")
        out.append(f"-DTB_{c.library.upper()}_USER_CONFIG_FULL={'ON' if c.full else 'OFF'}")
        out.append(f"-DTB_{c.library.upper()}_USER_CONFIG_SHA256={c.sha256}")
    return out


def first_error(user: UserBuild, build: Path, build_log: str) -> str:
    """A failed build of a user's configuration in one line: the compiler's
    first error, naming the user's file where the build read its copy."""
    lines = build_log.splitlines()
    # the compiler's or the linker's own words before collect2's summary ("ld returned 1 exit status")
    line = next((x for x in lines if "error:" in x and "collect2" not in x), None) \
        or next((x for x in lines if "undefined reference" in x), None) \
        or next((x for x in lines if "error" in x), None) or (lines[-1] if lines else "")
    line = line.strip()
    for c in user.configs:
        line = line.replace(str(staged(build, c)), str(c.path))
    flags = ", ".join([*(f"--config {c.flag()}" for c in user.configs),
                       *([f"--cflags {' '.join(user.cflags)!r}"] if user.cflags else [])])
    return f"your build ({flags}) does not compile: {line}"


def _preprocessor_args(config: UserConfig, tree: Path, build: Path, profiles: dict[str, str],
                       firmware: bool, ours: bool = False) -> list[str]:
    """The include paths and defines with which the library's build sees this
    configuration (ours: the build without it, to tell what it turned off)."""
    library = versions.base(config.library)
    where = Layering(paths.root() / "agent" / "adapters" / library, tree, _profile(library, profiles), firmware)
    return MECHANISMS[library].preprocessor_args(where, None if ours else config.path, config.full,
                                                 _generated(build, library))


def defined_macros(compiler: list[str], args: list[str], header: str) -> dict[str, str]:
    """What a configuration defines, asked of the compiler (-dM -E), never read by regex from the text.
    A configuration that does not preprocess raises SetupError with the compiler's first error."""
    cmd = [*compiler, "-E", "-dM", "-x", "c", *args, "-"]
    try:
        proc = subprocess.run(cmd, input=f"#include <{header}>\n", capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SetupError(f"{compiler[0]} does not run ({e})") from None
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if "error" in line]
        raise SetupError((errors or proc.stderr.strip().splitlines() or ["(no message)"])[0])
    out = {}
    for line in proc.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) >= 2 and parts[0] == "#define":
            out[parts[1].split("(")[0]] = parts[2] if len(parts) == 3 else ""
    return out


def problems(library: str, macros: dict[str, str], firmware: bool) -> list[str]:
    """What of the harness's needs a configuration lacks: one line each."""
    out = []
    for need in MECHANISMS[library].needs:
        if need.firmware_only and not firmware:
            continue
        if need.define not in macros:
            out.append(f"{need.define} is off; tlsbench needs it for {need.why}")
        elif need.value is not None and macros[need.define].strip() != need.value:
            out.append(f"{need.define} is {macros[need.define].strip()}; tlsbench needs {need.value} for {need.why}")
    return out


def check(user: UserBuild, build: Path, profiles: dict[str, str], compiler: list[str], firmware: bool) -> None:
    """Refuses, before anything is built, a configuration that does not
    preprocess or lacks what the harness needs: one line naming the file
    (an alias's file: when its own build is checked)."""
    for c in user.own:
        lock = versions.version_of(c.library).lock
        tree = sources.ensure_sources([lock])[lock]
        args = _preprocessor_args(c, tree, build, profiles, firmware)
        try:
            macros = defined_macros(compiler, args, MECHANISMS[c.library].header)
        except SetupError as e:
            raise SetupError(f"--config {c.flag()} does not compile: {e}") from None
        found = problems(c.library, macros, firmware)
        if found:
            raise SetupError(f"--config {c.flag()}: {found[0]}")


def turned_off(user: UserBuild, build: Path, profiles: dict[str, str], compiler: list[str],
               firmware: bool) -> dict[str, set[str]]:
    """library -> the defines its user's configuration turned off against ours
    ("!NAME" for a NO_ define it turned on), asked of the compiler (an alias's:
    of its own build's user, UserBuild.for_alias)."""
    out = {}
    for c in user.own:
        lock = versions.version_of(c.library).lock
        tree = sources.ensure_sources([lock])[lock]
        header = MECHANISMS[c.library].header
        theirs = defined_macros(compiler, _preprocessor_args(c, tree, build, profiles, firmware), header)
        ours = defined_macros(compiler, _preprocessor_args(c, tree, build, profiles, firmware, ours=True), header)
        out[c.library] = {d for d in ours if d not in theirs} | {f"!{d}" for d in theirs if d not in ours}
    return out


def unsupported_reason(library: str, case_name: str, off: dict[str, set[str]], reason: str) -> str:
    """An unsupported case's reason, naming the define the user's configuration turned off when one is why
    (off: per library, or per alias, whose own configuration it is)."""
    mine = off.get(library, off.get(versions.base(library), set()))
    mechanism = MECHANISMS.get(versions.base(library))
    for pattern, define in mechanism.case_needs if mechanism else ():
        if define in mine and re.search(pattern, case_name):
            state = f"{define[1:]} is on" if define.startswith("!") else f"{define} is off"
            return f"{state} in your config ({reason})"
    return reason


def help_text() -> str:
    return ("; ".join(f"{lib}: {m.layered}" for lib, m in MECHANISMS.items())
            + "; LIB@NAME=PATH (e.g. mbedtls@a2=b.h): a second configuration measured beside LIB as its own"
              " library, in its own image")
