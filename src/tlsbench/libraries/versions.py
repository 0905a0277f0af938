"""Library versions: one library may be present in several versions.

A library version is named everywhere (plans, flags, the store, reports,
compare) by its identifier: the bare name ("openssl") for the library's
default version, "name@label" ("openssl@3.5") for any other; the default's
own "name@label" is accepted too and means the bare name. A run stores its
libraries by the identifiers of its day and each one's exact version string
(run_libraries): a run made before a default changed (its bare "openssl" was
OpenSSL 3.0) is read by that string (stored_name), and its reports show it.

Each version is built either from the system's development package or from
a source pinned in the library's record (Library.pins, by its section).
"""

from __future__ import annotations

import re

from tlsbench.errors import PlanError
from tlsbench.libraries.record import Version
from tlsbench.libraries.registry import LIBRARIES

# Read from the library records (libraries/<name>.py): the default version of
# each library, and every version tlsbench can build, per library. A mutable
# dict, so a test may switch a default for its duration.
DEFAULTS: dict[str, str] = {lib.name: lib.default for lib in LIBRARIES}
VERSIONS: dict[str, tuple[Version, ...]] = {lib.name: lib.versions for lib in LIBRARIES}


def identifier(v: Version) -> str:
    return v.library if DEFAULTS[v.library] == v.label else f"{v.library}@{v.label}"


def all_versions() -> list[Version]:
    return [v for versions in VERSIONS.values() for v in versions]


def identifiers() -> list[str]:
    """Every library identifier: the bare names first (catalog order), then the other versions."""
    bare = list(VERSIONS)
    return bare + [identifier(v) for v in all_versions() if identifier(v) not in bare]


def built_by_default() -> list[str]:
    """The identifiers a build that names none builds: all but those built on request."""
    return [i for i in identifiers() if not version_of(i).on_request]


def of_agent(executable: str) -> str:
    """The identifier whose agent has this file name ("" when none has)."""
    return next((i for i in identifiers() if agent_name(i) == executable), "")


def base(ident: str) -> str:
    """The library of an identifier ("openssl@3.5" -> "openssl")."""
    return ident.split("@", 1)[0]


# A configuration alias ("mbedtls@a2"): the library's default version built
# with a user's own configuration (--config mbedtls@a2=PATH), measured beside
# the library as its own column. Its name after '@' starts with a letter, so
# it is never a version's label (labels are release numbers). Known once a
# --config or a stored run's record names it (register_alias).
_ALIAS_RE = re.compile(r"[a-z][a-z0-9_-]{0,23}")
ALIASES: set[str] = set()


def alias_syntax(ident: str) -> bool:
    """Whether an identifier can name a configuration alias of a library (not one of its versions)."""
    lib, sep, name = ident.partition("@")
    return (bool(sep) and lib in VERSIONS and _ALIAS_RE.fullmatch(name) is not None
            and all(v.label != name for v in VERSIONS[lib]))


def register_alias(ident: str) -> None:
    assert alias_syntax(ident), ident
    ALIASES.add(ident)


def is_alias(ident: str) -> bool:
    return ident in ALIASES


def version_of(ident: str) -> Version:
    if is_alias(ident):  # the default version, configured otherwise
        return version_of(base(ident))
    lib, _, label = ident.partition("@")
    label = label or DEFAULTS.get(lib, "")
    for v in VERSIONS.get(lib, ()):
        if v.label == label:
            return v
    raise PlanError(_unknown(ident))


def canonical(name: str) -> str:
    """The identifier a user's name selects: "openssl@3.0" -> "openssl" while
    3.0 is the default; an alias ("mbedtls@a2") is itself. Raises PlanError
    with one line listing what is allowed."""
    return name if is_alias(name) else identifier(version_of(name))


def problem(name: str) -> str:
    """Why name selects no library version ("" when it does)."""
    try:
        version_of(name)
    except PlanError as e:
        return str(e)
    return ""


def _unknown(name: str) -> str:
    lib = base(name)
    if lib in VERSIONS:
        labels = ", ".join(f"{lib}@{v.label}" + (" (default)" if v.label == DEFAULTS[lib] else "")
                           for v in VERSIONS[lib])
        return f"unknown version {name!r}; {lib} versions: {labels}"
    return f"unknown library {name!r}; allowed: {', '.join(identifiers())}"


def having(feature: str) -> list[str]:
    """The identifiers of the versions that have a feature (e.g. kind "kem")."""
    return [identifier(v) for v in all_versions() if feature in v.features]


def agent_name(ident: str) -> str:
    """The agent executable's name: tlsbench-agent-openssl, tlsbench-agent-openssl-3.5."""
    return "tlsbench-agent-" + ident.replace("@", "-")


def reports(v: Version, recorded: str) -> bool:
    """Whether a version string an agent reported ("OpenSSL 3.0.19 27 Jan 2026",
    "5.7.2") is of version v: its first dotted number is v's release or starts with it."""
    m = re.search(r"\d+\.\d+(?:\.\d+)?", recorded)
    release = v.release or v.label
    return m is not None and (m.group(0) == release or m.group(0).startswith(release + "."))


def stored_name(ident: str, recorded: dict[str, str]) -> str:
    """The name a stored run gave the version ``ident`` selects today. A run
    names its libraries by the identifiers of its day (a bare "openssl" meant
    OpenSSL 3.0 while 3.0 was the default) and records each one's version
    string (run_libraries): the string decides. recorded: name -> version
    string. "" when the run has no library of that version (its ``ident``
    reports another known version); else ident itself (e.g. a user's own tree, an alias)."""
    if alias_syntax(ident):  # an alias: named by the run's own --config, never by a default of its day
        return ident
    v = version_of(ident)
    same = [name for name, text in recorded.items() if base(name) == v.library and reports(v, text)]
    if len(same) == 1:
        return same[0]
    other = [w for w in VERSIONS[v.library] if w != v and reports(w, recorded.get(ident, ""))]
    return "" if other else ident


def system_identifier(library: str) -> str:
    """The identifier of a library's system version: what the system's own
    tools are (`openssl speed`, s_time, s_server), so a fidelity comparison
    sets like against like whichever version is the default."""
    return next(identifier(v) for v in VERSIONS[library] if v.lock == "system")
